/**
 * Big documents, on the corpus (bench/fixtures):
 *
 *   fill      renderDocx (as the worker runs it: template checked by the API, stored output) on
 *             the invoice at 500, 1,000, 2,000 and 5,000 rows and the gallery (10 images) at the
 *             same sizes: time per fill and the peak resident memory of a fresh process doing
 *             only that, so each size is measured on its own (a child process per size).
 *   convert   the bare warm UNO bridge on the filled invoice at 500, 1,000 and 2,000 rows, import
 *             (loadComponentFromURL, which includes the layout) and PDF export (storeToURL) apart,
 *             beside the same document without its table style: where LibreOffice turns
 *             super-linear (the unstyled variant changes the look; it is shown to locate the cost).
 *   service   the gallery, 2,000 rows and 10 images, end to end over HTTP (Redis, one worker, the
 *             API) against its floor (the bare bridge on the same filled .docx), interleaved; and a
 *             7,000-row invoice (28,000 cells), which the service refuses right after the fill (413
 *             conversion_budget) instead of timing out.
 *
 *   npx tsx bench/bigdocs.bench.ts [--runs 3] [--skip fill,convert,service,gallery]
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { renderDocx, type RenderRequest } from '@app/engine';
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
import { SERVICE_EXPORT, startBareBridge, type BareBridge } from './bare-uno';
import { corpusRequest, corpusTemplate, type CorpusName } from './corpus';
import { elapsedMs, formatMs, machineLine, ms, peakRssMiB, summarize } from './report';

const RUNS = intArg('runs', 3);
const SKIP = stringArg('skip', '').split(',');
const FILL_ROWS = [500, 1000, 2000, 5000];
const CONVERT_ROWS = [500, 1000, 2000];

function fill(name: CorpusName, rows: number): Buffer {
  return renderDocx(corpusTemplate(name), corpusRequest(name, { rows }) as RenderRequest, {
    compression: 'STORE',
    templateChecked: true,
    imagesVerified: true,
  });
}

// ---- child: one size, one fresh process ---------------------------------------------------

function child(name: CorpusName, rows: number, runs: number): void {
  const template = corpusTemplate(name);
  const request = corpusRequest(name, { rows }) as RenderRequest;
  const baseline = peakRssMiB();
  // One untimed fill first: the first pays for compiling the engine's code.
  renderDocx(template, request, { compression: 'STORE', templateChecked: true, imagesVerified: true });
  const times: number[] = [];
  for (let i = 0; i < runs; i++)
    times.push(
      elapsedMs(() =>
        renderDocx(template, request, { compression: 'STORE', templateChecked: true, imagesVerified: true }),
      ),
    );
  process.stdout.write(JSON.stringify({ times, baseline, peak: peakRssMiB() }));
}

function measureFill(name: CorpusName, rows: number): { times: number[]; baseline: number; peak: number } {
  const res = spawnSync(
    process.execPath,
    ['--import', 'tsx', __filename, '--child', name, String(rows), String(RUNS)],
    { encoding: 'utf8', maxBuffer: 16 << 20, cwd: join(__dirname, '..') },
  );
  if (res.status !== 0) throw new Error(`fill child failed: ${res.stderr}`);
  return JSON.parse(res.stdout) as { times: number[]; baseline: number; peak: number };
}

// ---- main -------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(`big documents benchmark; ${machineLine()}`);
  const dir = await mkdtemp(join(tmpdir(), 'bigdocs-bench-'));
  try {
    if (!SKIP.includes('fill')) {
      console.log(
        `\nfill (renderDocx as the worker runs it), ${RUNS} runs per size, a fresh process per size`,
      );
      console.log(
        `  ${'document'.padEnd(10)}${'rows'.padStart(6)}  ${'fill, median (range)'.padEnd(28)}ms/row  peak RSS (before the fill)`,
      );
      for (const name of ['invoice', 'gallery'] as const)
        for (const rows of FILL_ROWS) {
          const r = measureFill(name, rows);
          const s = summarize(r.times);
          console.log(
            `  ${name.padEnd(10)}${String(rows).padStart(6)}  ${formatMs(s).padEnd(28)}${(s.median / rows).toFixed(3).padStart(6)}  ` +
              `${r.peak.toFixed(0)} MiB (${r.baseline.toFixed(0)} MiB)`,
          );
        }
    }

    if (!SKIP.includes('convert')) {
      console.log(
        '\nconvert: bare warm UNO bridge on the filled invoice, import (with layout) and export apart',
      );
      const bare = await startBareBridge(dir);
      try {
        // First conversion of a fresh instance pays for its caches: not counted.
        await writeFile(join(dir, 'warm.docx'), fill('invoice', 20));
        await bare.convert(join(dir, 'warm.docx'), join(dir, 'warm.pdf'));
        for (const rows of CONVERT_ROWS) {
          const filled = fill('invoice', rows);
          const zip = new PizZip(filled);
          const xml = zip.file('word/document.xml')!.asText();
          zip.file('word/document.xml', xml.replace(/<w:tblStyle w:val="[^"]*"\/>/g, ''));
          const variants: Array<[string, Buffer]> = [
            ['as filled', filled],
            ['no table style', zip.generate({ type: 'nodebuffer', compression: 'STORE' })],
          ];
          for (const [label, bytes] of variants) {
            const path = join(dir, `invoice-${rows}.docx`);
            await writeFile(path, bytes);
            const t0 = performance.now();
            const r = await bare.convert(path, join(dir, 'out.pdf'));
            const total = performance.now() - t0;
            console.log(
              `  invoice ${String(rows).padStart(5)} rows, ${label.padEnd(15)} total ${ms(total).padStart(6)} ms   import ${String(r.load_ms).padStart(6)} ms   export ${String(r.export_ms).padStart(6)} ms`,
            );
          }
        }
      } finally {
        bare.stop();
      }
    }

    if (!SKIP.includes('service')) await service(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`\nfinished ${new Date().toISOString()}`);
}

async function service(dir: string): Promise<void> {
  buildService();
  let redis: RedisServer | undefined;
  let worker: ManagedProcess | undefined;
  let api: RunningApi | undefined;
  const bare = await startBareBridge(dir);
  try {
    redis = await RedisServer.start();
    // The production lock (10 s), not the harness's short one: a fill blocks the worker's event
    // loop, and a lock that expires meanwhile makes the job look stalled.
    const env = testEnv(redis.url, {
      JOB_TIMEOUT_MS: '300000',
      LIBREOFFICE_INSTANCES: '1',
      WORKER_LOCK_DURATION_MS: '10000',
    });
    [worker, api] = await Promise.all([startWorker(env), startApi({ ...env, LOG_LEVEL: 'warn' })]);
    const post = async (name: CorpusName, request: CorpusRequest) => {
      const t0 = performance.now();
      const res = await fetch(`${api!.url}${RENDER_PATH}`, {
        method: 'POST',
        body: renderForm({ file: corpusTemplate(name), filename: `${name}.docx`, request_data: request }),
      });
      const body = Buffer.from(await res.arrayBuffer());
      return { ms: performance.now() - t0, status: res.status, body };
    };

    if (!SKIP.includes('gallery')) await gallery(dir, bare, post);

    const huge = await post('invoice', corpusRequest('invoice', { rows: 7_000 }));
    const error = huge.status === 200 ? 'a PDF' : huge.body.toString('utf8').slice(0, 300);
    console.log(
      `\nservice: invoice, 7,000 rows (28,000 cells): ${huge.status} after ${ms(huge.ms)} ms: ${error}`,
    );
  } finally {
    bare.stop();
    await stopAll(api, worker);
    await stopAll(redis);
  }
}

type Post = (
  name: CorpusName,
  request: CorpusRequest,
) => Promise<{ ms: number; status: number; body: Buffer }>;

async function gallery(dir: string, bare: BareBridge, post: Post): Promise<void> {
  const request = corpusRequest('gallery', { rows: 2000 });
  const filledPath = join(dir, 'gallery.docx');
  await writeFile(filledPath, fill('gallery', 2000));
  await bare.convert(filledPath, join(dir, 'g.pdf'), SERVICE_EXPORT); // warm-up, both sides
  const warm = await post('gallery', request);
  if (warm.status !== 200)
    throw new Error(`service answered ${warm.status}: ${warm.body.toString().slice(0, 300)}`);
  const floor: number[] = [];
  const e2e: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await bare.convert(filledPath, join(dir, 'g.pdf'), SERVICE_EXPORT);
    floor.push(performance.now() - t0);
    e2e.push((await post('gallery', request)).ms);
  }
  const f = summarize(floor);
  const s = summarize(e2e);
  console.log(
    `\nservice: gallery.docx, 2,000 rows, 10 images, 1 caller, ${RUNS} runs interleaved with the floor`,
  );
  console.log(`  floor: bare warm UNO on the filled .docx  ${formatMs(f)}`);
  console.log(`  service over HTTP                          ${formatMs(s)}`);
  console.log(`  ratio ${(s.median / f.median).toFixed(2)}×   target ≤ 1.2×`);
}

type CorpusRequest = ReturnType<typeof corpusRequest>;

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) {
  child(
    process.argv[childAt + 1] as CorpusName,
    Number(process.argv[childAt + 2]),
    Number(process.argv[childAt + 3]),
  );
} else {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
