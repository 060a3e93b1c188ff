/**
 * Traces (docs/operations.md, "Traces"): the real API and worker export to an OTLP/HTTP receiver
 * on loopback. One synchronous request is one trace, parented across the two processes: the
 * API's span, admission, the queue wait, the worker's job with its fill, conversion parts and
 * finishing. A failed job's span is an error with its error_type, and the log lines carry the
 * trace's ids. Without OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry module is loaded at all.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildDocx, p, table } from './support/docx-builder';
import { OtlpReceiver, type ReceivedSpan } from './support/otlp-receiver';
import {
  buildService,
  ManagedProcess,
  RedisServer,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
} from './service-harness';

jest.setTimeout(90_000);

const RENDER_SPAN = 'POST /api/v1/process-template-document';
const JOBS_SPAN = 'POST /api/v1/jobs';
const ERROR = 2; // OTLP's StatusCode ERROR
const SERVER = 2; // OTLP's SpanKind SERVER
const CONSUMER = 5;

/** 400 rows of a table (some 9 pages): converted in parts with SPLIT_MIN_ROWS 60 and parts of 2 pages. */
const statement = buildDocx({
  body: [
    p('Statement for {{ name }}'),
    table(Array.from({ length: 400 }, (_, i) => [`row ${i}`, `${i * 10}`])),
    p('Closing'),
  ],
});
const SECRET_NAME = 'Ms Confidential Caller';

let redis: RedisServer;
let receiver: OtlpReceiver;
let api: RunningApi;
let worker: ManagedProcess;
/** Answers every webhook (and the delivery's PUT) 204, counting them. */
let hooks: Server;
let hookPort = 0;
let hooksReceived = 0;

beforeAll(async () => {
  buildService();
  [redis, receiver] = await Promise.all([RedisServer.start(), OtlpReceiver.start()]);
  hooks = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hooksReceived++;
      res.writeHead(204).end();
    });
  }).listen(0, '127.0.0.1');
  await once(hooks, 'listening');
  hookPort = (hooks.address() as AddressInfo).port;
  const env = testEnv(redis.url, {
    QUEUE_PREFIX: '{traces}',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '50',
    SPLIT_MIN_ROWS: '60',
    SPLIT_PART_PAGES: '2',
    WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${hookPort}`,
    DELIVERY_ALLOWED_HOSTS: `127.0.0.1:${hookPort}`,
  });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
});

afterAll(async () => {
  await stopAll(api, worker);
  await stopAll(redis);
  await receiver?.close();
  hooks?.close();
});

/** The trace of the request with this X-Request-Id, once `names` have all arrived. */
async function traceOf(requestId: string, names: string[], rootName = RENDER_SPAN): Promise<ReceivedSpan[]> {
  let spans: ReceivedSpan[] = [];
  await waitUntil(
    () => {
      const root = receiver.spans.find((s) => s.name === rootName && s.attributes.request_id === requestId);
      spans = root ? receiver.trace(root.traceId) : [];
      return names.every((n) => spans.some((s) => s.name === n));
    },
    20_000,
    `spans ${names.join(', ')} of request ${requestId}`,
  );
  return spans;
}

function one(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found).toHaveLength(1);
  return found[0];
}

function jsonLines(proc: ManagedProcess): Array<Record<string, unknown>> {
  return proc.lines.flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

it('one request is one trace across the API and the worker, parented, its ids in the logs', async () => {
  const requestId = 'trace-ok-1';
  const res = await fetch(`${api.url}/api/v1/process-template-document`, {
    method: 'POST',
    headers: { 'x-request-id': requestId },
    body: (() => {
      const form = new FormData();
      form.append('file', new Blob([statement]), 'statement.docx');
      form.append(
        'request_data',
        JSON.stringify({
          template_data: { name: SECRET_NAME },
          options: { pdf: { watermark: { text: 'COPY' } } },
        }),
      );
      return form;
    })(),
  });
  expect(res.status).toBe(200);
  expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);

  const spans = await traceOf(requestId, [
    'admission',
    'queue wait',
    'render job',
    'fill',
    'convert',
    'finish',
  ]);
  const root = one(spans, RENDER_SPAN);
  expect(root.parentSpanId).toBe('');
  expect(root.kind).toBe(SERVER);
  expect(root.service).toBe('docgen-api');
  expect(root.attributes['http.route']).toBe('/api/v1/process-template-document');

  const admission = one(spans, 'admission');
  const wait = one(spans, 'queue wait');
  const job = one(spans, 'render job');
  // The API's spans and the worker's first ones hang from the request's span.
  expect([admission, wait, job].map((s) => s.parentSpanId)).toEqual([root.spanId, root.spanId, root.spanId]);
  expect(admission.service).toBe('docgen-api');
  expect([wait, job].map((s) => s.service)).toEqual(['docgen-worker', 'docgen-worker']);
  expect(job.kind).toBe(CONSUMER);
  expect(job.statusCode).not.toBe(ERROR);
  // The wait ends where the job begins (one host here, one clock).
  expect(wait.endMs).toBeLessThanOrEqual(job.startMs + 5);
  expect(wait.startMs).toBeGreaterThanOrEqual(root.startMs - 5);

  const fill = one(spans, 'fill');
  const convert = one(spans, 'convert');
  // One span per finishing step that applies: the signature places' (always) and the watermark's.
  const finishes = spans.filter((s) => s.name === 'finish');
  expect(finishes.map((s) => s.attributes.step).sort()).toEqual(['pdf_finish', 'signature_places']);
  expect([fill, convert, ...finishes].map((s) => s.parentSpanId)).toEqual(Array(4).fill(job.spanId));
  // The table went in parts: each part a span under the conversion.
  const parts = spans.filter((s) => s.name === 'convert part');
  expect(parts.length).toBeGreaterThanOrEqual(2);
  for (const part of parts) expect(part.parentSpanId).toBe(convert.spanId);

  // No caller data in any span: not the template's data, nor the watermark's text.
  const everything = JSON.stringify(spans);
  expect(everything).not.toContain(SECRET_NAME);
  expect(everything).not.toContain('COPY');

  // The same ids in both processes' JSON lines.
  const workerLine = jsonLines(worker).find(
    (l) => l.trace_id === root.traceId && String(l.msg).includes('completed'),
  );
  expect(workerLine?.span_id).toBe(job.spanId);
  const apiLine = jsonLines(api.proc).find(
    (l) => l.trace_id === root.traceId && String(l.msg).includes('done'),
  );
  expect(apiLine?.span_id).toBe(root.spanId);
});

it("a failed job's span is an error carrying its error_type", async () => {
  const requestId = 'trace-failed-1';
  const res = await fetch(`${api.url}/api/v1/process-template-document`, {
    method: 'POST',
    headers: { 'x-request-id': requestId },
    body: (() => {
      const form = new FormData();
      form.append('file', new Blob([buildDocx({ body: [p('Hello {{ nobody }}')] })]), 'hello.docx');
      form.append('request_data', JSON.stringify({ template_data: {}, options: { undefined: 'strict' } }));
      return form;
    })(),
  });
  expect(res.status).toBe(422);
  expect(((await res.json()) as { error_type: string }).error_type).toBe('undefined_variable');

  const spans = await traceOf(requestId, ['render job', 'fill']);
  const root = one(spans, RENDER_SPAN);
  const job = one(spans, 'render job');
  expect(job.parentSpanId).toBe(root.spanId);
  expect(job.statusCode).toBe(ERROR);
  expect(job.attributes.error_type).toBe('undefined_variable');
  expect(one(spans, 'fill').attributes.error_type).toBe('undefined_variable');
  // The API's span says how the request ended too.
  expect(root.statusCode).toBe(ERROR);
  expect(root.attributes.error_type).toBe('undefined_variable');
});

it("an asynchronous job: its items, its assembling, its delivery and its webhook in the submission's trace", async () => {
  const requestId = 'trace-job-1';
  const form = new FormData();
  form.append('file', new Blob([buildDocx({ body: [p('Hello {{ name }}')] })]), 'hello.docx');
  form.append(
    'request_data',
    JSON.stringify({
      template_data: { name: SECRET_NAME },
      options: { output: 'docx' },
      // A pre-signed PUT: its query is the storage's signature.
      deliver_to: { url: `http://127.0.0.1:${hookPort}/bucket/hello.docx?X-Amz-Signature=sig_SECRET_456` },
    }),
  );
  form.append('webhook_url', `http://127.0.0.1:${hookPort}/hooks/docgen?token=tok_SIGNATURE_123`);
  const res = await fetch(`${api.url}/api/v1/jobs`, {
    method: 'POST',
    headers: { 'x-request-id': requestId },
    body: form,
  });
  expect(res.status).toBe(202);

  const spans = await traceOf(requestId, ['render job', 'assemble', 'delivery', 'webhook'], JOBS_SPAN);
  const root = one(spans, JOBS_SPAN);
  expect(root.parentSpanId).toBe('');
  const item = one(spans, 'render job');
  const assemble = one(spans, 'assemble');
  const delivery = one(spans, 'delivery');
  const webhook = one(spans, 'webhook');
  expect([item.parentSpanId, assemble.parentSpanId]).toEqual([root.spanId, root.spanId]);
  // The result is delivered after the assembling, and the webhook sent once the delivery has ended.
  expect(delivery.parentSpanId).toBe(assemble.spanId);
  expect(webhook.parentSpanId).toBe(delivery.spanId);
  expect([delivery.statusCode, webhook.statusCode]).not.toContain(ERROR);
  expect(hooksReceived).toBeGreaterThanOrEqual(2);
  // The webhook's host only: neither its path nor its query (a receiver's token).
  expect(webhook.attributes['server.address']).toBe(`127.0.0.1:${hookPort}`);
  const everything = JSON.stringify(spans);
  expect(everything).not.toContain('tok_SIGNATURE_123');
  expect(everything).not.toContain('sig_SECRET_456');
  expect(everything).not.toContain('/hooks/docgen');
  expect(everything).not.toContain(SECRET_NAME);
});

it('without OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry SDK module is loaded and spans are plain calls', () => {
  // The built API and worker modules, loaded as the processes load them, in a child process.
  const dist = join(__dirname, '..', 'dist');
  const script = (services: boolean) => `
    const dist = ${JSON.stringify(dist)};
    if (${services}) {
      require(dist + '/apps/api/src/app.module.js');
      require(dist + '/apps/worker/src/render.processor.js');
      require(dist + '/apps/worker/src/jobs/assemble.processor.js');
      require(dist + '/apps/worker/src/jobs/webhook.processor.js');
    }
    const t = require(dist + '/libs/telemetry/src/index.js');
    const on = t.startTelemetry('probe');
    const value = t.withSpan('x', () => 42);
    // @opentelemetry/api alone is prom-client's (its process CPU metric reads the active span for
    // exemplars), loaded before this library existed: anything else would be ours.
    const loaded = Object.keys(require.cache).filter(
      (k) => k.includes('@opentelemetry') && !k.includes('/node_modules/@opentelemetry/api/'),
    );
    console.log(JSON.stringify({ on, value, traceparent: t.currentTraceparent() ?? null, loaded }));
  `;
  const run = (env: NodeJS.ProcessEnv, services = true) => {
    const out = spawnSync(process.execPath, ['-e', script(services)], {
      env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(out.status).toBe(0);
    return JSON.parse(out.stdout.trim().split('\n').pop()!) as {
      on: boolean;
      value: number;
      traceparent: string | null;
      loaded: string[];
    };
  };
  const base = { PATH: process.env.PATH, HOME: process.env.HOME };
  const requestsBefore = receiver.requests;
  expect(run(base)).toEqual({ on: false, value: 42, traceparent: null, loaded: [] });
  // The same probe with the variable loads the SDK: the check above can fail.
  const on = run({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }, false);
  expect(on.on).toBe(true);
  expect(on.loaded.some((k) => k.includes('@opentelemetry/sdk-node'))).toBe(true);
  // The probes exported nothing here (the one with the variable points elsewhere).
  expect(receiver.requests).toBe(requestsBefore);
});
