/**
 * PAdES signing (libs/signing, docs/signing.md, issue 37) against a local test PKI on loopback
 * (test/support/test-pki.ts): the corpus invoice and contract converted by the real LibreOffice
 * pool, and a Factur-X invoice made by the finishing step, signed at each level and verified by
 * tools that did not sign them: poppler's pdfsig with the test root trusted in NSS, OpenSSL (CMS
 * with its signing-certificate-v2 check, timestamp imprints, OCSP responses) and qpdf.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { httpStatusOf, TypedError } from '@app/contracts';
import { finishPdf, LibreOfficePool, parsePdfOptions } from '@app/converters';
import { renderDocx } from '@app/engine';
import {
  loadSigningProfiles,
  SigningCertificateInvalidError,
  SigningProfileError,
  SigningServiceFailedError,
  signPdf,
  type PadesLevel,
  type SigningProfile,
} from '@app/signing';
import { corpusRequest, corpusTemplate } from '../bench/corpus';
import { pdfAttachments, pdfXmp, qpdfCheck, qpdfEncrypt } from './support/pdf-inspect';
import {
  cmsPrint,
  cmsVerify,
  nssDbTrusting,
  pdfsig,
  qpdfObjects,
  sha256,
  signaturesIn,
  signatureValueAndToken,
  streamData,
  tempFile,
  tsVerify,
} from './support/pdf-signatures';
import { startTestPki, type TestPki } from './support/test-pki';

jest.setTimeout(120_000);

const FX_XML = readFileSync(join(__dirname, 'fixtures/facturx/en16931-invoice.xml'));
const LEVELS: PadesLevel[] = ['B-B', 'B-T', 'B-LT', 'B-LTA'];

let pki: TestPki;
let nss: string;
let work: string;
let intRootPem: string;
let profile: SigningProfile;
const docs: Record<'invoice' | 'contract' | 'facturx', Buffer> = {} as never;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'signing-e2e-'));
  const pool = new LibreOfficePool({ instances: 1 });
  const [started] = await Promise.all([startTestPki(), pool.start()]);
  pki = started;
  // As the worker makes them: Factur-X asks the converter for PDF/A-3b, then the finishing step.
  const facturx = parsePdfOptions({ facturx: { xml: FX_XML.toString('base64'), profile: 'EN 16931' } });
  try {
    const invoiceDocx = renderDocx(corpusTemplate('invoice'), corpusRequest('invoice'));
    docs.invoice = await pool.convert(invoiceDocx);
    docs.contract = await pool.convert(
      renderDocx(corpusTemplate('contract'), corpusRequest('contract', { rows: 4 })),
    );
    docs.facturx = await finishPdf(await pool.convert(invoiceDocx, { pdf: facturx }), facturx);
  } finally {
    await pool.close();
  }
  nss = nssDbTrusting(pki.rootPem);
  intRootPem = join(pki.dir, 'int-root.pem');
  const profiles = await loadSigningProfiles({
    env: {
      SIGNING_PROFILE_COMPANY_P12: pki.p12,
      SIGNING_PROFILE_COMPANY_PASSWORD_FILE: pki.passwordFile,
      SIGNING_PROFILE_COMPANY_TSA_URL: pki.tsaUrl,
    },
  });
  profile = profiles.get('company')!;
});

afterAll(async () => {
  await pki?.close();
  for (const dir of [work, nss]) if (dir) rmSync(dir, { recursive: true, force: true });
});

async function expectValidCades(pdf: Buffer, field?: string) {
  const sigs = await pdfsig(pdf, nss, work);
  const sig = field ? sigs.find((s) => s.field === field)! : sigs[0];
  expect(sig.text).toContain('Signature Validation: Signature is Valid.');
  expect(sig.text).toContain('Certificate Validation: Certificate is Trusted.');
  expect(sig.text).toContain('Signature Type: ETSI.CAdES.detached');
  expect(sig.text).toContain('Signer Certificate Common Name: Ada Lovelace (Test Signer)');
  return sigs;
}

describe.each(['invoice', 'contract', 'facturx'] as const)('%s', (doc) => {
  it.each(LEVELS)('signed at %s: pdfsig, OpenSSL and qpdf agree', async (level) => {
    const pdf = await signPdf(docs[doc], profile, { level, reason: 'Approved', location: 'Lyon' });
    // An incremental update: the original bytes are untouched.
    expect(pdf.subarray(0, docs[doc].length).equals(docs[doc])).toBe(true);
    const sigs = await expectValidCades(pdf);
    expect(qpdfCheck(pdf)).toContain('No syntax or stream encoding errors');

    const [cades, ...rest] = signaturesIn(pdf);
    // The signature covers the whole file as it was at B-B/B-T.
    expect(cades.byteRange[0]).toBe(0);
    expect(cmsVerify(cades, pki.rootPem, work)).toContain('ok'); // checks signing-certificate-v2's hash too
    const printed = cmsPrint(cades.contents, work);
    expect(printed).toContain('id-smime-aa-signingCertificateV2');
    // PAdES: the time is /M's, not a signed attribute (the timestamp token's own attributes may hold one).
    expect(printed.split('unsignedAttrs')[0]).not.toContain('signingTime');

    const { signatureValue, token } = signatureValueAndToken(cades.contents);
    if (level === 'B-B') {
      expect(token).toBeUndefined();
    } else {
      expect(token).toBeDefined();
      // The token's imprint is the hash of the signature value, and it chains to the test root.
      expect(tsVerify(token!, { digest: sha256(signatureValue) }, pki.rootPem, intRootPem, work)).toContain(
        'Verification: OK',
      );
      expect(() =>
        tsVerify(token!, { digest: sha256(Buffer.from('other')) }, pki.rootPem, intRootPem, work),
      ).toThrow();
    }

    const { catalog, resolve } = qpdfObjects(pdf, work);
    const dss = resolve(catalog['/DSS']) as Record<string, string[]> | undefined;
    if (level === 'B-LT' || level === 'B-LTA') {
      expect(dss).toBeDefined();
      // signer, intermediate, root and the TSA's certificate
      expect(dss!['/Certs'].length).toBe(4);
      // OCSP for the signer and the intermediate (their AIA); a CRL for the TSA's (it has no AIA).
      expect(dss!['/OCSPs'].length).toBe(2);
      expect(dss!['/CRLs'].length).toBe(1);
      for (const ref of dss!['/OCSPs']) {
        const text = execFileSync(
          'openssl',
          [
            'ocsp',
            '-respin',
            tempFile(work, streamData(pdf, ref, work)),
            '-resp_text',
            '-CAfile',
            pki.rootPem,
            '-verify_other',
            intRootPem,
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        ).toString();
        expect(text).toContain('OCSP Response Status: successful');
        expect(text).toContain('Cert Status: good');
      }
      const crl = execFileSync('openssl', [
        'crl',
        '-inform',
        'DER',
        '-in',
        tempFile(work, streamData(pdf, dss!['/CRLs'][0], work)),
        '-noout',
        '-issuer',
      ]).toString();
      expect(crl).toContain('Test Intermediate CA');
    } else {
      expect(dss).toBeUndefined();
    }

    if (level === 'B-LTA') {
      expect(rest).toHaveLength(1);
      const docTs = rest[0];
      // Over the whole file up to itself, DSS included.
      expect(docTs.byteRange[2] + docTs.byteRange[3]).toBe(pdf.length);
      expect(tsVerify(docTs.contents, { data: docTs.signedBytes }, pki.rootPem, intRootPem, work)).toContain(
        'Verification: OK',
      );
      const stamp = sigs.find((s) => s.field.startsWith('DocTimeStamp'))!;
      expect(stamp.text).toContain('Signer Certificate Common Name: Test TSA');
      const text = pdf.toString('latin1');
      expect(text).toMatch(/\/Type \/DocTimeStamp/);
      expect(text).toMatch(/\/SubFilter \/ETSI\.RFC3161/);
    } else {
      expect(rest).toHaveLength(0);
    }

    if (doc === 'facturx') {
      const xmp = pdfXmp(pdf);
      expect(xmp).toMatch(/<pdfaid:part>3<\/pdfaid:part>/);
      expect(xmp).toMatch(/<pdfaid:conformance>B<\/pdfaid:conformance>/);
      expect(pdfAttachments(pdf).get('factur-x.xml')!.equals(FX_XML)).toBe(true);
      expect(catalog['/OutputIntents']).toBeDefined();
    }
  });
});

it('signs visibly at the place, with an image, and leaves the other places as empty signature fields', async () => {
  const png = new PNG({ width: 40, height: 20 });
  png.data.fill(0x80);
  const image = PNG.sync.write(png);
  const seller: [number, number, number, number] = [300, 100, 470, 171];
  const pdf = await signPdf(docs.facturx, profile, {
    level: 'B-T',
    reason: 'Approved',
    visible: { name: 'seller', page: 1, rect: seller, image },
    emptyFields: [
      { name: 'buyer', page: 1, rect: [60, 100, 230, 171] },
      { name: 'witness', page: 1, rect: [60, 20, 230, 80] },
    ],
  });
  const sigs = await expectValidCades(pdf, 'seller');
  expect(sigs.map((s) => [s.field, s.signed])).toEqual([
    ['seller', true],
    ['buyer', false],
    ['witness', false],
  ]);
  const { objects, resolve, catalog } = qpdfObjects(pdf, work);
  const widgets = Object.values(objects)
    .map((o) => o.value as Record<string, unknown> | undefined)
    .filter((v) => v?.['/FT'] === '/Sig');
  const byName = new Map(widgets.map((w) => [String(w!['/T']).replace(/^u:/, ''), w!]));
  expect(byName.get('seller')!['/Rect']).toEqual(seller);
  expect(byName.get('buyer')!['/V']).toBeUndefined();
  // Print flag on every widget (PDF/A), an appearance on every widget with an area.
  for (const w of byName.values()) {
    expect(Number(w['/F']) & 4).toBe(4);
    expect(resolve((w['/AP'] as Record<string, never>)['/N'])).toBeDefined();
  }
  const ap = resolve((byName.get('seller')!['/AP'] as Record<string, never>)['/N']) as Record<
    string,
    Record<string, unknown>
  >;
  expect(Object.keys(resolve(ap['/Resources']['/XObject'] as never) as object)).toEqual(['/Im1']);
  expect(Number((resolve(catalog['/AcroForm']) as Record<string, unknown>)['/SigFlags'])).toBe(3);
  // The appearance shows the signer's name and the reason (pdftotext reads the widget's stream).
  const text = execFileSync('pdftotext', ['-f', '1', '-l', '1', tempFile(work, pdf), '-']).toString();
  expect(text).toContain('Ada Lovelace');
  expect(text).toContain('Reason: Approved');
  expect(qpdfCheck(pdf)).toContain('No syntax or stream encoding errors');
  expect(pdfXmp(pdf)).toMatch(/<pdfaid:part>3<\/pdfaid:part>/);
});

it('a byte changed inside the signed range makes pdfsig report the signature invalid', async () => {
  const pdf = await signPdf(docs.invoice, profile, { level: 'B-B' });
  const [sig] = signaturesIn(pdf);
  const tampered = Buffer.from(pdf);
  const at = Math.floor(sig.byteRange[1] / 2);
  tampered[at] = tampered[at] === 0x20 ? 0x21 : 0x20;
  const [report] = await pdfsig(tampered, nss, work);
  expect(report.text).not.toContain('Signature is Valid.');
  expect(report.text).toMatch(/Signature Validation: (Digest Mismatch|Signature is Invalid)/);
});

it('an expired certificate: 422 signing_certificate_invalid, before any authority is asked', async () => {
  const expired = (
    await loadSigningProfiles({
      env: {
        SIGNING_PROFILE_OLD_KEY: pki.expiredKeyPem,
        SIGNING_PROFILE_OLD_CHAIN: pki.expiredChainPem,
        SIGNING_PROFILE_OLD_TSA_URL: pki.tsaUrl,
      },
    })
  ).get('old')!;
  const asked = pki.tsaRequests;
  const e = await signPdf(docs.invoice, expired, { level: 'B-T' }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(SigningCertificateInvalidError);
  expect(httpStatusOf((e as TypedError).errorType)).toBe(422);
  expect((e as Error).message).toMatch(/"old" is expired/);
  expect(pki.tsaRequests).toBe(asked);
  // And one not yet valid, by the request's clock.
  const early = await signPdf(docs.invoice, profile, { level: 'B-B', now: new Date('2001-01-01') }).catch(
    (x: unknown) => x,
  );
  expect((early as TypedError).errorType).toBe('signing_certificate_invalid');
  expect((early as Error).message).toContain('not yet valid');
});

describe('the time-stamping authority fails', () => {
  let hanging: Server;
  let hangingUrl: string;
  beforeAll(async () => {
    hanging = createServer(() => undefined); // accepts and never answers
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/tsa`;
  });
  afterAll(async () => {
    hanging.closeAllConnections();
    await new Promise<void>((r) => hanging.close(() => r()));
  });

  const expect502 = (e: unknown, reason: string) => {
    expect(e).toBeInstanceOf(SigningServiceFailedError);
    const typed = e as SigningServiceFailedError;
    expect(httpStatusOf(typed.errorType)).toBe(502);
    expect(typed.errorType).toBe('signing_service_failed');
    expect(typed.details).toMatchObject({ service: 'tsa', reason, retryable: true });
  };

  it('answers 500: a typed, retryable 502', async () => {
    pki.tsaDown = true;
    try {
      expect502(
        await signPdf(docs.invoice, profile, { level: 'B-T' }).catch((x: unknown) => x),
        'http_status',
      );
    } finally {
      pki.tsaDown = false;
    }
  });

  it('does not answer: 502 after the request timeout, not the job timeout', async () => {
    const slow = { ...profile, tsaUrl: hangingUrl, requestTimeoutMs: 300 };
    const started = Date.now();
    expect502(await signPdf(docs.invoice, slow, { level: 'B-T' }).catch((x: unknown) => x), 'timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('is unreachable: 502', async () => {
    const gone = { ...profile, tsaUrl: 'http://127.0.0.1:1/tsa' };
    expect502(await signPdf(docs.invoice, gone, { level: 'B-LTA' }).catch((x: unknown) => x), 'unreachable');
  });
});

it('an OCSP responder that cannot be reached at B-LT: 502 signing_service_failed for ocsp', async () => {
  const gone = { ...profile, ocspUrl: 'http://127.0.0.1:1/ocsp' };
  const e = (await signPdf(docs.invoice, gone, { level: 'B-LT' }).catch((x: unknown) => x)) as TypedError;
  expect(e).toBeInstanceOf(SigningServiceFailedError);
  expect(httpStatusOf(e.errorType)).toBe(502);
  expect(e.details).toMatchObject({ service: 'ocsp', reason: 'unreachable', retryable: true });
});

it('a damaged or encrypted PDF: 422 invalid_pdf_input, never a crash', async () => {
  const truncated = docs.invoice.subarray(0, Math.floor(docs.invoice.length / 2));
  const garbage = Buffer.concat([
    docs.invoice.subarray(0, 2000),
    Buffer.alloc(3000, 0x41),
    Buffer.from('\nstartxref\n999999\n%%EOF\n'),
  ]);
  const encrypted = qpdfEncrypt(docs.invoice, 'user-pass', 'owner-pass');
  for (const pdf of [truncated, garbage, encrypted]) {
    const e = (await signPdf(pdf, profile, { level: 'B-B' }).catch((x: unknown) => x)) as TypedError;
    expect(e).toBeInstanceOf(TypedError);
    expect(e.errorType).toBe('invalid_pdf_input');
    expect(httpStatusOf(e.errorType)).toBe(422);
  }
});

describe('profiles', () => {
  it('PEM key and chain sign the same as PKCS#12', async () => {
    const pem = (
      await loadSigningProfiles({
        env: { SIGNING_PROFILE_PEM_KEY: pki.keyPem, SIGNING_PROFILE_PEM_CHAIN: pki.chainPem },
      })
    ).get('pem')!;
    expect(pem.chain.map((c) => c.toString('hex'))).toEqual(profile.chain.map((c) => c.toString('hex')));
    await expectValidCades(await signPdf(docs.contract, pem, {}));
  });

  it('a wrong password names the profile and never prints the password', async () => {
    const wrong = tempFile(work, `${pki.password}-wrong\n`);
    const e = await loadSigningProfiles({
      env: { SIGNING_PROFILE_ACME_P12: pki.p12, SIGNING_PROFILE_ACME_PASSWORD_FILE: wrong },
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SigningProfileError);
    expect((e as Error).message).toContain('"acme"');
    expect((e as Error).message).not.toContain(pki.password);
  });

  it('a worker with a profile it cannot load exits non-zero, naming the profile, never the password', async () => {
    const wrong = `${pki.password}-wrong`;
    const passwordFile = tempFile(work, `${wrong}\n`);
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', join(__dirname, '../apps/worker/src/main.ts')],
        {
          cwd: join(__dirname, '..'),
          timeout: 60_000,
          // No Redis is needed: the profiles are loaded before anything connects.
          env: {
            ...process.env,
            SIGNING_PROFILE_ACME_P12: pki.p12,
            SIGNING_PROFILE_ACME_PASSWORD_FILE: passwordFile,
          },
        },
        (error, stdout, stderr) =>
          resolve({
            code: error ? ((error as { code?: number }).code ?? null) : 0,
            output: `${stdout}${stderr}`,
          }),
      );
    });
    expect(result.code).toBe(1);
    expect(result.output).toContain('signing profile "acme" cannot be loaded');
    expect(result.output).not.toContain(wrong);
    expect(result.output).not.toContain(pki.password);
  });
});
