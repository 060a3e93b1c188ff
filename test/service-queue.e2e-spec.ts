/**
 * The queue's answers that need no converter, or none that works: 503 when no worker is alive or
 * the queue is full (both at once, with Retry-After), 504 with the job withdrawn, 500 without
 * internals, and 502 after retries when the converter (Gotenberg here) cannot be reached.
 */
import { type Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { buildDocx, p } from './support/docx-builder';
import { docxPlainText } from './support/docx-text';
import { noise } from './support/hostile-png';
import {
  buildService,
  freePort,
  ManagedProcess,
  postRender,
  RedisServer,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
} from './service-harness';
import { encodeReply, heartbeatKey, type RenderJob, type RenderJobResult, templateKey } from '@app/contracts';
import { digestOf } from '@app/engine';
import { beat, unregister } from '@app/queue';

jest.setTimeout(60_000);

const PREFIX = '{q}';
const TIMEOUT_MS = 1500;
const names = { prefix: PREFIX, name: 'render' };
const template = buildDocx({ body: [p('Hello {{ name }}')] });
const form = { file: template, data: { name: 'queue' } };

let redis: RedisServer;
let api: RunningApi;
let client: Redis;
let queue: Queue;
let fakeBeat: NodeJS.Timeout | undefined;

/** Pretends a worker is alive (a heartbeat) without one taking jobs. */
async function startFakeHeartbeat(): Promise<void> {
  await beat(client, heartbeatKey(names), 'fake-worker', 2000);
  fakeBeat = setInterval(() => void beat(client, heartbeatKey(names), 'fake-worker', 2000), 500);
}

async function stopFakeHeartbeat(): Promise<void> {
  clearInterval(fakeBeat);
  fakeBeat = undefined;
  await unregister(client, heartbeatKey(names), 'fake-worker');
}

async function payloadKeysLeft(): Promise<string[]> {
  return client.keys(`${PREFIX}:render-payload:*`);
}

async function timed(f: () => Promise<Response>): Promise<[Response, number]> {
  const t0 = Date.now();
  const res = await f();
  return [res, Date.now() - t0];
}

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  client = redis.client();
  queue = new Queue('render', { connection: { url: redis.url }, prefix: PREFIX });
  api = await startApi(
    testEnv(redis.url, {
      QUEUE_PREFIX: PREFIX,
      JOB_TIMEOUT_MS: String(TIMEOUT_MS),
      MAX_WAITING_JOBS: '2',
      JOB_ATTEMPTS: '3',
      RETRY_AFTER_SECONDS: '7',
    }),
  );
});

afterEach(async () => {
  await stopFakeHeartbeat();
});

afterAll(async () => {
  await queue?.close();
  client?.disconnect();
  await stopAll(api);
  await stopAll(redis);
});

it('503 service_unavailable at once when no worker is alive', async () => {
  const [res, ms] = await timed(() => postRender(api.url, form));
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('7');
  const body = await res.json();
  expect(body).toMatchObject({
    status: 'error',
    error_type: 'service_unavailable',
    details: { live_workers: 0 },
  });
  expect(ms).toBeLessThan(1000);
  expect(await queue.count()).toBe(0);
});

it('504 processing_timeout when no worker takes the job in time, and the job is withdrawn', async () => {
  await startFakeHeartbeat();
  const [res, ms] = await timed(() => postRender(api.url, form));
  expect(res.status).toBe(504);
  const body = await res.json();
  expect(body).toMatchObject({
    status: 'error',
    error_type: 'processing_timeout',
    details: { timeout_ms: TIMEOUT_MS },
  });
  expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS);
  expect(ms).toBeLessThan(TIMEOUT_MS + 2000);
  expect(await queue.getJobCounts('waiting', 'active', 'delayed')).toEqual({
    waiting: 0,
    active: 0,
    delayed: 0,
  });
  expect(await payloadKeysLeft()).toEqual([]);
});

it('503 at once when the queue is full', async () => {
  await startFakeHeartbeat();
  await queue.add('render', { placeholder: 1 });
  await queue.add('render', { placeholder: 2 });
  const [res, ms] = await timed(() => postRender(api.url, form));
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('7');
  expect(await res.json()).toMatchObject({
    error_type: 'service_unavailable',
    details: { waiting_jobs: 2, max_waiting_jobs: 2 },
  });
  expect(ms).toBeLessThan(1000);
  expect(await queue.count()).toBe(2); // nothing was added
  await queue.drain();
});

it('500 internal_error without internals when a worker fails unexpectedly', async () => {
  await startFakeHeartbeat();
  const worker = new Worker(
    'render',
    async () => {
      throw new UnrecoverableError('TypeError: secret is undefined at /srv/app/worker.js:42');
    },
    { connection: { url: redis.url }, prefix: PREFIX },
  );
  try {
    const res = await postRender(api.url, form);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      status: 'error',
      error_type: 'internal_error',
      message: 'The document could not be processed',
      details: {},
    });
    expect(text).not.toMatch(/secret|\/srv\/|at /);
  } finally {
    await worker.close();
  }
});

describe('answers from workers, by reply list', () => {
  /** A stand-in worker that answers each job with `answer` (after starting the fake heartbeat). */
  async function withWorker(
    answer: (job: Job<RenderJob>) => Promise<Partial<RenderJobResult>>,
    f: () => Promise<void>,
  ): Promise<void> {
    await startFakeHeartbeat();
    const worker = new Worker<RenderJob>('render', answer, {
      connection: { url: redis.url },
      prefix: PREFIX,
    });
    try {
      await f();
    } finally {
      await worker.close();
    }
  }

  it('reads the document from its reply list and ignores what is not its answer', async () => {
    const seen: Array<RenderJob> = [];
    await withWorker(
      async (job) => {
        seen.push(job.data);
        const list = job.data.replyKey!;
        // A frame that is no reply, and a reply to a request nobody waits for, come first.
        await client.rpush(list, Buffer.from('not a reply'));
        await client.rpush(list, encodeReply({ jobId: 'gone', contentType: 'x/y', body: Buffer.from('no') }));
        await client.rpush(
          list,
          encodeReply({
            jobId: String(job.id),
            contentType: 'application/pdf',
            body: Buffer.from('%PDF-reply'),
          }),
        );
        await client.del(job.data.requestKey); // as a worker does with its push
        return { replyKey: list };
      },
      async () => {
        const res = await postRender(api.url, form);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/pdf');
        expect(Buffer.from(await res.arrayBuffer()).toString()).toBe('%PDF-reply');
      },
    );
    expect(seen).toHaveLength(1);
    expect(seen[0].replyKey).toMatch(/^\{q\}:render-reply:[0-9a-f-]{36}$/);
    // Everything was read; the list (with its TTL) holds nothing.
    expect(await client.llen(seen[0].replyKey!)).toBe(0);
    expect(await payloadKeysLeft()).toEqual([]);
  });

  it('503 asking to send again when a job completed but its reply never came', async () => {
    await withWorker(
      // Claims to have replied without pushing anything: what a reply lost in transit looks like.
      async (job) => ({ replyKey: job.data.replyKey }),
      async () => {
        const res = await postRender(api.url, form);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('7');
        const body = (await res.json()) as { error_type: string; message: string };
        expect(body.error_type).toBe('service_unavailable');
        expect(body.message).toMatch(/answer was lost on the way.*send it again/);
      },
    );
    expect(await payloadKeysLeft()).toEqual([]);
  });

  it("answers a worker's pushed failure while the job is still active", async () => {
    let answered!: () => void;
    const answeredNow = new Promise<void>((resolve) => (answered = resolve));
    let jobId = '';
    const failedReason = JSON.stringify({
      error_type: 'template_syntax_error',
      message: 'Unclosed tag',
      details: { errors: [] },
    });
    await withWorker(
      async (job) => {
        jobId = String(job.id);
        await client.rpush(job.data.replyKey!, encodeReply({ jobId, failedReason }));
        // Holds the job until the caller has its answer: only the reply can have carried it.
        await Promise.race([answeredNow, new Promise((r) => setTimeout(r, 10_000))]);
        throw new UnrecoverableError(failedReason);
      },
      async () => {
        const res = await postRender(api.url, form);
        expect(await queue.getJobState(jobId)).toBe('active');
        answered();
        expect(res.status).toBe(422);
        expect(await res.json()).toMatchObject({
          error_type: 'template_syntax_error',
          message: 'Unclosed tag',
        });
      },
    );
  });

  it('503 with Retry-After when no LibreOffice instance could start on the worker (not a 502)', async () => {
    // The pool's own failure, as the worker's last attempt pushes it (converter_unavailable).
    const failedReason = JSON.stringify({
      error_type: 'conversion_failed',
      message: 'No LibreOffice instance could be started: soffice made no progress (used no CPU) for 20.0s',
      details: {
        backend: 'libreoffice',
        reason: 'converter_unavailable',
        retryable: true,
        retryAfterMs: 12_300,
      },
    });
    await withWorker(
      async (job) => {
        await client.rpush(job.data.replyKey!, encodeReply({ jobId: String(job.id), failedReason }));
        throw new UnrecoverableError(failedReason);
      },
      async () => {
        const res = await postRender(api.url, form);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('13'); // the pool's estimate, rounded up
        expect(await res.json()).toMatchObject({
          error_type: 'service_unavailable',
          details: { reason: 'converter_unavailable', backend: 'libreoffice', retry_after_seconds: 13 },
        });
      },
    );
  });

  describe('jobs that end without a reply, behind an API that would wait 20 s', () => {
    let patientApi: RunningApi;

    beforeAll(async () => {
      patientApi = await startApi(
        testEnv(redis.url, { QUEUE_PREFIX: PREFIX, JOB_TIMEOUT_MS: '20000', RETRY_AFTER_SECONDS: '7' }),
        'api-patient',
      );
    });

    afterAll(async () => {
      await stopAll(patientApi);
    });

    it('are found within seconds: one failed by BullMQ, one completed whose reply never came', async () => {
      let jobs = 0;
      await withWorker(
        async (job) => {
          // Completed without pushing its reply: the look-up finds it, then its reply's grace ends.
          if (++jobs === 2) return { replyKey: job.data.replyKey, contentType: 'application/pdf', bytes: 8 };
          throw new UnrecoverableError('not our JSON: BullMQ or a foreign worker failed it');
        },
        async () => {
          const [failed, failedMs] = await timed(() => postRender(patientApi.url, form));
          expect(failed.status).toBe(500);
          expect(((await failed.json()) as { error_type: string }).error_type).toBe('internal_error');
          const [lost, lostMs] = await timed(() => postRender(patientApi.url, form));
          expect(lost.status).toBe(503);
          expect(((await lost.json()) as { message: string }).message).toMatch(/answer was lost/);
          // Not at JOB_TIMEOUT_MS (20 s): the once-a-second look at requests waiting over a second
          // (and, for the completed job, the 5 s its reply may still take).
          expect(failedMs).toBeLessThan(5000);
          expect(lostMs).toBeLessThan(12_000);
        },
      );
      expect(await payloadKeysLeft()).toEqual([]);
    });
  });
});

describe('with a worker whose converter is down', () => {
  let worker: ManagedProcess;

  beforeAll(async () => {
    const closedPort = await freePort(); // nothing listens there
    worker = await startWorker(
      testEnv(redis.url, {
        QUEUE_PREFIX: PREFIX,
        GOTENBERG_URL: `http://127.0.0.1:${closedPort}`,
        GOTENBERG_RETRIES: '0',
        CONVERTER_WARMUP_MS: '0',
      }),
      'worker-gotenberg-down',
    );
  });

  afterAll(async () => {
    await stopAll(worker);
  });

  it('502 conversion_failed after the job was retried', async () => {
    const res = await postRender(api.url, form);
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body).toMatchObject({ error_type: 'conversion_failed', details: { retryable: true } });
    // The last attempt's failure comes by reply before BullMQ records it: wait for the record,
    // this request's (earlier tests left failed jobs of their own in the same queue).
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const failedJob = async () => (await queue.getFailed()).find((j) => j.data.requestId === requestId);
    await waitUntil(async () => (await failedJob()) !== undefined, 10_000, 'the failed job');
    expect((await failedJob())?.attemptsMade).toBe(3);
    // The worker's last line may arrive after the API's answer (another pipe): wait for it.
    const retryLines = () => worker.lines.filter((l) => /failed \(will retry/.test(l));
    await waitUntil(() => retryLines().length >= 3, 10_000, 'the third attempt’s line').catch(
      () => undefined,
    );
    expect(retryLines()).toHaveLength(3);
  });

  it('still renders what needs no conversion (options.output = docx)', async () => {
    const res = await postRender(api.url, {
      file: template,
      request_data: { template_data: { name: 'no pdf' }, options: { output: 'docx' } },
    });
    expect(res.status).toBe(200);
    const docx = Buffer.from(await res.arrayBuffer());
    expect(docx.subarray(0, 2).toString()).toBe('PK');
  });

  it('sends a template to Redis once, shares it between requests, and sends it again when Redis lost it', async () => {
    // 120 KB of noise the zip cannot shrink: a template whose bytes crossing Redis show.
    const big = buildDocx({
      body: [
        p('Shared {{ name }}'),
        { runs: [{ image: { png: noise(200, 200), widthMm: 20, heightMm: 20 } }] },
      ],
    });
    expect(big.length).toBeGreaterThan(100_000);
    const docxOf = (name: string) => ({
      file: big,
      request_data: { template_data: { name }, options: { output: 'docx' as const } },
    });
    /** Bytes Redis received during `f` (heartbeats and the stalled check add a few hundred more). */
    const redisInput = async (f: () => Promise<void>): Promise<number> => {
      const inputBytes = async () =>
        Number(/total_net_input_bytes:(\d+)/.exec(await client.info('stats'))![1]);
      const before = await inputBytes();
      await f();
      return (await inputBytes()) - before;
    };
    const render = async (name: string) => {
      const res = await postRender(api.url, docxOf(name));
      expect(res.status).toBe(200);
      expect(docxPlainText(Buffer.from(await res.arrayBuffer()))).toContain(`Shared ${name}`);
    };

    // Each request also stores its result (the filled .docx, as large): the template is the difference.
    const first = await redisInput(() => render('first'));
    const second = await redisInput(() => render('second'));
    expect(first - second).toBeGreaterThan(big.length * 0.9);
    // One key, named by the bytes' digest, for both requests; it ends by itself (no request
    // deletes a shared key).
    const key = templateKey(names, digestOf(big));
    expect(await client.getBuffer(key)).toEqual(big);
    expect(await client.pttl(key)).toBeGreaterThan(0);
    expect(await payloadKeysLeft()).toEqual([]);

    // Gone from Redis (evicted, a restart): the API is told and sends the bytes again.
    await client.del(key);
    const third = await redisInput(() => render('third'));
    expect(third - second).toBeGreaterThan(big.length * 0.9);
    expect(await client.exists(key)).toBe(1);
  });
});
