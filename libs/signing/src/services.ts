/**
 * The operator's signing services over HTTP: the RFC 3161 time-stamping authority, OCSP responders
 * (RFC 6960) and CRL distribution points, with pkijs for the requests and answers. Their URLs come
 * from the operator's profiles and certificates, never from callers, so the private-address check
 * of callers' URLs does not apply (docs/signing.md). Every failure is a typed, retried 502.
 */
import { randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { SigningServiceFailedError } from './errors';

/** When the whole signing must be done, and how long one request may take. */
export interface ServiceDeadline {
  at: number;
  requestTimeoutMs: number;
}

const SHA256 = '2.16.840.1.101.3.4.2.1';
const ab = (b: Buffer | Uint8Array): ArrayBuffer =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/** The URL without user information or query (a token in it stays out of errors and logs). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(unparsable URL)';
  }
}

async function exchange(
  service: 'tsa' | 'ocsp' | 'crl',
  url: string,
  deadline: ServiceDeadline,
  init: { body?: Buffer; contentType?: string },
): Promise<Buffer> {
  const timeout = Math.min(deadline.requestTimeoutMs, deadline.at - Date.now());
  const where = redactUrl(url);
  if (timeout <= 0)
    throw new SigningServiceFailedError(`Signing ran out of time before asking ${where}`, { service });
  let response: Response;
  try {
    response = await fetch(url, {
      method: init.body ? 'POST' : 'GET',
      headers: init.contentType ? { 'content-type': init.contentType } : undefined,
      body: init.body,
      signal: AbortSignal.timeout(timeout),
      redirect: 'error',
    });
  } catch (e) {
    const timedOut = (e as Error).name === 'TimeoutError';
    throw new SigningServiceFailedError(
      timedOut
        ? `${service.toUpperCase()} ${where} did not answer within ${timeout} ms`
        : `${service.toUpperCase()} ${where} is unreachable`,
      { service, reason: timedOut ? 'timeout' : 'unreachable' },
    );
  }
  if (!response.ok) {
    throw new SigningServiceFailedError(
      `${service.toUpperCase()} ${where} answered HTTP ${response.status}`,
      {
        service,
        reason: 'http_status',
        status: response.status,
      },
    );
  }
  return Buffer.from(await response.arrayBuffer());
}

function unusable(service: 'tsa' | 'ocsp' | 'crl', url: string, what: string): SigningServiceFailedError {
  return new SigningServiceFailedError(`${service.toUpperCase()} ${redactUrl(url)} answered ${what}`, {
    service,
    reason: 'bad_answer',
  });
}

/** The TSTInfo a token carries (its signed content). */
export function tstInfoOf(token: pkijs.ContentInfo): pkijs.TSTInfo {
  const signed = new pkijs.SignedData({ schema: token.content });
  const eContent = signed.encapContentInfo.eContent;
  if (!eContent) throw new Error('timestamp token without TSTInfo');
  return pkijs.TSTInfo.fromBER(eContent.getValue());
}

/**
 * Eight random bytes that are a minimal DER INTEGER as they stand: the first byte is 0x40..0x7f, so
 * it is positive and never a padding zero. OpenSSL's TSA rejects a request whose nonce starts with a
 * 0x00 the next byte does not need ("Bad request format", 1 request in 256 before this).
 */
export function timestampNonce(): Buffer {
  const nonce = randomBytes(8);
  nonce[0] = (nonce[0] & 0x3f) | 0x40;
  return nonce;
}

/** An RFC 3161 timestamp token over the SHA-256 `imprint`, checked to answer this request. */
export async function requestTimestamp(
  url: string,
  imprint: Buffer,
  deadline: ServiceDeadline,
): Promise<pkijs.ContentInfo> {
  const nonce = timestampNonce();
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: ab(imprint) }),
    }),
    nonce: new asn1js.Integer({ valueHex: ab(nonce) }),
    certReq: true,
  });
  const body = Buffer.from(request.toSchema().toBER(false));
  const answer = await exchange('tsa', url, deadline, { body, contentType: 'application/timestamp-query' });
  let token: pkijs.ContentInfo | undefined;
  try {
    const response = pkijs.TimeStampResp.fromBER(ab(answer));
    if (response.status.status > 1) {
      const says = (response.status.statusStrings ?? []).map((t) => t.valueBlock.value).join('; ');
      throw unusable(
        'tsa',
        url,
        `status ${response.status.status} (refused${says ? `: ${says.slice(0, 200)}` : ''})`,
      );
    }
    token = response.timeStampToken;
    if (!token) throw unusable('tsa', url, 'no token');
    const info = tstInfoOf(token);
    if (!Buffer.from(info.messageImprint.hashedMessage.getValue()).equals(imprint)) {
      throw unusable('tsa', url, 'a token for another imprint');
    }
    if (!info.nonce || !Buffer.from(info.nonce.valueBlock.valueHexView).equals(nonce)) {
      throw unusable('tsa', url, 'a token with another nonce');
    }
  } catch (e) {
    throw e instanceof SigningServiceFailedError
      ? e
      : unusable('tsa', url, 'something that is no timestamp response');
  }
  return token;
}

function accessUrls(cert: pkijs.Certificate, extension: string): string[] {
  const ext = cert.extensions?.find((e) => e.extnID === extension);
  if (!ext?.parsedValue) return [];
  const names: pkijs.GeneralName[] = [];
  if (ext.parsedValue instanceof pkijs.InfoAccess) {
    for (const d of ext.parsedValue.accessDescriptions) {
      if (d.accessMethod === '1.3.6.1.5.5.7.48.1') names.push(d.accessLocation);
    }
  } else if (ext.parsedValue instanceof pkijs.CRLDistributionPoints) {
    for (const p of ext.parsedValue.distributionPoints) {
      if (Array.isArray(p.distributionPoint)) names.push(...p.distributionPoint);
    }
  }
  return names.filter((n) => n.type === 6 && /^https?:/i.test(String(n.value))).map((n) => String(n.value));
}

export const ocspUrlsOf = (cert: pkijs.Certificate) => accessUrls(cert, '1.3.6.1.5.5.7.1.1');
export const crlUrlsOf = (cert: pkijs.Certificate) => accessUrls(cert, '2.5.29.31');

/** The issuer's certificate among `pool` (by name; the chain is the operator's and small). */
export function issuerOf(cert: pkijs.Certificate, pool: pkijs.Certificate[]): pkijs.Certificate | undefined {
  const selfSigned = cert.issuer.isEqual(cert.subject);
  return selfSigned ? undefined : pool.find((c) => c.subject.isEqual(cert.issuer));
}

export type RevocationStatus = 'good' | 'revoked' | 'unknown';

/** A full OCSPResponse (DER, as /DSS /OCSPs holds it) for `cert`, and the status it gives. */
export async function fetchOcsp(
  url: string,
  cert: pkijs.Certificate,
  issuer: pkijs.Certificate,
  deadline: ServiceDeadline,
): Promise<{ der: Buffer; status: RevocationStatus }> {
  const request = new pkijs.OCSPRequest();
  await request.createForCertificate(cert, { hashAlgorithm: 'SHA-1', issuerCertificate: issuer });
  const body = Buffer.from(request.toSchema(true).toBER(false));
  const der = await exchange('ocsp', url, deadline, { body, contentType: 'application/ocsp-request' });
  try {
    const response = pkijs.OCSPResponse.fromBER(ab(der));
    if (response.responseStatus.valueBlock.valueDec !== 0 || !response.responseBytes) {
      throw unusable('ocsp', url, `status ${response.responseStatus.valueBlock.valueDec}`);
    }
    const basic = pkijs.BasicOCSPResponse.fromBER(
      ab(Buffer.from(response.responseBytes.response.getValue())),
    );
    const single = basic.tbsResponseData.responses.find((r) =>
      Buffer.from(r.certID.serialNumber.valueBlock.valueHexView).equals(
        Buffer.from(cert.serialNumber.valueBlock.valueHexView),
      ),
    );
    if (!single) throw unusable('ocsp', url, 'no status for the certificate asked about');
    const tag = (single.certStatus as asn1js.BaseBlock).idBlock.tagNumber;
    return { der, status: tag === 0 ? 'good' : tag === 1 ? 'revoked' : 'unknown' };
  } catch (e) {
    throw e instanceof SigningServiceFailedError
      ? e
      : unusable('ocsp', url, 'something that is no OCSP response');
  }
}

/** A CRL (DER), checked to parse and to be issued by `issuer`'s name. */
export async function fetchCrl(
  url: string,
  issuer: pkijs.Certificate,
  deadline: ServiceDeadline,
): Promise<Buffer> {
  let der = await exchange('crl', url, deadline, {});
  // Some servers answer PEM.
  const text = der.subarray(0, 64).toString('latin1');
  if (text.includes('-----BEGIN X509 CRL-----')) {
    der = Buffer.from(der.toString('latin1').replace(/-----[^-]+-----|\s/g, ''), 'base64');
  }
  try {
    const crl = pkijs.CertificateRevocationList.fromBER(ab(der));
    if (!crl.issuer.isEqual(issuer.subject)) throw unusable('crl', url, 'a CRL of another issuer');
  } catch (e) {
    throw e instanceof SigningServiceFailedError ? e : unusable('crl', url, 'something that is no CRL');
  }
  return der;
}
