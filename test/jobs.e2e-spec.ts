/**
 * Asynchronous jobs, batches and signed webhooks (docs/jobs.md), against a real Redis, two real
 * workers with LibreOffice, the API, and a loopback webhook receiver that verifies every
 * signature with the `standardwebhooks` package. Allowed to reach the receiver through
 * WEBHOOK_ALLOWED_HOSTS (127.0.0.1:<port> only): the same receiver named `localhost` is refused.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { Webhook } from 'standardwebhooks';
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
  jobFinished,
  waitUntil,
  workerHttpUrl,
} from './service-harness';

jest.setTimeout(240_000);

const SECRET = `whsec_${Buffer.from('a test key of thirty-two bytes!!').toString('base64')}`;
const invoiceDocx = readFileSync(join(__dirname, '..', 'examples', 'invoice.docx'));
const invoiceRequest = JSON.parse(
  readFileSync(join(__dirname, '..', 'examples', 'invoice-request.json'), 'utf8'),
) as { template_data: Record<string, unknown>; images: Record<string, unknown> };

/** Customers in several scripts, one per item. */
const NAMES = ['Müller & Söhne GmbH', 'ООО «Ромашка»', '株式会社テスト', 'Ελληνική Εταιρεία', 'Café Zoë'];
const customer = (i: number) => `${NAMES[i % NAMES.length]} #${i}`;
const item = (i: number, extra: Record<string, unknown> = {}) => ({
  template_data: {
    ...invoiceRequest.template_data,
    customer: { name: customer(i), address: `Street ${i}` },
    invoice: { number: `INV-${1000 + i}`, date: '2024-05-17' },
  },
  ...extra,
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
  verified: boolean;
}

/** A loopback receiver: refuses the first `refuse[jobId]` deliveries of a job with 503. */
class Receiver {
  readonly received: Received[] = [];
  readonly refuse = new Map<string, number>();
  private server!: Server;
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let verified: boolean;
        try {
          new Webhook(SECRET).verify(body, req.headers as Record<string, string>);
          verified = true;
        } catch {
          verified = false;
        }
        const jobId = (() => {
          try {
            return (JSON.parse(body) as { data: { job_id: string } }).data.job_id;
          } catch {
            return '';
          }
        })();
        const left = this.refuse.get(jobId) ?? 0;
        const status = !verified ? 401 : left > 0 ? 503 : 204;
        if (left > 0) this.refuse.set(jobId, left - 1);
        this.received.push({ headers: req.headers, body, status, verified });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  of(jobId: string): Received[] {
    return this.received.filter((r) => r.body.includes(`"job_id":"${jobId}"`));
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

let redis: RedisServer;
let api: RunningApi;
const workers: ManagedProcess[] = [];
const workerUrls: string[] = [];
const receiver = new Receiver();

beforeAll(async () => {
  buildService();
  await receiver.start();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, {
    QUEUE_PREFIX: '{jobs}',
    WEBHOOK_SECRET: SECRET,
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
    WEBHOOK_BACKOFF_MS: '300',
    WEBHOOK_RETRIES: '4',
    MAX_BATCH_ITEMS: '30',
    RESULT_TTL_S: '600',
    BULL_BOARD_USER: 'ops',
    BULL_BOARD_PASSWORD: 'board-password-for-tests',
  });
  const [a, b, started] = await Promise.all([
    startWorker(env, 'worker-a'),
    startWorker(env, 'worker-b'),
    startApi(env),
  ]);
  workers.push(a, b);
  api = started;
  workerUrls.push(...(await Promise.all([a, b].map((w) => workerHttpUrl(w)))));
});

afterAll(async () => {
  await stopAll(api, ...workers);
  await stopAll(redis);
  await receiver.stop();
});

function jobForm(
  fields: { request_data?: object; data?: object; webhook_url?: string },
  file = invoiceDocx,
): FormData {
  const form = new FormData();
  form.append('file', new Blob([file]), 'invoice.docx');
  if (fields.data) form.append('data', JSON.stringify(fields.data));
  if (fields.request_data) form.append('request_data', JSON.stringify(fields.request_data));
  if (fields.webhook_url) form.append('webhook_url', fields.webhook_url);
  return form;
}

async function submit(
  fields: Parameters<typeof jobForm>[0],
): Promise<{ res: Response; body: Record<string, unknown> }> {
  const res = await fetch(`${api.url}/api/v1/jobs`, { method: 'POST', body: jobForm(fields) });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

interface JobStatus {
  job_id: string;
  status: string;
  progress: { done: number; total: number };
  created_at: string;
  finished_at: string | null;
  expires_at: string | null;
  result_url?: string;
  error?: { error_type: string; details: Record<string, unknown> };
}

async function statusOf(id: string): Promise<JobStatus> {
  const res = await fetch(`${api.url}/api/v1/jobs/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as JobStatus;
}

function finished(id: string, timeoutMs = 180_000): Promise<JobStatus> {
  return jobFinished<JobStatus>(api.url, id, timeoutMs);
}

function pageCount(pdf: Buffer): number {
  const dir = mkdtempSync(join(tmpdir(), 'jobs-e2e-'));
  try {
    const file = join(dir, 'x.pdf');
    writeFileSync(file, pdf);
    return Number(execFileSync('qpdf', ['--show-npages', file]).toString().trim());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const hookUrl = () => `http://127.0.0.1:${receiver.port}/hooks/docs`;

describe('a single job', () => {
  it('202 with a 128-bit id, then queued/active, completed with its PDF, its webhook, and DELETE', async () => {
    const { res, body } = await submit({ request_data: invoiceRequest, webhook_url: hookUrl() });
    expect(res.status).toBe(202);
    const id = body.job_id as string;
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/); // 16 random bytes, base64url
    expect(body).toEqual({
      job_id: id,
      status: 'queued',
      status_url: `${api.url}/api/v1/jobs/${id}`,
      result_url: `${api.url}/api/v1/jobs/${id}/result`,
    });
    expect(res.headers.get('location')).toBe(body.status_url);

    const early = await statusOf(id);
    expect(['queued', 'active', 'completed']).toContain(early.status);
    expect(early.progress.total).toBe(1);
    expect(Number.isNaN(Date.parse(early.created_at))).toBe(false);
    if (early.status !== 'completed') {
      expect(early.finished_at).toBeNull();
      // unfinished: the record lasts max(RESULT_TTL_S, 24 h) from its creation
      expect(Date.parse(early.expires_at!) - Date.parse(early.created_at)).toBe(24 * 3600 * 1000);
    }

    const done = await finished(id);
    expect(done.status).toBe('completed');
    expect(done.progress).toEqual({ done: 1, total: 1 });
    expect(done.result_url).toBe(body.result_url);
    // expires_at is finished_at + RESULT_TTL_S (600 s)
    expect(Date.parse(done.expires_at!) - Date.parse(done.finished_at!)).toBe(600_000);

    const result = await fetch(done.result_url!);
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toBe('application/pdf');
    expect(result.headers.get('content-disposition')).toContain('filename="invoice.pdf"');
    const text = pdfText(Buffer.from(await result.arrayBuffer()));
    expect(text).toContain('Müller & Söhne GmbH');

    await waitUntil(() => receiver.of(id).length > 0, 30_000, 'the webhook');
    const [hook] = receiver.of(id);
    expect(hook.verified).toBe(true);
    expect(hook.headers['webhook-id']).toBe(`msg_${id}`);
    expect(hook.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const event = JSON.parse(hook.body) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(event.type).toBe('job.completed');
    expect(event.data).toEqual({ job_id: id, status: 'completed', result_url: body.result_url });
    expect(Number.isNaN(Date.parse(event.timestamp))).toBe(false);

    const del = await fetch(`${api.url}/api/v1/jobs/${id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    for (const path of [`/api/v1/jobs/${id}`, `/api/v1/jobs/${id}/result`]) {
      const gone = await fetch(`${api.url}${path}`);
      expect(gone.status).toBe(404);
      expect(await gone.json()).toMatchObject({ status: 'error', error_type: 'job_not_found' });
    }
  });

  it('409 job_not_finished while a long job runs; DELETE cancels it', async () => {
    // Some forty pages: seconds of conversion.
    const rows = Array.from({ length: 60 }, (_, i) => ({
      description: `Line ${i}`,
      quantity: 1,
      unit_price: '1.00',
      amount: '1.00',
    }));
    const many = Array.from({ length: 30 }, () => ({ ...invoiceRequest.template_data, items: rows }));
    const { body } = await submit({
      request_data: {
        batch: many.map((template_data) => ({ template_data })),
        images: invoiceRequest.images,
      },
    });
    const id = body.job_id as string;
    const res = await fetch(`${api.url}/api/v1/jobs/${id}/result`);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({
      error_type: 'job_not_finished',
      details: { progress: { total: 30 } },
    });
    expect((await fetch(`${api.url}/api/v1/jobs/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${api.url}/api/v1/jobs/${id}`)).status).toBe(404);
    // The items stop: the queue drains long before thirty conversions could have run.
    await waitUntil(
      async () => {
        const text = await (await fetch(`${api.url}/metrics`)).text();
        return ['waiting', 'active'].every((state) =>
          text.includes(`docgen_async_queue_jobs{queue="render-items",state="${state}"} 0`),
        );
      },
      30_000,
      'the items queue to drain',
    );
    const converted = workers
      .map((w) => w.output().match(new RegExp(`job ${id}-\\d+ completed`, 'g'))?.length ?? 0)
      .reduce((a, b) => a + b, 0);
    expect(converted).toBeLessThan(30);
  });

  it('an unknown or malformed id is 404 job_not_found', async () => {
    for (const id of ['AAAAAAAAAAAAAAAAAAAAAA', 'nope', '..%2F..%2Fetc']) {
      const res = await fetch(`${api.url}/api/v1/jobs/${id}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error_type: 'job_not_found' });
    }
  });

  it('a template error fails the job with the typed error the synchronous endpoint gives', async () => {
    const { body } = await submit({
      request_data: { template_data: {}, options: { undefined: 'strict' } },
      webhook_url: hookUrl(),
    });
    const id = body.job_id as string;
    const done = await finished(id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ status: 'error', error_type: 'undefined_variable' });
    const res = await fetch(`${api.url}/api/v1/jobs/${id}/result`);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual(done.error);
    await waitUntil(() => receiver.of(id).length > 0, 30_000, 'the failure webhook');
    const event = JSON.parse(receiver.of(id)[0].body) as {
      type: string;
      data: { error: unknown; status: string };
    };
    expect(event.type).toBe('job.failed');
    expect(event.data.status).toBe('failed');
    expect(event.data.error).toEqual(done.error);
  });
});

describe('batches', () => {
  it('20 items as a ZIP: one PDF per item, named by filename or index', async () => {
    const batch = Array.from({ length: 20 }, (_, i) =>
      item(i, i % 2 === 0 ? { filename: `invoice-${i}.pdf` } : {}),
    );
    const { res, body } = await submit({ request_data: { batch, images: invoiceRequest.images } });
    expect(res.status).toBe(202);
    const done = await finished(body.job_id as string);
    expect(done).toMatchObject({ status: 'completed', progress: { done: 20, total: 20 } });
    const result = await fetch(done.result_url!);
    expect(result.headers.get('content-type')).toBe('application/zip');
    expect(result.headers.get('content-disposition')).toContain('filename="invoice.zip"');
    const zip = new PizZip(Buffer.from(await result.arrayBuffer()));
    const names = Object.keys(zip.files).sort();
    const expected = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0 ? `invoice-${i}.pdf` : `${i}.pdf`,
    ).sort();
    expect(names).toEqual(expected);
    for (let i = 0; i < 20; i++) {
      const pdf = Buffer.from(zip.file(i % 2 === 0 ? `invoice-${i}.pdf` : `${i}.pdf`)!.asUint8Array());
      expect(pageCount(pdf)).toBe(1);
      expect(pdfText(pdf)).toContain(customer(i));
    }
  });

  it('20 items merged into one PDF, in order', async () => {
    const batch = Array.from({ length: 20 }, (_, i) => item(i));
    const { body } = await submit({
      request_data: { batch, images: invoiceRequest.images, output: 'merged' },
    });
    const done = await finished(body.job_id as string);
    expect(done.status).toBe('completed');
    const result = await fetch(done.result_url!);
    expect(result.headers.get('content-type')).toBe('application/pdf');
    const pdf = Buffer.from(await result.arrayBuffer());
    expect(pageCount(pdf)).toBe(20);
    const text = pdfText(pdf);
    const positions = batch.map((_, i) => text.indexOf(`INV-${1000 + i}`));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // pdftotext separates pages with form feeds: item i is on page i
    const pages = text.split('\f');
    for (let i = 0; i < 20; i++) expect(pages[i]).toContain(`INV-${1000 + i}`);
  });

  it('a failing item fails the batch with its index and typed error', async () => {
    const batch: Array<{ template_data: Record<string, unknown> }> = Array.from({ length: 6 }, (_, i) =>
      item(i),
    );
    // Item 4 lacks a variable the template needs; strict mode makes that an error.
    const broken = { ...batch[4].template_data } as Record<string, unknown>;
    delete broken.total;
    batch[4] = { template_data: broken };
    const { body } = await submit({
      request_data: { batch, images: invoiceRequest.images, options: { undefined: 'strict' } },
      webhook_url: hookUrl(),
    });
    const done = await finished(body.job_id as string);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ error_type: 'undefined_variable', details: { item_index: 4 } });
  });

  it('the synchronous endpoint takes a batch too, and answers with the ZIP or merged PDF', async () => {
    const batch = Array.from({ length: 5 }, (_, i) => item(i));
    const post = (request_data: object) =>
      fetch(`${api.url}/api/v1/process-template-document`, {
        method: 'POST',
        body: jobForm({ request_data }),
      });
    const merged = await post({ batch, images: invoiceRequest.images, output: 'merged' });
    expect(merged.status).toBe(200);
    expect(merged.headers.get('content-type')).toBe('application/pdf');
    const pdf = Buffer.from(await merged.arrayBuffer());
    expect(pageCount(pdf)).toBe(5);
    expect(pdfText(pdf)).toContain(customer(4));
    const zipped = await post({ batch, images: invoiceRequest.images });
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get('content-type')).toBe('application/zip');
    expect(Object.keys(new PizZip(Buffer.from(await zipped.arrayBuffer())).files).sort()).toEqual([
      '0.pdf',
      '1.pdf',
      '2.pdf',
      '3.pdf',
      '4.pdf',
    ]);
    const withHook = await post({ ...invoiceRequest, webhook_url: hookUrl() });
    expect(withHook.status).toBe(400);
    expect(await withHook.json()).toMatchObject({ error_type: 'invalid_request_structure' });
  });

  it('more than MAX_BATCH_ITEMS items, or a bad item, is refused before anything is queued', async () => {
    const tooMany = await submit({ request_data: { batch: Array.from({ length: 31 }, (_, i) => item(i)) } });
    expect(tooMany.res.status).toBe(413);
    expect(tooMany.body).toMatchObject({
      error_type: 'payload_too_large',
      details: { limit: 30, max_batch_items: 30 },
    });
    const bad = await submit({ request_data: { batch: [item(0), { template_data: 'x' }] } });
    expect(bad.res.status).toBe(400);
    expect(bad.body).toMatchObject({ error_type: 'invalid_request_structure' });
    const badImage = await submit({
      request_data: { batch: [item(0, { images: { logo: { data: 'bm90IGEgcG5n' } } })] },
    });
    expect(badImage.res.status).toBe(400);
    expect(badImage.body).toMatchObject({ error_type: 'image_processing_error' });
  });
});

describe('webhooks', () => {
  it('refused at first, then retried with the same webhook-id until delivered', async () => {
    const { body } = await submit({ request_data: invoiceRequest, webhook_url: hookUrl() });
    const id = body.job_id as string;
    receiver.refuse.set(id, 2);
    await finished(id);
    await waitUntil(() => receiver.of(id).some((r) => r.status === 204), 60_000, 'the third attempt');
    const attempts = receiver.of(id);
    expect(attempts.map((a) => a.status)).toEqual([503, 503, 204]);
    expect(attempts.every((a) => a.verified)).toBe(true);
    expect(new Set(attempts.map((a) => a.headers['webhook-id']))).toEqual(new Set([`msg_${id}`]));
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
  });

  it('private, loopback (not allowed), mapped and non-http URLs are refused with invalid_webhook_url', async () => {
    const cases: Array<[string, string]> = [
      ['http://10.1.2.3/hook', 'address_not_allowed'],
      ['http://192.168.0.10/hook', 'address_not_allowed'],
      ['http://169.254.169.254/latest/meta-data', 'address_not_allowed'],
      ['http://[fd00::1]/hook', 'address_not_allowed'],
      ['http://[::ffff:127.0.0.1]:80/hook', 'address_not_allowed'],
      // the allowed receiver, by another name: loopback, and not on WEBHOOK_ALLOWED_HOSTS
      [`http://localhost:${receiver.port}/hooks/docs`, 'address_not_allowed'],
      [`http://127.0.0.1:${receiver.port + 1}/`, 'address_not_allowed'],
      ['ftp://example.com/x', 'scheme_not_allowed'],
      ['not a url', 'not_a_url'],
    ];
    for (const [url, reason] of cases) {
      const { res, body } = await submit({ request_data: { ...invoiceRequest, webhook_url: url } });
      expect([url, res.status]).toEqual([url, 400]);
      expect(body).toMatchObject({ status: 'error', error_type: 'invalid_webhook_url', details: { reason } });
    }
  });
});

describe('operators', () => {
  /** A counter's value summed over both workers' /metrics (0 when absent). */
  async function workerCounter(name: string, labels: string): Promise<number> {
    let sum = 0;
    for (const url of workerUrls) {
      const text = await (await fetch(`${url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
      if (line) sum += Number(line.split(' ').pop());
    }
    return sum;
  }

  it('metrics count jobs by status, batch items and webhook deliveries by outcome', async () => {
    // By now: jobs completed and failed, batch items, deliveries delivered and retried.
    expect(await workerCounter('docgen_async_jobs_total', 'status="completed"')).toBeGreaterThanOrEqual(4);
    expect(await workerCounter('docgen_async_jobs_total', 'status="failed"')).toBeGreaterThanOrEqual(2);
    expect(await workerCounter('docgen_batch_items_total', 'outcome="completed"')).toBeGreaterThanOrEqual(40);
    expect(await workerCounter('docgen_batch_items_total', 'outcome="failed"')).toBeGreaterThanOrEqual(1);
    expect(
      await workerCounter('docgen_webhook_deliveries_total', 'outcome="delivered"'),
    ).toBeGreaterThanOrEqual(3);
    expect(
      await workerCounter('docgen_webhook_deliveries_total', 'outcome="retried"'),
    ).toBeGreaterThanOrEqual(2);
    const apiMetrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(apiMetrics).toMatch(/docgen_async_queue_jobs\{queue="render-jobs",state="completed"\} [1-9]/);
    expect(apiMetrics).toMatch(/docgen_async_queue_jobs\{queue="render-webhooks",state="completed"\} [1-9]/);
  });

  it('the OpenAPI document describes the job endpoints, their answers and the webhook', async () => {
    const doc = (await (await fetch(`${api.url}/docs-json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components: { schemas: Record<string, { properties?: Record<string, { enum?: string[] }> }> };
    };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/jobs', '/api/v1/jobs/{id}', '/api/v1/jobs/{id}/result']),
    );
    expect(Object.keys(doc.paths['/api/v1/jobs'].post.responses)).toEqual(
      expect.arrayContaining(['202', '400', '413']),
    );
    expect(Object.keys(doc.paths['/api/v1/jobs/{id}'].get.responses)).toEqual(
      expect.arrayContaining(['200', '404']),
    );
    expect(Object.keys(doc.paths['/api/v1/jobs/{id}'].delete.responses)).toEqual(
      expect.arrayContaining(['204']),
    );
    expect(Object.keys(doc.paths['/api/v1/jobs/{id}/result'].get.responses)).toEqual(
      expect.arrayContaining(['200', '404', '409']),
    );
    expect(doc.components.schemas.JobStatus.properties!.status.enum).toEqual([
      'queued',
      'active',
      'completed',
      'failed',
    ]);
    expect(doc.components.schemas.WebhookEvent.properties!.type.enum).toEqual([
      'job.completed',
      'job.failed',
    ]);
    expect(doc.components.schemas.ErrorBody.properties!.error_type.enum).toEqual(
      expect.arrayContaining(['job_not_found', 'job_not_finished', 'invalid_webhook_url']),
    );
    // request_data of a job: the schemas the parser takes its field lists from (issue 35).
    expect(Object.keys(doc.components.schemas.JobRequest.properties!)).toEqual(
      expect.arrayContaining(['template_data', 'images', 'batch', 'output', 'webhook_url']),
    );
    expect(Object.keys(doc.components.schemas.BatchItem.properties!)).toEqual([
      'template_data',
      'images',
      'filename',
    ]);
    expect(doc.components.schemas.JobRequest.properties!.output.enum).toEqual(['zip', 'merged']);
  });

  it('Bull Board shows every queue involved', async () => {
    const auth = { Authorization: `Basic ${Buffer.from('ops:board-password-for-tests').toString('base64')}` };
    const res = await fetch(`${api.url}/admin/queues/api/queues`, { headers: auth });
    expect(res.status).toBe(200);
    const { queues } = (await res.json()) as { queues: Array<{ name: string }> };
    expect(queues.map((q) => q.name).sort()).toEqual([
      'render',
      'render-deliveries',
      'render-items',
      'render-jobs',
      'render-webhooks',
    ]);
  });
});

describe('durability', () => {
  it('a worker SIGKILLed in the middle of a batch: the batch still completes', async () => {
    const batch = Array.from({ length: 20 }, (_, i) => item(i));
    const { body } = await submit({
      request_data: { batch, images: invoiceRequest.images, output: 'merged' },
    });
    const id = body.job_id as string;
    const [victim, survivor] = workers;
    await waitUntil(async () => (await statusOf(id)).progress.done >= 3, 120_000, 'three items done');
    // Killed right after it starts an item of this batch (its next line), mid-conversion.
    const line = await victim.waitFor(new RegExp(`job ${id}-\\d+ started`), 60_000, victim.lines.length);
    const itemId = new RegExp(`job (${id}-\\d+) started`).exec(line)![1];
    victim.killGroup('SIGKILL');
    await victim.exited;
    expect(victim.output()).not.toContain(`job ${itemId} completed`);
    expect((await statusOf(id)).status).toBe('active');
    const done = await finished(id);
    expect(done).toMatchObject({ status: 'completed', progress: { done: 20, total: 20 } });
    const pdf = Buffer.from(await (await fetch(done.result_url!)).arrayBuffer());
    expect(pageCount(pdf)).toBe(20);
    expect(survivor.running).toBe(true);
    // The killed worker's item was taken over (its lock expired) and done by the survivor.
    expect(survivor.output()).toContain(`job ${itemId} completed`);
  });
});
