/**
 * Big documents (issue 28), on the corpus (bench/fixtures). One run prints what the issue's "Done
 * means" asks, each beside the warm-UNO floor: the bare bridge (bench/bare-uno.ts) converting the
 * same filled .docx whole, as written (table style kept, as docxtpl fills it; the service resolves
 * styles itself before converting, RESOLVE_TABLE_STYLES).
 *
 *   fill      renderDocx as the worker runs it for a PDF (stored output, table styles resolved):
 *             time per fill and the peak resident memory of a fresh process doing only that, a
 *             child process per size. The statement at 1,000, --statement-rows (10,000) and
 *             --big-rows (50,000) rows.
 *   fill-corpus  the same for the invoice and the gallery at 500, 1,000, 2,000 and 5,000 rows.
 *   convert   the bare warm UNO bridge on the filled invoice at 500, 1,000 and 2,000 rows, import
 *             (loadComponentFromURL, which includes the layout) and PDF export (storeToURL) apart,
 *             beside the same document with its table style written out as direct cell formatting
 *             by hand (the same look, compared page by page) and without its table style (another
 *             look, shown to locate the cost): where LibreOffice turns super-linear.
 *   service   Redis, the API and one worker (test/service-harness.ts) with the service's defaults
 *             (`npm start`'s: JOB_TIMEOUT_MS 60 s, LIBREOFFICE_INSTANCES = cores, MAX_TABLE_CELLS
 *             100,000, split conversion from SPLIT_MIN_ROWS 2,500 rows), plus every `--env KEY=VALUE`:
 *     invoice    the corpus invoice at --invoice-rows (500), sync POST, --runs times interleaved
 *                with its floor: the ratio (issue 28's target ≤ 0.5×).
 *     statement  the statement at --statement-rows (10,000), sync POST, once; then its floor once
 *                (minutes on LibreOffice 7.4; given up after --floor-timeout s, printed "> N s").
 *     big        the statement at --big-rows (50,000) as an asynchronous job (POST /api/v1/jobs,
 *                GET /api/v1/jobs/{id} polled, GET …/result), once; given up after --job-timeout s.
 *                Its floor only with --floor-50k (hours on 7.4).
 *     gallery    gallery.docx (2,000 rows, 10 images) against its floor, --runs times interleaved.
 *     huge       a 25,100-row invoice (over 100,000 cells), once: refused right after the fill with
 *                413 conversion_budget under the default MAX_TABLE_CELLS.
 *             A refusal or failure (e.g. 413 conversion_budget, 504 processing_timeout, a failed
 *             job) is printed with its status and error_type; the run goes on.
 *
 *   shapes   only with --shapes: the statement at --shape-rows (10,000) rows in the shapes of
 *            test/support/statement-shapes.ts (the corpus's; two-line rows breaking across pages,
 *            no repeated header; two long tables; a landscape appendix; footnotes), each filled as
 *            the worker fills it and converted in parts by the SplittingConverter on a pool of the
 *            service's defaults (instances = cores, SPLIT_MIN_ROWS --split-min-rows, parts of
 *            SPLIT_PART_PAGES), then whole on the same pool (given up after --floor-timeout s), and
 *            the two compared page by page at 100 dpi (test/support/page-compare.ts);
 *            --shape-list breaking,footnotes for some of them.
 *
 *   npx tsx bench/bigdocs.bench.ts [--runs 3] [--skip fill,fill-corpus,convert,service,invoice,statement,big,gallery,huge]
 *     [--invoice-rows 500] [--statement-rows 10000] [--big-rows 50000] [--floor-timeout 900]
 *     [--job-timeout 3600] [--floor-50k] [--env KEY=VALUE]...
 *   A quick check: --statement-rows 2000 --big-rows 5000 --skip fill-corpus,convert,gallery,huge
 *   (--rows-10k and --rows-50k are other names for --statement-rows and --big-rows.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import PizZip from 'pizzip';
import {
  defaultWorkDir,
  libreOfficePasses,
  LibreOfficePool,
  SplittingConverter,
  SPLIT_DEFAULTS,
} from '@app/converters';
import { renderDocx, type RenderOptions, type RenderRequest } from '@app/engine';
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
import { comparePages } from '../test/support/page-compare';
import { filledShape, STATEMENT_SHAPES } from '../test/support/statement-shapes';
import { flag, intArg, stringArg } from './args';
import { SERVICE_EXPORT, startBareBridge, type BareBridge } from './bare-uno';
import { corpusRequest, corpusTemplate, type CorpusName, type CorpusRequest } from './corpus';
import { elapsedMs, formatMs, machineLine, ms, peakRssMiB, summarize } from './report';

const RUNS = intArg('runs', 3);
const SKIP = stringArg('skip', '').split(',');
const INVOICE_ROWS = intArg('invoice-rows', 500);
const STATEMENT_ROWS = intArg('statement-rows', intArg('rows-10k', 10_000));
const BIG_ROWS = intArg('big-rows', intArg('rows-50k', 50_000));
const FLOOR_TIMEOUT_S = intArg('floor-timeout', 900);
const JOB_TIMEOUT_S = intArg('job-timeout', 3600);
const FLOOR_BIG = flag('floor-50k');
const SHAPES = flag('shapes');
const SHAPE_ROWS = intArg('shape-rows', 10_000);
/** --shape-list corpus,breaking,…: some of the shapes only. */
const SHAPE_LIST = stringArg('shape-list', STATEMENT_SHAPES.join(',')).split(',');
const SPLIT_MIN_ROWS = intArg('split-min-rows', SPLIT_DEFAULTS.minRows);
const FILL_ROWS = [500, 1000, 2000, 5000];
const STATEMENT_FILL_ROWS = [...new Set([1000, STATEMENT_ROWS, BIG_ROWS])];
const CONVERT_ROWS = [500, 1000, 2000];

/** `--env KEY=VALUE`, repeatable: settings for the API and the worker, over the defaults. */
function envArgs(): Record<string, string> {
  const out: Record<string, string> = {};
  process.argv.forEach((arg, i) => {
    if (arg !== '--env') return;
    const pair = process.argv[i + 1] ?? '';
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`--env needs KEY=VALUE, got ${JSON.stringify(pair)}`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  });
  return out;
}
const EXTRA_ENV = envArgs();

const run = (part: string) => !SKIP.includes(part);

/** The document as a template author's docxtpl would fill it: table style kept. */
function fill(name: CorpusName, rows: number): Buffer {
  return renderDocx(corpusTemplate(name), corpusRequest(name, { rows }) as RenderRequest, {
    compression: 'STORE',
    templateChecked: true,
    imagesVerified: true,
  });
}

/** What the worker's fill does for a PDF (render.processor.ts): stored, table styles resolved, unused styles left out. */
const WORKER_FILL: RenderOptions = {
  compression: 'STORE',
  templateChecked: true,
  imagesVerified: true,
  packagePasses: libreOfficePasses({ resolveTableStyles: true, pruneUnusedStyles: true }),
};

function commit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      encoding: 'utf8',
    }).trim();
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}

const load = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;

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
 * for this one style, as the measurement that led to the engine's resolver
 * (libs/engine/src/docx/table-styles.ts) did. Header: accent fill, white bold text; odd data
 * rows: accent borders; first column bold; the style's paragraph spacing.
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

function pdfPages(path: string): number | undefined {
  try {
    return Number(execFileSync('qpdf', ['--show-npages', path], { encoding: 'utf8' }).trim());
  } catch {
    return undefined;
  }
}

// ---- child: one size, one fresh process ---------------------------------------------------

function child(name: CorpusName, rows: number, runs: number): void {
  const template = corpusTemplate(name);
  const request = corpusRequest(name, { rows }) as RenderRequest;
  const baseline = peakRssMiB();
  // One untimed fill of 20 rows first: the first pays for compiling the engine's code. (Not the
  // full size: at 50,000 rows that would double the run and measure nothing more.)
  renderDocx(template, corpusRequest(name, { rows: 20 }) as RenderRequest, WORKER_FILL);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(elapsedMs(() => renderDocx(template, request, WORKER_FILL)));
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

function fillPart(names: readonly CorpusName[], sizes: (name: CorpusName) => readonly number[]): void {
  console.log(
    `\nfill (renderDocx as the worker runs it for a PDF: stored, table styles resolved, unused styles left out), ${RUNS} runs per size, a fresh process per size; ${load()}`,
  );
  console.log(
    `  ${'document'.padEnd(10)}${'rows'.padStart(7)}  ${'fill, median (range)'.padEnd(30)}ms/row  peak RSS (before the fill)`,
  );
  for (const name of names)
    for (const rows of sizes(name)) {
      const r = measureFill(name, rows);
      const s = summarize(r.times);
      console.log(
        `  ${name.padEnd(10)}${String(rows).padStart(7)}  ${formatMs(s).padEnd(30)}${(s.median / rows).toFixed(3).padStart(6)}  ` +
          `${r.peak.toFixed(0)} MiB (${r.baseline.toFixed(0)} MiB)`,
      );
    }
}

// ---- the floor ----------------------------------------------------------------------------

/** The bare bridge, started on first use and again after a conversion it was given up on. */
class Floor {
  private bridge: BareBridge | undefined;
  constructor(private readonly dir: string) {}

  async get(): Promise<BareBridge> {
    if (!this.bridge) {
      this.bridge = await startBareBridge(this.dir);
      // The first conversion of a fresh instance pays for its caches: not counted.
      await writeFile(join(this.dir, 'floor-warm.docx'), fill('invoice', 20));
      await this.bridge.convert(join(this.dir, 'floor-warm.docx'), join(this.dir, 'floor-warm.pdf'));
    }
    return this.bridge;
  }

  /** Converts `docx` with what the service asks of LibreOffice; undefined when it ran out of time. */
  async convert(docx: string, pdf: string, timeoutMs = Infinity): Promise<number | undefined> {
    const bridge = await this.get();
    const t0 = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      bridge.convert(docx, pdf, SERVICE_EXPORT).then(() => 'done' as const),
      ...(Number.isFinite(timeoutMs)
        ? [new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)))]
        : []),
    ]);
    clearTimeout(timer);
    if (outcome === 'done') return performance.now() - t0;
    // Given up: the bridge and its soffice go (the next use starts a fresh one).
    this.stop();
    return undefined;
  }

  stop(): void {
    this.bridge?.stop();
    this.bridge = undefined;
  }
}

// ---- the service over HTTP ---------------------------------------------------------------

interface Answer {
  ms: number;
  status: number;
  body: Buffer;
}

/**
 * One request over node:http, no client-side time limit: fetch's (undici's) 300 s wait for the
 * answer's headers would cut a synchronous POST the service is allowed to hold longer (a raised
 * JOB_TIMEOUT_MS); here only the service decides when to answer.
 */
async function call(url: string, method: string, form?: FormData): Promise<Answer> {
  let bytes: Buffer | undefined;
  let headers: Record<string, string | number> = {};
  if (form) {
    // The multipart encoding as fetch would send it.
    const probe = new Request('http://bench.invalid/', { method: 'POST', body: form });
    bytes = Buffer.from(await probe.arrayBuffer());
    headers = { 'content-type': probe.headers.get('content-type')!, 'content-length': bytes.length };
  }
  const target = new URL(url);
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

/** `413 payload_too_large (conversion_budget): …` from a typed error body, or its first bytes. */
function describeError(status: number | undefined, body: Buffer | object): string {
  let parsed: { error_type?: string; message?: string; details?: { reason?: string } } | undefined;
  try {
    parsed = Buffer.isBuffer(body) ? JSON.parse(body.toString('utf8')) : (body as typeof parsed);
  } catch {
    // not JSON
  }
  if (!parsed?.error_type)
    return `${status ?? ''}: ${Buffer.isBuffer(body) ? body.toString('utf8').slice(0, 200) : ''}`;
  const reason = parsed.details?.reason ? ` (${parsed.details.reason})` : '';
  return `${status === undefined ? '' : `${status} `}${parsed.error_type}${reason}: ${(parsed.message ?? '').slice(0, 400)}`;
}

/** The worker's own line for the last job it finished since `from`: fill and conversion times. */
function workerTimes(worker: ManagedProcess, from: number): string {
  const line = worker.lines
    .slice(from)
    .reverse()
    .find((l) => /completed \(\d+ bytes, render \d+ ms, convert \d+ ms\)/.test(l));
  const m = line && /render (\d+) ms, convert (\d+) ms/.exec(line);
  return m ? `; worker: fill ${m[1]} ms, convert ${m[2]} ms` : '';
}

class Service {
  constructor(
    readonly api: RunningApi,
    readonly worker: ManagedProcess,
  ) {}

  form(name: CorpusName, request: CorpusRequest): FormData {
    return renderForm({ file: corpusTemplate(name), filename: `${name}.docx`, request_data: request });
  }

  /** The synchronous endpoint. */
  post(name: CorpusName, request: CorpusRequest): Promise<Answer> {
    return call(`${this.api.url}${RENDER_PATH}`, 'POST', this.form(name, request));
  }

  /**
   * An asynchronous job (docs/jobs.md): submitted, polled, its result fetched. The time runs from
   * the submission to the result's last byte.
   */
  async job(
    name: CorpusName,
    request: CorpusRequest,
    timeoutMs: number,
  ): Promise<{ ms: number; outcome: string; pdf?: Buffer }> {
    const t0 = performance.now();
    const submitted = await call(`${this.api.url}/api/v1/jobs`, 'POST', this.form(name, request));
    if (submitted.status !== 202)
      return {
        ms: performance.now() - t0,
        outcome: `refused at submission, ${describeError(submitted.status, submitted.body)}`,
      };
    const { job_id: id } = JSON.parse(submitted.body.toString('utf8')) as { job_id: string };
    for (;;) {
      if (performance.now() - t0 > timeoutMs) {
        await call(`${this.api.url}/api/v1/jobs/${id}`, 'DELETE');
        return { ms: performance.now() - t0, outcome: `not finished, given up (job deleted)` };
      }
      await new Promise((r) => setTimeout(r, 250));
      const res = await call(`${this.api.url}/api/v1/jobs/${id}`, 'GET');
      if (res.status !== 200)
        return { ms: performance.now() - t0, outcome: `status read ${describeError(res.status, res.body)}` };
      const status = JSON.parse(res.body.toString('utf8')) as { status: string; error?: object };
      if (status.status === 'failed')
        return {
          ms: performance.now() - t0,
          outcome: `job failed: ${describeError(undefined, status.error ?? {})}`,
        };
      if (status.status === 'completed') {
        const result = await call(`${this.api.url}/api/v1/jobs/${id}/result`, 'GET');
        const ms = performance.now() - t0;
        if (result.status !== 200)
          return { ms, outcome: `result ${describeError(result.status, result.body)}` };
        return { ms, outcome: 'completed', pdf: result.body };
      }
    }
  }
}

async function service(dir: string, floor: Floor): Promise<void> {
  buildService();
  let redis: RedisServer | undefined;
  let worker: ManagedProcess | undefined;
  let api: RunningApi | undefined;
  try {
    redis = await RedisServer.start();
    const env = testEnv(redis.url, EXTRA_ENV);
    // testEnv shortens timers for the tests (heartbeats, locks, the stalled-job check) and pins one
    // LibreOffice and one job per worker; the benchmark runs the service as `npm start` does,
    // so these take the service's defaults unless --env sets them.
    for (const key of [
      'HEARTBEAT_INTERVAL_MS',
      'HEARTBEAT_TTL_MS',
      'WORKER_LOCK_DURATION_MS',
      'WORKER_STALLED_INTERVAL_MS',
      'JOB_BACKOFF_MS',
      'LIBREOFFICE_INSTANCES',
      'WORKER_CONCURRENCY',
    ])
      if (!(key in EXTRA_ENV)) delete env[key];
    [worker, api] = await Promise.all([startWorker(env), startApi({ ...env, LOG_LEVEL: 'warn' })]);
    const svc = new Service(api, worker);
    console.log(
      `\nservice: Redis, the API and one worker with the service's defaults` +
        (Object.keys(EXTRA_ENV).length
          ? `, and ${Object.entries(EXTRA_ENV)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}`
          : ''),
    );

    if (run('invoice')) await interleaved(dir, floor, svc, 'invoice', INVOICE_ROWS, 'target ≤ 0.5×');
    if (run('statement')) await statement(dir, floor, svc);
    if (run('big')) await big(dir, floor, svc);
    if (run('gallery')) await interleaved(dir, floor, svc, 'gallery', 2000, 'target ≤ 1.2×');
    if (run('huge')) {
      const huge = await svc.post('invoice', corpusRequest('invoice', { rows: 25_100 }));
      const outcome = huge.status === 200 ? '200, a PDF' : describeError(huge.status, huge.body);
      console.log(
        `\n  invoice, 25,100 rows (over 100,000 cells), sync POST: ${outcome}, after ${ms(huge.ms)} ms`,
      );
    }
  } finally {
    await stopAll(api, worker);
    await stopAll(redis);
  }
}

/** --runs sync requests, each after one floor conversion of the same filled document. */
async function interleaved(
  dir: string,
  floor: Floor,
  svc: Service,
  name: CorpusName,
  rows: number,
  target: string,
): Promise<void> {
  const request = corpusRequest(name, { rows });
  const filledPath = join(dir, `${name}-${rows}.docx`);
  const pdf = join(dir, `${name}-${rows}.pdf`);
  await writeFile(filledPath, fill(name, rows));
  console.log(
    `\n  ${name}.docx, ${rows} rows, sync POST, 1 caller, ${RUNS} runs interleaved with the floor; ${load()}`,
  );
  await floor.convert(filledPath, pdf); // warm-up, both sides
  const warm = await svc.post(name, request);
  if (warm.status !== 200) {
    console.log(`    service: ${describeError(warm.status, warm.body)}, after ${ms(warm.ms)} ms`);
    return;
  }
  const floorMs: number[] = [];
  const e2e: number[] = [];
  let lastWorker = '';
  for (let i = 0; i < RUNS; i++) {
    floorMs.push((await floor.convert(filledPath, pdf))!);
    const from = svc.worker.lines.length;
    const answer = await svc.post(name, request);
    if (answer.status !== 200) {
      console.log(`    service: ${describeError(answer.status, answer.body)}, after ${ms(answer.ms)} ms`);
      return;
    }
    e2e.push(answer.ms);
    lastWorker = workerTimes(svc.worker, from);
  }
  const f = summarize(floorMs);
  const s = summarize(e2e);
  console.log(
    `    floor: bare warm UNO on the filled .docx, as written   ${formatMs(f)}   ${pdfPages(pdf) ?? '?'} pages`,
  );
  console.log(`    service over HTTP                                     ${formatMs(s)}`);
  console.log(`    ratio service ÷ floor ${(s.median / f.median).toFixed(2)}×   ${target}`);
  if (lastWorker) console.log(`    last run${lastWorker}`);
}

async function statement(dir: string, floor: Floor, svc: Service): Promise<void> {
  const rows = STATEMENT_ROWS;
  console.log(`\n  statement.docx, ${rows} rows (${rows * 4} cells), sync POST, once; ${load()}`);
  const from = svc.worker.lines.length;
  const answer = await svc.post('statement', corpusRequest('statement', { rows }));
  if (answer.status === 200) {
    const pdf = join(dir, 'statement-service.pdf');
    await writeFile(pdf, answer.body);
    console.log(
      `    service over HTTP: 200, ${pdfPages(pdf) ?? '?'} pages, ${ms(answer.ms)} ms${workerTimes(svc.worker, from)}`,
    );
  } else
    console.log(
      `    service over HTTP: ${describeError(answer.status, answer.body)}, after ${ms(answer.ms)} ms`,
    );
  await floorOnce(dir, floor, 'statement', rows, answer.status === 200 ? answer.ms : undefined);
}

async function big(dir: string, floor: Floor, svc: Service): Promise<void> {
  const rows = BIG_ROWS;
  console.log(`\n  statement.docx, ${rows} rows (${rows * 4} cells), asynchronous job, once; ${load()}`);
  const from = svc.worker.lines.length;
  const job = await svc.job('statement', corpusRequest('statement', { rows }), JOB_TIMEOUT_S * 1000);
  if (job.pdf) {
    const pdf = join(dir, 'big-service.pdf');
    await writeFile(pdf, job.pdf);
    console.log(
      `    service, submitted to result: completed, ${pdfPages(pdf) ?? '?'} pages, ${ms(job.ms)} ms${workerTimes(svc.worker, from)}`,
    );
  } else
    console.log(
      `    service, submitted to result: ${job.outcome}, after ${job.outcome.startsWith('not finished') ? `> ${JOB_TIMEOUT_S} s` : `${ms(job.ms)} ms`}`,
    );
  if (FLOOR_BIG) await floorOnce(dir, floor, 'statement', rows, job.pdf ? job.ms : undefined);
  else console.log('    floor: not run (--floor-50k runs it; hours on LibreOffice 7.4)');
}

/** One floor conversion of the filled document, given up after --floor-timeout. */
async function floorOnce(
  dir: string,
  floor: Floor,
  name: CorpusName,
  rows: number,
  serviceMs: number | undefined,
): Promise<void> {
  const filledPath = join(dir, `${name}-${rows}.docx`);
  const pdf = join(dir, `${name}-${rows}-floor.pdf`);
  await writeFile(filledPath, fill(name, rows));
  const floorMs = await floor.convert(filledPath, pdf, FLOOR_TIMEOUT_S * 1000);
  if (floorMs === undefined) {
    console.log(
      `    floor: bare warm UNO on the filled .docx, as written: > ${FLOOR_TIMEOUT_S} s (given up)`,
    );
    return;
  }
  console.log(
    `    floor: bare warm UNO on the filled .docx, as written: ${ms(floorMs)} ms, ${pdfPages(pdf) ?? '?'} pages`,
  );
  if (serviceMs !== undefined) console.log(`    ratio service ÷ floor ${(serviceMs / floorMs).toFixed(2)}×`);
}

// ---- shapes -----------------------------------------------------------------------------

/**
 * The statement in each shape: in parts (fill included, as the worker does both) against whole,
 * on one pool of the service's defaults, and page by page at 100 dpi.
 */
async function shapes(): Promise<void> {
  const pool = new LibreOfficePool({ conversionTimeoutMs: FLOOR_TIMEOUT_S * 1000 });
  const said: string[] = [];
  const splitter = new SplittingConverter(pool, { ...SPLIT_DEFAULTS, minRows: SPLIT_MIN_ROWS }, (line) =>
    said.push(line),
  );
  await splitter.start();
  console.log(
    `\nshapes: the statement at ${SHAPE_ROWS} rows, ${splitter.setup}; in parts (fill + convert) beside whole (convert); ${load()}`,
  );
  try {
    for (const shape of STATEMENT_SHAPES.filter((name) => SHAPE_LIST.includes(name))) {
      const t0 = performance.now();
      const docx = filledShape(shape, SHAPE_ROWS, WORKER_FILL);
      const fillMs = performance.now() - t0;
      const before = { ...splitter.counts };
      const parted = await splitter.convert(docx, { jobId: shape });
      const partsMs = performance.now() - t0;
      const parts = splitter.counts.parts - before.parts;
      const how =
        splitter.counts.split > before.split ? `${parts} parts` : `whole after all (${said.at(-1) ?? '?'})`;
      const t1 = performance.now();
      let whole: Buffer | undefined;
      try {
        whole = await pool.convert(docx, { jobId: `${shape}-whole`, timeoutMs: FLOOR_TIMEOUT_S * 1000 });
      } catch (e) {
        console.log(`  ${shape}: whole conversion failed: ${(e as Error).message}`);
      }
      const wholeMs = performance.now() - t1;
      const cmp = whole ? comparePages(whole, parted) : undefined;
      const same = !cmp
        ? 'not compared'
        : cmp.pagesA === cmp.pagesB && cmp.differing.length === 0
          ? `all ${cmp.pagesA} pages identical at 100 dpi`
          : `${cmp.pagesB} pages against ${cmp.pagesA}, differing: ${cmp.differing.map((d) => d.page).join(', ')}`;
      console.log(
        `  ${shape.padEnd(10)} in parts ${ms(partsMs).padStart(7)} ms (fill ${ms(fillMs)} ms, ${how})   ` +
          `whole ${whole ? `${ms(wholeMs)} ms` : '-'}   ${same}; ${load()}`,
      );
      if (whole && cmp && (cmp.pagesA !== cmp.pagesB || cmp.differing.length > 0)) {
        // A difference that a rerun may not show again (issue 34's breaking shape, once) is kept
        // to be looked at: both PDFs and the filled document, outside the bench's own directory.
        const kept = await mkdtemp(join(tmpdir(), `bigdocs-${shape}-differs-`));
        await Promise.all([
          writeFile(join(kept, 'whole.pdf'), whole),
          writeFile(join(kept, 'parts.pdf'), parted),
          writeFile(join(kept, 'filled.docx'), docx),
        ]);
        console.log(
          `    kept both PDFs and the filled .docx in ${kept}; the split said: ${said.slice(-3).join(' | ')}`,
        );
      }
    }
  } finally {
    await pool.close();
  }
}

// ---- main -------------------------------------------------------------------------------

async function main(): Promise<void> {
  console.log(`big documents benchmark; ${machineLine()}; commit ${commit()}`);
  const dir = await mkdtemp(join(defaultWorkDir(), 'bigdocs-bench-'));
  const floor = new Floor(dir);
  try {
    if (run('fill')) fillPart(['statement'], () => STATEMENT_FILL_ROWS);
    if (run('fill-corpus')) fillPart(['invoice', 'gallery'], () => FILL_ROWS);

    if (run('convert')) {
      console.log(
        `\nconvert: bare warm UNO bridge on the filled invoice, import (with layout) and export apart; ${load()}`,
      );
      const bare = await floor.get();
      for (const rows of CONVERT_ROWS) {
        const filled = fill('invoice', rows);
        const variants: Array<[string, Buffer]> = [
          ['as filled', filled],
          ['style as direct', withDocumentXml(filled, directFormatting)],
          ['no table style', withDocumentXml(filled, (x) => x.replace(/<w:tblStyle w:val="[^"]*"\/>/g, ''))],
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
    }

    if (run('service')) await service(dir, floor);
    if (SHAPES) await shapes();
  } finally {
    floor.stop();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(`\nfinished ${new Date().toISOString()}; ${load()}`);
}

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
