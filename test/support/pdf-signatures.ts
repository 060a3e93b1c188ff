/**
 * Signed PDFs read back by other tools than the ones that signed them: poppler's pdfsig against an
 * NSS database trusting the test root, OpenSSL (cms -verify, ts -verify, ocsp) on the CMS and the
 * timestamp tokens, qpdf's JSON for the catalog's /DSS and the fields. The only in-house parsing is
 * the byte range and an asn1js walk that locates (never checks) the signature value and token.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';

export function nssDbTrusting(rootPem: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'nss-'));
  execFileSync('certutil', ['-N', '-d', `sql:${dir}`, '--empty-password']);
  execFileSync('certutil', ['-A', '-d', `sql:${dir}`, '-n', 'test-root', '-t', 'CT,C,C', '-i', rootPem]);
  return dir;
}

let fileCounter = 0;
export function tempFile(dir: string, bytes: Buffer | string): string {
  const path = join(dir, `f-${process.pid}-${++fileCounter}`);
  writeFileSync(path, bytes);
  return path;
}

export interface PdfsigSignature {
  field: string;
  text: string;
  signed: boolean;
}

/**
 * pdfsig's report, split per signature field. Asynchronous: NSS asks the certificates' OCSP
 * responder, which the test PKI serves from this very process.
 */
export async function pdfsig(pdf: Buffer, nssDir: string, work: string): Promise<PdfsigSignature[]> {
  const file = tempFile(work, pdf);
  // pdfsig exits non-zero when a signature is invalid; its report is still on stdout.
  const out = await new Promise<string>((resolve) =>
    execFile('pdfsig', ['-nssdir', `sql:${nssDir}`, file], { timeout: 30_000 }, (_e, stdout) =>
      resolve(String(stdout)),
    ),
  );
  return out
    .split(/^Signature #\d+:\n/m)
    .slice(1)
    .map((text) => ({
      field: /Signature Field Name: (.*)/.exec(text)?.[1] ?? '',
      text,
      signed: !text.includes('is not signed'),
    }));
}

export interface SignatureInPdf {
  byteRange: [number, number, number, number];
  /** /Contents' DER, the zero padding cut off. */
  contents: Buffer;
  /** The bytes the byte range covers. */
  signedBytes: Buffer;
}

/** Every filled signature (/ByteRange with numbers) of the file, in file order. */
export function signaturesIn(pdf: Buffer): SignatureInPdf[] {
  const text = pdf.toString('latin1');
  const found: SignatureInPdf[] = [];
  for (const m of text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)) {
    const br = m.slice(1, 5).map(Number) as [number, number, number, number];
    const hex = text.slice(br[1] + 1, br[2] - 1);
    const raw = Buffer.from(hex, 'hex');
    const parsed = asn1js.fromBER(new Uint8Array(raw));
    const length = parsed.offset;
    found.push({
      byteRange: br,
      contents: raw.subarray(0, length),
      signedBytes: Buffer.concat([pdf.subarray(br[0], br[0] + br[1]), pdf.subarray(br[2], br[2] + br[3])]),
    });
  }
  return found;
}

/** `openssl cms -cmsout -print` of a CMS. */
export function cmsPrint(der: Buffer, work: string): string {
  return execFileSync('openssl', [
    'cms',
    '-cmsout',
    '-print',
    '-inform',
    'DER',
    '-in',
    tempFile(work, der),
  ]).toString();
}

/** `openssl cms -verify` of the detached CMS over the signed bytes, chain to `rootPem`. */
export function cmsVerify(sig: SignatureInPdf, rootPem: string, work: string): string {
  return (
    execFileSync(
      'openssl',
      [
        'cms',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        tempFile(work, sig.contents),
        '-content',
        tempFile(work, sig.signedBytes),
        '-CAfile',
        rootPem,
        '-purpose',
        'any',
        '-out',
        '/dev/null',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    ).toString() + 'ok'
  );
}

/**
 * The signer's signature value and its signature-time-stamp token, located by walking the DER
 * (ContentInfo → SignedData → signerInfos[0]); the checks on them are OpenSSL's.
 */
export function signatureValueAndToken(cms: Buffer): { signatureValue: Buffer; token?: Buffer } {
  const ci = asn1js.fromBER(new Uint8Array(cms)).result as asn1js.Sequence;
  const signedData = (ci.valueBlock.value[1] as asn1js.Constructed).valueBlock.value[0] as asn1js.Sequence;
  const parts = signedData.valueBlock.value;
  const signerInfos = parts[parts.length - 1] as asn1js.Set;
  const si = (signerInfos.valueBlock.value[0] as asn1js.Sequence).valueBlock.value;
  const signatureValue = Buffer.from(
    (si.find((b) => b instanceof asn1js.OctetString) as asn1js.OctetString).valueBlock.valueHexView,
  );
  const unsigned = si.find((b) => b.idBlock.tagClass === 3 && b.idBlock.tagNumber === 1) as
    asn1js.Constructed | undefined;
  let token: Buffer | undefined;
  for (const attr of unsigned?.valueBlock.value ?? []) {
    const [oid, values] = (attr as asn1js.Sequence).valueBlock.value;
    if ((oid as asn1js.ObjectIdentifier).valueBlock.toString() === '1.2.840.113549.1.9.16.2.14') {
      token = Buffer.from((values as asn1js.Set).valueBlock.value[0].toBER(false));
    }
  }
  return { signatureValue, token };
}

/** `openssl ts -verify` of a token against a SHA-256 digest (hex) or data: throws unless "Verification: OK". */
export function tsVerify(
  token: Buffer,
  against: { digest: Buffer } | { data: Buffer },
  rootPem: string,
  untrustedPem: string,
  work: string,
): string {
  const what =
    'digest' in against
      ? ['-digest', against.digest.toString('hex')]
      : ['-data', tempFile(work, against.data)];
  return execFileSync(
    'openssl',
    [
      'ts',
      '-verify',
      ...what,
      '-in',
      tempFile(work, token),
      '-token_in',
      '-CAfile',
      rootPem,
      '-untrusted',
      untrustedPem,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  ).toString();
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();

type QpdfValue = string | number | boolean | null | QpdfValue[] | { [k: string]: QpdfValue };

/** qpdf's JSON (v2) of every object, and a resolver of "N 0 R". */
export function qpdfObjects(pdf: Buffer, work: string) {
  const json = JSON.parse(
    execFileSync('qpdf', ['--json=2', '--json-key=qpdf', tempFile(work, pdf)], {
      maxBuffer: 1 << 28,
    }).toString(),
  );
  const objects = (
    json.qpdf as Array<Record<string, { value?: QpdfValue; stream?: { dict: QpdfValue } }>>
  )[1];
  const resolve = (v: QpdfValue | undefined): QpdfValue | undefined => {
    if (typeof v === 'string' && /^\d+ \d+ R$/.test(v)) {
      const o = objects[`obj:${v}`];
      return o?.value ?? o?.stream?.dict;
    }
    return v;
  };
  const trailer = objects.trailer.value as Record<string, QpdfValue>;
  const catalog = resolve(trailer['/Root']) as Record<string, QpdfValue>;
  return { objects, resolve, catalog };
}

/** The decoded data of a stream object ("N 0 R"). */
export function streamData(pdf: Buffer, ref: string, work: string): Buffer {
  return execFileSync(
    'qpdf',
    [
      `--show-object=${ref.replace(/ R$/, '').replace(' ', ',')}`,
      '--filtered-stream-data',
      tempFile(work, pdf),
    ],
    {
      maxBuffer: 1 << 26,
    },
  );
}
