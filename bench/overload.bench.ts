/**
 * Overload benchmark (not a test): what callers see when twice as many documents arrive as the
 * service can convert. The whole service runs as `npm start` runs it (Redis, one worker, the API)
 * with a small MAX_WAITING_JOBS, on 127.0.0.1 only.
 *
 * 1. Capacity: closed-loop callers (2 per LibreOffice instance) for --capacity-seconds; the
 *    completed documents per second is the capacity C.
 * 2. Overload: for --seconds, requests arrive at 2 × C per second whatever happens to the earlier
 *    ones (an open loop, as independent callers behave), then the run drains.
 *
 * Printed: answers by status, how fast the 503s came (p50/p99), that every accepted request
 * finished (no 504 or 500), the p50/p99 of accepted requests, the throughput under overload,
 * and the RSS of the API and the worker at the start, middle and end.
 *
 *   npm run bench:overload -- [--instances N] [--seconds 60] [--capacity-seconds 20]
 *                             [--max-waiting 4] [--factor 2]
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
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
import { rssMb, sofficePids } from '../test/support/hostile-process';
import { numberArg as arg } from './args';

const INSTANCES = Math.round(arg('instances', availableParallelism()));
const SECONDS = arg('seconds', 60);
const CAPACITY_SECONDS = arg('capacity-seconds', 20);
const MAX_WAITING = Math.round(arg('max-waiting', 4));
const FACTOR = arg('factor', 2);

const EXAMPLES = join(__dirname, '..', 'examples');
const template = readFileSync(join(EXAMPLES, 'invoice.docx'));
const requestJson = readFileSync(join(EXAMPLES, 'invoice-request.json'), 'utf8');

interface Outcome {
  status: number; // 0: no HTTP answer (connection error)
  ms: number;
  startedAt: number;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  console.log(
    `overload benchmark: invoice example, ${INSTANCES} LibreOffice instance(s), MAX_WAITING_JOBS ${MAX_WAITING}, ` +
      `${FACTOR}× capacity for ${SECONDS} s`,
  );
  buildService();
  const probe = new Request('http://bench.invalid/', {
    method: 'POST',
    body: renderForm({ file: template, filename: 'invoice.docx', request_data: requestJson }),
  });
  const body = Buffer.from(await probe.arrayBuffer());
  const contentType = probe.headers.get('content-type')!;

  let redis: RedisServer | undefined;
  let worker: ManagedProcess | undefined;
  let api: RunningApi | undefined;
  try {
    redis = await RedisServer.start();
    const env = testEnv(redis.url, {
      LIBREOFFICE_INSTANCES: String(INSTANCES),
      WORKER_CONCURRENCY: String(INSTANCES),
      MAX_WAITING_JOBS: String(MAX_WAITING),
      JOB_TIMEOUT_MS: '60000',
      HEARTBEAT_INTERVAL_MS: '2000',
      HEARTBEAT_TTL_MS: '10000',
      WORKER_LOCK_DURATION_MS: '30000',
      WORKER_STALLED_INTERVAL_MS: '30000',
    });
    // The worker logs at the default level: the harness waits for its 'ready' line.
    [worker, api] = await Promise.all([startWorker(env), startApi({ ...env, LOG_LEVEL: 'warn' })]);
    const url = `${api.url}${RENDER_PATH}`;
    const w = worker;
    const apiPid = api.proc.pid;

    const send = async (): Promise<Outcome> => {
      const startedAt = performance.now();
      try {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
        await res.arrayBuffer();
        return { status: res.status, ms: performance.now() - startedAt, startedAt };
      } catch {
        return { status: 0, ms: performance.now() - startedAt, startedAt };
      }
    };
    const memory = (label: string) => {
      const soffice = sofficePids(w.pid).reduce((sum, pid) => {
        try {
          return sum + rssMb(pid);
        } catch {
          return sum;
        }
      }, 0);
      return { label, api: rssMb(apiPid), worker: rssMb(w.pid), soffice };
    };

    // --- warm-up and capacity (closed loop) -----------------------------------------------------
    console.log('warming up…');
    await Promise.all(
      Array.from({ length: INSTANCES }, async () => {
        for (let i = 0; i < 5; i++) await send();
      }),
    );
    console.log(`measuring capacity: ${2 * INSTANCES} callers back to back for ${CAPACITY_SECONDS} s…`);
    const capacityRun: Outcome[] = [];
    const capStart = performance.now();
    const capEnd = capStart + CAPACITY_SECONDS * 1000;
    await Promise.all(
      Array.from({ length: 2 * INSTANCES }, async () => {
        while (performance.now() < capEnd) capacityRun.push(await send());
      }),
    );
    const capSeconds = (performance.now() - capStart) / 1000;
    const capOk = capacityRun.filter((o) => o.status === 200);
    const capacity = capOk.length / capSeconds;
    const capOther = capacityRun.length - capOk.length;
    console.log(
      `capacity: ${capacity.toFixed(2)} docs/s (${capOk.length} documents in ${capSeconds.toFixed(1)} s, ` +
        `p50 ${percentile(
          capOk.map((o) => o.ms),
          50,
        ).toFixed(0)} ms${capOther ? `, ${capOther} non-200` : ''})`,
    );

    // --- overload (open loop) -------------------------------------------------------------------
    const rate = FACTOR * capacity;
    const intervalMs = 1000 / rate;
    await sleep(2000);
    const mem = [memory('start')];
    console.log(
      `overload: ${rate.toFixed(2)} requests/s (one every ${intervalMs.toFixed(0)} ms) for ${SECONDS} s…`,
    );
    const outcomes: Array<Promise<Outcome>> = [];
    const t0 = performance.now();
    let middleTaken = false;
    for (let n = 0; ; n++) {
      const due = t0 + n * intervalMs;
      if (due - t0 >= SECONDS * 1000) break;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      outcomes.push(send());
      if (!middleTaken && performance.now() - t0 >= (SECONDS * 1000) / 2) {
        middleTaken = true;
        mem.push(memory('middle'));
      }
    }
    const sentSeconds = (performance.now() - t0) / 1000;
    const results = await Promise.all(outcomes);
    const drainedSeconds = (performance.now() - t0) / 1000;
    await sleep(5000);
    mem.push(memory('end (drained + 5 s)'));

    // --- report ---------------------------------------------------------------------------------
    const by = new Map<number, Outcome[]>();
    for (const o of results) by.set(o.status, [...(by.get(o.status) ?? []), o]);
    const ok = by.get(200) ?? [];
    const refused = by.get(503) ?? [];
    const failed = results.filter((o) => o.status !== 200 && o.status !== 503);
    const fmt = (v: number) => v.toFixed(0).padStart(7);
    console.log(
      `\nsent ${results.length} in ${sentSeconds.toFixed(1)} s (${(results.length / sentSeconds).toFixed(2)}/s), all answered after ${drainedSeconds.toFixed(1)} s`,
    );
    console.log(
      `${'answer'.padEnd(28)}${'n'.padStart(7)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}`,
    );
    for (const [status, list] of [...by.entries()].sort((a, b) => a[0] - b[0])) {
      const ms = list.map((o) => o.ms);
      const name =
        status === 0
          ? 'no answer (socket error)'
          : status === 200
            ? '200 (accepted, PDF)'
            : status === 503
              ? '503 service_unavailable'
              : String(status);
      console.log(
        `${name.padEnd(28)}${String(list.length).padStart(7)}  ${fmt(percentile(ms, 50))}  ${fmt(percentile(ms, 99))}  ${fmt(Math.max(...ms))}`,
      );
    }
    const okRate = ok.length / sentSeconds;
    console.log(
      `\naccepted throughput under overload: ${okRate.toFixed(2)} docs/s (${((okRate / capacity) * 100).toFixed(0)} % of capacity ${capacity.toFixed(2)})`,
    );
    console.log(
      `503 latency: p50 ${percentile(
        refused.map((o) => o.ms),
        50,
      ).toFixed(0)} ms, p99 ${percentile(
        refused.map((o) => o.ms),
        99,
      ).toFixed(0)} ms`,
    );
    console.log(
      `accepted latency: p50 ${percentile(
        ok.map((o) => o.ms),
        50,
      ).toFixed(0)} ms, p99 ${percentile(
        ok.map((o) => o.ms),
        99,
      ).toFixed(0)} ms`,
    );
    console.log(
      failed.length === 0
        ? 'every accepted request finished with its PDF: no 504, no 500, no socket error'
        : `NOT FINISHED: ${failed.length} answers other than 200/503 (${[...new Set(failed.map((o) => o.status))].join(', ')})`,
    );
    console.log(
      `\n${'RSS in MB'.padEnd(24)}${'API'.padStart(8)}${'worker'.padStart(8)}${'soffice'.padStart(9)}`,
    );
    for (const m of mem) {
      console.log(
        `${m.label.padEnd(24)}${m.api.toFixed(0).padStart(8)}${m.worker.toFixed(0).padStart(8)}${m.soffice.toFixed(0).padStart(9)}`,
      );
    }
    if (failed.length > 0) process.exitCode = 1;
  } finally {
    await stopAll(api, worker);
    await stopAll(redis);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
