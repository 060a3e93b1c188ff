/**
 * Fill time and peak memory of a corpus document (`--doc`: the invoice by default, or the statement;
 * each a 4-column table in a Word table style) at 1,000, 10,000 and 50,000 rows, filled as the worker fills a document for PDF output
 * (apps/worker/src/render.processor.ts: STORE, table styles resolved, template checked by the
 * API, images verified, the cell count checked, the compile cache warm).
 *
 * Each size runs in a fresh child process (peak RSS is a process's high-water mark), sizes
 * interleaved over `--runs` rounds. The child first fills the 20-row document (compiles the
 * template, warms the JIT), builds the request as JSON (the worker reads it from Redis), then
 * times, with one forced GC before:
 *   parse  parseDataJson of the request's JSON (the worker's first step)
 *   fill   fillDocument (renderDocx and the PDF's preparation), the call that holds the event loop
 * and prints the RSS before the fill, the process's peak RSS (high-water mark) before and after
 * it, and the fill's longest event-loop stall as seen from a 10 ms timer
 * (perf_hooks.monitorEventLoopDelay).
 *
 *   npx tsx bench/fill-scale.bench.ts [--doc invoice] [--rows 1000,10000,50000] [--runs 2] [--loop | --offload]
 *
 * Each size is filled both on the event loop and on a worker thread (the worker's FillPool, as
 * the worker fills requests of FILL_THREAD_MIN_BYTES and more), alternated; `--loop` or
 * `--offload` runs one way only. On a thread, the loop's stall is what is left on the main thread.
 */
import { execFileSync } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';
import { FillPool } from '../apps/worker/src/fill/fill-pool';
import { CORPUS_NAMES, type CorpusName, corpusRequest, corpusTemplate } from './corpus';
import { peakRssMiB } from './report';

type Row = {
  rows: number;
  parseMs: number;
  fillMs: number;
  rssBeforeMb: number;
  peakBeforeMb: number;
  peakAfterMb: number;
  maxLagMs: number;
  bytes: number;
};

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** The corpus document (`--doc`, default the invoice). */
const doc = (arg('doc') ?? 'invoice') as CorpusName;
if (!CORPUS_NAMES.includes(doc)) throw new Error(`--doc: one of ${CORPUS_NAMES.join(', ')}`);

async function child(rows: number, offload: boolean): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const { CompiledTemplates, parseDataJson } = await import('@app/engine');
  const { fillDocument } = await import('@app/pipeline');
  const template = corpusTemplate(doc);
  const compiledTemplates = new CompiledTemplates();
  // The worker's fill for a PDF: stored, the cell budget checked, table styles resolved.
  const job = {
    output: 'pdf' as const,
    options: { imagesVerified: true, templateChecked: true },
    prepare: { maxTableCells: 1_000_000, resolveTableStyles: true },
  };
  fillDocument(template, corpusRequest(doc, { rows: 20 }) as never, job, { compiledTemplates });
  const json = JSON.stringify(corpusRequest(doc, { rows }));
  // The thread keeps its own compiled templates; it too fills the 20-row document first.
  const pool = offload ? new FillPool(1) : undefined;
  if (pool) await pool.fill(template, JSON.stringify(corpusRequest(doc, { rows: 20 })), job);
  gc();
  const t0 = performance.now();
  const request = parseDataJson(json);
  const parseMs = performance.now() - t0;
  gc();
  const rssBefore = process.memoryUsage().rss;
  const peakBeforeMb = peakRssMiB();
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  // One tick for the monitor's timer to start.
  await new Promise((r) => setTimeout(r, 20));
  const t1 = performance.now();
  const docx = pool
    ? await pool.fill(template, json, job)
    : fillDocument(template, request as never, job, { compiledTemplates });
  const bytes = docx.length;
  const fillMs = performance.now() - t1;
  await new Promise((r) => setTimeout(r, 20));
  h.disable();
  await pool?.close();
  const peakAfterMb = peakRssMiB();
  const row: Row = {
    rows,
    parseMs,
    fillMs,
    rssBeforeMb: rssBefore / 2 ** 20,
    peakBeforeMb,
    peakAfterMb,
    maxLagMs: h.max / 1e6,
    bytes,
  };
  process.stdout.write(JSON.stringify(row) + '\n');
}

function main(): void {
  const sizes = (arg('rows') ?? '1000,10000,50000').split(',').map(Number);
  const runs = Number(arg('runs') ?? 2);
  if (arg('child')) {
    void child(Number(arg('child')), process.argv.includes('--offload'));
    return;
  }
  // Both ways by default, alternated size by size: the machine's load moves between runs.
  const modes = process.argv.includes('--offload')
    ? [true]
    : process.argv.includes('--loop')
      ? [false]
      : [false, true];
  console.log(
    `fill-scale: corpus ${doc}, Node ${process.version}, ${cpus().length} CPUs, load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    'rows     fill on   parse ms   fill ms   ms/1k rows   RSS before MB   peak before MB   peak after MB   max loop lag ms   docx MB',
  );
  for (let run = 0; run < runs; run++) {
    for (const rows of sizes) {
      for (const offload of modes) {
        const out = execFileSync(
          process.execPath,
          [
            '--expose-gc',
            ...process.execArgv,
            __filename,
            '--doc',
            doc,
            '--child',
            String(rows),
            ...(offload ? ['--offload'] : []),
          ],
          { encoding: 'utf8', maxBuffer: 1 << 20 },
        );
        const r = JSON.parse(out.trim().split('\n').pop() as string) as Row;
        console.log(
          [
            String(r.rows).padEnd(8),
            (offload ? 'thread' : 'loop').padEnd(7),
            r.parseMs.toFixed(0).padStart(10),
            r.fillMs.toFixed(0).padStart(9),
            ((r.fillMs / r.rows) * 1000).toFixed(1).padStart(12),
            r.rssBeforeMb.toFixed(0).padStart(15),
            r.peakBeforeMb.toFixed(0).padStart(16),
            r.peakAfterMb.toFixed(0).padStart(15),
            r.maxLagMs.toFixed(0).padStart(17),
            (r.bytes / 2 ** 20).toFixed(1).padStart(9),
          ].join(' '),
        );
      }
    }
  }
  console.log(
    `load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} at the end`,
  );
}

main();
