/**
 * The service on a Redis Cluster of three masters (test/support/redis-cluster.ts), through
 * REDIS_CLUSTER_NODES: requests return PDFs, every key of the service lands in the slot of the
 * `{docx}` hash tag, a worker SIGKILLed under load is replaced without losing a request, and the
 * master owning that slot restarted without its data costs typed 503s while it is away, never a
 * hung request, and nothing once it is back.
 */
import { buildDocx, p } from './support/docx-builder';
import { RedisCluster } from './support/redis-cluster';
import {
  buildService,
  ManagedProcess,
  pdfText,
  postRender,
  RenderForm,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
} from './service-harness';

jest.setTimeout(180_000);

const PREFIX = '{docx}';
const hello = (name: string): RenderForm => ({
  file: buildDocx({ body: [p('Hello {{ name }}!')] }),
  data: { name },
});
/** Some forty pages: a conversion long enough to be interrupted. */
const longForm: RenderForm = {
  file: buildDocx({ body: [p('{% for r in rows %}Line {{ r }} of a long document. {% endfor %}')] }),
  data: { rows: Array.from({ length: 3000 }, (_, i) => i) },
};

let cluster: RedisCluster;
let env: NodeJS.ProcessEnv;
let api: RunningApi;
const workers: ManagedProcess[] = [];

interface Outcome {
  status: number;
  errorType?: string;
  text?: string;
}

/** Posts and reads the whole answer: the PDF's text, or the error body's type. */
async function render(form: RenderForm): Promise<Outcome> {
  const res = await postRender(api.url, form);
  const body = Buffer.from(await res.arrayBuffer());
  if (res.headers.get('content-type') === 'application/pdf') {
    return { status: res.status, text: pdfText(body) };
  }
  const error = JSON.parse(body.toString('utf8')) as { status: string; error_type: string };
  expect(error.status).toBe('error');
  return { status: res.status, errorType: error.error_type };
}

async function newWorker(name: string): Promise<ManagedProcess> {
  const w = await startWorker(env, name);
  workers.push(w);
  return w;
}

/** Resolves once `worker` logs the start of a job (from its current line on). */
function jobStarted(worker: ManagedProcess): Promise<string> {
  return worker.waitFor(/job \S+ started/, 60_000, worker.lines.length);
}

beforeAll(async () => {
  buildService();
  cluster = await RedisCluster.start(3);
  env = testEnv(`redis://${cluster.seedNodes.split(',')[0]}`, {
    REDIS_CLUSTER_NODES: cluster.seedNodes,
    QUEUE_PREFIX: PREFIX,
    JOB_TIMEOUT_MS: '30000',
  });
  const [, started] = await Promise.all([newWorker('worker-1'), startApi(env)]);
  api = started;
});

afterAll(async () => {
  await stopAll(api, ...workers);
  await cluster?.stop();
});

it('requests return PDFs, and every key of the service lies on the master of the {docx} slot', async () => {
  const outcomes: Outcome[] = [];
  for (let i = 0; i < 4; i++) outcomes.push(await render(hello(`cluster ${i}`)));
  expect(outcomes.map((o) => o.status)).toEqual([200, 200, 200, 200]);
  outcomes.forEach((o, i) => expect(o.text).toContain(`Hello cluster ${i}!`));

  const owner = cluster.ownerOf(PREFIX);
  const others = cluster.nodes.filter((n) => n !== owner);
  expect(others).toHaveLength(2);
  expect(cluster.keyCount(owner)).toBeGreaterThan(0); // the queue's keys and the worker registry
  expect(others.map((n) => cluster.keyCount(n))).toEqual([0, 0]);
});

it('a worker SIGKILLed mid-load, then a new worker: every request completes', async () => {
  const [first] = workers;
  const started = jobStarted(first);
  const pending = [render(longForm), render(hello('a')), render(hello('b')), render(longForm)];
  await started;
  first.killGroup('SIGKILL');
  await first.exited;
  await newWorker('worker-2');

  const outcomes = await Promise.all(pending);
  expect(outcomes.map((o) => o.status)).toEqual([200, 200, 200, 200]);
  expect(outcomes[1].text).toContain('Hello a!');
  expect(outcomes[2].text).toContain('Hello b!');
  for (const o of [outcomes[0], outcomes[3]])
    expect(/Line 2999 of a long\s+document\./.test(o.text!)).toBe(true);
});

it('the master of the {docx} slot restarted without its data: typed 503s while it is away, then PDFs again', async () => {
  const worker = workers.find((w) => w.running)!;
  const owner = cluster.ownerOf(PREFIX);

  // One request in the worker's hands when the master goes.
  const started = jobStarted(worker);
  const inFlight = render(longForm);
  await started;
  await cluster.kill(owner);

  const during: Outcome[] = [];
  for (let i = 0; i < 3; i++) during.push(await render(hello(`during ${i}`)));
  expect(during).toEqual(Array(3).fill({ status: 503, errorType: 'service_unavailable' }));
  // the API and the worker stay up while a master is away
  expect(api.proc.running && worker.running).toBe(true);

  await cluster.start(owner); // same port and nodes.conf: same slots, empty
  expect(cluster.ownerOf(PREFIX)).toBe(owner);

  // The request that was in flight when its data vanished is answered: with its PDF when the
  // worker's reply reached the API (the worker still had the document; its push lands on the
  // restarted master), else, when the API found the job gone first, with a typed 503.
  const lost = await inFlight;
  if (lost.status === 200) expect(/Line 2999 of a long\s+document\./.test(lost.text!)).toBe(true);
  else expect(lost).toMatchObject({ status: 503, errorType: 'service_unavailable' });

  // Back in service without restarting the API or the worker.
  await waitUntil(
    async () => (await render(hello('probe'))).status === 200,
    60_000,
    'a 200 after the restart',
  );
  const after: Outcome[] = [];
  for (let i = 0; i < 3; i++) after.push(await render(hello(`after ${i}`)));
  expect(after.map((o) => o.status)).toEqual([200, 200, 200]);
  after.forEach((o, i) => expect(o.text).toContain(`Hello after ${i}!`));
  expect(api.proc.running && worker.running).toBe(true);
});
