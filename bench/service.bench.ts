/**
 * Service benchmark (not a test): the whole service (Redis + one worker + API, as `npm start`
 * runs it) driven over HTTP with autocannon at 1, 2, 4 and 8 concurrent callers with the invoice
 * example, beside the bare conversion floor measured in the same run: renderDocx +
 * converter.convert called directly, one at a time (latency) and with the pool full (throughput).
 *
 * Targets: p50 at concurrency 1 ≤ 1.3 × the floor's p50; peak throughput ≥ 0.8 × the pool alone.
 *
 *   npm run bench:service -- [--requests 60] [--instances N] [--check]
 *   --check: exit with status 1 when a target is missed.
 */
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { renderDocx, type RenderRequest } from '@app/engine';
import { createConverter } from '@app/converters';
import {
  buildService,
  ManagedProcess,
  RedisServer,
  renderForm,
  RENDER_PATH,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from '../test/service-harness';
import { flag, intArg as arg } from './args';

const REQUESTS = arg('requests', 60);
const INSTANCES = arg('instances', availableParallelism());
const CONCURRENCY = [1, 2, 4, 8];
const CHECK = flag('check');

const EXAMPLES = join(__dirname, '..', 'examples');
const template = readFileSync(join(EXAMPLES, 'invoice.docx'));
const requestJson = readFileSync(join(EXAMPLES, 'invoice-request.json'), 'utf8');
const request = JSON.parse(requestJson) as RenderRequest;

interface Stats {
  p50: number;
  p95: number;
  p99: number;
  throughput: number;
  n: number;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function stats(latencies: number[], seconds: number, errors = 0): Stats {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    throughput: latencies.length / seconds,
    n: latencies.length,
    errors,
  };
}

async function floor(): Promise<{ latency: Stats; pool: Stats }> {
  const converter = createConverter({ instances: INSTANCES });
  try {
    const once = async () => {
      const t0 = performance.now();
      await converter.convert(renderDocx(template, request));
      return performance.now() - t0;
    };
    for (let i = 0; i < 5; i++) await once(); // warm-up
    const sequential: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < Math.max(20, REQUESTS / 2); i++) sequential.push(await once());
    const latency = stats(sequential, (performance.now() - t0) / 1000);

    const parallel: number[] = [];
    let next = 0;
    const total = REQUESTS;
    const t1 = performance.now();
    await Promise.all(
      Array.from({ length: converter.capacity }, async () => {
        while (next++ < total) parallel.push(await once());
      }),
    );
    const pool = stats(parallel, (performance.now() - t1) / 1000);
    return { latency, pool };
  } finally {
    await converter.close();
  }
}

async function drive(url: string, body: Buffer, contentType: string, connections: number): Promise<Stats> {
  const latencies: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}${RENDER_PATH}`,
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
        connections,
        amount: Math.max(REQUESTS, connections * 10),
        timeout: 120,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode === 200) latencies.push(responseTime);
      else errors++;
    });
  });
  errors += result.errors + result.timeouts;
  return stats(latencies, (performance.now() - t0) / 1000, errors);
}

function row(name: string, s: Stats): string {
  const f = (n: number) => n.toFixed(0).padStart(7);
  return `${name.padEnd(28)}${f(s.p50)}${f(s.p95)}${f(s.p99)}${s.throughput.toFixed(2).padStart(10)}${String(s.n).padStart(6)}${String(s.errors).padStart(7)}`;
}

async function main(): Promise<void> {
  console.log(
    `service benchmark: invoice example, ${INSTANCES} LibreOffice instance(s), ${REQUESTS} requests per step`,
  );
  buildService();

  console.log('measuring the conversion floor (renderDocx + converter.convert, in process)…');
  const bare = await floor();

  let redis: RedisServer | undefined;
  let worker: ManagedProcess | undefined;
  let api: RunningApi | undefined;
  const results: Array<[number, Stats]> = [];
  try {
    redis = await RedisServer.start();
    const env = testEnv(redis.url, {
      LIBREOFFICE_INSTANCES: String(INSTANCES),
      WORKER_CONCURRENCY: String(INSTANCES),
      JOB_TIMEOUT_MS: '120000',
      MAX_WAITING_JOBS: '1000',
      HEARTBEAT_INTERVAL_MS: '2000',
      HEARTBEAT_TTL_MS: '10000',
    });
    // Quiet API logs (a line per request); the worker keeps its level: the harness waits for its
    // "ready" line, which is logged at info.
    [worker, api] = await Promise.all([startWorker(env), startApi({ ...env, LOG_LEVEL: 'warn' })]);

    const probe = new Request('http://bench.invalid/', {
      method: 'POST',
      body: renderForm({ file: template, filename: 'invoice.docx', request_data: requestJson }),
    });
    const body = Buffer.from(await probe.arrayBuffer());
    const contentType = probe.headers.get('content-type')!;

    console.log('warming up the service…');
    await drive(api.url, body, contentType, INSTANCES);
    for (const c of CONCURRENCY) {
      console.log(`concurrency ${c}…`);
      results.push([c, await drive(api.url, body, contentType, c)]);
    }
  } finally {
    await stopAll(api, worker);
    await stopAll(redis);
  }

  console.log(
    `\n${'latency in ms'.padEnd(28)}${'p50'.padStart(7)}${'p95'.padStart(7)}${'p99'.padStart(7)}${'docs/s'.padStart(10)}${'n'.padStart(6)}${'errors'.padStart(7)}`,
  );
  console.log(row('floor, one at a time', bare.latency));
  console.log(row(`floor, pool full (${INSTANCES})`, bare.pool));
  for (const [c, s] of results) console.log(row(`service, ${c} concurrent`, s));

  const c1 = results.find(([c]) => c === 1)![1];
  const peak = Math.max(...results.map(([, s]) => s.throughput));
  const latencyRatio = c1.p50 / bare.latency.p50;
  const throughputRatio = peak / bare.pool.throughput;
  const latencyOk = latencyRatio <= 1.3;
  const throughputOk = throughputRatio >= 0.8;
  const errors = results.reduce((n, [, s]) => n + s.errors, 0);
  console.log(
    `\ntarget: p50 at concurrency 1 ≤ 1.3 × floor p50: ${c1.p50.toFixed(0)} ms vs ${bare.latency.p50.toFixed(0)} ms = ${latencyRatio.toFixed(2)}× ${latencyOk ? 'MET' : 'MISSED'}`,
  );
  console.log(
    `target: peak throughput ≥ 0.8 × pool alone: ${peak.toFixed(2)} vs ${bare.pool.throughput.toFixed(2)} docs/s = ${throughputRatio.toFixed(2)}× ${throughputOk ? 'MET' : 'MISSED'}`,
  );
  if (errors > 0) console.log(`non-200 answers or errors: ${errors}`);
  if (CHECK && (!latencyOk || !throughputOk || errors > 0)) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
