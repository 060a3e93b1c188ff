/**
 * The synchronous path costs at most 6 sequential round trips between the API, Redis and the
 * worker: across hosts each one adds a network round trip to every document (docs/scaling.md,
 * "Latency between hosts"). Counted with Redis' MONITOR, as docs/service.md counts commands: the
 * commands of one request, from the admission to the reply the worker pushes, grouped into the
 * batches each connection sent (a pipeline or a MULTI arrives as one batch; a script's own calls
 * are part of it). The API and the worker reach Redis through a link delaying each way by 15 ms
 * (test/support/delay-proxy.ts), so that batches sent one after another are told apart from one
 * pipeline by the gap between them, which loopback alone makes too small to see. Heartbeats and
 * stalled checks are slowed down so that nothing else runs meanwhile.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import {
  buildService,
  ManagedProcess,
  postRender,
  RedisServer,
  RunningApi,
  sleep,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
} from './service-harness';
import { type DelayProxy, startDelayProxy } from './support/delay-proxy';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..');
const invoice = {
  file: readFileSync(join(ROOT, 'examples', 'invoice.docx')),
  request_data: readFileSync(join(ROOT, 'examples', 'invoice-request.json'), 'utf8'),
};

interface Seen {
  time: number;
  source: string;
  command: string;
}

/** Batches: runs of commands one connection sent together (scripts' own calls folded in). */
function batches(seen: Seen[]): Array<{ source: string; commands: string[] }> {
  const out: Array<{ source: string; commands: string[]; last: number }> = [];
  for (const s of seen) {
    if (s.source === 'lua') continue; // a script's call: part of its EVALSHA
    const prev = out[out.length - 1];
    // A pipeline's commands reach Redis together; the next batch comes a round trip (30 ms) later.
    if (prev && prev.source === s.source && s.time - prev.last < 0.01) {
      prev.commands.push(s.command);
      prev.last = s.time;
    } else out.push({ source: s.source, commands: [s.command], last: s.time });
  }
  return out.map(({ source, commands }) => ({ source, commands }));
}

describe('round trips of one document', () => {
  let redis: RedisServer;
  let api: RunningApi;
  let worker: ManagedProcess;
  let client: Redis | undefined;
  let monitor: Redis | undefined;
  const links: DelayProxy[] = [];

  beforeAll(async () => {
    buildService();
    redis = await RedisServer.start();
    const env = testEnv(redis.url, {
      QUEUE_PREFIX: '{rt}',
      HEARTBEAT_INTERVAL_MS: '60000',
      HEARTBEAT_TTL_MS: '120000',
      WORKER_STALLED_INTERVAL_MS: '60000',
      WORKER_LOCK_DURATION_MS: '60000',
    });
    const link = async () => {
      const proxy = await startDelayProxy(redis.port, 15);
      links.push(proxy);
      return { REDIS_URL: `redis://127.0.0.1:${proxy.port}` };
    };
    worker = await startWorker({ ...env, ...(await link()) });
    api = await startApi({ ...env, ...(await link()) });
    // /health-check answers before the API's Redis connection is up through the slow link.
    await waitUntil(async () => (await fetch(`${api.url}/health/ready`)).ok, 30_000, 'the API ready');
  });
  afterAll(async () => {
    monitor?.disconnect();
    client?.disconnect();
    await stopAll(api, worker, redis);
    for (const l of links) await l.close();
  });

  it('costs at most 6 sequential round trips from admission to the reply', async () => {
    // Warm: the API has stored the template, the worker keeps its bytes.
    for (let i = 0; i < 2; i++) {
      const warm = await postRender(api.url, invoice);
      expect([warm.status, warm.status === 200 ? '' : await warm.text()]).toEqual([200, '']);
      await warm.arrayBuffer().catch(() => undefined);
    }
    await sleep(300); // let the last job's completion and the worker's next wait settle

    const seen: Seen[] = [];
    client = redis.client();
    monitor = await client.monitor();
    monitor.on('monitor', (time: string, args: unknown[], source: string) => {
      seen.push({ time: Number(time), source, command: String(args[0]).toLowerCase() });
    });
    await sleep(100);
    const res = await postRender(api.url, invoice);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    await sleep(300);

    const all = batches(seen);
    const first = all.findIndex((b) => b.commands[0] === 'evalsha'); // the admission script
    const reply = all.findIndex((b) => b.commands.includes('rpush')); // the worker's reply
    expect(first).toBeGreaterThanOrEqual(0);
    expect(reply).toBeGreaterThan(first);
    // Blocking reads that were already waiting (the worker's BZPOPMIN, the API's BLPOP) are not
    // round trips of this request; what was sent between admission and reply is.
    const path = all.slice(first, reply + 1).filter((b) => !/^(bzpopmin|blpop)$/.test(b.commands[0]));
    const summary = path.map((b) => `${b.source} ${b.commands.join(' ')}`);
    // Today: admission, queue.add, moveToActive, payload + TIME, reply (MULTI) = 5.
    if (process.env.SERVICE_TEST_VERBOSE === '1') console.log(summary.join('\n'));
    expect({ atMost6: path.length <= 6, summary }).toEqual({ atMost6: true, summary });
    expect(path.length).toBeGreaterThanOrEqual(4); // the count saw the path, not an empty window
    // The worker reads its payload and Redis' clock in one batch (the budget's clock, no extra trip).
    expect(path.find((b) => b.commands.includes('time'))?.commands).toEqual(
      expect.arrayContaining(['time', 'get']),
    );
  });
});
