/**
 * Scaling benchmark (not a test): the whole service (a private Redis, the API and 1, then 2 worker
 * processes, each with one LibreOffice instance) driven over HTTP with autocannon at a concurrency
 * that keeps every worker busy, with the invoice example. For each step it prints documents per
 * second and latency percentiles, and from what Redis and BullMQ recorded: the per-document split
 * of the worker's time (render vs convert, the RenderJobResult's renderMs/convertMs), the time
 * jobs waited in the queue, the Redis commands and bytes one document costs (INFO commandstats /
 * stats, reset at the start of each step), and how the jobs spread over the workers.
 *
 *   npm run bench:scaling -- [--duration 20] [--connections 6] [--workers 1,2]
 *
 * About 1–2 minutes with the defaults. docs/scaling.md holds the figures and the projections.
 */
import autocannon from 'autocannon';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
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
import { intArg, stringArg } from './args';

const DURATION_S = intArg('duration', 20);
const WARMUP_S = 4;
const CONNECTIONS = intArg('connections', 6);
const WORKER_STEPS = stringArg('workers', '1,2')
  .split(',')
  .map((s) => Number(s))
  .filter((n) => Number.isInteger(n) && n > 0)
  .sort((a, b) => a - b);
const QUEUE_PREFIX = '{docx}';
const QUEUE_NAME = 'render';

const EXAMPLES = join(__dirname, '..', 'examples');
const template = readFileSync(join(EXAMPLES, 'invoice.docx'));
const requestJson = readFileSync(join(EXAMPLES, 'invoice-request.json'), 'utf8');

interface HttpStats {
  ok: number;
  errors: number;
  seconds: number;
  latencies: number[];
}

interface Step {
  workers: number;
  http: HttpStats;
  load: [number, number, number];
  jobs: number;
  renderMs: number[];
  convertMs: number[];
  workerMs: number[];
  queuedMs: number[];
  perWorker: number[];
  pdfBytes: number;
  /** CPU ms per document of the API process, the workers' Node processes and their LibreOffice. */
  cpuMs: { api: number; workerNode: number; libreoffice: number };
  redis: {
    commands: number;
    scripts: number;
    byCommand: Array<[string, number]>;
    inBytes: number;
    outBytes: number;
    cpuMs: number;
  };
}

/** Commands per document by who sent them (client name, or 'lua' for calls inside scripts). */
interface Breakdown {
  documents: number;
  perDocument: Array<[string, number]>;
  backgroundPerSecond: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const fmtLoad = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');

async function drive(url: string, body: Buffer, contentType: string, seconds: number): Promise<HttpStats> {
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
        connections: CONNECTIONS,
        duration: seconds,
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
  return { ok: latencies.length, errors, seconds: (performance.now() - t0) / 1000, latencies };
}

/** INFO commandstats as {command: calls}. Calls made inside Lua scripts are counted too. */
function commandStats(info: string): Map<string, number> {
  const stats = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) stats.set(m[1], Number(m[2]));
  return stats;
}

function infoNumber(info: string, field: string): number {
  const m = new RegExp(`^${field}:([\\d.]+)`, 'm').exec(info);
  return m ? Number(m[1]) : NaN;
}

const CLOCK_TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU ms (user + system) a process has used, from /proc/<pid>/stat; 0 once it is gone. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime and stime are fields 14 and 15
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  } catch {
    return 0;
  }
}

/** pid -> parent pid, for every process. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      map.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  return map;
}

type CpuSnapshot = Map<number, { role: 'api' | 'workerNode' | 'libreoffice'; ms: number }>;

/** CPU ms used so far by the API, each worker's Node process and each of the workers' descendants. */
function cpuSnapshot(apiPid: number, workerPids: number[]): CpuSnapshot {
  const parentOf = parents();
  const descendsFromWorker = (pid: number): boolean => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) {
      if (workerPids.includes(p)) return true;
    }
    return false;
  };
  const snapshot: CpuSnapshot = new Map();
  snapshot.set(apiPid, { role: 'api', ms: processCpuMs(apiPid) });
  for (const pid of workerPids) snapshot.set(pid, { role: 'workerNode', ms: processCpuMs(pid) });
  for (const pid of parentOf.keys()) {
    if (descendsFromWorker(pid)) snapshot.set(pid, { role: 'libreoffice', ms: processCpuMs(pid) });
  }
  return snapshot;
}

/**
 * CPU ms between two snapshots, by role. A process started in between counts from its start; one
 * that ended in between (a LibreOffice replaced after LIBREOFFICE_RESTART_AFTER conversions) is
 * missed, so the LibreOffice figure is a floor.
 */
function cpuBetween(
  before: CpuSnapshot,
  after: CpuSnapshot,
): { api: number; workerNode: number; libreoffice: number } {
  const total = { api: 0, workerNode: 0, libreoffice: 0 };
  for (const [pid, { role, ms }] of after) total[role] += ms - (before.get(pid)?.ms ?? 0);
  return total;
}

/** CPU seconds the redis-server process has used (user + system). */
async function redisCpuSeconds(admin: Redis): Promise<number> {
  const info = await admin.info('cpu');
  return infoNumber(info, 'used_cpu_user') + infoNumber(info, 'used_cpu_sys');
}

/**
 * MONITOR for `seconds` while `load` runs: commands by sender. Clients are named from CLIENT LIST
 * (the API's connections are 'docx-api', the worker's own 'docx-worker'; BullMQ names its
 * connections after the queue); commands run inside Lua scripts come as 'lua'.
 */
async function monitorCommands(admin: Redis, load: () => Promise<void>): Promise<Map<string, number>> {
  const names = new Map<string, string>();
  for (const line of String(await admin.client('LIST')).split('\n')) {
    const addr = /\baddr=(\S+)/.exec(line)?.[1];
    const name = /\bname=(\S*)/.exec(line)?.[1];
    if (addr) names.set(addr, name || 'unnamed');
  }
  const monitor = await admin.monitor(); // on a connection of its own
  const counts = new Map<string, number>();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (args[0]?.toLowerCase() === 'client') return;
    const who = source === 'lua' ? 'lua (inside scripts)' : (names.get(source) ?? 'other');
    counts.set(who, (counts.get(who) ?? 0) + 1);
  });
  try {
    await load();
  } finally {
    monitor.disconnect();
  }
  return counts;
}

async function main(): Promise<void> {
  console.log(
    `scaling benchmark: invoice example, workers ${WORKER_STEPS.join(' then ')} (1 LibreOffice instance each), ` +
      `${CONNECTIONS} concurrent callers, ${WARMUP_S} s warm-up + ${DURATION_S} s per step`,
  );
  console.log(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), load average ${fmtLoad(loadavg())}`,
  );
  buildService();

  let redis: RedisServer | undefined;
  let api: RunningApi | undefined;
  const workers: ManagedProcess[] = [];
  const steps: Step[] = [];
  let breakdown: Breakdown | undefined;
  let queue: Queue | undefined;
  try {
    redis = await RedisServer.start();
    const env = testEnv(redis.url, {
      QUEUE_PREFIX,
      QUEUE_NAME,
      LIBREOFFICE_INSTANCES: '1',
      WORKER_CONCURRENCY: '1',
      JOB_TIMEOUT_MS: '120000',
      MAX_WAITING_JOBS: '1000',
      HEARTBEAT_INTERVAL_MS: '2000',
      HEARTBEAT_TTL_MS: '10000',
    });
    const admin = redis.client();
    queue = new Queue(QUEUE_NAME, { connection: { url: redis.url }, prefix: QUEUE_PREFIX });

    const probe = new Request('http://bench.invalid/', {
      method: 'POST',
      body: renderForm({ file: template, filename: 'invoice.docx', request_data: requestJson }),
    });
    const body = Buffer.from(await probe.arrayBuffer());
    const contentType = probe.headers.get('content-type')!;

    for (const n of WORKER_STEPS) {
      const starting: Array<Promise<ManagedProcess>> = [];
      for (let i = workers.length; i < n; i++) starting.push(startWorker(env, `worker-${i + 1}`));
      if (!api) starting.push(startApi(env).then((a) => ((api = a), a.proc)));
      workers.push(...(await Promise.all(starting)).filter((p) => p.name.startsWith('worker')));

      console.log(`\n${n} worker(s): warming up…`);
      await drive(api!.url, body, contentType, WARMUP_S);
      await queue.clean(0, 100_000, 'completed');
      await admin.config('RESETSTAT');
      const cpuBefore = await redisCpuSeconds(admin);
      const pids = () => workers.map((w) => w.pid);
      const serviceBefore = cpuSnapshot(api!.proc.pid, pids());
      const since = Date.now();
      console.log(`${n} worker(s): measuring for ${DURATION_S} s…`);
      const http = await drive(api!.url, body, contentType, DURATION_S);
      const load = loadavg() as [number, number, number];
      const serviceCpu = cpuBetween(serviceBefore, cpuSnapshot(api!.proc.pid, pids()));

      const [commandInfo, statsInfo, cpuAfter] = await Promise.all([
        admin.info('commandstats'),
        admin.info('stats'),
        redisCpuSeconds(admin),
      ]);
      const commands = commandStats(commandInfo);
      const jobs = (await queue.getJobs(['completed'], 0, -1)).filter((j) => (j.finishedOn ?? 0) >= since);
      const results = jobs.map(
        (j) => j.returnvalue as { renderMs: number; convertMs: number; worker: string; bytes: number },
      );
      const workerIds = [...new Set(results.map((r) => r.worker))];
      const count = Math.max(1, jobs.length);
      steps.push({
        workers: n,
        http,
        load,
        jobs: jobs.length,
        renderMs: results.map((r) => r.renderMs),
        convertMs: results.map((r) => r.convertMs),
        workerMs: jobs.map((j) => j.finishedOn! - j.processedOn!),
        queuedMs: jobs.map((j) => j.processedOn! - j.timestamp),
        perWorker: workerIds.map((id) => results.filter((r) => r.worker === id).length),
        pdfBytes: mean(results.map((r) => r.bytes)),
        cpuMs: {
          api: serviceCpu.api / count,
          workerNode: serviceCpu.workerNode / count,
          libreoffice: serviceCpu.libreoffice / count,
        },
        redis: {
          commands: [...commands.values()].reduce((a, b) => a + b, 0) / count,
          scripts: ((commands.get('evalsha') ?? 0) + (commands.get('eval') ?? 0)) / count,
          byCommand: [...commands.entries()]
            .map(([c, calls]): [string, number] => [c, calls / count])
            .sort((a, b) => b[1] - a[1]),
          inBytes: infoNumber(statsInfo, 'total_net_input_bytes') / count,
          outBytes: infoNumber(statsInfo, 'total_net_output_bytes') / count,
          cpuMs: ((cpuAfter - cpuBefore) * 1000) / count,
        },
      });
      console.log(`${n} worker(s): ${http.ok} documents, load average ${fmtLoad(load)}`);
    }

    // Who sends which commands: an idle window (heartbeats, stalled checks, blocking reads),
    // then the same length with documents one after another.
    console.log('\ncounting Redis commands per document with MONITOR…');
    const WINDOW_MS = 3000;
    const idle = await monitorCommands(admin, () => new Promise((r) => setTimeout(r, WINDOW_MS)));
    let documents = 0;
    const busy = await monitorCommands(admin, async () => {
      const end = Date.now() + WINDOW_MS;
      while (Date.now() < end) {
        const res = await fetch(`${api!.url}${RENDER_PATH}`, {
          method: 'POST',
          body,
          headers: { 'content-type': contentType },
        });
        await res.arrayBuffer();
        if (res.status === 200) documents++;
      }
    });
    const idleTotal = [...idle.values()].reduce((a, b) => a + b, 0);
    breakdown = {
      documents,
      backgroundPerSecond: idleTotal / (WINDOW_MS / 1000),
      perDocument: [...new Set([...busy.keys(), ...idle.keys()])]
        .map((who): [string, number] => [
          who,
          ((busy.get(who) ?? 0) - (idle.get(who) ?? 0)) / Math.max(1, documents),
        ])
        .sort((a, b) => b[1] - a[1]),
    };
    admin.disconnect();
  } finally {
    await queue?.close().catch(() => undefined);
    await stopAll(api, ...workers);
    await stopAll(redis);
  }

  const ms = (n: number) => n.toFixed(0).padStart(8);
  console.log(
    `\n${'step'.padEnd(12)}${'docs/s'.padStart(8)}${'p50'.padStart(8)}${'p95'.padStart(8)}${'p99'.padStart(8)}` +
      `${'errors'.padStart(8)}${'render'.padStart(8)}${'convert'.padStart(8)}${'job'.padStart(8)}${'queued'.padStart(8)}  load avg (1/5/15 min)`,
  );
  for (const s of steps) {
    const lat = s.http.latencies;
    console.log(
      `${`${s.workers} worker${s.workers > 1 ? 's' : ''}`.padEnd(12)}${(s.http.ok / s.http.seconds).toFixed(2).padStart(8)}` +
        `${ms(percentile(lat, 50))}${ms(percentile(lat, 95))}${ms(percentile(lat, 99))}${String(s.http.errors).padStart(8)}` +
        `${ms(mean(s.renderMs))}${ms(mean(s.convertMs))}${ms(mean(s.workerMs))}${ms(percentile(s.queuedMs, 50))}  ${fmtLoad(s.load)}`,
    );
  }
  console.log(
    '(latency p50/p95/p99 over HTTP in ms; render, convert and job = mean ms per document inside the worker; queued = median ms a job waited for a worker)',
  );
  if (steps.length >= 2) {
    const first = steps[0];
    const last = steps[steps.length - 1];
    const speedup = last.http.ok / last.http.seconds / (first.http.ok / first.http.seconds);
    console.log(
      `\n${last.workers} vs ${first.workers} worker(s): ${speedup.toFixed(2)}× the throughput on ${cpus().length} cores`,
    );
  }
  for (const s of steps) {
    console.log(
      `\n${s.workers} worker(s), per document: jobs per worker ${s.perWorker.join(' / ')}; PDF ${(s.pdfBytes / 1024).toFixed(1)} KiB; ` +
        `CPU: API ${s.cpuMs.api.toFixed(1)} ms, worker (Node) ${s.cpuMs.workerNode.toFixed(1)} ms, LibreOffice ${s.cpuMs.libreoffice.toFixed(1)} ms; ` +
        `Redis: ${s.redis.commands.toFixed(1)} commands (${s.redis.scripts.toFixed(1)} of them Lua scripts, whose inner calls are counted too), ` +
        `${(s.redis.inBytes / 1024).toFixed(1)} KiB in, ${(s.redis.outBytes / 1024).toFixed(1)} KiB out, ` +
        `${s.redis.cpuMs.toFixed(2)} ms of Redis CPU`,
    );
    console.log(
      `  by command: ${s.redis.byCommand
        .filter(([, n]) => n >= 0.05)
        .map(([c, n]) => `${c} ${n.toFixed(1)}`)
        .join(', ')}`,
    );
  }
  if (breakdown) {
    const clientTotal = breakdown.perDocument
      .filter(([who]) => !who.startsWith('lua'))
      .reduce((a, [, n]) => a + n, 0);
    console.log(
      `\nRedis commands per document by sender (MONITOR, ${breakdown.documents} documents one at a time, ` +
        `idle background of ${breakdown.backgroundPerSecond.toFixed(1)} commands/s subtracted): ` +
        `${clientTotal.toFixed(1)} sent by clients; ` +
        breakdown.perDocument.map(([who, n]) => `${who} ${n.toFixed(1)}`).join(', '),
    );
  }
  const errors = steps.reduce((n, s) => n + s.http.errors, 0);
  if (errors > 0) console.log(`\nnon-200 answers or errors: ${errors}`);
  console.log(`\nload average at the end: ${fmtLoad(loadavg())}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
