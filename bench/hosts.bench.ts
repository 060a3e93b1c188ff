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
 * PostgreSQL (issue 38) is a host of its own as well: the API, its only client, reaches it through
 * a third delaying proxy. Each request by upload is followed by the same invoice rendered by
 * `template_id` (stored once, before timing), so the by-id column shows what the database's round
 * trips (the API key's and the template's lookups) add per delay. --stored off leaves it out.
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
  RENDER_PATH,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from '../test/service-harness';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { intArg, stringArg } from './args';
import { startDelayProxy } from '../test/support/delay-proxy';
import { startPostgres, type RunningPostgres } from '../test/support/postgres';

const DELAYS = stringArg('delays', '0,2,10')
  .split(',')
  .map(Number)
  .filter((n) => Number.isFinite(n) && n >= 0);
const REQUESTS = intArg('requests', 30);
const INSTANCES = String(intArg('instances', 1));
const WARMUP = 5;
const STORED = stringArg('stored', 'on') !== 'off';

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
  let pg: RunningPostgres | undefined;
  let pgLink: Awaited<ReturnType<typeof startDelayProxy>> | undefined;
  const keyDir = mkdtempSync(join(tmpdir(), 'bench-hosts-'));
  const adminKey = `dpk_${randomBytes(32).toString('base64url')}`;
  writeFileSync(join(keyDir, '.admin-key'), adminKey, { mode: 0o600 });
  if (STORED) {
    pg = await startPostgres();
    pgLink = await startDelayProxy(pg.port, 0);
  }
  const base = {
    QUEUE_PREFIX: '{hosts}',
    HEARTBEAT_TTL_MS: '10000',
    LIBREOFFICE_INSTANCES: INSTANCES,
    WORKER_CONCURRENCY: INSTANCES,
  };
  let api: RunningApi | undefined;
  let worker: ManagedProcess | undefined;
  const times = new Map<number, number[]>(DELAYS.map((d) => [d, []]));
  const byId = new Map<number, number[]>(DELAYS.map((d) => [d, []]));
  try {
    worker = await startWorker(testEnv(`redis://127.0.0.1:${workerLink.port}`, base));
    api = await startApi(
      testEnv(`redis://127.0.0.1:${apiLink.port}`, {
        ...base,
        ...(pg && pgLink
          ? {
              DATABASE_URL: pg.url.replace(`:${pg.port}/`, `:${pgLink.port}/`),
              ADMIN_KEY_FILE: join(keyDir, '.admin-key'),
            }
          : {}),
      }),
    );
    const templateId = STORED ? await storeInvoice(api.url, adminKey) : undefined;
    /** One request's time to its last byte; any answer but 200 stops the benchmark. */
    const timed = async (send: () => Promise<Response>) => {
      const t0 = performance.now();
      const res = await send();
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      return performance.now() - t0;
    };
    const url = api.url;
    const upload = () => postRender(url, invoice);
    const stored = (id: string) => () =>
      fetch(`${url}${RENDER_PATH}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}` },
        body: byIdForm(id),
      });
    for (let i = 0; i < (WARMUP + REQUESTS) * DELAYS.length; i++) {
      const delay = DELAYS[i % DELAYS.length];
      apiLink.delayMs = workerLink.delayMs = delay;
      if (pgLink) pgLink.delayMs = delay;
      // Let the previous delay's chunks (heartbeats, BullMQ's own) drain before timing.
      await new Promise((r) => setTimeout(r, 2 * delay + 20));
      const uploadMs = await timed(upload);
      const byIdMs = templateId ? await timed(stored(templateId)) : undefined;
      if (i >= WARMUP * DELAYS.length) {
        times.get(delay)!.push(uploadMs);
        if (byIdMs !== undefined) byId.get(delay)!.push(byIdMs);
      }
    }
  } finally {
    await stopAll(api, worker, redis);
    await apiLink.close();
    await workerLink.close();
    await pgLink?.close();
    await pg?.stop();
    rmSync(keyDir, { recursive: true, force: true });
  }
  const rows = DELAYS.map((delay) => {
    const sorted = times.get(delay)!.sort((a, b) => a - b);
    const stored = byId.get(delay)!.sort((a, b) => a - b);
    return {
      delay,
      p50: pct(sorted, 0.5),
      p90: pct(sorted, 0.9),
      byId: stored.length ? pct(stored, 0.5) : undefined,
    };
  });
  for (const r of rows)
    console.log(
      `delay ${r.delay} ms each way (RTT ${2 * r.delay} ms): p50 ${r.p50.toFixed(1)} ms, p90 ${r.p90.toFixed(1)} ms` +
        (r.byId !== undefined
          ? `; by template_id (PostgreSQL on its own host too) p50 ${r.byId.toFixed(1)} ms`
          : ''),
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

/** The example invoice stored once (POST /api/v1/templates): its id. */
async function storeInvoice(apiUrl: string, adminKey: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([invoice.file]), 'invoice.docx');
  form.append('name', 'invoice');
  const res = await fetch(`${apiUrl}/api/v1/templates`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminKey}` },
    body: form,
  });
  if (res.status !== 201) throw new Error(`storing the invoice answered ${res.status}: ${await res.text()}`);
  const { template_id: id } = (await res.json()) as { template_id: string };
  return id;
}

function byIdForm(templateId: string): FormData {
  const form = new FormData();
  form.append('template_id', templateId);
  form.append('request_data', invoice.request_data);
  return form;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
