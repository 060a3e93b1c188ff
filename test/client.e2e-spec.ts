/**
 * The typed client (clients/typescript, docs/client.md) against the real service: Redis, one
 * worker with LibreOffice and the API. A synchronous render from a path, a job from a Blob and its
 * result, a batch, lint and inspect from a Buffer, and a typed 400 as a ServiceError.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DocumentServiceClient, ServiceError, type ErrorType } from '@docx-pdf/client';
import {
  buildService,
  ManagedProcess,
  pdfText,
  RedisServer,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';

jest.setTimeout(120_000);

const EXAMPLES = join(__dirname, '..', 'examples');
const INVOICE = join(EXAMPLES, 'invoice.docx');
const invoice = JSON.parse(readFileSync(join(EXAMPLES, 'invoice-request.json'), 'utf8')) as {
  template_data: Record<string, unknown> & { customer: { name: string } };
  images: Record<string, { data: string }>;
};

let redis: RedisServer;
let worker: ManagedProcess;
let api: RunningApi;
let client: DocumentServiceClient;

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, { RESULT_TTL_S: '600' });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
  client = new DocumentServiceClient({ baseUrl: api.url });
});

afterAll(async () => {
  await stopAll(api, worker, redis);
});

const flat = (text: string) => text.replace(/\s+/g, ' ');

it('serves the OpenAPI document the client was generated from', async () => {
  const served = (await (await fetch(`${api.url}/docs-json`)).json()) as unknown;
  const committed = JSON.parse(
    readFileSync(join(__dirname, '..', 'clients/typescript/openapi.json'), 'utf8'),
  ) as unknown;
  expect(served).toEqual(committed);
});

it('renders a template given by its path, synchronously', async () => {
  const pdf = await client.renderDocument({
    template: INVOICE,
    data: invoice.template_data,
    images: invoice.images,
  });
  expect(pdf.contentType).toBe('application/pdf');
  expect(pdf.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  const text = flat(pdfText(pdf.body));
  expect(text).toContain('Müller & Söhne GmbH');
  expect(text).toContain('626.50');
});

it('submits a job from a Blob and fetches its result', async () => {
  const template = new Blob([readFileSync(INVOICE)]);
  const data = { ...invoice.template_data, customer: { name: 'Café Zoë', address: 'Rue 1' } };
  const accepted = await client.submitJob({ template, data, images: invoice.images });
  expect(accepted).toMatchObject({ status: 'queued', job_id: expect.any(String) });
  const status = await client.waitForJob(accepted.job_id, { intervalMs: 100, timeoutMs: 60_000 });
  expect(status.status).toBe('completed');
  const result = await client.getResult(accepted.job_id);
  expect(result.contentType).toBe('application/pdf');
  expect(flat(pdfText(result.body))).toContain('Café Zoë');
});

it('runs a batch merged into one PDF, items in order', async () => {
  const names = ['First Customer Ltd', 'Second Customer Ltd'];
  const accepted = await client.submitJob({
    template: readFileSync(INVOICE),
    images: invoice.images,
    batch: names.map((name) => ({
      template_data: { ...invoice.template_data, customer: { name, address: '-' } },
    })),
    output: 'merged',
  });
  const status = await client.waitForJob(accepted.job_id, { intervalMs: 100, timeoutMs: 90_000 });
  expect(status).toMatchObject({ status: 'completed', progress: { done: 2, total: 2 } });
  const text = flat(pdfText((await client.getResult(accepted.job_id)).body));
  expect(text.indexOf(names[0])).toBeGreaterThanOrEqual(0);
  expect(text.indexOf(names[1])).toBeGreaterThan(text.indexOf(names[0]));
});

it('lints and inspects a template given as a Buffer', async () => {
  const docx = readFileSync(INVOICE);
  const report = await client.lint(docx);
  expect(report.success).toBe(true);
  const inspection = await client.inspect(docx);
  expect(JSON.stringify(inspection.skeleton)).toContain('customer');
});

it('throws the typed error body as a ServiceError', async () => {
  const error = await client
    .renderDocument({ template: Buffer.from('not a word document'), data: {} })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ServiceError);
  const typed = error as ServiceError;
  const type: ErrorType = typed.error_type;
  expect({ status: typed.status, type, body: typed.body.status }).toEqual({
    status: 400,
    type: 'invalid_template',
    body: 'error',
  });
  expect(typed.requestId).toMatch(/\S/);
  // A job that does not exist: 404 job_not_found, typed the same way.
  await expect(client.getJob('no-such-job')).rejects.toMatchObject({
    status: 404,
    error_type: 'job_not_found',
  });
});
