/**
 * Big documents, on the corpus (bench/fixtures):
 *
 *   fill      renderDocx (as the worker runs it: template checked by the API, stored output) on
 *             the invoice at 500, 1,000, 2,000 and 5,000 rows and the gallery (10 images) at the
 *             same sizes: time per fill and the peak resident memory of a fresh process doing
 *             only that, so each size is measured on its own (a child process per size).
 *   convert   the bare warm UNO bridge on the filled invoice at 500, 1,000 and 2,000 rows, import
 *             (loadComponentFromURL, which includes the layout) and PDF export (storeToURL) apart,
 *             beside the same document with its table style written out as direct cell formatting
 *             (the same look, compared page by page) and without its table style (another look,
 *             shown to locate the cost): where LibreOffice turns super-linear.
 *   service   the gallery, 2,000 rows and 10 images, end to end over HTTP (Redis, one worker, the
 *             API) against its floor (the bare bridge on the same filled .docx), interleaved; and a
 *             7,000-row invoice (28,000 cells), which the service refuses right after the fill (413
 *             conversion_budget) instead of timing out.
 *
 *   npx tsx bench/bigdocs.bench.ts [--runs 3] [--skip fill,convert,service,gallery]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { defaultWorkDir } from '@app/config';
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

// ---- the table style as direct formatting ---------------------------------------------------

function withDocumentXml(docx: Buffer, change: (xml: string) => string): Buffer {
  const zip = new PizZip(docx);
  zip.file('word/document.xml', change(zip.file('word/document.xml')!.asText()));
  return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
}

const ACCENT_BORDER = (side: string) => `<w:${side} w:val="single" w:sz="8" w:space="0" w:color="4F81BD"/>`;
const ACCENT_BORDERS = ['top', 'left', 'bottom', 'right'].map(ACCENT_BORDER).join('');
const STYLE_SPACING = '<w:spacing w:before="0" w:after="0" w:line="240" w:lineRule="auto"/>';

/**
 * The corpus invoice's table style (Word's "Light List Accent 1", with its tblLook: first row
 * and first column on, horizontal bands on) written out as each cell's own formatting, by hand
 * for this one style: what a template author can do for a table that grows long (and what the
 * pipeline could do for any style, which is not done). Header: accent fill, white bold text;
 * odd data rows: accent borders; first column bold; the style's paragraph spacing.
 */
function directFormatting(xml: string): string {
  return xml.replace(/<w:tbl>.*?<\/w:tbl>/gs, (table) => {
    if (!table.includes('<w:tblStyle w:val="LightList-Accent1"/>')) return table;
    const [head, ...rows] = table
      .replace('<w:tblStyle w:val="LightList-Accent1"/>', '')
      .replace(
        '<w:tblLayout w:type="fixed"/>',
        `<w:tblBorders>${ACCENT_BORDERS}</w:tblBorders><w:tblLayout w:type="fixed"/>` +
          '<w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/><w:bottom w:w="0" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar>',
      )
      .split(/(?=<w:tr>)/);
    return (
      head +
      rows
        .map((row, r) => {
          const [rowHead, ...cells] = row.split(/(?=<w:tc>)/);
          return (
            rowHead +
            cells
              .map((cell, c) => {
                const tcPr =
                  r === 0
                    ? '<w:shd w:val="clear" w:color="auto" w:fill="4F81BD"/>'
                    : r % 2 === 1
                      ? `<w:tcBorders>${ACCENT_BORDERS}</w:tcBorders>`
                      : '';
                const rPr =
                  r === 0 ? '<w:b/><w:bCs/><w:color w:val="FFFFFF"/>' : c === 0 ? '<w:b/><w:bCs/>' : '';
                let out = cell
                  .replace(/(<w:tcW [^>]*\/>)/, `$1${tcPr}`)
                  .replaceAll('<w:p><w:pPr>', `<w:p><w:pPr>${STYLE_SPACING}`)
                  .replaceAll('<w:p><w:r>', `<w:p><w:pPr>${STYLE_SPACING}</w:pPr><w:r>`);
                if (rPr)
                  out = out
                    .replaceAll('<w:r><w:rPr><w:b/><w:bCs/></w:rPr>', `<w:r><w:rPr>${rPr}</w:rPr>`)
                    .replace(/<w:r>(?!<w:rPr>)/g, `<w:r><w:rPr>${rPr}</w:rPr>`);
                return out;
              })
              .join('')
          );
        })
        .join('')
    );
  });
}

/** Whether two PDFs draw the same pages (pdftoppm at 100 dpi, every colour value within 16). */
function samePages(a: string, b: string, dir: string): string {
  const pages = (pdf: string, prefix: string): Buffer[] => {
    execFileSync('pdftoppm', ['-r', '100', pdf, join(dir, prefix)]);
    return readdirSync(dir)
      .filter((f) => f.startsWith(`${prefix}-`) && f.endsWith('.ppm'))
      .sort()
      .map((f) => readFileSync(join(dir, f)));
  };
  const pa = pages(a, 'pa');
  const pb = pages(b, 'pb');
  if (pa.length !== pb.length) return `no (${pa.length} pages against ${pb.length})`;
  let differing = 0;
  pa.forEach((x, i) => {
    const y = pb[i];
    if (x.length !== y.length) differing += Math.max(x.length, y.length);
    else for (let k = 0; k < x.length; k++) if (Math.abs(x[k] - y[k]) > 16) differing++;
  });
  for (const f of readdirSync(dir)) if (/^p[ab]-.*\.ppm$/.test(f)) rmSync(join(dir, f));
  return differing === 0 ? `yes, ${pa.length} pages at 100 dpi` : `no, ${differing} colour values differ`;
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
  const dir = await mkdtemp(join(defaultWorkDir(), 'bigdocs-bench-'));
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
          const variants: Array<[string, Buffer]> = [
            ['as filled', filled],
            ['style as direct', withDocumentXml(filled, directFormatting)],
            [
              'no table style',
              withDocumentXml(filled, (x) => x.replace(/<w:tblStyle w:val="[^"]*"\/>/g, '')),
            ],
          ];
          const pdfs: string[] = [];
          for (const [label, bytes] of variants) {
            const path = join(dir, `invoice-${rows}.docx`);
            const pdf = join(dir, `out-${pdfs.length}.pdf`);
            pdfs.push(pdf);
            await writeFile(path, bytes);
            const t0 = performance.now();
            const r = await bare.convert(path, pdf, SERVICE_EXPORT);
            const total = performance.now() - t0;
            console.log(
              `  invoice ${String(rows).padStart(5)} rows, ${label.padEnd(15)} total ${ms(total).padStart(6)} ms   import ${String(r.load_ms).padStart(6)} ms   export ${String(r.export_ms).padStart(6)} ms`,
            );
          }
          console.log(
            `    style as direct formatting looks the same as filled: ${samePages(pdfs[0], pdfs[1], dir)}`,
          );
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
