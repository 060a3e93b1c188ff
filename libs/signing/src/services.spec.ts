import * as asn1js from 'asn1js';
import { timestampNonce } from './services';

describe('timestampNonce', () => {
  it('is always a positive, minimally encoded DER INTEGER of eight bytes', () => {
    // The old nonce (random bytes with the top bit cleared) started with 0x00 once in 128 draws.
    for (let i = 0; i < 2048; i++) {
      const nonce = timestampNonce();
      const der = Buffer.from(new asn1js.Integer({ valueHex: new Uint8Array(nonce).buffer }).toBER(false));
      expect(der.subarray(0, 2)).toEqual(Buffer.from([0x02, 0x08]));
      expect(der[2]).toBeGreaterThanOrEqual(0x40);
      expect(der[2]).toBeLessThanOrEqual(0x7f);
    }
  });
});
