/**
 * A batch against the same documents sent one by one, in the same run, on the same service
 * (Redis + workers + API, as `npm start` runs them): the corpus invoice (bench/fixtures/invoice.docx,
 * logo included, 20 rows) for ITEMS records.
 *
 *   sync    ITEMS requests to POST /api/v1/process-template-document by CONCURRENCY callers
 *           (default: the workers' concurrency, what the batch's items get), each answered with its PDF;
 *   batch   one POST /api/v1/jobs with request_data.batch of the same ITEMS records (output zip,
 *           or merged), status polled every 100 ms, then the result downloaded.
 *
 * Wall time from the first request to the last byte, rounds alternating sync and batch so drift
 * on a shared machine hits both. Goal (issue 24): the batch is no slower.
 *
 *   npx tsx bench/batch.bench.ts [--items 200] [--instances N] [--workers 1] [--concurrency C] [--rounds 2]
 *     [--output zip|merged]
 */
import { availableParallelism } from 'node:os';
import { Agent, request as httpRequest } from 'node:http';
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
import { intArg, stringArg } from './args';
import { corpusRequest, corpusTemplate } from './corpus';
import { machineLine, median } from './report';

const ITEMS = intArg('items', 200);
const INSTANCES = intArg('instances', availableParallelism());
const WORKERS = intArg('workers', 1);
/** A worker takes one job more than its converter runs at once (apps/worker/src/main.ts). */
const CONCURRENCY = intArg('concurrency', WORKERS * (INSTANCES + 1));
const ROUNDS = intArg('rounds', 2);
const OUTPUT = stringArg('output', 'zip');

const template = corpusTemplate('invoice');
const base = corpusRequest('invoice', { rows: 20 });
/** Record i: the invoice with its own number and customer. */
const record = (i: number) => ({
  ...base.template_data,
  invoice: { ...(base.template_data.invoice as object), number: `INV-${10_000 + i}` },
  customer: { ...(base.template_data.customer as object), name: `Customer ${i}` },
});

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function post(url: string, form: FormData): Promise<{ status: number; bytes: number; body: Buffer }> {
  return (async () => {
    const req = new Request(url, { method: 'POST', body: form });
    const body = Buffer.from(await req.arrayBuffer());
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const r = httpRequest(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          agent,
          headers: { 'content-type': req.headers.get('content-type')!, 'content-length': body.length },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const all = Buffer.concat(chunks);
            resolve({ status: res.statusCode ?? 0, bytes: all.length, body: all });
          });
          res.on('error', reject);
        },
      );
      r.on('error', reject);
      r.end(body);
    });
  })();
}

async function syncRun(api: RunningApi): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < ITEMS; i = next++) {
        const res = await post(
          `${api.url}${RENDER_PATH}`,
          renderForm({ file: template, request_data: { template_data: record(i), images: base.images } }),
        );
        if (res.status !== 200)
          throw new Error(`sync request ${i}: ${res.status} ${res.body.toString().slice(0, 300)}`);
      }
    }),
  );
  return performance.now() - t0;
}

async function batchRun(api: RunningApi): Promise<{ ms: number; bytes: number }> {
  const t0 = performance.now();
  const batch = Array.from({ length: ITEMS }, (_, i) => ({
    template_data: record(i),
    filename: `invoice-${i}.pdf`,
  }));
  const res = await post(
    `${api.url}/api/v1/jobs`,
    renderForm({ file: template, request_data: { batch, images: base.images, output: OUTPUT } }),
  );
  if (res.status !== 202) throw new Error(`batch: ${res.status} ${res.body.toString().slice(0, 300)}`);
  const { status_url: statusUrl, result_url: resultUrl } = JSON.parse(res.body.toString()) as Record<
    string,
    string
  >;
  for (;;) {
    await new Promise((r) => setTimeout(r, 100));
    const status = (await (await fetch(statusUrl)).json()) as { status: string; error?: unknown };
    if (status.status === 'failed') throw new Error(`batch failed: ${JSON.stringify(status.error)}`);
    if (status.status === 'completed') break;
  }
  const result = Buffer.from(await (await fetch(resultUrl)).arrayBuffer());
  return { ms: performance.now() - t0, bytes: result.length };
}

async function main(): Promise<void> {
  buildService();
  const redis = await RedisServer.start();
  const env = testEnv(redis.url, {
    QUEUE_PREFIX: '{bench}',
    LIBREOFFICE_INSTANCES: String(INSTANCES),
    WORKER_CONCURRENCY: String(INSTANCES + 1),
    MAX_WAITING_JOBS: String(Math.max(100, ITEMS)),
    JOB_TIMEOUT_MS: '300000',
    MAX_BATCH_ITEMS: String(Math.max(1000, ITEMS)),
  });
  const workers: ManagedProcess[] = [];
  let api: RunningApi | undefined;
  try {
    for (let w = 0; w < WORKERS; w++) workers.push(await startWorker(env, `worker-${w}`));
    api = await startApi(env);
    console.log(machineLine());
    console.log(
      `invoice (20 rows, logo), ${ITEMS} documents; ${WORKERS} worker(s) × ${INSTANCES} LibreOffice instance(s), ` +
        `sync callers ${CONCURRENCY}, batch output ${OUTPUT}`,
    );
    // Warm-up: both paths, so neither pays the first conversions or V8's first compilations.
    await post(`${api.url}${RENDER_PATH}`, renderForm({ file: template, request_data: base }));
    const syncTimes: number[] = [];
    const batchTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const s = await syncRun(api);
      syncTimes.push(s);
      const b = await batchRun(api);
      batchTimes.push(b.ms);
      console.log(
        `round ${round + 1}: sync ${(s / 1000).toFixed(1)} s (${((ITEMS * 1000) / s).toFixed(1)} docs/s)   ` +
          `batch ${(b.ms / 1000).toFixed(1)} s (${((ITEMS * 1000) / b.ms).toFixed(1)} docs/s, result ${(b.bytes / 1024 / 1024).toFixed(1)} MiB)`,
      );
    }
    const s = median(syncTimes);
    const b = median(batchTimes);
    console.log(
      `median of ${ROUNDS}: ${ITEMS} sync requests ${(s / 1000).toFixed(1)} s, one ${ITEMS}-item batch ${(b / 1000).toFixed(1)} s ` +
        `(batch/sync ${(b / s).toFixed(2)})`,
    );
  } finally {
    agent.destroy();
    await stopAll(api, ...workers);
    await stopAll(redis);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
