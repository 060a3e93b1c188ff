/**
 * Signed PDFs through the service (issue 37, docs/signing.md): the worker started with an
 * operator's profiles (PKCS#12 + password file, and an expired PEM signer), a test PKI on loopback
 * (time-stamping authority, OCSP, CRL), and requests through the synchronous endpoint, a job and a
 * batch. Verified by poppler's pdfsig with the test root trusted, and qpdf. The library's own
 * checks at every level (CMS attributes, timestamps, DSS) are test/signing.e2e-spec.ts's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import PizZip from 'pizzip';

import { corpusRequest, corpusTemplate } from '../bench/corpus';
import { buildDocx, p } from './support/docx-builder';
import { nssDbTrusting, pdfsig, type PdfsigSignature } from './support/pdf-signatures';
import { qpdfCheck } from './support/pdf-inspect';
import { expectNowhere, redisDump } from './support/secrets';
import { startTestPki, type TestPki } from './support/test-pki';
import {
  buildService,
  jobFinished,
  type ManagedProcess,
  pdfText,
  postRender,
  RedisServer,
  type RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';

jest.setTimeout(300_000);

let pki: TestPki;
let redis: RedisServer;
let worker: ManagedProcess;
let api: RunningApi;
let nss: string;
let work: string;

const SIGNATURE_PNG = readFileSync(join(__dirname, '../bench/fixtures/images/signature.png'));

/** A letter with two signature places: the seller's and a witness's. */
const LETTER = buildDocx([
  p('Agreement between {{ seller }} and {{ buyer }}.'),
  p("Seller: {{ signature_field('seller', width_mm=60, height_mm=25) }}"),
  p("Witness: {{ signature_field('witness', width_mm=40, height_mm=15) }}"),
]);
const LETTER_DATA = { seller: 'Müller & Söhne GmbH', buyer: 'SGE S.A.' };

beforeAll(async () => {
  buildService();
  work = mkdtempSync(join(tmpdir(), 'signing-service-'));
  [pki, redis] = await Promise.all([startTestPki(), RedisServer.start()]);
  nss = nssDbTrusting(pki.rootPem);
  const env = testEnv(redis.url, {
    QUEUE_PREFIX: '{signsvc}',
    JOB_TIMEOUT_MS: '60000',
    SIGNING_PROFILE_COMPANY_P12: pki.p12,
    SIGNING_PROFILE_COMPANY_PASSWORD_FILE: pki.passwordFile,
    SIGNING_PROFILE_COMPANY_TSA_URL: pki.tsaUrl,
    SIGNING_PROFILE_OLD_KEY: pki.expiredKeyPem,
    SIGNING_PROFILE_OLD_CHAIN: pki.expiredChainPem,
    SIGNING_REQUEST_TIMEOUT_MS: '3000',
  });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
});

afterAll(async () => {
  await stopAll(api, worker, redis);
  await pki?.close();
  for (const dir of [work, nss]) if (dir) rmSync(dir, { recursive: true, force: true });
});

async function ok(res: Response): Promise<Buffer> {
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`${res.status}: ${body.toString('utf8').slice(0, 500)}`);
  return body;
}

const invoice = (pdf: Record<string, unknown>) => ({
  file: corpusTemplate('invoice'),
  filename: 'invoice.docx',
  request_data: { ...corpusRequest('invoice'), options: { pdf } },
});

const letter = (pdf: Record<string, unknown>) => ({
  file: LETTER,
  filename: 'letter.docx',
  request_data: { template_data: LETTER_DATA, options: { pdf } },
});

/** pdfsig's verdict on one signature: valid, its certificate trusted, a PAdES signature. */
function expectValid(sig: PdfsigSignature | undefined): void {
  expect(sig?.signed).toBe(true);
  expect(sig!.text).toContain('Signature Validation: Signature is Valid.');
  expect(sig!.text).toContain('Certificate Validation: Certificate is Trusted.');
  expect(sig!.text).toContain('Signature Type: ETSI.CAdES.detached');
}

describe('the synchronous endpoint', () => {
  it('the invoice signed at B-T by the profile named: valid, trusted, timestamped; qpdf finds no fault', async () => {
    const before = pki.tsaRequests;
    const pdf = await ok(
      await postRender(api.url, invoice({ signature: { profile: 'company', reason: 'Invoice' } })),
    );
    const sigs = await pdfsig(pdf, nss, work);
    expect(sigs).toHaveLength(1);
    expectValid(sigs[0]);
    // B-T is the default of a profile with an authority: the authority was asked.
    expect(pki.tsaRequests).toBeGreaterThan(before);
    expect(sigs[0].text).toMatch(/Signature Timestamp|Signing Time/);
    expect(qpdfCheck(pdf)).toMatch(/No syntax or stream encoding errors/);
  });

  it("the letter signed visibly in the seller's place with a handwritten image; the witness's place left signable", async () => {
    const pdf = await ok(
      await postRender(
        api.url,
        letter({
          signature: {
            profile: 'company',
            level: 'B-B',
            reason: 'Contract',
            field: 'seller',
            appearance: { image: SIGNATURE_PNG.toString('base64') },
          },
        }),
      ),
    );
    const sigs = await pdfsig(pdf, nss, work);
    expect(sigs.map((s) => s.field).sort()).toEqual(['seller', 'witness']);
    expectValid(sigs.find((s) => s.field === 'seller'));
    expect(sigs.find((s) => s.field === 'witness')!.signed).toBe(false);
    // The appearance shows the signer and the reason; the place's marker link is gone.
    expect(pdfText(pdf)).toMatch(/Signed by Ada Lovelace/);
    expect(pdf.includes('signature-field.invalid')).toBe(false);
  });

  it('the letter unsigned: both places are empty signature fields that pdfsig lists as not signed', async () => {
    const pdf = await ok(await postRender(api.url, letter({})));
    const sigs = await pdfsig(pdf, nss, work);
    expect(sigs.map((s) => [s.field, s.signed]).sort()).toEqual([
      ['seller', false],
      ['witness', false],
    ]);
    expect(qpdfCheck(pdf)).toMatch(/No syntax or stream encoding errors/);
  });
});

describe('jobs and batches', () => {
  async function submit(form: { file: Buffer; filename: string; request_data: object }) {
    const body = new FormData();
    body.append('file', new Blob([form.file]), form.filename);
    body.append('request_data', JSON.stringify(form.request_data));
    const res = await fetch(`${api.url}/api/v1/jobs`, { method: 'POST', body });
    expect(res.status).toBe(202);
    const { job_id: id } = (await res.json()) as { job_id: string };
    const status = await jobFinished<{ status: string }>(api.url, id, 180_000);
    expect(status.status).toBe('completed');
    return ok(await fetch(`${api.url}/api/v1/jobs/${id}/result`));
  }

  it('a job: the invoice signed at B-B', async () => {
    const pdf = await submit(invoice({ signature: { profile: 'company', level: 'B-B' } }));
    const sigs = await pdfsig(pdf, nss, work);
    expect(sigs).toHaveLength(1);
    expectValid(sigs[0]);
  });

  it("a zip batch of two letters, each signed in the seller's place", async () => {
    const zip = new PizZip(
      await submit({
        file: LETTER,
        filename: 'letter.docx',
        request_data: {
          output: 'zip',
          batch: [
            { template_data: LETTER_DATA, filename: 'first' },
            { template_data: { ...LETTER_DATA, buyer: 'Ada' }, filename: 'second' },
          ],
          options: { pdf: { signature: { profile: 'company', level: 'B-B', field: 'seller' } } },
        },
      }),
    );
    expect(Object.keys(zip.files).sort()).toEqual(['first.pdf', 'second.pdf']);
    for (const name of ['first.pdf', 'second.pdf']) {
      const sigs = await pdfsig(zip.file(name)!.asNodeBuffer(), nss, work);
      expectValid(sigs.find((s) => s.field === 'seller'));
    }
  });
});

describe('errors', () => {
  async function refused(res: Response) {
    return {
      status: res.status,
      body: (await res.json()) as { error_type: string; message: string; details: Record<string, unknown> },
    };
  }

  it('an unknown profile: 400 unknown_signing_profile naming it', async () => {
    const { status, body } = await refused(
      await postRender(api.url, invoice({ signature: { profile: 'sales' } })),
    );
    expect(status).toBe(400);
    expect(body.error_type).toBe('unknown_signing_profile');
    expect(body.message).toContain('"sales"');
  });

  it('a field the template does not hold: 422 naming it and the fields it holds', async () => {
    const { status, body } = await refused(
      await postRender(api.url, letter({ signature: { profile: 'company', level: 'B-B', field: 'buyer' } })),
    );
    expect(status).toBe(422);
    expect(body.error_type).toBe('signature_field_not_found');
    expect(body.details).toMatchObject({ requested: 'buyer', fields: ['seller', 'witness'] });
  });

  it('an expired certificate: 422 signing_certificate_invalid', async () => {
    const { status, body } = await refused(
      await postRender(api.url, invoice({ signature: { profile: 'old', level: 'B-B' } })),
    );
    expect(status).toBe(422);
    expect(body.error_type).toBe('signing_certificate_invalid');
  });

  it('signing with encryption: 400 naming both fields, before any work', async () => {
    const { status, body } = await refused(
      await postRender(
        api.url,
        invoice({
          signature: { profile: 'company' },
          encryption: { user_password: 'u-secret-1', owner_password: 'o-secret-1' },
        }),
      ),
    );
    expect(status).toBe(400);
    expect(body.message).toMatch(/signature/);
    expect(body.message).toMatch(/encryption/);
  });

  it('the time-stamping authority failing: 502 signing_service_failed', async () => {
    pki.tsaDown = true;
    try {
      const { status, body } = await refused(
        await postRender(api.url, invoice({ signature: { profile: 'company', level: 'B-T' } })),
      );
      expect(status).toBe(502);
      expect(body.error_type).toBe('signing_service_failed');
    } finally {
      pki.tsaDown = false;
    }
  });

  it("the profile's password is in no log line and nowhere in Redis", async () => {
    const client = redis.client();
    try {
      expectNowhere(pki.password, worker.output(), api.proc.output(), await redisDump(client));
    } finally {
      client.disconnect();
    }
  });
});
