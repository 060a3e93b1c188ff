/**
 * What the service survives: a worker killed mid-job (another worker finishes the job), a worker
 * stopped with SIGTERM mid-job (it finishes the job first), no worker at all (503 at once, then
 * service again once one starts), Redis going away (503 at once, then service again without
 * restarting anything once Redis is back) and the API stopped with SIGTERM while it waits for a
 * worker (it answers first).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDocx, p } from './support/docx-builder';
import {
  buildService,
  ManagedProcess,
  pdfText,
  postRender,
  RedisServer,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
} from './service-harness';

jest.setTimeout(120_000);

const PREFIX = '{res}';
const invoice = {
  file: readFileSync(join(__dirname, '..', 'examples', 'invoice.docx')),
  request_data: readFileSync(join(__dirname, '..', 'examples', 'invoice-request.json'), 'utf8'),
};
/** Some forty pages: a conversion long enough to be interrupted. */
const longTemplate = buildDocx({
  body: [p('{% for r in rows %}Line {{ r }} of a long document. {% endfor %}')],
});
const longForm = { file: longTemplate, data: { rows: Array.from({ length: 3000 }, (_, i) => i) } };

let redis: RedisServer;
let api: RunningApi;
let env: NodeJS.ProcessEnv;
const workers: ManagedProcess[] = [];

async function newWorker(name: string): Promise<ManagedProcess> {
  const w = await startWorker(env, name);
  workers.push(w);
  return w;
}

/** The worker that logs the start of a job first (from each worker's current line on). */
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

function processesOf(pid: number): string[] {
  try {
    return execFileSync('pgrep', ['-f', `docxpdf_${pid}_`])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  env = testEnv(redis.url, { QUEUE_PREFIX: PREFIX, JOB_TIMEOUT_MS: '45000' });
  const [a, b, started] = await Promise.all([newWorker('worker-a'), newWorker('worker-b'), startApi(env)]);
  expect(a.running && b.running).toBe(true);
  api = started;
});

afterAll(async () => {
  await stopAll(api, ...workers);
  await stopAll(redis);
  for (const w of workers) for (const pid of processesOf(w.pid)) process.kill(Number(pid), 'SIGKILL');
});

it('a worker SIGKILLed mid-job loses nothing: the other worker finishes the job', async () => {
  const [a, b] = workers;
  const response = postRender(api.url, longForm);
  const { worker: victim, jobId } = await workerThatStarts([a, b]);
  const survivor = victim === a ? b : a;
  victim.killGroup('SIGKILL');
  await victim.exited;
  expect(victim.output()).not.toContain(`job ${jobId} completed`);

  const res = await response;
  expect(res.status).toBe(200);
  const text = pdfText(Buffer.from(await res.arrayBuffer()));
  // (checked without printing forty pages when it fails)
  expect(/Line 0 of a long\s+document\./.test(text)).toBe(true);
  expect(/Line 2999 of a long\s+document\./.test(text)).toBe(true);
  // The answer comes by the reply list, before the worker's own line (another pipe): wait for it.
  expect(await survivor.waitFor(new RegExp(`job ${jobId} completed`), 5000)).toBeDefined();
  // the killed worker's LibreOffice went with it
  await waitUntil(() => processesOf(victim.pid).length === 0, 15_000, 'the killed worker’s soffice to exit');
});

it('SIGTERM lets a worker finish the job in hand before it exits', async () => {
  const alive = workers.filter((w) => w.running);
  expect(alive).toHaveLength(1);
  const [worker] = alive;
  const response = postRender(api.url, longForm);
  const { jobId } = await workerThatStarts([worker]);
  process.kill(worker.pid, 'SIGTERM');
  const res = await response;
  expect(res.status).toBe(200);
  expect(await worker.exited).toBe(0);
  expect(worker.output()).toMatch(new RegExp(`job ${jobId} completed[^]*stopped`));
});

it('503 at once while no worker is alive, service again once one starts', async () => {
  expect(workers.filter((w) => w.running)).toHaveLength(0);
  const t0 = Date.now();
  const res = await postRender(api.url, invoice);
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('2');
  expect(await res.json()).toMatchObject({ error_type: 'service_unavailable', details: { live_workers: 0 } });
  expect(Date.now() - t0).toBeLessThan(1000);

  await newWorker('worker-c');
  const again = await postRender(api.url, invoice);
  expect(again.status).toBe(200);
  expect(again.headers.get('content-type')).toBe('application/pdf');
});

it('503 at once while Redis is down, then recovery without restarting the API or the worker', async () => {
  await redis.stop();
  const t0 = Date.now();
  const res = await postRender(api.url, invoice);
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('2');
  expect(await res.json()).toMatchObject({ status: 'error', error_type: 'service_unavailable' });
  expect(Date.now() - t0).toBeLessThan(1000);
  // health checks still answer: the API process is alive
  expect((await fetch(`${api.url}/health-check`)).status).toBe(200);

  await redis.restart(); // empty, as after a crash without persistence
  let last = 0;
  await waitUntil(
    async () => {
      const r = await postRender(api.url, invoice);
      last = r.status;
      await r.arrayBuffer();
      return r.status === 200;
    },
    30_000,
    'a 200 once Redis is back',
  );
  expect(last).toBe(200);
  expect(api.proc.running).toBe(true);
  expect(workers.filter((w) => w.running)).toHaveLength(1);
});

it('SIGTERM lets the API answer the requests it is waiting on', async () => {
  const worker = workers.find((w) => w.running)!;
  const response = postRender(api.url, longForm);
  await workerThatStarts([worker]);
  process.kill(api.proc.pid, 'SIGTERM');
  const res = await response;
  expect(res.status).toBe(200);
  expect(pdfText(Buffer.from(await res.arrayBuffer()))).toMatch(/Line 2999 of a long\s+document\./);
  await api.proc.exited; // NestJS re-raises SIGTERM once closed: no exit code to check
  expect(api.proc.output()).toMatch(/shutting down: waiting for 1 request/);
});
