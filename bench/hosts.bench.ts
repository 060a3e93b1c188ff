/**
 * Latency between hosts, simulated (not a test): the API and one worker each reach Redis through
 * their own delaying TCP proxy (bench/delay-proxy.ts), as if Redis, the API and the worker ran on
 * three hosts with `delay` ms each way between them. One caller sends the invoice example back to
 * back, the delay going round the list from one request to the next (the same processes, so the
 * machine's other load falls on every delay alike). For each delay the p50 and p90 are printed;
 * the p50's slope between the smallest and the largest delay is the latency a deployment adds per
 * millisecond of round trip, which is the number of sequential round trips one document costs on
 * the synchronous path. The caller reaches the API directly (its own link is not counted).
 *
 *   npm run bench:hosts -- [--delays 0,2,10] [--requests 30] [--instances 1]
 *
 * --instances sets the worker's LibreOffice instances and its concurrency (the tests' 1 by default).
 *
 * About a minute. docs/scaling.md holds the figures.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import {
  buildService,
  ManagedProcess,
  postRender,
  RedisServer,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from '../test/service-harness';
import { intArg, stringArg } from './args';
import { startDelayProxy } from '../test/support/delay-proxy';

const DELAYS = stringArg('delays', '0,2,10')
  .split(',')
  .map(Number)
  .filter((n) => Number.isFinite(n) && n >= 0);
const REQUESTS = intArg('requests', 30);
const INSTANCES = String(intArg('instances', 1));
const WARMUP = 5;

const EXAMPLES = join(__dirname, '..', 'examples');
const invoice = {
  file: readFileSync(join(EXAMPLES, 'invoice.docx')),
  request_data: readFileSync(join(EXAMPLES, 'invoice-request.json'), 'utf8'),
};

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function main(): Promise<void> {
  buildService();
  const redis = await RedisServer.start();
  const apiLink = await startDelayProxy(redis.port, 0);
  const workerLink = await startDelayProxy(redis.port, 0);
  const base = {
    QUEUE_PREFIX: '{hosts}',
    HEARTBEAT_TTL_MS: '10000',
    LIBREOFFICE_INSTANCES: INSTANCES,
    WORKER_CONCURRENCY: INSTANCES,
  };
  let api: RunningApi | undefined;
  let worker: ManagedProcess | undefined;
  const times = new Map<number, number[]>(DELAYS.map((d) => [d, []]));
  try {
    worker = await startWorker(testEnv(`redis://127.0.0.1:${workerLink.port}`, base));
    api = await startApi(testEnv(`redis://127.0.0.1:${apiLink.port}`, base));
    for (let i = 0; i < (WARMUP + REQUESTS) * DELAYS.length; i++) {
      const delay = DELAYS[i % DELAYS.length];
      apiLink.delayMs = workerLink.delayMs = delay;
      // Let the previous delay's chunks (heartbeats, BullMQ's own) drain before timing.
      await new Promise((r) => setTimeout(r, 2 * delay + 20));
      const t0 = performance.now();
      const res = await postRender(api.url, invoice);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`status ${res.status} at delay ${delay} ms`);
      if (i >= WARMUP * DELAYS.length) times.get(delay)!.push(performance.now() - t0);
    }
  } finally {
    await stopAll(api, worker, redis);
    await apiLink.close();
    await workerLink.close();
  }
  const rows = DELAYS.map((delay) => {
    const sorted = times.get(delay)!.sort((a, b) => a - b);
    return { delay, p50: pct(sorted, 0.5), p90: pct(sorted, 0.9) };
  });
  for (const r of rows)
    console.log(
      `delay ${r.delay} ms each way (RTT ${2 * r.delay} ms): p50 ${r.p50.toFixed(1)} ms, p90 ${r.p90.toFixed(1)} ms`,
    );
  if (rows.length >= 2) {
    const a = rows[0];
    const b = rows[rows.length - 1];
    const perMsRtt = (b.p50 - a.p50) / (2 * (b.delay - a.delay));
    console.log(
      `p50 added per ms of round trip: ${perMsRtt.toFixed(1)} ms (~${perMsRtt.toFixed(1)} sequential round trips per document)`,
    );
  }
  console.log(
    `${cpus()[0]?.model ?? '?'}, ${cpus().length} cores, Node ${process.version}, ${REQUESTS} requests/delay, ${INSTANCES} LibreOffice instance(s)`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
