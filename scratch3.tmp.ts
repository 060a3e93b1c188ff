import { readFileSync } from 'node:fs';
import { PDFDocument } from 'pdf-lib';
import { loadSigningProfiles, signPdf } from '@app/signing';
(async () => {
  const profiles = await loadSigningProfiles({ env: { SIGNING_PROFILE_C_KEY: '/tmp/test-pki-iWjvZp/signer.key', SIGNING_PROFILE_C_CHAIN: '/tmp/test-pki-iWjvZp/chain.pem' } });
  const inv = readFileSync('/tmp/sc/invoice.pdf');
  for (let i = 0; i < 30; i++) { let t = process.hrtime.bigint(); await PDFDocument.load(inv, { updateMetadata: false });
  const a = Number(process.hrtime.bigint() - t) / 1e6; t = process.hrtime.bigint();
  await signPdf(inv, profiles.get('c')!, { level: 'B-B' });
  console.log('load', a, 'sign', Number(process.hrtime.bigint() - t) / 1e6); }
})();
