/**
 * Faults the service must survive, injected into the real thing (a private Redis, LibreOffice
 * workers, the API, and a Gotenberg double), with what the caller sees, how long recovery takes
 * and how many requests are lost, written to .tmp/reliability/faults.md for docs/reliability.md.
 *
 * (a) a worker SIGKILLed mid-job: with a second worker running (several requests in flight), and
 *     as the only worker with a replacement started afterwards, as a container restart does;
 *     test/service-resilience.e2e-spec.ts has the single-request case;
 * (b) soffice.bin SIGKILLed in the middle of a conversion, and while idle;
 * (c) Redis restarted (503 at once, recovery without restarting anything, a request in flight)
 *     and Redis frozen (SIGSTOP);
 * (d) Gotenberg down, dropping connections, busy (503) or slow, through a double on 127.0.0.1.
 *
 * Times are measured and recorded, never asserted tightly: the machine is shared. Where the design
 * promises that nothing is lost, the test asserts zero lost.
 */
import { buildDocx, p } from './support/docx-builder';
import {
  buildService,
  ManagedProcess,
  pdfText,
  postRender,
  RedisServer,
  RenderForm,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
} from './service-harness';
import { GotenbergDouble } from './support/hostile-gotenberg';
import { pdfXmp } from './support/pdf-inspect';
import { Answer, answer, expectErrorBody, Recorder } from './support/hostile-http';
import { converting, sofficePids } from './support/hostile-process';

jest.setTimeout(120_000);

const PREFIX = '{faults}';
const JOB_TIMEOUT_MS = 60_000;

/** About 130 pages: a conversion of several seconds, long enough to be interrupted. */
const ROWS = 10_000;
const longTemplate = buildDocx({
  body: [p('{% for r in rows %}Line {{ r }} of a long document. {% endfor %}')],
});
const longForm: RenderForm = {
  file: longTemplate,
  data: { rows: Array.from({ length: ROWS }, (_, i) => i) },
};
const hello = buildDocx({ body: [p('Hello {{ name }}!')] });
const helloForm: RenderForm = { file: hello, data: { name: 'faults' } };

let redis: RedisServer;
let api: RunningApi;
let env: NodeJS.ProcessEnv;
const workers: ManagedProcess[] = [];
const extraApis: RunningApi[] = [];
const record = new Recorder();

interface FaultRow {
  fault: string;
  callerSees: string;
  recovery: string;
  lost: string;
}
const faults: FaultRow[] = [];

function fault(row: FaultRow): void {
  faults.push(row);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function newWorker(name: string, workerEnv: NodeJS.ProcessEnv = env): Promise<ManagedProcess> {
  const w = await startWorker(workerEnv, name);
  workers.push(w);
  return w;
}

function alive(): ManagedProcess[] {
  return workers.filter((w) => w.running && w.name.startsWith('lo-'));
}

/** The complete long document: its first and last lines (checked without printing them all). */
function expectLongPdf(a: Answer): void {
  expect(a.status).toBe(200);
  const text = pdfText(a.bytes!);
  expect(/Line 0 of a long\s+document\./.test(text)).toBe(true);
  expect(new RegExp(`Line ${ROWS - 1} of a long\\s+document\\.`).test(text)).toBe(true);
}

/** The worker among `candidates` that logs the start of a job first, and the job's id. */
async function workerThatStarts(
  candidates: ManagedProcess[],
): Promise<{ worker: ManagedProcess; jobId: string }> {
  const from = candidates.map((w) => w.lines.length);
  return Promise.race(
    candidates.map(async (worker, i) => {
      const line = await worker.waitFor(/job \S+ started/, 60_000, from[i]);
      return { worker, jobId: /job (\S+) started/.exec(line)![1] };
    }),
  );
}

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  env = testEnv(redis.url, { QUEUE_PREFIX: PREFIX, JOB_TIMEOUT_MS: String(JOB_TIMEOUT_MS) });
  const [, , started] = await Promise.all([newWorker('lo-a'), newWorker('lo-b'), startApi(env)]);
  api = started;
});

afterAll(async () => {
  const lines = [
    '| Fault | Caller sees | Recovery | Lost |',
    '| ----- | ----------- | -------- | ---- |',
    ...faults.map((f) => `| ${f.fault} | ${f.callerSees} | ${f.recovery} | ${f.lost} |`),
  ];
  for (const l of lines) record.note(l);
  console.log(`fault results: ${record.write('faults.md', 'Faults: what the caller sees')}`);
  await stopAll(...extraApis, api, ...workers);
  await stopAll(redis);
});

describe('(a) a worker SIGKILLed mid-job', () => {
  it('with a second worker running, three requests in flight are all answered: zero lost', async () => {
    const [a, b] = alive();
    const t0 = Date.now();
    const responses = [0, 1, 2].map(() => answer(postRender(api.url, longForm)));
    const { worker: victim, jobId } = await workerThatStarts([a, b]);
    const survivor = victim === a ? b : a;
    const fromLine = survivor.lines.length;
    await sleep(500); // into the job
    const killedAt = Date.now();
    victim.killGroup('SIGKILL');
    await victim.exited;
    expect(victim.output()).not.toContain(`job ${jobId} completed`);

    const results = await Promise.all(responses);
    const doneAt = Date.now();
    for (const r of results) expectLongPdf(r);
    // the killed worker's job was taken over by the survivor once its lock expired
    const takeover = await survivor.waitFor(new RegExp(`job ${jobId} started`), 1000, fromLine);
    expect(takeover).toBeDefined();
    const completed = await survivor.waitFor(new RegExp(`job ${jobId} completed`), 1000, fromLine);
    const tookOverAt = Date.parse(/"time":"([^"]+)"/.exec(takeover)?.[1] ?? '') || NaN;
    const completedAt = Date.parse(/"time":"([^"]+)"/.exec(completed)?.[1] ?? '') || doneAt;
    for (const r of results) record.add('request in flight when its worker was SIGKILLed', '200', r);
    fault({
      fault: '(a) worker SIGKILLed mid-job, second worker running, 3 requests in flight',
      callerSees: `200 for all 3 (slowest answered ${seconds(doneAt - t0)} after sending)`,
      recovery: `job taken over ${Number.isNaN(tookOverAt) ? '?' : seconds(tookOverAt - killedAt)} after the kill (lock ${env.WORKER_LOCK_DURATION_MS} ms + stalled check ${env.WORKER_STALLED_INTERVAL_MS} ms), its PDF ${seconds(completedAt - killedAt)} after the kill`,
      lost: '0 of 3',
    });
  });

  it('the only worker SIGKILLed mid-job: new requests get 503 at once, and a replacement finishes the job', async () => {
    const [only] = alive();
    expect(alive()).toHaveLength(1);
    const response = answer(postRender(api.url, longForm));
    const { jobId } = await workerThatStarts([only]);
    await sleep(500);
    const killedAt = Date.now();
    only.killGroup('SIGKILL');
    await only.exited;

    // Once its heartbeat has expired the API refuses new work at once instead of queueing it.
    await sleep(Number(env.HEARTBEAT_TTL_MS) + 1000);
    const refused: Answer | undefined = await answer(postRender(api.url, helloForm));
    expect(refused.status).toBe(503);
    expect(expectErrorBody(refused!)).toMatchObject({
      error_type: 'service_unavailable',
      details: { live_workers: 0 },
    });
    expect(refused!.headers.get('retry-after')).toBe(env.RETRY_AFTER_SECONDS);
    record.add('new request while no worker is alive', '503 service_unavailable', refused!);

    const replacement = await newWorker('lo-c');
    const restartedAt = Date.now();
    const a = await response;
    const doneAt = Date.now();
    expectLongPdf(a);
    // The answer comes by the reply list, before the worker's own line (another pipe): wait for it.
    expect(await replacement.waitFor(new RegExp(`job ${jobId} completed`), 5000)).toBeDefined();
    record.add('request whose only worker was SIGKILLed, replacement started', '200', a);
    fault({
      fault: '(a) the only worker SIGKILLed mid-job, a replacement started (as a container restart)',
      callerSees: `200 (${seconds(a.ms)} after sending); new requests meanwhile: 503 service_unavailable in ${refused!.ms} ms with Retry-After`,
      recovery: `replacement ready ${seconds(restartedAt - killedAt)} after the kill, the PDF ${seconds(doneAt - restartedAt)} later`,
      lost: '0 (within JOB_TIMEOUT_MS)',
    });
  });
});

describe('(b) soffice.bin SIGKILLed', () => {
  it('in the middle of a conversion: the pool retries once on a fresh instance and the caller gets its PDF', async () => {
    const [w] = alive();
    const [before] = sofficePids(w.pid);
    expect(before).toBeGreaterThan(0);
    const t0 = Date.now();
    const response = answer(postRender(api.url, longForm));
    await waitUntil(() => converting(w.pid), 30_000, 'the conversion to start');
    await sleep(300);
    expect(converting(w.pid)).toBe(true); // still converting: the kill lands mid-conversion
    const killedAt = Date.now();
    process.kill(before, 'SIGKILL');
    const a = await response;
    const doneAt = Date.now();
    expectLongPdf(a);
    const after = sofficePids(w.pid);
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
    record.add('request whose soffice.bin was SIGKILLed mid-conversion', '200', a);
    fault({
      fault: '(b) soffice.bin SIGKILLed mid-conversion',
      callerSees: `200, complete PDF (answered ${seconds(doneAt - t0)} after sending)`,
      recovery: `${seconds(doneAt - killedAt)} from the kill to the PDF (fresh instance started, document converted again)`,
      lost: '0',
    });
  });

  it('while idle: it is replaced before the next request, which succeeds', async () => {
    const [w] = alive();
    const [before] = sofficePids(w.pid);
    const killedAt = Date.now();
    process.kill(before, 'SIGKILL');
    await waitUntil(() => sofficePids(w.pid).some((pid) => pid !== before), 30_000, 'a new soffice.bin');
    const replacedAt = Date.now();
    const a = await answer(postRender(api.url, helloForm));
    expect(a.status).toBe(200);
    expect(pdfText(a.bytes!)).toContain('Hello faults!');
    record.add('request after an idle soffice.bin was SIGKILLed', '200', a);
    fault({
      fault: '(b) soffice.bin SIGKILLed while idle',
      callerSees: `200 for the next request (${a.ms} ms)`,
      recovery: `new soffice.bin ${seconds(replacedAt - killedAt)} after the kill`,
      lost: '0',
    });
  });
});

describe('(c) Redis', () => {
  it('restarted: 503 at once during the outage, then service again without restarting the API or the worker', async () => {
    const [w] = alive();
    const apiPid = api.proc.pid;
    await redis.stop();
    const stoppedAt = Date.now();
    const during: Answer[] = [];
    for (let i = 0; i < 10; i++) during.push(await answer(postRender(api.url, helloForm)));
    for (const r of during) {
      expect(r.status).toBe(503);
      expect(expectErrorBody(r).error_type).toBe('service_unavailable');
      expect(r.headers.get('retry-after')).toBe(env.RETRY_AFTER_SECONDS);
    }
    record.add('request while Redis is down (1 of 10)', '503 service_unavailable', during[0]);
    const ms = during.map((r) => r.ms).sort((x, y) => x - y);

    await redis.restart(); // empty, as after a crash without persistence
    const restartedAt = Date.now();
    let refusedAfter = 0;
    let first: Answer | undefined;
    await waitUntil(
      async () => {
        first = await answer(postRender(api.url, helloForm));
        if (first.status !== 200) refusedAfter++;
        return first.status === 200;
      },
      30_000,
      'a 200 once Redis is back',
    );
    const recoveredAt = Date.now();
    expect(pdfText(first!.bytes!)).toContain('Hello faults!');
    expect(api.proc.running && api.proc.pid === apiPid).toBe(true);
    expect(w.running).toBe(true);
    record.add('first request after Redis came back', '200', first!);
    fault({
      fault: '(c) Redis stopped, then restarted empty',
      callerSees: `503 service_unavailable with Retry-After during the outage (10 requests: median ${ms[5]} ms, max ${ms[9]} ms)`,
      recovery: `first 200 ${seconds(recoveredAt - restartedAt)} after Redis was back (outage ${seconds(restartedAt - stoppedAt)}; ${refusedAfter} request(s) refused meanwhile); nothing restarted`,
      lost: '0 accepted (refused ones were told to retry)',
    });
  });

  it('a request in flight while Redis restarts empty gets 503 service_unavailable once Redis is back (its job is gone), and the next one succeeds', async () => {
    // A second API replica with a short wait: were the lost job missed, its 504 would come quickly.
    const shortApi = await startApi({ ...env, JOB_TIMEOUT_MS: '8000' }, 'api-short-wait');
    extraApis.push(shortApi);
    const [w] = alive();
    const t0 = Date.now();
    const response = answer(postRender(shortApi.url, longForm));
    await workerThatStarts([w]);
    await redis.restart();
    const a = await response;
    expect(a.status).toBe(503);
    expect(expectErrorBody(a).error_type).toBe('service_unavailable');
    expect(a.headers.get('retry-after')).toBe('2');
    record.add('request in flight while Redis restarted (empty)', '503 service_unavailable', a);
    let next: Answer | undefined;
    await waitUntil(
      async () => {
        next = await answer(postRender(api.url, helloForm));
        return next.status === 200;
      },
      30_000,
      'a 200 after the restart',
    );
    fault({
      fault: '(c) Redis restarted (empty) while a request was in flight',
      callerSees: `503 service_unavailable with Retry-After after ${seconds(Date.now() - t0 - next!.ms)}, once Redis answered without the job (JOB_TIMEOUT_MS 8000 on that API)`,
      recovery: 'next request 200',
      lost: '1 in flight (by design: Redis holds the queue; docs/service.md)',
    });
  });

  it('frozen (SIGSTOP): requests get 503 while it is frozen instead of hanging', async () => {
    const FROZEN_MS = 10_000;
    process.kill(redis.proc.pid, 'SIGSTOP');
    const frozenAt = Date.now();
    let resumedAt = 0;
    try {
      const pending = answer(postRender(api.url, helloForm));
      const early = await Promise.race([pending, sleep(FROZEN_MS).then(() => undefined)]);
      process.kill(redis.proc.pid, 'SIGCONT');
      resumedAt = Date.now();
      const a = early ?? (await pending);
      const answeredAt = frozenAt + a.ms;
      record.add(
        `request while Redis is frozen (${FROZEN_MS / 1000} s)`,
        '503 service_unavailable while frozen',
        a,
      );
      let next: Answer | undefined;
      await waitUntil(
        async () => {
          next = await answer(postRender(api.url, helloForm));
          return next.status === 200;
        },
        30_000,
        'a 200 after Redis resumed',
      );
      fault({
        fault: `(c) Redis frozen (SIGSTOP) for ${FROZEN_MS / 1000} s`,
        callerSees: early
          ? `${a.status}${a.error ? ` ${a.error.error_type}` : ''} after ${a.ms} ms, while frozen`
          : `no answer while frozen; ${a.status}${a.error ? ` ${a.error.error_type}` : ''} ${seconds(answeredAt - resumedAt)} after Redis resumed (${seconds(a.ms)} in all)`,
        recovery: `next 200 ${seconds(Date.now() - resumedAt)} after Redis resumed`,
        lost: '0 accepted',
      });
      expect(early).toBeDefined();
      expect(a.status).toBe(503);
    } finally {
      if (!resumedAt) process.kill(redis.proc.pid, 'SIGCONT');
    }
  });

  afterAll(async () => {
    // The Gotenberg tests need no LibreOffice worker: free the CPU.
    await stopAll(...alive());
  });
});

describe('(d) Gotenberg down, busy or slow (a double on 127.0.0.1)', () => {
  const GB_PREFIX = '{faults-gb}';
  const CONVERSION_TIMEOUT_MS = 3000;
  const gotenberg = new GotenbergDouble();
  let gbApi: RunningApi;

  beforeAll(async () => {
    const url = await gotenberg.up();
    const gbEnv = testEnv(redis.url, {
      QUEUE_PREFIX: GB_PREFIX,
      JOB_TIMEOUT_MS: String(JOB_TIMEOUT_MS),
      JOB_ATTEMPTS: '3',
      GOTENBERG_URL: url,
      GOTENBERG_RETRIES: '2',
      CONVERSION_TIMEOUT_MS: String(CONVERSION_TIMEOUT_MS),
    });
    const [, started] = await Promise.all([
      newWorker('gotenberg-worker', gbEnv),
      startApi(gbEnv, 'api-gotenberg'),
    ]);
    gbApi = started;
    extraApis.push(gbApi);
  });

  afterAll(async () => {
    await gotenberg.close();
  });

  it('up: the PDF comes from the double', async () => {
    const before = gotenberg.converted;
    const a = await answer(postRender(gbApi.url, helloForm));
    expect(a.status).toBe(200);
    expect(pdfText(a.bytes!)).toContain('Hello faults!');
    expect(gotenberg.converted).toBe(before + 1);
    record.add('Gotenberg up', '200', a);
  });

  it('up, with options.pdf: the worker sends them as Gotenberg form fields and the PDF obeys', async () => {
    const a = await answer(
      postRender(gbApi.url, {
        file: hello,
        request_data: {
          template_data: { name: 'faults' },
          options: { pdf: { pdfa: 'PDF/A-2b', pdfua: true } },
        },
      }),
    );
    expect(a.status).toBe(200);
    expect(gotenberg.lastFields).toEqual([
      ['losslessImageCompression', 'true'],
      ['updateIndexes', 'true'],
      ['pdfa', 'PDF/A-2b'],
      ['pdfua', 'true'],
    ]);
    expect(pdfXmp(a.bytes!)).toMatch(/pdfaid:part(="|>)2/);
  });

  it('down for good (port closed): 502 conversion_failed after the retries', async () => {
    await gotenberg.down();
    try {
      const a = await answer(postRender(gbApi.url, helloForm));
      expect(a.status).toBe(502);
      expect(expectErrorBody(a)).toMatchObject({
        error_type: 'conversion_failed',
        details: { retryable: true },
      });
      record.add('Gotenberg down (connection refused) for good', '502 conversion_failed', a);
      fault({
        fault: '(d) Gotenberg down for good (connection refused)',
        callerSees: `502 conversion_failed (retryable: true) after ${a.ms} ms: 3 job attempts × 3 connection attempts`,
        recovery: 'see the next rows',
        lost: '1 (the converter stayed away beyond the retry window)',
      });
    } finally {
      await gotenberg.up();
    }
  });

  it('down, back within the retry window: the request succeeds, nothing lost', async () => {
    await gotenberg.down();
    const t0 = Date.now();
    const response = answer(postRender(gbApi.url, helloForm));
    await sleep(700);
    await gotenberg.up();
    const upAt = Date.now();
    const a = await response;
    expect(a.status).toBe(200);
    expect(pdfText(a.bytes!)).toContain('Hello faults!');
    record.add('Gotenberg down for 0.7 s, then back', '200', a);
    fault({
      fault: '(d) Gotenberg down for 0.7 s (connection refused), then back',
      callerSees: `200 after ${a.ms} ms`,
      recovery: `PDF ${seconds(t0 + a.ms - upAt)} after Gotenberg came back (connection retries, then job retries with backoff)`,
      lost: '0',
    });
  });

  it.each<{ what: string; behaviour: 'reset' | 'busy' }>([
    { what: 'drops the first 4 connections', behaviour: 'reset' },
    { what: 'answers 503 to the first 4 requests', behaviour: 'busy' },
  ])('$what: retried until it answers, the request succeeds', async ({ what, behaviour }) => {
    const received = gotenberg.received;
    gotenberg.failNext(4, behaviour === 'reset' ? { kind: 'reset' } : { kind: 'status', status: 503 });
    const a = await answer(postRender(gbApi.url, helloForm));
    expect(a.status).toBe(200);
    expect(pdfText(a.bytes!)).toContain('Hello faults!');
    expect(gotenberg.received - received).toBe(5); // 3 tries in the first job attempt, 2 in the second
    record.add(`Gotenberg ${what}`, '200', a);
    fault({
      fault: `(d) Gotenberg ${what}`,
      callerSees: `200 after ${a.ms} ms`,
      recovery: 'within the request (5 calls to Gotenberg: 3 in the first job attempt, 2 in the second)',
      lost: '0',
    });
  });

  it('slow beyond CONVERSION_TIMEOUT_MS: 502 conversion_failed (timeout), then recovery once it answers in time', async () => {
    gotenberg.behaviour = { kind: 'slow', ms: CONVERSION_TIMEOUT_MS * 3 };
    let slow: Answer;
    try {
      slow = await answer(postRender(gbApi.url, helloForm));
    } finally {
      gotenberg.behaviour = { kind: 'ok' };
    }
    expect(slow.status).toBe(502);
    expect(expectErrorBody(slow)).toMatchObject({
      error_type: 'conversion_failed',
      details: { reason: 'timeout' },
    });
    record.add(
      `Gotenberg answering after ${(CONVERSION_TIMEOUT_MS * 3) / 1000} s`,
      '502 conversion_failed',
      slow,
    );

    gotenberg.behaviour = { kind: 'slow', ms: CONVERSION_TIMEOUT_MS / 3 };
    let within: Answer;
    try {
      within = await answer(postRender(gbApi.url, helloForm));
    } finally {
      gotenberg.behaviour = { kind: 'ok' };
    }
    expect(within.status).toBe(200);
    record.add(`Gotenberg answering after ${CONVERSION_TIMEOUT_MS / 3000} s`, '200', within);

    const back = await answer(postRender(gbApi.url, helloForm));
    expect(back.status).toBe(200);
    expect(pdfText(back.bytes!)).toContain('Hello faults!');
    record.add('Gotenberg fast again', '200', back);
    fault({
      fault: `(d) Gotenberg slower than CONVERSION_TIMEOUT_MS (${CONVERSION_TIMEOUT_MS} ms)`,
      callerSees: `502 conversion_failed (reason timeout) after ${slow.ms} ms, not retried; a slow but in-time answer: 200 after ${within.ms} ms`,
      recovery: `next request 200 (${back.ms} ms) once it answers in time`,
      lost: '1 (the slow one: a timeout is not retried)',
    });
  });
});
