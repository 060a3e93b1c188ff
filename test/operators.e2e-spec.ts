/**
 * What operators rely on, end to end against the built API and worker processes and a private
 * Redis: Bull Board behind basic auth, Prometheus metrics on the API and the worker, readiness
 * (and liveness that never depends on Redis), JSON logs sharing one request id from the API
 * through the job to the worker and the converter, and the OpenAPI document.
 *
 * The order of the describe blocks matters: the later ones stop the worker and Redis.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { API_PATHS, PDF_OPTION_FIELDS, WORKER_HTTP_PATHS } from '@app/contracts';
import { buildDocx, p } from './support/docx-builder';
import {
  buildService,
  freePort,
  ManagedProcess,
  postRender,
  RedisServer,
  RENDER_PATH,
  RunningApi,
  solidPng,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
  workerHttpUrl,
} from './service-harness';

jest.setTimeout(180_000);

const PREFIX = '{ops}';
const USER = 'operator';
const PASSWORD = 'correct horse: battery staple';
const ROOT = join(__dirname, '..');

let redis: RedisServer;
let worker: ManagedProcess;
let workerUrl: string;
let api: RunningApi;
let env: NodeJS.ProcessEnv;
let queue: Queue;
let queueClient: Redis;
const extraProcs: Array<ManagedProcess | RunningApi> = [];

const template = buildDocx({ body: [p('Hello {{ name }}!'), p('Logo: {{ logo }}')] });
/** Big enough that any leak of it into a log or the board would show. */
const logoBase64 = solidPng(48, 32, [200, 30, 90]);
const templateBase64 = template.toString('base64');

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function basic(user: string, password: string): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

function renderWithId(requestId: string, name = 'Ada'): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([template]), 'greeting.docx');
  form.append(
    'request_data',
    JSON.stringify({ template_data: { name }, images: { logo: { data: logoBase64, width_mm: 20 } } }),
  );
  return fetch(`${api.url}${RENDER_PATH}`, {
    method: 'POST',
    body: form,
    headers: { 'X-Request-Id': requestId },
  });
}

/** The process's stdout/stderr lines that are JSON objects. */
function jsonLines(proc: ManagedProcess): Array<Record<string, unknown>> {
  return proc.lines.flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** The value of one sample of a Prometheus text exposition, or undefined when it is absent. */
function sample(metrics: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of metrics.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

async function text(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: string; res: Response }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.text(), res };
}

async function readiness(): Promise<{ status: number; body: { status: string; failed: string[] } }> {
  const res = await fetch(`${api.url}${API_PATHS.ready}`);
  return { status: res.status, body: (await res.json()) as { status: string; failed: string[] } };
}

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  env = testEnv(redis.url, { QUEUE_PREFIX: PREFIX, JOB_ATTEMPTS: '2' });
  const [w, a] = await Promise.all([
    startWorker(env),
    startApi({ ...env, BULL_BOARD_USER: USER, BULL_BOARD_PASSWORD: PASSWORD }),
  ]);
  worker = w;
  api = a;
  workerUrl = await workerHttpUrl(worker);
  // Our own client, dropped at the end with disconnect(): after the Redis restart below, a
  // QUIT from queue.close() can leave ioredis waiting 2 s for the socket and Jest complaining.
  queueClient = new Redis(redis.url, { maxRetriesPerRequest: null });
  queueClient.on('error', () => undefined); // Redis is stopped on purpose below
  queue = new Queue('render', { connection: queueClient, prefix: PREFIX });
  queue.on('error', () => undefined);
  // The API is ready once the worker's first heartbeat (with its converter's health) is in.
  await waitUntil(async () => (await readiness()).status === 200, 30_000, 'the API to be ready');
});

afterAll(async () => {
  await queue?.close().catch(() => undefined);
  queueClient?.disconnect();
  await stopAll(api, worker, ...extraProcs);
  await stopAll(redis);
});

describe('liveness (the specification’s health checks)', () => {
  it.each([API_PATHS.root, API_PATHS.live])('GET %s answers exactly as before', async (path) => {
    const { status, body, res } = await text(`${api.url}${path}`);
    expect(status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(body)).toEqual({ status: 'Service is healthy !' });
  });
});

describe('readiness with everything up', () => {
  it('the API is ready and says which checks passed', async () => {
    const res = await fetch(`${api.url}${API_PATHS.ready}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      failed: [],
      checks: {
        api: { status: 'up' },
        redis: { status: 'up' },
        workers: { status: 'up', live: 1 },
        converter: { status: 'up', healthy_workers: 1 },
      },
    });
  });

  it('the worker serves liveness and readiness on its own port', async () => {
    const live = await fetch(`${workerUrl}${WORKER_HTTP_PATHS.live}`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${workerUrl}${WORKER_HTTP_PATHS.ready}`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ok',
      failed: [],
      checks: {
        worker: { status: 'up' },
        redis: { status: 'up' },
        converter: { status: 'up', instances: 1 },
      },
    });
  });
});

describe('one request id through API, job, worker and logs', () => {
  const requestId = `ops-${Date.now()}.trace_1`;
  let response: Response;

  beforeAll(async () => {
    response = await renderWithId(requestId);
  });

  it('echoes the caller’s X-Request-Id and renders', async () => {
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe(requestId);
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');
  });

  it('replaces an unsafe id with a fresh one', async () => {
    for (const bad of ['has spaces', 'x'.repeat(129), 'semi;colon']) {
      const res = await fetch(`${api.url}${API_PATHS.live}`, { headers: { 'X-Request-Id': bad } });
      const id = res.headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(id).not.toBe(bad);
    }
  });

  it('the API logs one JSON line for the request, with status, duration and the id', async () => {
    await api.proc.waitFor(
      new RegExp(`"requestId":"${escape(requestId)}".*"res":\\{"status":200\\}`),
      10_000,
    );
    const lines = jsonLines(api.proc).filter((l) => l.requestId === requestId);
    const finished = lines.filter((l) => l.res !== undefined);
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({
      level: 'info',
      service: 'api',
      req: { method: 'POST', path: RENDER_PATH },
      res: { status: 200 },
      duration_ms: expect.any(Number),
    });
    // …and the queue's line for the job carries the same id
    expect(lines.some((l) => l.context === 'RenderQueue' && /done in/.test(String(l.msg)))).toBe(true);
  });

  it('the worker logs the job’s lines with the same id, and the job data holds it', async () => {
    // stdout of another process: it may arrive after the HTTP answer
    await worker.waitFor(new RegExp(`"requestId":"${escape(requestId)}".*job \\S+ completed`), 10_000);
    const lines = jsonLines(worker).filter((l) => l.requestId === requestId);
    expect(lines.map((l) => String(l.msg))).toEqual([
      expect.stringMatching(/^job \S+ started/),
      expect.stringMatching(/^job \S+ completed/),
    ]);
    expect(lines[0]).toMatchObject({ service: 'worker', imageCount: 1, output: 'pdf' });
    const job = await queue.getJob(String(lines[0].jobId));
    expect(job?.data.requestId).toBe(requestId);
  });

  it('an error answer is logged with its error_type, and echoes the id too', async () => {
    const id = `ops-error-${Date.now()}`;
    const res = await fetch(`${api.url}${RENDER_PATH}`, {
      method: 'POST',
      body: (() => {
        const f = new FormData();
        f.append('data', '{}');
        return f;
      })(),
      headers: { 'X-Request-Id': id },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-request-id')).toBe(id);
    const line = await api.proc.waitFor(new RegExp(`"requestId":"${id}".*"res":`), 10_000);
    expect(JSON.parse(line)).toMatchObject({
      level: 'warn',
      error_type: 'missing_file',
      res: { status: 400 },
    });
  });

  it('no log line holds image data or template bytes, and every API line is JSON', () => {
    for (const proc of [api.proc, worker]) {
      const all = proc.output();
      expect(all).not.toContain(logoBase64.slice(0, 40));
      expect(all).not.toContain(logoBase64.slice(-40));
      expect(all).not.toContain(templateBase64.slice(100, 140));
      expect(all).not.toContain('iVBORw0KGgo'); // the base64 of every PNG starts so
    }
    const apiLines = api.proc.lines.filter((l) => l.trim() !== '');
    expect(apiLines.length).toBeGreaterThan(5);
    for (const line of apiLines) expect(() => JSON.parse(line)).not.toThrow();
  });
});

describe('metrics', () => {
  it('the API counts requests by route, method, status and error_type, with latency by outcome', async () => {
    await renderWithId(`ops-metrics-${Date.now()}`).then((r) => r.arrayBuffer());
    const missing = await postRender(api.url, { data: { name: 'x' } });
    expect(missing.status).toBe(400);
    expect((await fetch(`${api.url}/no/such/route`)).status).toBe(404);

    const { status, body, res } = await text(`${api.url}${API_PATHS.metrics}`);
    expect(status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const route = RENDER_PATH;
    expect(
      sample(body, 'docgen_http_requests_total', {
        route,
        method: 'POST',
        status: '200',
        error_type: 'none',
      }),
    ).toBeGreaterThanOrEqual(2);
    expect(
      sample(body, 'docgen_http_requests_total', {
        route,
        method: 'POST',
        status: '400',
        error_type: 'missing_file',
      }),
    ).toBeGreaterThanOrEqual(1);
    // unknown URLs share one label value instead of adding a series each
    expect(
      sample(body, 'docgen_http_requests_total', {
        route: 'unmatched',
        method: 'GET',
        status: '404',
        error_type: 'not_found',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(body).not.toContain('/no/such/route');
    expect(
      sample(body, 'docgen_http_request_duration_seconds_count', { route, outcome: 'success' }),
    ).toBeGreaterThanOrEqual(2);
    expect(
      sample(body, 'docgen_http_request_duration_seconds_count', { route, outcome: 'missing_file' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(body, 'docgen_http_request_duration_seconds_bucket', { route, outcome: 'success', le: '+Inf' }),
    ).toBe(sample(body, 'docgen_http_request_duration_seconds_count', { route, outcome: 'success' }));
    for (const state of ['waiting', 'active', 'delayed', 'failed', 'completed']) {
      expect(sample(body, 'docgen_queue_jobs', { state })).toEqual(expect.any(Number));
    }
    expect(sample(body, 'docgen_queue_jobs', { state: 'completed' })).toBeGreaterThanOrEqual(2);
    expect(sample(body, 'docgen_workers_live')).toBe(1);
    expect(sample(body, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('the worker reports render and conversion times, job outcomes and its converter', async () => {
    const { status, body } = await text(`${workerUrl}${WORKER_HTTP_PATHS.metrics}`);
    expect(status).toBe(200);
    expect(sample(body, 'docgen_render_duration_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(sample(body, 'docgen_conversion_duration_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(sample(body, 'docgen_conversion_duration_seconds_sum')).toBeGreaterThan(0);
    expect(sample(body, 'docgen_jobs_total', { outcome: 'success' })).toBeGreaterThanOrEqual(2);
    expect(sample(body, 'docgen_converter_instances')).toBe(1);
    // The health monitor's pings hold an instance for a moment too: idle shows between them.
    const busy = async () =>
      sample((await text(`${workerUrl}${WORKER_HTTP_PATHS.metrics}`)).body, 'docgen_converter_busy');
    expect(sample(body, 'docgen_converter_busy')).toBeLessThanOrEqual(1);
    // Seeing 0 once is the assertion: a second read could land on the next ping (CI caught exactly that).
    await expect(
      waitUntil(async () => (await busy()) === 0, 10_000, 'an idle converter'),
    ).resolves.toBeUndefined();
    expect(sample(body, 'docgen_converter_queue_length')).toBe(0);
    expect(sample(body, 'docgen_converter_restarts_total')).toEqual(expect.any(Number));
    expect(sample(body, 'docgen_converter_healthy')).toBe(1);
    // Every job that reached the fill looked its template up among those compiled before.
    const hits = sample(body, 'docgen_compiled_template_lookups_total', { result: 'hit' }) ?? NaN;
    const misses = sample(body, 'docgen_compiled_template_lookups_total', { result: 'miss' }) ?? NaN;
    expect(misses).toBeGreaterThanOrEqual(1);
    expect(hits + misses).toBeGreaterThanOrEqual(
      sample(body, 'docgen_render_duration_seconds_count') ?? Infinity,
    );
    expect(sample(body, 'docgen_compiled_templates')).toBeGreaterThanOrEqual(1);
    expect(sample(body, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});

describe('Bull Board', () => {
  const board = () => `${api.url}${API_PATHS.board}`;

  it('refuses callers without the right credentials', async () => {
    for (const headers of [
      {},
      basic(USER, 'wrong'),
      basic('someone', PASSWORD),
      { Authorization: 'Bearer x' },
    ]) {
      const res = await fetch(`${board()}/api/queues`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
      expect(await res.json()).toMatchObject({ status: 'error', error_type: 'unauthorized' });
    }
    expect((await fetch(board())).status).toBe(401);
  });

  it('serves the board with them', async () => {
    const res = await fetch(board(), { headers: basic(USER, PASSWORD) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain(`<base href="${API_PATHS.board}/"`);
  });

  it('shows a completed job’s ids, sizes and options, but no template or image bytes', async () => {
    const requestId = `ops-board-${Date.now()}`;
    expect((await renderWithId(requestId)).status).toBe(200);
    type Listed = {
      queues: Array<{ name: string; jobs: Array<{ id: string; data: { requestId?: string } }> }>;
    };
    let summary: Listed['queues'][number]['jobs'][number] | undefined;
    // The caller has its PDF as soon as the worker replies; BullMQ marks the job completed just
    // after, when the processor returns: under load the board may list it a moment later.
    await waitUntil(
      async () => {
        const list = await fetch(`${board()}/api/queues?activeQueue=render&status=completed&page=1`, {
          headers: basic(USER, PASSWORD),
        });
        expect(list.status).toBe(200);
        const listed = (await list.json()) as Listed;
        summary = listed.queues
          .find((q) => q.name === 'render')
          ?.jobs.find((j) => j.data.requestId === requestId);
        return summary !== undefined;
      },
      10_000,
      'the job among the completed ones',
    );
    expect(summary).toBeDefined();

    const res = await fetch(`${board()}/api/queues/render/${encodeURIComponent(summary!.id)}`, {
      headers: basic(USER, PASSWORD),
    });
    expect(res.status).toBe(200);
    const raw = await res.text();
    const { job, status } = JSON.parse(raw) as {
      job: { data: Record<string, unknown>; returnValue: Record<string, unknown> };
      status: string;
    };
    expect(status).toBe('completed');
    expect(job.data).toEqual({
      requestId,
      filename: 'greeting.pdf',
      templateBytes: template.length,
      requestBytes: expect.any(Number),
      imageCount: 1,
      options: { undefined: 'empty', output: 'pdf' },
    });
    expect(job.returnValue).toMatchObject({ bytes: expect.any(Number), contentType: 'application/pdf' });
    expect(raw).not.toContain(logoBase64.slice(0, 40));
    expect(raw).not.toContain(templateBase64.slice(0, 40));
    expect(raw).not.toContain('iVBORw0KGgo');
    expect(raw).not.toContain('Ada'); // template_data values stay out too
    // No long base64 run of any kind (the bytes themselves, whatever their encoding).
    expect(raw).not.toMatch(/[A-Za-z0-9+/]{200,}/);
    // The stored job itself holds no bytes either: the board's filter is a second line of defence.
    const stored = JSON.stringify((await queue.getJob(summary!.id))?.data);
    expect(stored).not.toContain(logoBase64.slice(0, 40));
    expect(stored.length).toBeLessThan(1000);
  });

  it('does not let the board add jobs or rewrite job data', async () => {
    const add = await fetch(`${board()}/api/queues/render/add`, {
      method: 'POST',
      headers: { ...basic(USER, PASSWORD), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'render', data: { templateKey: 'x' } }),
    });
    expect(add.status).toBe(403);
    expect(await queue.getJobCountByTypes('waiting')).toBe(0);
  });

  it('is off (404) without configured credentials, and the log says how to turn it on', async () => {
    const plain = await startApi(env, 'api-without-board');
    extraProcs.push(plain);
    const res = await fetch(`${plain.url}${API_PATHS.board}`, { headers: basic(USER, PASSWORD) });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error_type: 'not_found' });
    expect((await fetch(`${plain.url}${API_PATHS.board}/api/queues`)).status).toBe(404);
    await plain.proc.waitFor(/Bull Board is off; set BULL_BOARD_USER and BULL_BOARD_PASSWORD/, 10_000);
    await plain.proc.stop();
  });
});

describe('OpenAPI', () => {
  // A parsed JSON document walked by path; typing each level would only restate the asserts.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Json = any;
  interface OpenApiDoc {
    openapi: string;
    paths: Record<string, Record<string, { requestBody?: Json; responses: Record<string, Json> }>>;
    components: { schemas: Record<string, Json> };
  }
  let doc: OpenApiDoc;
  /** The error table of docs/service.md: status → error types. */
  const documented = [
    ...readFileSync(join(ROOT, 'docs/service.md'), 'utf8').matchAll(/^\| (\d{3}) +\| `([a-z_]+)` /gm),
  ].map((m) => ({ status: m[1], errorType: m[2] }));

  beforeAll(async () => {
    const res = await fetch(`${api.url}${API_PATHS.docs}-json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as OpenApiDoc;
  });

  it('is an OpenAPI 3 document with the render endpoint as multipart', () => {
    expect(doc.openapi).toMatch(/^3\./);
    const post = doc.paths[RENDER_PATH]?.post;
    expect(post).toBeDefined();
    const schema = post.requestBody.content['multipart/form-data'].schema;
    expect(schema.required).toEqual(['file']);
    expect(schema.properties.file).toEqual(expect.objectContaining({ type: 'string', format: 'binary' }));
    expect(schema.properties.data.type).toBe('string');
    expect(schema.properties.request_data.type).toBe('string');
    expect(Object.keys(post.requestBody.content['multipart/form-data'].examples)).toEqual([
      'legacy',
      'enhanced',
      'v16',
    ]);
    expect(post.responses['200'].content['application/pdf'].schema.format).toBe('binary');
    // Every output's answer (docs/outputs.md), and a ZIP of several page images.
    for (const type of ['image/png', 'image/jpeg', 'text/html; charset=utf-8', 'application/zip'])
      expect(post.responses['200'].content[type].schema.format).toBe('binary');
    expect(doc.components.schemas.ImageData.required).toEqual(['data']);
    expect(Object.keys(doc.components.schemas.RenderOptions.properties)).toEqual([
      'undefined',
      'output',
      'image',
      'pdf',
      'locale',
      'timezone',
    ]);
    expect(Object.keys(doc.components.schemas.PdfOptions.properties)).toEqual([...PDF_OPTION_FIELDS]);
  });

  it('describes every error of docs/service.md with the ErrorBody schema', () => {
    expect(documented.length).toBeGreaterThanOrEqual(14);
    const errorBody = doc.components.schemas.ErrorBody;
    expect(errorBody.required).toEqual(['status', 'error_type', 'message', 'details']);
    const post = doc.paths[RENDER_PATH].post;
    for (const { status, errorType } of documented) {
      expect(errorBody.properties.error_type.enum).toContain(errorType);
      if (status === '404' || status === '405') continue; // unknown routes and methods, not this operation
      const content = post.responses[status]?.content?.['application/json'];
      expect({ status, errorType, ref: content?.schema?.$ref }).toEqual({
        status,
        errorType,
        ref: '#/components/schemas/ErrorBody',
      });
      expect(content.examples[errorType].value).toMatchObject({ status: 'error', error_type: errorType });
    }
  });

  it('lists the health, readiness and metrics endpoints, and serves Swagger UI', async () => {
    for (const path of [API_PATHS.root, API_PATHS.live, API_PATHS.ready, API_PATHS.metrics]) {
      expect(doc.paths[path]?.get).toBeDefined();
    }
    expect(Object.keys(doc.paths[API_PATHS.ready].get.responses).sort()).toEqual(['200', '503']);
    const ui = await fetch(`${api.url}${API_PATHS.docs}`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toMatch(/swagger/i);
  });
});

describe('when parts are missing', () => {
  let gotenbergWorker: ManagedProcess;
  let gotenbergWorkerUrl: string;

  it('readiness names the converter when the only worker cannot convert, whose lines carry the request id', async () => {
    await worker.stop();
    const closedPort = await freePort(); // nothing listens there
    gotenbergWorker = await startWorker(
      {
        ...env,
        GOTENBERG_URL: `http://127.0.0.1:${closedPort}`,
        GOTENBERG_RETRIES: '0',
        CONVERTER_WARMUP_MS: '0',
      },
      'worker-gotenberg-down',
    );
    extraProcs.push(gotenbergWorker);
    gotenbergWorkerUrl = await workerHttpUrl(gotenbergWorker);
    await waitUntil(
      async () => {
        const r = await readiness();
        return r.status === 503 && r.body.failed.join() === 'converter';
      },
      30_000,
      'readiness to name the converter',
    );
    const worker503 = await fetch(`${gotenbergWorkerUrl}${WORKER_HTTP_PATHS.ready}`);
    expect(worker503.status).toBe(503);
    expect(((await worker503.json()) as { failed: string[] }).failed).toEqual(['converter']);

    const requestId = `ops-gotenberg-${Date.now()}`;
    const res = await renderWithId(requestId);
    expect(res.status).toBe(502);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    // The request id is the Gotenberg-Trace, named in the error and in the converter's log line.
    expect(await res.json()).toMatchObject({
      error_type: 'conversion_failed',
      details: { trace: requestId },
    });
    const converterLines = jsonLines(gotenbergWorker).filter(
      (l) => l.component === 'converter' && l.requestId === requestId,
    );
    expect(converterLines.length).toBeGreaterThanOrEqual(1);
    expect(String(converterLines[0].msg)).toContain(`Gotenberg trace ${requestId}`);
    const metrics = await (await fetch(`${gotenbergWorkerUrl}${WORKER_HTTP_PATHS.metrics}`)).text();
    expect(sample(metrics, 'docgen_jobs_total', { outcome: 'conversion_failed' })).toBeGreaterThanOrEqual(1);
    expect(sample(metrics, 'docgen_converter_healthy')).toBe(0);
  });

  it('with Redis gone: readiness names Redis, liveness stays 200', async () => {
    await redis.stop();
    try {
      await waitUntil(
        async () => {
          const r = await readiness();
          return r.status === 503 && r.body.failed.join() === 'redis';
        },
        30_000,
        'readiness to name Redis',
      );
      // The worker notices on its own connection, maybe a moment after the API: wait for it too.
      await waitUntil(
        async () => {
          const res = await fetch(`${gotenbergWorkerUrl}${WORKER_HTTP_PATHS.ready}`);
          return res.status === 503 && ((await res.json()) as { failed: string[] }).failed.includes('redis');
        },
        30_000,
        "the worker's readiness to name Redis",
      );
      for (const path of [API_PATHS.root, API_PATHS.live]) {
        const res = await fetch(`${api.url}${path}`);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ status: 'Service is healthy !' });
      }
      expect((await fetch(`${gotenbergWorkerUrl}${WORKER_HTTP_PATHS.live}`)).status).toBe(200);
      const metrics = await (await fetch(`${api.url}${API_PATHS.metrics}`)).text();
      expect(sample(metrics, 'docgen_redis_up')).toBe(0);
      expect(sample(metrics, 'docgen_queue_jobs', { state: 'waiting' })).toBeUndefined();
    } finally {
      // The tests after this one need Redis back, whatever happened here.
      await redis.restart();
    }
  });

  it('with no worker alive: readiness names the workers', async () => {
    // The worker re-registers with the fresh Redis, then leaves.
    await waitUntil(
      async () => {
        const r = await readiness();
        return r.status === 503 && r.body.failed.join() === 'converter';
      },
      30_000,
      'the worker to come back after Redis',
    );
    await gotenbergWorker.stop();
    const res = await fetch(`${api.url}${API_PATHS.ready}`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: 'error',
      failed: ['workers'],
      checks: {
        api: { status: 'up' },
        redis: { status: 'up' },
        workers: { status: 'down', live: 0 },
        converter: { status: 'unknown' },
      },
    });
  });
});
