/**
 * LibreOffice's start on a starved machine: for each target 1-minute load average in `--loads`
 * (0,2,5,10), busy-loop processes at LibreOffice's own nice (test/support/cpu-hogs.ts) hold the
 * machine there, then a pool of `--instances` (2) starts and converts the filled invoice once.
 * Prints, per level, the load average and the tasks runnable meanwhile, each instance's start
 * (spawn to first UNO answer) in wall-clock and soffice's CPU time, when the first and the last
 * instance were up, and the first conversion.
 *
 * What it is for: the start timeout (LIBREOFFICE_START_TIMEOUT_MS, 20 s) used to be a deadline,
 * and at a load of 10 on 2 cores every start missed it (issue 34). A start's CPU time stays
 * about the same under load; its wall-clock time grows with the tasks it shares the cores with.
 *
 * The hogs: 2 × target while the load average climbs (at most 3 min), then `target` of them
 * while the pool starts; each ends itself after 6 min and all are killed when a level ends.
 * Other work on the machine adds to the load: the table shows what was measured.
 *
 *   npm run bench:starved -- [--loads 0,2,5,10] [--instances 2] [--modes serial,together]
 *   --modes: `serial`, the pool's default (one start at a time while no core is idle), and/or
 *   `together` (every instance's start at once, as the pool did before), one after the other at
 *   each level.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

import { LibreOfficePool } from '@app/converters';
import { makeInvoiceDocx, pdfToText, SAMPLE_INVOICE } from '../test/support/converter-fixtures';
import { MAX_HOGS, runnableNow, startCpuHogs, waitForLoad } from '../test/support/cpu-hogs';
import { intArg, stringArg } from './args';
import { machineLine } from './report';

const loads = stringArg('loads', '0,2,5,10')
  .split(',')
  .map((x) => Number(x.trim()));
const instances = intArg('instances', 2);
/** `serial`: the pool's default (one start at a time while no core is idle); `together`: all at once, as before. */
const modes = stringArg('modes', 'serial')
  .split(',')
  .map((m) => m.trim());
const RAMP_MS = 180_000;
const HOG_MAX_MS = 6 * 60_000;

interface Row {
  target: number;
  mode: string;
  hogs: number;
  loadAtStart: number;
  runnable: string;
  starts: string;
  firstUpMs: number;
  allUpMs: number;
  convertMs: number;
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function level(target: number, docx: Buffer): Promise<Row[]> {
  const ramp = Math.min(MAX_HOGS, Math.ceil(2 * target));
  const hogs = startCpuHogs(ramp, HOG_MAX_MS);
  const parent = await mkdtemp(join(tmpdir(), 'bench-starved-'));
  try {
    if (target > 0) {
      const reached = await waitForLoad(target, RAMP_MS);
      if (reached < target)
        console.log(`  load ${reached.toFixed(1)} after ${RAMP_MS / 1000} s, below ${target}`);
      await hogs.stop(ramp - Math.ceil(target));
    }
    const rows: Row[] = [];
    for (const mode of modes) rows.push(await startPool(target, mode, hogs.count, parent, docx));
    return rows;
  } finally {
    await hogs.stop();
    await rm(parent, { recursive: true, force: true });
  }
}

async function startPool(
  target: number,
  mode: string,
  hogCount: number,
  parent: string,
  docx: Buffer,
): Promise<Row> {
  const loadAtStart = loadavg()[0];
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(runnableNow()), 500);
  const pool = new LibreOfficePool({
    instances,
    restartAfter: 0,
    tmpDir: parent,
    // Measuring, not supervising: no start may be given up.
    startTimeoutMs: 120_000,
    startMaxMs: 900_000,
    ...(mode === 'together' ? { maxStartsAtOnce: instances } : {}),
  });
  const t0 = performance.now();
  let firstUpMs = NaN;
  const watcher = setInterval(() => {
    if (Number.isNaN(firstUpMs) && pool.describe().some((d) => d.state === 'idle')) {
      firstUpMs = performance.now() - t0;
    }
  }, 50);
  try {
    await pool.start();
    const allUpMs = performance.now() - t0;
    if (Number.isNaN(firstUpMs)) firstUpMs = allUpMs;
    const t1 = performance.now();
    const pdf = await pool.convert(docx, { timeoutMs: 600_000 });
    const convertMs = performance.now() - t1;
    if (!pdfToText(pdf).includes(SAMPLE_INVOICE.number)) throw new Error('a PDF without the invoice');
    const starts = pool
      .describe()
      .map((d) => `${s(d.startMs ?? NaN)} (${s(d.startCpuMs ?? NaN)} CPU)`)
      .join(', ');
    const mean = samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length);
    const runnable = `${mean.toFixed(1)} (${Math.min(...samples)}–${Math.max(...samples)})`;
    return { target, mode, hogs: hogCount, loadAtStart, runnable, starts, firstUpMs, allUpMs, convertMs };
  } finally {
    clearInterval(watcher);
    clearInterval(sampler);
    await pool.close();
  }
}

async function main(): Promise<void> {
  console.log(`starved: ${machineLine()}`);
  console.log(
    `pool of ${instances}, starts ${modes.join(' then ')} (serial: one at a time while no core is idle), filled invoice (python-docx)`,
  );
  const docx = makeInvoiceDocx();
  const rows: Row[] = [];
  for (const target of loads) {
    console.log(`level: load ${target} on ${availableParallelism()} cores ...`);
    for (const row of await level(target, docx)) {
      console.log(`  ${JSON.stringify(row)}`);
      rows.push(row);
    }
  }
  console.log('');
  console.log(
    '| Target load | Starts | Hogs | Load avg at start | Runnable tasks (mean, range) | Each instance: start (soffice CPU) | First up | Both up | First conversion |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) {
    console.log(
      `| ${r.target} | ${r.mode} | ${r.hogs} | ${r.loadAtStart.toFixed(1)} | ${r.runnable} | ${r.starts} | ${s(r.firstUpMs)} | ${s(r.allUpMs)} | ${s(r.convertMs)} |`,
    );
  }
}

// SIGINT/SIGTERM end through process.exit, whose hook kills every hog still running.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
