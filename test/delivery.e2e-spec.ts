/**
 * Result delivery (deliver_to, docs/jobs.md "Delivery") through the real service: Redis, one
 * worker with LibreOffice, the API, and a loopback receiver standing in for object storage (it
 * takes pre-signed-looking PUTs with X-Amz-Signature in the query) and for the webhook endpoint.
 * The receiver is reached through DELIVERY_ALLOWED_HOSTS (127.0.0.1:<port>). The API also allows
 * `localhost:<port>`, the worker does not: a URL that passes at submission and resolves to a
 * loopback address the worker may not call at delivery, as a rebinding DNS name would.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import {
  buildService,
  jobFinished,
  ManagedProcess,
  pdfText,
  RedisServer,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
  workerHttpUrl,
} from './service-harness';
import { redisEntries } from './support/secrets';

jest.setTimeout(120_000);

const PREFIX = '{delivery}';
const SECRET = `whsec_${Buffer.from('a test key of thirty-two bytes!!').toString('base64')}`;
/** The signature every pre-signed URL here carries: it must show up nowhere but in the PUT. */
const SIGNATURE = 'f3c9a1d7e2b84c6a9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7a8b9c0d1e2f3a4';
const invoiceDocx = readFileSync(join(__dirname, '..', 'examples', 'invoice.docx'));
const invoiceRequest = JSON.parse(
  readFileSync(join(__dirname, '..', 'examples', 'invoice-request.json'), 'utf8'),
) as { template_data: Record<string, unknown>; images: Record<string, unknown> };

interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  status: number;
}

/** Object storage and webhook endpoint in one: refuses the first `refuse[path]` PUTs of a path with 503. */
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
        const url = new URL(req.url ?? '/', 'http://receiver');
        const left = this.refuse.get(url.pathname) ?? 0;
        if (left > 0) this.refuse.set(url.pathname, left - 1);
        const status = left > 0 ? 503 : req.method === 'PUT' ? 200 : 204;
        this.received.push({
          method: req.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body: Buffer.concat(chunks),
          status,
        });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  puts(path: string): Received[] {
    return this.received.filter((r) => r.method === 'PUT' && r.path === path);
  }

  webhooks(jobId: string): Received[] {
    return this.received.filter(
      (r) => r.method === 'POST' && r.body.toString().includes(`"job_id":"${jobId}"`),
    );
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

let redis: RedisServer;
let worker: ManagedProcess;
let api: RunningApi;
let client: Redis;
const receiver = new Receiver();

/** A pre-signed-looking PUT URL (AWS Signature V4's query) on the receiver. */
const signedUrl = (path: string, host = '127.0.0.1') =>
  `http://${host}:${receiver.port}${path}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20261128%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261128T072200Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=${SIGNATURE}`;
const hookUrl = () => `http://127.0.0.1:${receiver.port}/hooks/docs`;

beforeAll(async () => {
  buildService();
  await receiver.start();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, {
    QUEUE_PREFIX: PREFIX,
    // Everything either process would ever log, so the signature search sees it all.
    LOG_LEVEL: 'debug',
    WEBHOOK_SECRET: SECRET,
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
    WEBHOOK_BACKOFF_MS: '200',
    DELIVERY_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
    DELIVERY_BACKOFF_MS: '200',
    DELIVERY_RETRIES: '4',
    RESULT_TTL_S: '600',
  });
  [worker, api] = await Promise.all([
    startWorker(env),
    startApi({ ...env, DELIVERY_ALLOWED_HOSTS: `127.0.0.1:${receiver.port},localhost:${receiver.port}` }),
  ]);
  client = redis.client();
});

afterAll(async () => {
  client?.disconnect();
  await stopAll(api, worker, redis);
  await receiver.stop();
});

async function submit(requestData: object): Promise<{ res: Response; body: Record<string, unknown> }> {
  const form = new FormData();
  form.append('file', new Blob([invoiceDocx]), 'invoice.docx');
  form.append('request_data', JSON.stringify(requestData));
  const res = await fetch(`${api.url}/api/v1/jobs`, { method: 'POST', body: form });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

interface JobStatus {
  status: string;
  delivery?: { status: string; attempts: number; last_error: string | null };
}

/** The job's status once it finished and its delivery did too. */
async function delivered(id: string): Promise<JobStatus> {
  await jobFinished<JobStatus>(api.url, id, 90_000);
  let last: JobStatus | undefined;
  await waitUntil(
    async () => {
      last = (await (await fetch(`${api.url}/api/v1/jobs/${id}`)).json()) as JobStatus;
      return last.delivery?.status !== 'pending';
    },
    30_000,
    `the delivery of job ${id}`,
  );
  return last!;
}

async function resultOf(id: string): Promise<Buffer> {
  const res = await fetch(`${api.url}/api/v1/jobs/${id}/result`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** The Redis keys whose name or value (strings, hashes, lists, sets, sorted sets, streams) holds `text`. */
async function keysHolding(text: string): Promise<string[]> {
  return (await redisEntries(client))
    .filter(({ key, value }) => key.includes(text) || value.includes(text))
    .map(({ key }) => key);
}

const customerItem = (name: string) => ({
  template_data: { ...invoiceRequest.template_data, customer: { name, address: 'Street 1' } },
});

describe('deliver_to', () => {
  it('PUTs the result to the pre-signed URL with its type, length and headers; then the webhook says so', async () => {
    const { res, body } = await submit({
      ...invoiceRequest,
      webhook_url: hookUrl(),
      deliver_to: {
        url: signedUrl('/bucket/invoices/one.pdf'),
        headers: { 'x-ms-blob-type': 'BlockBlob', 'x-amz-meta-customer': 'Müller' },
      },
    });
    expect(res.status).toBe(202);
    const id = body.job_id as string;
    const status = await delivered(id);
    expect(status).toMatchObject({
      status: 'completed',
      delivery: { status: 'delivered', attempts: 1, last_error: null },
    });
    const [put] = receiver.puts('/bucket/invoices/one.pdf');
    const result = await resultOf(id); // still at result_url after the delivery
    expect(put.body.equals(result)).toBe(true);
    expect(put.body.subarray(0, 5).toString()).toBe('%PDF-');
    expect(put.query.get('X-Amz-Signature')).toBe(SIGNATURE);
    expect(put.query.get('X-Amz-Expires')).toBe('900');
    expect(put.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-length': String(result.length),
      'x-ms-blob-type': 'BlockBlob',
      'x-amz-meta-customer': 'Müller',
    });
    await waitUntil(() => receiver.webhooks(id).length > 0, 20_000, 'the webhook');
    const [hook] = receiver.webhooks(id);
    // Sent after the PUT, and it says how the delivery went.
    expect(receiver.received.indexOf(hook)).toBeGreaterThan(receiver.received.indexOf(put));
    expect(JSON.parse(hook.body.toString())).toMatchObject({
      type: 'job.completed',
      data: { job_id: id, delivery: { status: 'delivered', attempts: 1, last_error: null } },
    });
  });

  it('retries a receiver that fails twice, then delivers on the third attempt', async () => {
    receiver.refuse.set('/bucket/flaky.pdf', 2);
    const { body } = await submit({ ...invoiceRequest, deliver_to: { url: signedUrl('/bucket/flaky.pdf') } });
    const id = body.job_id as string;
    // Between attempts, the signature is in the job's delivery key (documented) and nowhere else in Redis.
    await waitUntil(() => receiver.puts('/bucket/flaky.pdf').length > 0, 60_000, 'the first PUT');
    const holding = await keysHolding(SIGNATURE);
    expect(holding.every((key) => key === `${PREFIX}:render-job:${id}:delivery`)).toBe(true);
    const status = await delivered(id);
    expect(status.delivery).toEqual({ status: 'delivered', attempts: 3, last_error: 'answered 503' });
    expect(receiver.puts('/bucket/flaky.pdf').map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('delivers a batch item by item, each with its own document; a retry PUTs only what is left', async () => {
    const names = ['Ada Lovelace', 'Grace Hopper'];
    receiver.refuse.set('/bucket/batch/1.pdf', 1);
    const { res, body } = await submit({
      batch: names.map(customerItem),
      images: invoiceRequest.images,
      deliver_to: { items: names.map((_, i) => ({ url: signedUrl(`/bucket/batch/${i}.pdf`) })) },
    });
    expect(res.status).toBe(202);
    const status = await delivered(body.job_id as string);
    expect(status.delivery).toEqual({ status: 'delivered', attempts: 2, last_error: 'item 1: answered 503' });
    expect(receiver.puts('/bucket/batch/0.pdf').map((r) => r.status)).toEqual([200]);
    expect(receiver.puts('/bucket/batch/1.pdf').map((r) => r.status)).toEqual([503, 200]);
    names.forEach((name, i) => {
      const put = receiver.puts(`/bucket/batch/${i}.pdf`).at(-1)!;
      expect(put.headers['content-type']).toBe('application/pdf');
      expect(put.headers['content-length']).toBe(String(put.body.length));
      expect(pdfText(put.body)).toContain(name);
      expect(pdfText(put.body)).not.toContain(names[1 - i]);
    });
  });

  it('refuses at submission a private address, bad headers and items that do not match the batch (400)', async () => {
    const cases: Array<[object, string, string]> = [
      [{ url: 'http://10.20.30.40/bucket/x.pdf?X-Amz-Signature=s' }, 'address_not_allowed', 'deliver_to.url'],
      [{ url: `http://127.0.0.1:1/x.pdf?X-Amz-Signature=s` }, 'address_not_allowed', 'deliver_to.url'],
      [{ url: 'ftp://storage.example.com/x.pdf' }, 'scheme_not_allowed', 'deliver_to.url'],
      [
        { url: signedUrl('/b/x.pdf'), headers: { Host: 'metadata' } },
        'header_not_allowed',
        'deliver_to.headers.Host',
      ],
      [
        { url: signedUrl('/b/x.pdf'), headers: { 'x-a': 'v\r\nInjected: 1' } },
        'invalid_header_value',
        'deliver_to.headers.x-a',
      ],
      [
        { url: signedUrl('/b/x.pdf'), headers: { Connection: 'close' } },
        'header_not_allowed',
        'deliver_to.headers.Connection',
      ],
      [{ items: [{ url: signedUrl('/b/x.pdf') }] }, 'items_need_a_zip_batch', 'deliver_to.items'],
    ];
    for (const [deliverTo, reason, field] of cases) {
      const { res, body } = await submit({ ...invoiceRequest, deliver_to: deliverTo });
      expect({ deliverTo, status: res.status }).toEqual({ deliverTo, status: 400 });
      expect(body).toMatchObject({ error_type: 'invalid_deliver_to', details: { reason, field } });
      expect(JSON.stringify(body)).not.toContain('X-Amz-Signature=s');
    }
    const { res, body } = await submit({
      batch: [customerItem('A'), customerItem('B')],
      deliver_to: { items: [{ url: signedUrl('/b/0.pdf') }] },
    });
    expect(res.status).toBe(400);
    expect(body).toMatchObject({
      error_type: 'invalid_deliver_to',
      details: { reason: 'items_count_mismatch' },
    });
    // The synchronous endpoint answers with the document: it takes no deliver_to.
    const form = new FormData();
    form.append('file', new Blob([invoiceDocx]), 'invoice.docx');
    form.append(
      'request_data',
      JSON.stringify({ ...invoiceRequest, deliver_to: { url: signedUrl('/b/s.pdf') } }),
    );
    const sync = await fetch(`${api.url}/api/v1/process-template-document`, { method: 'POST', body: form });
    expect(sync.status).toBe(400);
    expect(await sync.json()).toMatchObject({
      error_type: 'invalid_request_structure',
      details: { field: 'deliver_to' },
    });
  });

  it('refuses at delivery a URL that now leads to a loopback address, without connecting; the result stays', async () => {
    const { res, body } = await submit({
      ...invoiceRequest,
      webhook_url: hookUrl(),
      deliver_to: { url: signedUrl('/bucket/rebound.pdf', 'localhost') },
    });
    expect(res.status).toBe(202);
    const id = body.job_id as string;
    const status = await delivered(id);
    expect(status.status).toBe('completed');
    expect(status.delivery).toMatchObject({ status: 'failed', attempts: 1 });
    expect(status.delivery?.last_error).toMatch(/loopback address/);
    expect(receiver.puts('/bucket/rebound.pdf')).toHaveLength(0);
    expect((await resultOf(id)).subarray(0, 5).toString()).toBe('%PDF-');
    await waitUntil(() => receiver.webhooks(id).length > 0, 20_000, 'the webhook');
    expect(JSON.parse(receiver.webhooks(id)[0].body.toString())).toMatchObject({
      type: 'job.completed',
      data: { delivery: { status: 'failed', attempts: 1 } },
    });
  });

  it('a job that fails delivers nothing: delivery failed after 0 attempts, in the status and the webhook', async () => {
    const { body } = await submit({
      template_data: {},
      options: { undefined: 'strict' },
      webhook_url: hookUrl(),
      deliver_to: { url: signedUrl('/bucket/never.pdf') },
    });
    const id = body.job_id as string;
    const status = await delivered(id);
    expect(status).toMatchObject({
      status: 'failed',
      delivery: { status: 'failed', attempts: 0, last_error: 'the job failed: nothing to deliver' },
    });
    expect(receiver.puts('/bucket/never.pdf')).toHaveLength(0);
    await waitUntil(() => receiver.webhooks(id).length > 0, 20_000, 'the webhook');
    expect(JSON.parse(receiver.webhooks(id)[0].body.toString())).toMatchObject({
      type: 'job.failed',
      data: { error: { error_type: 'undefined_variable' }, delivery: { status: 'failed', attempts: 0 } },
    });
  });

  it('the worker counts delivery attempts by outcome', async () => {
    const metrics = await (await fetch(`${await workerHttpUrl(worker)}/metrics`)).text();
    const count = (outcome: string) =>
      Number(
        new RegExp(`^docgen_result_deliveries_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(
          metrics,
        )?.[1] ?? 0,
      );
    // Attempts, not PUTs: the single job's, the flaky one's third, the batch's second.
    expect(count('delivered')).toBe(3);
    expect(count('retried')).toBe(3);
    expect(count('refused')).toBe(1);
  });

  it("the OpenAPI document shows deliver_to, the status and the webhook's delivery, and invalid_deliver_to", async () => {
    type Schema = { properties?: Record<string, Schema>; anyOf?: Schema[]; $ref?: string; enum?: string[] };
    const doc = (await (await fetch(`${api.url}/docs-json`)).json()) as {
      components: { schemas: Record<string, Schema> };
    };
    const { schemas } = doc.components;
    const deliverTo = schemas.JobRequest.properties!.deliver_to;
    expect(deliverTo.anyOf?.[0]).toEqual({ $ref: '#/components/schemas/DeliveryTarget' });
    expect(deliverTo.anyOf?.[1].properties!.items).toBeDefined();
    expect(Object.keys(schemas.DeliveryTarget.properties!)).toEqual(['url', 'headers']);
    expect(schemas.JobStatus.properties!.delivery.properties!.status.enum).toEqual([
      'pending',
      'delivered',
      'failed',
    ]);
    expect(schemas.WebhookEvent.properties!.data.properties!.delivery).toBeDefined();
    expect(schemas.ErrorBody.properties!.error_type.enum).toContain('invalid_deliver_to');
  });

  it('keeps the signature out of logs, job records, BullMQ job data and Redis', async () => {
    // Every delivery above has finished: their targets (the only stored copy) are gone.
    expect(await keysHolding(SIGNATURE)).toEqual([]);
    expect(await keysHolding('X-Amz-Credential')).toEqual([]);
    const deliveries = new Queue('render-deliveries', { connection: { url: redis.url }, prefix: PREFIX });
    try {
      const jobs = await deliveries.getJobs(['completed', 'failed']);
      // The search below looks where the deliveries were: four jobs, delivered or refused.
      expect(jobs.length).toBe(4);
      const bull = JSON.stringify(jobs.map((j) => [j.data, j.failedReason, j.returnvalue]));
      // The logs name where it went (host and path) …
      expect(worker.output()).toContain(`PUT to http://127.0.0.1:${receiver.port}/bucket/flaky.pdf`);
      for (const text of [bull, api.proc.output(), worker.output()]) {
        expect(text.includes(SIGNATURE)).toBe(false);
        expect(text.includes('X-Amz-Credential')).toBe(false);
      }
    } finally {
      await deliveries.close();
    }
  });
});
