/**
 * LibreOffice 25.2 against the system's 7.4, on the corpus, through uno_bridge.py (a warm bridge
 * each, the service's export options, jemalloc as the pool starts soffice). 25.2 lives in the
 * private prefix bench/lo25-prefix.sh makes ($LO25, default /tmp/lo25).
 *
 *   fidelity  every corpus document (invoice at 20 and 500 rows, contract, writer, gallery at 200
 *             rows), filled as the worker fills for a PDF with resolveTableStyles on and off, and
 *             test/fixtures/contract-toc.docx as it is, converted by both; pages rasterised with
 *             `pdftoppm -r 100` and compared pixel by pixel. For each page that differs,
 *             <out>/<document>/page-N.png shows 7.4 | 25.2 | the difference (red) side by side,
 *             and the page's words are compared too (pdftotext -bbox: same words? moved how far?).
 *   speed     the same filled documents (resolved, the service's default) converted by both in
 *             turn, alternating which goes first: invoice at 500, 1,000 and 2,000 rows, contract,
 *             gallery at its default 2,000 rows (and, asked for by --docs, invoice-2000-styled: the
 *             table style left to LibreOffice). Wall time (as the bridge measures it: import and
 *             export) and soffice.bin's CPU time per conversion (/proc, so other load on a shared
 *             machine counts less), medians, load average.
 *
 *   bash bench/lo25-prefix.sh
 *   npx tsx bench/lo-versions.bench.ts --part fidelity [--out /tmp/lo-versions] [--docs contract,writer]
 *   npx tsx bench/lo-versions.bench.ts --part speed [--runs 5] [--docs invoice-500,contract]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { libreOfficePasses } from '@app/converters';
import { renderDocx, type RenderRequest } from '@app/engine';
import { intArg, stringArg } from './args';
import { SERVICE_EXPORT, startBareBridge, type BareBridge } from './bare-uno';
import { corpusRequest, corpusTemplate, type CorpusName } from './corpus';
import { machineLine, median } from './report';

const PART = stringArg('part', 'fidelity');
const RUNS = intArg('runs', 5);
const OUT = stringArg('out', '/tmp/lo-versions');
const LO25 = process.env.LO25 ?? '/tmp/lo25';
const SOFFICE25 = join(LO25, 'root/usr/lib/libreoffice/program/soffice.bin');
const PYTHON25 = join(LO25, 'python3');
/** A colour value off by more than this counts a pixel as different (anti-aliasing noise below). */
const TOLERANCE = intArg('tolerance', 48);

type Version = '7.4' | '25.2';
const VERSIONS: readonly Version[] = ['7.4', '25.2'];

interface Doc {
  label: string;
  docx: Buffer;
}

function fill(name: CorpusName, rows: number | undefined, resolveTableStyles: boolean): Buffer {
  const request = corpusRequest(name, rows === undefined ? {} : { rows }) as RenderRequest;
  return renderDocx(corpusTemplate(name), request, {
    compression: 'STORE',
    templateChecked: true,
    imagesVerified: true,
    packagePasses: libreOfficePasses({ resolveTableStyles }),
  });
}

function fidelityDocs(): Doc[] {
  const docs: Doc[] = [];
  const sizes: Array<[CorpusName, number | undefined]> = [
    ['invoice', 20],
    ['invoice', 500],
    ['contract', undefined],
    ['writer', undefined],
    ['gallery', 200],
  ];
  for (const [name, rows] of sizes)
    for (const resolve of [true, false])
      docs.push({
        label: `${name}${rows === undefined ? '' : `-${rows}`}-${resolve ? 'resolved' : 'styled'}`,
        docx: fill(name, rows, resolve),
      });
  docs.push({
    label: 'contract-toc',
    docx: readFileSync(join(__dirname, '../test/fixtures/contract-toc.docx')),
  });
  return docs;
}

const SPEED_DOCS: Record<string, () => Buffer> = {
  'invoice-500': () => fill('invoice', 500, true),
  'invoice-1000': () => fill('invoice', 1000, true),
  'invoice-2000': () => fill('invoice', 2000, true),
  contract: () => fill('contract', undefined, true),
  gallery: () => fill('gallery', undefined, true),
  // not run by default: the table style left to LibreOffice (RESOLVE_TABLE_STYLES=false)
  'invoice-2000-styled': () => fill('invoice', 2000, false),
};
const DEFAULT_SPEED_DOCS = ['invoice-500', 'invoice-1000', 'invoice-2000', 'contract', 'gallery'];

// ---- the two bridges ---------------------------------------------------------------------------

interface Office {
  version: Version;
  bridge: BareBridge;
  dir: string;
  sofficePid: number;
}

/** soffice.bin's pid: the process whose command line names this bridge's profile. */
function sofficePid(dir: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // argv[0] is soffice.bin (the bridge's own command line names both too)
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv[0].endsWith('/soffice.bin') && argv.some((a) => a.includes(join(dir, 'profile'))))
        return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no soffice.bin for ${dir}`);
}

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ is 100 on Linux
}

async function startOffice(version: Version): Promise<Office> {
  const dir = await mkdtemp(join(os.tmpdir(), `lo-versions-${version}-`));
  const bridge =
    version === '7.4' ? await startBareBridge(dir) : await startBareBridge(dir, SOFFICE25, PYTHON25);
  return { version, bridge, dir, sofficePid: sofficePid(dir) };
}

interface Converted {
  ms: number;
  loadMs: number;
  exportMs: number;
  cpuMs: number;
}

async function convert(office: Office, inPath: string, outPath: string): Promise<Converted> {
  const cpu0 = cpuMs(office.sofficePid);
  const reply = await office.bridge.convert(inPath, outPath, SERVICE_EXPORT);
  return {
    ms: reply.ms ?? NaN,
    loadMs: reply.load_ms ?? NaN,
    exportMs: reply.export_ms ?? NaN,
    cpuMs: cpuMs(office.sofficePid) - cpu0,
  };
}

// ---- pages ---------------------------------------------------------------------------------------

function rasterise(pdf: string, prefix: string): string[] {
  execFileSync('pdftoppm', ['-r', '100', '-png', pdf, prefix]);
  const dir = join(prefix, '..');
  const base = prefix.slice(dir.length + 1);
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${base}-`) && f.endsWith('.png'))
    .sort()
    .map((f) => join(dir, f));
}

interface Word {
  text: string;
  x: number;
  y: number;
}

/**
 * A page's words and where they start (pdftotext -bbox), dot leaders left out: their length varies,
 * and a leader that reaches its page number makes one word of them ("Parties....5").
 */
function pageWords(pdf: string, page: number): Word[] {
  const xml = execFileSync('pdftotext', ['-f', String(page), '-l', String(page), '-bbox', pdf, '-'], {
    encoding: 'utf8',
  });
  const words: Word[] = [];
  for (const m of xml.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>([^<]*)<\/word>/g)) {
    for (const text of m[3].split(/\.{4,}/)) if (text) words.push({ text, x: Number(m[1]), y: Number(m[2]) });
  }
  return words;
}

/**
 * Whether both versions put the same words on a page and how far they moved: the median vertical
 * move (the whole page shifted) and the largest move of any word beyond it, in points. (25.2's word
 * boxes sit about 1 pt higher on every page with the glyphs in the same place: pdftotext derives the
 * box from the embedded font's ascent. A real move shows as more, e.g. 5–11 pt on the contract's
 * pages 2–5.)
 */
function compareWords(a: Word[], b: Word[]): string {
  if (a.length !== b.length || a.some((w, i) => w.text !== b[i].text)) {
    const diff = a.findIndex((w, i) => w.text !== b[i]?.text);
    return `words differ (${a.length} / ${b.length}; first: "${a[diff]?.text}" / "${b[diff]?.text}")`;
  }
  const dys = a.map((w, i) => b[i].y - w.y);
  const shift = median(dys);
  // x: a word after a leader keeps its leader's start, so only the first word after one is exact
  const split = (ws: Word[], i: number) => i > 0 && ws[i - 1].x === ws[i].x;
  const dx = Math.max(0, ...a.map((w, i) => (split(a, i) || split(b, i) ? 0 : Math.abs(b[i].x - w.x))));
  const dy = Math.max(0, ...dys.map((d) => Math.abs(d - shift)));
  return `same ${a.length} words, page moved ${shift.toFixed(1)} pt, words ±${dx.toFixed(1)} pt across, ±${dy.toFixed(1)} pt down`;
}

/** Pixels whose colour differs by more than TOLERANCE in any channel; an image of the three. */
function comparePages(a: PNG, b: PNG): { differing: number; sideBySide?: PNG } {
  if (a.width !== b.width || a.height !== b.height)
    return { differing: Math.max(a.width * a.height, b.width * b.height) };
  const { width, height } = a;
  const diff = new PNG({ width, height });
  let differing = 0;
  for (let i = 0; i < width * height * 4; i += 4) {
    const off =
      Math.abs(a.data[i] - b.data[i]) > TOLERANCE ||
      Math.abs(a.data[i + 1] - b.data[i + 1]) > TOLERANCE ||
      Math.abs(a.data[i + 2] - b.data[i + 2]) > TOLERANCE;
    if (off) differing++;
    // 7.4's page faded, the differing pixels red
    const grey = 255 - Math.round((255 - (a.data[i] + a.data[i + 1] + a.data[i + 2]) / 3) * 0.25);
    diff.data[i] = off ? 230 : grey;
    diff.data[i + 1] = off ? 0 : grey;
    diff.data[i + 2] = off ? 0 : grey;
    diff.data[i + 3] = 255;
  }
  if (!differing) return { differing };
  const gap = 10;
  const out = new PNG({ width: width * 3 + gap * 2, height });
  out.data.fill(128);
  for (const [k, img] of [a, b, diff].entries())
    PNG.bitblt(img, out, 0, 0, width, height, k * (width + gap), 0);
  return { differing, sideBySide: out };
}

async function fidelity(offices: Office[], work: string): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const summary: Array<Record<string, unknown>> = [];
  const only = stringArg('docs', '');
  for (const doc of fidelityDocs().filter(
    (d) => !only || only.split(',').some((o) => d.label.startsWith(o)),
  )) {
    const dir = join(OUT, doc.label);
    mkdirSync(dir, { recursive: true });
    const inPath = join(work, `${doc.label}.docx`);
    writeFileSync(inPath, doc.docx);
    const pdfs: Record<string, string> = {};
    const pages: Record<string, string[]> = {};
    for (const office of offices) {
      const tag = office.version === '7.4' ? 'lo74' : 'lo25';
      pdfs[tag] = join(dir, `${tag}.pdf`);
      await convert(office, inPath, pdfs[tag]);
      pages[tag] = rasterise(pdfs[tag], join(dir, tag));
    }
    const n = Math.max(pages.lo74.length, pages.lo25.length);
    const differing: Array<{ page: number; pixels: number; words: string }> = [];
    for (let p = 0; p < Math.min(pages.lo74.length, pages.lo25.length); p++) {
      const a = PNG.sync.read(readFileSync(pages.lo74[p]));
      const b = PNG.sync.read(readFileSync(pages.lo25[p]));
      const { differing: pixels, sideBySide } = comparePages(a, b);
      if (!pixels) continue;
      const words = compareWords(pageWords(pdfs.lo74, p + 1), pageWords(pdfs.lo25, p + 1));
      differing.push({ page: p + 1, pixels, words });
      if (sideBySide) writeFileSync(join(dir, `page-${p + 1}.png`), PNG.sync.write(sideBySide));
    }
    const line = {
      document: doc.label,
      pages: `${pages.lo74.length} / ${pages.lo25.length}`,
      differingPages: differing.length,
      differing,
    };
    summary.push(line);
    console.log(`${doc.label}: ${line.pages} pages (7.4 / 25.2), ${differing.length} of ${n} differ`);
    for (const d of differing) console.log(`  p${d.page}: ${d.pixels} pixels; ${d.words}`);
  }
  writeFileSync(join(OUT, 'summary.json'), JSON.stringify(summary, null, 2));
  console.log(`\npages and side-by-side images of differing pages: ${OUT}`);
}

async function speed(offices: Office[], work: string): Promise<void> {
  const names = stringArg('docs', DEFAULT_SPEED_DOCS.join(',')).split(',');
  const results: Record<string, Record<Version, Converted[]>> = {};
  const loads: number[] = [];
  for (const name of names) {
    const make = SPEED_DOCS[name];
    if (!make) throw new Error(`unknown document ${name}; known: ${Object.keys(SPEED_DOCS).join(', ')}`);
    const inPath = join(work, `${name}.docx`);
    writeFileSync(inPath, make());
    results[name] = { '7.4': [], '25.2': [] };
    // One untimed conversion each first: the first of a document pays for loading its fonts.
    for (const office of offices) await convert(office, inPath, join(work, `${name}-${office.version}.pdf`));
    for (let run = 0; run < RUNS; run++) {
      const order = run % 2 === 0 ? offices : [...offices].reverse();
      for (const office of order) {
        loads.push(os.loadavg()[0]);
        const c = await convert(office, inPath, join(work, `${name}-${office.version}.pdf`));
        results[name][office.version].push(c);
        console.log(
          `  ${name.padEnd(13)} run ${run + 1} ${office.version.padEnd(4)} ${String(Math.round(c.ms)).padStart(6)} ms ` +
            `(import ${Math.round(c.loadMs)} + export ${Math.round(c.exportMs)}), CPU ${Math.round(c.cpuMs)} ms, ` +
            `load ${os.loadavg()[0].toFixed(2)}`,
        );
      }
    }
  }
  console.log(`\nmedians of ${RUNS} alternated runs (wall: import + export; CPU: soffice.bin user + system)`);
  for (const name of names) {
    const m = (v: Version, k: keyof Converted) => median(results[name][v].map((c) => c[k]));
    const fmt = (x: number) => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);
    console.log(
      `${name.padEnd(13)} 7.4 ${fmt(m('7.4', 'ms'))} (${fmt(m('7.4', 'loadMs'))} + ${fmt(m('7.4', 'exportMs'))}), CPU ${fmt(m('7.4', 'cpuMs'))}` +
        ` | 25.2 ${fmt(m('25.2', 'ms'))} (${fmt(m('25.2', 'loadMs'))} + ${fmt(m('25.2', 'exportMs'))}), CPU ${fmt(m('25.2', 'cpuMs'))}` +
        ` | 25.2 ÷ 7.4 wall ${(m('25.2', 'ms') / m('7.4', 'ms')).toFixed(2)}, CPU ${(m('25.2', 'cpuMs') / m('7.4', 'cpuMs')).toFixed(2)}`,
    );
  }
  console.log(
    `load average (1 min) during the runs: ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`,
  );
}

async function main(): Promise<void> {
  if (!existsSync(SOFFICE25) || !existsSync(PYTHON25))
    throw new Error(`LibreOffice 25.2 not found under ${LO25}: run bash bench/lo25-prefix.sh first`);
  console.log(`LibreOffice 7.4 (system) against 25.2 (${LO25}), ${PART} — ${machineLine()}`);
  const work = await mkdtemp(join(os.tmpdir(), 'lo-versions-'));
  const offices: Office[] = [];
  try {
    for (const v of VERSIONS) offices.push(await startOffice(v));
    for (const office of offices)
      console.log(
        `${office.version}: ${execFileSync('pdfinfo', [await probe(office, work)], { encoding: 'utf8' }).match(/Producer:\s*(.*)/)?.[1]}`,
      );
    if (PART === 'fidelity') await fidelity(offices, work);
    else if (PART === 'speed') await speed(offices, work);
    else throw new Error(`--part fidelity or speed, got ${PART}`);
  } finally {
    for (const office of offices) {
      office.bridge.stop();
      await rm(office.dir, { recursive: true, force: true });
    }
    await rm(work, { recursive: true, force: true });
  }
}

/** Converts a 20-row invoice (warms the bridge up) and returns its PDF, whose Producer names the version. */
async function probe(office: Office, work: string): Promise<string> {
  const inPath = join(work, 'probe.docx');
  writeFileSync(inPath, fill('invoice', 20, true));
  const out = join(work, `probe-${office.version}.pdf`);
  await convert(office, inPath, out);
  return out;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
