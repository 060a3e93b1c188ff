/**
 * Conversion benchmark: the same filled one-page invoice (.docx -> PDF) converted by
 *   (a) LibreOfficePool, with 1 instance (latency) and with N instances (throughput),
 *   (b) `soffice --convert-to pdf`, one process per document with a fresh profile each time,
 *   (c) a bare UNO loop: uno_bridge.py driven directly over stdio, fixed paths, no pool
 *       (no queue, no temporary directory per job, no supervision).
 * (a) and (c) run interleaved, one conversion each in turn, so machine noise hits both alike.
 * Targets: (a) latency ≤ 1.15 × (c); (a) ≥ 8 × faster than (b); throughput with N instances
 * ≥ 0.8 × N × throughput with one.
 *
 *   npm run bench:convert -- [--iterations 60] [--cli-runs 5] [--instances N] [--check]
 *   --check: exit with status 1 when a target is missed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';

import { DEFAULT_SOFFICE, defaultWorkDir, LibreOfficePool } from '@app/converters';
import { makeInvoiceDocx, pdfToText, SAMPLE_INVOICE } from '../test/support/converter-fixtures';
import { flag, intArg as arg } from './args';
import { SERVICE_EXPORT, startBareBridge } from './bare-uno';

const ITERATIONS = arg('iterations', 60);
const WARMUP = 5;
const CLI_RUNS = arg('cli-runs', 5);
const THROUGHPUT_ROUNDS = 3;
const N = arg('instances', availableParallelism());
const CHECK = flag('check');

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const p90 = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];
const ms = (x: number) => `${x.toFixed(1)} ms`;

/** (b): what a naive service does per document. */
async function sofficeCli(docxPath: string, dir: string, run: number): Promise<number> {
  const out = join(dir, `cli-out-${run}`);
  const t0 = performance.now();
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${join(dir, `cli-profile-${run}`)}`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      out,
      docxPath,
    ],
    { stdio: 'ignore', env: { ...process.env, TMPDIR: dir } },
  );
  const elapsed = performance.now() - t0;
  if (!pdfToText(readFileSync(join(out, 'invoice.pdf'))).includes(SAMPLE_INVOICE.number)) {
    throw new Error('soffice --convert-to wrote an unexpected PDF');
  }
  return elapsed;
}

async function main() {
  const dir = await mkdtemp(join(defaultWorkDir(), 'convert-bench-'));
  const docx = makeInvoiceDocx();
  const docxPath = join(dir, 'invoice.docx');
  await writeFile(docxPath, docx);
  const lo = execFileSync(DEFAULT_SOFFICE, ['--version']).toString().trim();
  console.log(`Conversion benchmark: one-page invoice (${docx.length} bytes), ${lo}`);
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  console.log(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; N = ${N} instances; load average ${load()}\n`,
  );

  const bare = await startBareBridge(dir);
  const pool1 = new LibreOfficePool({ instances: 1, restartAfter: 0 });
  const poolN = new LibreOfficePool({ instances: N, restartAfter: 0 });
  try {
    await pool1.start();
    const check = await pool1.convert(docx);
    if (!pdfToText(check).includes(SAMPLE_INVOICE.number))
      throw new Error('the pool wrote an unexpected PDF');

    // (a) and (c), latency, interleaved.
    const bareTimes: number[] = [];
    const poolTimes: number[] = [];
    const timeBare = async () => {
      const t0 = performance.now();
      await bare.convert(docxPath, join(dir, 'bare.pdf'), SERVICE_EXPORT);
      return performance.now() - t0;
    };
    const timePool = async () => {
      const t0 = performance.now();
      await pool1.convert(docx);
      return performance.now() - t0;
    };
    for (let i = 0; i < WARMUP + ITERATIONS; i++) {
      // Alternate which goes first, so neither always follows the other's idle-time work.
      const [b, p] =
        i % 2 ? [await timeBare(), await timePool()] : [await timePool(), await timeBare()].reverse();
      if (i >= WARMUP) {
        bareTimes.push(b);
        poolTimes.push(p);
      }
    }
    bare.stop();
    await pool1.close();

    // Throughput: one instance, then N, each kept busy by as many sequential callers. Rounds
    // alternate between the two so a change in background load hits both; medians are kept.
    const burst = async (pool: LibreOfficePool, callers: number, total: number) => {
      let left = total;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: callers }, async () => {
          while (left-- > 0) await pool.convert(docx);
        }),
      );
      return (total / (performance.now() - t0)) * 1000;
    };
    const single = new LibreOfficePool({ instances: 1, restartAfter: 0 });
    await Promise.all([single.start(), poolN.start()]);
    await Promise.all(Array.from({ length: N + 1 }, (_, i) => (i ? poolN : single).convert(docx))); // warm-up
    const perRound = Math.max(10, Math.round(ITERATIONS / THROUGHPUT_ROUNDS));
    const thr1s: number[] = [];
    const thrNs: number[] = [];
    for (let r = 0; r < THROUGHPUT_ROUNDS; r++) {
      thr1s.push(await burst(single, 1, perRound));
      thrNs.push(await burst(poolN, N, perRound * N));
    }
    await Promise.all([single.close(), poolN.close()]);
    const thr1 = median(thr1s);
    const thrN = median(thrNs);

    // (b)
    await sofficeCli(docxPath, dir, 0); // first run pays for cold caches
    const cliTimes: number[] = [];
    for (let run = 1; run <= CLI_RUNS; run++) cliTimes.push(await sofficeCli(docxPath, dir, run));

    const poolMed = median(poolTimes);
    const bareMed = median(bareTimes);
    const cliMed = median(cliTimes);
    console.log('latency, one conversion at a time     median     p90');
    console.log(
      `(a) pool, 1 instance                 ${ms(poolMed).padStart(9)} ${ms(p90(poolTimes)).padStart(9)}`,
    );
    console.log(
      `(c) bare UNO loop (bridge directly)  ${ms(bareMed).padStart(9)} ${ms(p90(bareTimes)).padStart(9)}`,
    );
    console.log(
      `(b) soffice --convert-to, per doc    ${ms(cliMed).padStart(9)} ${ms(p90(cliTimes)).padStart(9)}`,
    );
    console.log('\nthroughput');
    console.log(`pool, 1 instance                     ${thr1.toFixed(1)} docs/s`);
    console.log(`pool, ${N} instances                    ${thrN.toFixed(1)} docs/s`);

    const targets = [
      {
        name: '(a) ≤ 1.15 × (c)',
        value: `${(poolMed / bareMed).toFixed(2)} ×`,
        ok: poolMed <= 1.15 * bareMed,
      },
      {
        name: '(a) ≥ 8 × faster than (b)',
        value: `${(cliMed / poolMed).toFixed(1)} ×`,
        ok: cliMed >= 8 * poolMed,
      },
      {
        name: `throughput(N) ≥ 0.8 × N × throughput(1)`,
        value: `${(thrN / thr1).toFixed(2)} × (target ${(0.8 * N).toFixed(1)} ×)`,
        ok: thrN >= 0.8 * N * thr1,
      },
    ];
    console.log(
      `\nload average at the end: ${load()} (other work on the machine skews the throughput figures)`,
    );
    console.log('\ntargets');
    for (const t of targets) console.log(`${t.ok ? 'MET   ' : 'MISSED'} ${t.name.padEnd(42)} ${t.value}`);
    if (CHECK && targets.some((t) => !t.ok)) process.exitCode = 1;
  } finally {
    bare.stop();
    await Promise.all([pool1.close(), poolN.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
