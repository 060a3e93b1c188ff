/**
 * The CMS of a PAdES signature (ETSI EN 319 142-1, CAdES detached), built with pkijs/asn1js:
 * signed attributes content-type, message-digest and signing-certificate-v2 (no signing-time:
 * PAdES puts the time in the signature dictionary's /M), signed with Node's crypto; for B-T the
 * RFC 3161 token over the signature value as the signature-time-stamp unsigned attribute.
 */
import { createHash, sign as cryptoSign, type KeyObject } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { requestTimestamp, type ServiceDeadline } from './services';

export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  signatureTimeStampToken: '1.2.840.113549.1.9.16.2.14',
  sha256: '2.16.840.1.101.3.4.2.1',
  sha256WithRSA: '1.2.840.113549.1.1.11',
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
} as const;

const sha256 = (data: Uint8Array | Buffer): Buffer => createHash('sha256').update(data).digest();
const ab = (b: Buffer): ArrayBuffer =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

export function parseCertificate(der: Buffer): pkijs.Certificate {
  return pkijs.Certificate.fromBER(ab(der));
}

/** ESS signing-certificate-v2 (RFC 5035): the signer certificate's SHA-256 and issuer/serial. */
function signingCertificateV2(cert: pkijs.Certificate, certDer: Buffer): pkijs.Attribute {
  const essCertIdV2 = new asn1js.Sequence({
    value: [
      // hashAlgorithm omitted: SHA-256 is its DEFAULT, and DER leaves defaults out.
      new asn1js.OctetString({ valueHex: ab(sha256(certDer)) }),
      new asn1js.Sequence({
        value: [
          new asn1js.Sequence({
            value: [
              new asn1js.Constructed({
                idBlock: { tagClass: 3, tagNumber: 4 }, // [4] directoryName, EXPLICIT (Name is a CHOICE)
                value: [cert.issuer.toSchema()],
              }),
            ],
          }),
          cert.serialNumber,
        ],
      }),
    ],
  });
  return new pkijs.Attribute({
    type: OID.signingCertificateV2,
    values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
  });
}

/** DER orders a SET OF by its members' encodings; asn1js keeps the given order, so sort here. */
function derSorted(attributes: pkijs.Attribute[]): pkijs.Attribute[] {
  return attributes
    .map((a) => ({ a, der: Buffer.from(a.toSchema().toBER(false)) }))
    .sort((x, y) => Buffer.compare(x.der, y.der))
    .map((x) => x.a);
}

function signatureAlgorithm(key: KeyObject): pkijs.AlgorithmIdentifier {
  if (key.asymmetricKeyType === 'rsa') {
    return new pkijs.AlgorithmIdentifier({
      algorithmId: OID.sha256WithRSA,
      algorithmParams: new asn1js.Null(),
    });
  }
  if (key.asymmetricKeyType === 'ec')
    return new pkijs.AlgorithmIdentifier({ algorithmId: OID.ecdsaWithSHA256 });
  throw new Error(`unsupported key type ${key.asymmetricKeyType ?? 'unknown'} (RSA or EC keys only)`);
}

export interface CadesInput {
  key: KeyObject;
  /** DER certificates, the signer's first. */
  chain: Buffer[];
  /** Set: B-T, the token requested from this authority. */
  tsa?: { url: string; deadline: ServiceDeadline };
}

export interface CadesResult {
  cms: Buffer;
  /** The signature timestamp token (B-T and above), for its certificates' revocation data. */
  timestampToken?: pkijs.ContentInfo;
}

/** The detached CAdES CMS over `signedBytes` (the PDF's ByteRange). */
export async function buildCades(signedBytes: Buffer, input: CadesInput): Promise<CadesResult> {
  const certs = input.chain.map(parseCertificate);
  const signer = certs[0];
  const signedAttrs = new pkijs.SignedAndUnsignedAttributes({
    type: 0,
    attributes: derSorted([
      new pkijs.Attribute({
        type: OID.contentType,
        values: [new asn1js.ObjectIdentifier({ value: OID.data })],
      }),
      new pkijs.Attribute({
        type: OID.messageDigest,
        values: [new asn1js.OctetString({ valueHex: ab(sha256(signedBytes)) })],
      }),
      signingCertificateV2(signer, input.chain[0]),
    ]),
  });
  // The signature covers the attributes' DER with the SET tag, not the [0] IMPLICIT of the SignerInfo.
  const toSign = Buffer.from(signedAttrs.toSchema().toBER(false));
  toSign[0] = 0x31;
  const signatureValue = cryptoSign('sha256', toSign, input.key);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }),
    digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
    signedAttrs,
    signatureAlgorithm: signatureAlgorithm(input.key),
    signature: new asn1js.OctetString({ valueHex: ab(signatureValue) }),
  });
  let timestampToken: pkijs.ContentInfo | undefined;
  if (input.tsa) {
    timestampToken = await requestTimestamp(input.tsa.url, sha256(signatureValue), input.tsa.deadline);
    signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
      type: 1,
      attributes: [
        new pkijs.Attribute({ type: OID.signatureTimeStampToken, values: [timestampToken.toSchema()] }),
      ],
    });
  }
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 })],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    certificates: certs,
    signerInfos: [signerInfo],
  });
  const contentInfo = new pkijs.ContentInfo({
    contentType: OID.signedData,
    content: signedData.toSchema(true),
  });
  return { cms: Buffer.from(contentInfo.toSchema().toBER(false)), timestampToken };
}

/** The certificates a timestamp token carries (the authority's, possibly its chain). */
export function tokenCertificates(token: pkijs.ContentInfo): Buffer[] {
  const signed = new pkijs.SignedData({ schema: token.content });
  return (signed.certificates ?? [])
    .filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate)
    .map((c) => Buffer.from(c.toSchema().toBER(false)));
}
