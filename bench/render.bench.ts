/**
 * Render benchmark on the corpus (bench/fixtures, see its README): the fill alone, no conversion.
 *
 * Corpus invoice at 20 and 500 rows, five contenders side by side in the same run:
 *   ours             renderDocx on invoice.docx with the request as callers send it (logo included)
 *   ours, kept compile  the same from the compile an earlier render kept, as the worker fills a
 *                    template it has seen before (libs/engine/src/docx/compiled-templates.ts)
 *   ours, no logo    the same without the image, the work bare docxtemplater does
 *   docxtemplater    bare docxtemplater 3 (default parser, paragraphLoop) on invoice.dxt.docx, the
 *                    same document in its own syntax, no logo (it cannot place images)
 *   docxtpl          docxtpl 0.16, the Python reference, logo as InlineImage (bench/docxtpl_bench.py,
 *                    in-process, start-up not timed)
 * Targets (issue 9): ours, no logo ≤ 1.3 × docxtemplater at both sizes; ours ≤ 0.5 × docxtpl at
 * 20 rows and ≤ 0.9 × at 500. Then the other corpus documents (contract, writer, gallery with
 * its 10 images and 2,000 rows), ours vs docxtpl, and the builder's minimal invoice as one
 * labelled row (the figure the README used to give). Last, charts (issue 39, docs/charts.md): a
 * 12-page report with 24 charts — Word's chart (test/fixtures/charts/word-column-clustered.docx,
 * with its embedded workbook) in a `{% for %}` loop of 24 sections, each filled with its own data —
 * beside the same report without the charts (ours only: no other contender fills charts). Then
 * the corpus deck (issue 41, bench/corpus.ts deckRequest): the Impress-written deck with a
 * 30-item `{%slide for %}` loop (32 slides, a photo each), filled to .pptx (renderPptx), beside the
 * LibreOffice floor measured in the same run: one pool instance converting the filled deck to
 * PDF through Impress (what any service must add to the fill for a PDF). And the
 * 2,000-row price list (.xlsx, issue 41; bench/fixtures/price-list.xlsx): its fill, ours only (docxtpl
 * and docxtemplater's free core fill no workbooks); its conversion's floor is bench:service's.
 *
 * Every timed run is what a request costs: open the template from bytes, fill it, write the
 * .docx (deflated) to bytes. Samples come in rounds (JavaScript contenders alternate run by run,
 * then docxtpl takes its turn), so load from other processes falls on all alike; each line gives
 * the median and the range of all runs, each ratio the ratio of medians and its range over rounds.
 * Before timing, the outputs are checked to read the same.
 *
 *   npx tsx bench/render.bench.ts [--iterations 40] [--rounds 4] [--docs invoice,contract,writer,gallery,minimal,charts,deck,deck-charts,prices] [--check]
 *   --check: exit with status 1 when a target is missed or outputs differ.
 */
import Docxtemplater from 'docxtemplater';
import PizZip from 'pizzip';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CompiledTemplates,
  readDeck,
  renderDocx,
  renderPptx,
  renderXlsx,
  type RenderRequest,
} from '@app/engine';
import { LibreOfficePool, PRESENTATION_TARGETS } from '@app/converters';
import { buildDocx, table, type DocxSpec } from '../test/support/docx-builder';
import { docxText } from '../test/support/docx-text';
import { DOCXTPL_PYTHON } from '../test/support/docxtpl';
import { flag, intArg, stringArg } from './args';
import {
  corpusRequest,
  corpusTemplate,
  deckChartsRequest,
  deckChartsTemplate,
  deckRequest,
  deckTemplate,
  DECK_ITEMS,
  docxtemplaterInvoice,
  docxtemplaterInvoiceData,
  priceListRequest,
  priceListTemplate,
  type CorpusName,
  type CorpusRequest,
} from './corpus';
import { elapsedMs, formatMs, machineLine, median, summarize } from './report';

const ITERATIONS = intArg('iterations', 40);
const ROUNDS = intArg('rounds', 4);
const DOCS = stringArg(
  'docs',
  'invoice,contract,writer,gallery,minimal,charts,deck,deck-charts,prices',
).split(',');
const CHECK = flag('check');

/** Fewer runs for long documents: about the same time per case. */
function runsFor(rows: number): number {
  return Math.max(ROUNDS, rows <= 50 ? ITERATIONS : Math.ceil((ITERATIONS * 50) / rows));
}

// ---------------------------------------------------------------------------------------------
// Contenders
// ---------------------------------------------------------------------------------------------

function renderDocxtemplater(template: Buffer, data: Record<string, unknown>): Buffer {
  const doc = new Docxtemplater(new PizZip(template), { paragraphLoop: true, linebreaks: true });
  doc.render(data);
  return doc.getZip().generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

const DOCXTPL_SCRIPT = join(__dirname, 'docxtpl_bench.py');

/** docxtpl's run times (in one fresh Python process, warmed up), and optionally its output. */
function docxtplTimes(template: Buffer, request: CorpusRequest, runs: number, warmup: number, out?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'docxtpl-bench-'));
  try {
    writeFileSync(join(dir, 't.docx'), template);
    writeFileSync(join(dir, 'r.json'), JSON.stringify(request));
    const res = spawnSync(
      DOCXTPL_PYTHON,
      [
        DOCXTPL_SCRIPT,
        join(dir, 't.docx'),
        join(dir, 'r.json'),
        String(runs),
        String(warmup),
        ...(out ? [out] : []),
      ],
      { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 1_800_000 },
    );
    if (res.status !== 0) throw new Error(`docxtpl_bench.py failed: ${res.stderr || res.error?.message}`);
    return (JSON.parse(res.stdout) as { times_ms: number[] }).times_ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function docxtplOutput(template: Buffer, request: CorpusRequest): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'docxtpl-out-'));
  try {
    docxtplTimes(template, request, 0, 0, join(dir, 'o.docx'));
    return readFileSync(join(dir, 'o.docx'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The builder's minimal invoice (the README's former figure), kept as one labelled row
// ---------------------------------------------------------------------------------------------

function minimalData(): Record<string, unknown> {
  const items = Array.from({ length: 20 }, (_, i) => {
    const qty = (i % 5) + 1;
    const price = 9.5 + i * 3.25;
    return {
      description: `Item ${i + 1}: consulting & support, part ${String.fromCharCode(65 + (i % 26))}`,
      qty,
      price: price.toFixed(2),
      line_total: (qty * price).toFixed(2),
    };
  });
  return {
    company: {
      name: 'ACME Widgets GmbH',
      street: 'Hauptstraße 1',
      city: '10115 Berlin',
      vat_id: 'DE123456789',
    },
    customer: { name: 'Jane Doe', street: '12 Rue de la Paix', city: '75002 Paris' },
    invoice: { number: 'INV-2024-0042', date: '2024-03-01', due: '2024-03-31' },
    items,
    subtotal: '1234.50',
    vat: '234.56',
    total: '1469.06',
    paid: false,
    notes: ['Thank you for your business.', 'Payment by bank transfer only.'],
  };
}

function minimalJinja(): DocxSpec {
  return {
    header: ['{{ company.name }} · {{ company.street }} · {{ company.city }} · VAT {{ company.vat_id }}'],
    body: [
      { text: 'Invoice {{ invoice.number }}', style: 'Heading1' },
      'Date: {{ invoice.date }}',
      'Bill to: {{ customer.name }}, {{ customer.street }}, {{ customer.city }}',
      table([
        ['Description', 'Qty', 'Price', 'Total'],
        ['{%tr for item in items %}', '', '', ''],
        ['{{ item.description }}', '{{ item.qty }}', '{{ item.price }}', '{{ item.line_total }}'],
        ['{%tr endfor %}', '', '', ''],
        ['Subtotal', '', '', '{{ subtotal }}'],
        ['VAT 19 %', '', '', '{{ vat }}'],
        ['Total', '', '', '{{ total }}'],
      ]),
      '{% if paid %}Paid, thank you.{% else %}Please pay by {{ invoice.due }}.{% endif %}',
      '{%p for note in notes %}',
      '{{ note }}',
      '{%p endfor %}',
    ],
  };
}

function minimalDxt(): DocxSpec {
  return {
    header: ['{#company}{name} · {street} · {city} · VAT {vat_id}{/company}'],
    body: [
      { text: 'Invoice {#invoice}{number}{/invoice}', style: 'Heading1' },
      'Date: {#invoice}{date}{/invoice}',
      'Bill to: {#customer}{name}, {street}, {city}{/customer}',
      table([
        ['Description', 'Qty', 'Price', 'Total'],
        ['{#items}{description}', '{qty}', '{price}', '{line_total}{/items}'],
        ['Subtotal', '', '', '{subtotal}'],
        ['VAT 19 %', '', '', '{vat}'],
        ['Total', '', '', '{total}'],
      ]),
      '{#paid}Paid, thank you.{/paid}{^paid}Please pay by {#invoice}{due}{/invoice}.{/paid}',
      '{#notes}',
      '{.}',
      '{/notes}',
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

interface Case {
  label: string;
  runs: number;
  /** JavaScript contenders, by name. */
  js: Record<string, () => Buffer>;
  docxtpl: { template: Buffer; request: CorpusRequest };
  /** Pairs whose outputs must read the same: [contender, contender] ('docxtpl' allowed). */
  same: Array<[string, string]>;
  /** [numerator, denominator, target ratio or undefined]. */
  ratios: Array<[string, string, number | undefined]>;
}

function invoiceCase(rows: number): Case {
  const template = corpusTemplate('invoice');
  const dxt = docxtemplaterInvoice();
  const request = corpusRequest('invoice', { rows });
  const noLogo: RenderRequest = { template_data: request.template_data, images: {} };
  const dxtData = docxtemplaterInvoiceData(rows);
  const kept = new CompiledTemplates();
  return {
    label: `corpus invoice.docx, ${rows} rows`,
    runs: runsFor(rows),
    js: {
      ours: () => renderDocx(template, request as RenderRequest),
      'ours, kept compile': () => renderDocx(template, request as RenderRequest, { compiledTemplates: kept }),
      'ours, no logo': () => renderDocx(template, noLogo),
      docxtemplater: () => renderDocxtemplater(dxt, dxtData),
    },
    docxtpl: { template, request },
    same: [
      ['ours, no logo', 'docxtemplater'],
      ['ours', 'docxtpl'],
      ['ours, kept compile', 'ours'],
    ],
    ratios: [
      ['ours, no logo', 'docxtemplater', 1.3],
      ['ours', 'docxtpl', rows <= 20 ? 0.5 : 0.9],
      ['ours, kept compile', 'ours', undefined],
    ],
  };
}

function corpusCase(name: CorpusName): Case {
  const template = corpusTemplate(name);
  const request = corpusRequest(name);
  const rows = name === 'gallery' ? 2000 : 20;
  return {
    label: `corpus ${name}.docx${name === 'gallery' ? ', 2,000 rows, 10 images' : ''}`,
    runs: runsFor(rows),
    js: { ours: () => renderDocx(template, request as RenderRequest) },
    docxtpl: { template, request },
    same: [['ours', 'docxtpl']],
    ratios: [['ours', 'docxtpl', undefined]],
  };
}

function minimalCase(): Case {
  const jinja = buildDocx(minimalJinja());
  const dxt = buildDocx(minimalDxt());
  const data = minimalData();
  return {
    label: "test builder's minimal invoice, 20 rows (not a real document; the README's former figure)",
    runs: runsFor(20),
    js: {
      ours: () => renderDocx(jinja, { template_data: data }),
      docxtemplater: () => renderDocxtemplater(dxt, data),
    },
    docxtpl: { template: jinja, request: { template_data: data } },
    same: [
      ['ours', 'docxtemplater'],
      ['ours', 'docxtpl'],
    ],
    ratios: [
      ['ours', 'docxtemplater', undefined],
      ['ours', 'docxtpl', undefined],
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Charts: a 12-page report with 24 charts, beside the same report without them
// ---------------------------------------------------------------------------------------------

const CHART_TEMPLATE = join(__dirname, '../test/fixtures/charts/word-column-clustered.docx');

/**
 * The report: 24 sections (two a page) of a heading, three paragraphs and, with `charts`, Word's
 * chart bound by its alternative text to the section's data.
 */
function chartReport(charts: boolean): Buffer {
  const zip = new PizZip(readFileSync(CHART_TEMPLATE));
  const xml = zip.file('word/document.xml')!.asText();
  const at = xml.indexOf('<w:drawing>');
  const pStart = Math.max(xml.lastIndexOf('<w:p>', at), xml.lastIndexOf('<w:p ', at));
  const pEnd = xml.indexOf('</w:p>', at) + '</w:p>'.length;
  const chartParagraph = xml
    .slice(pStart, pEnd)
    .replace(/(<wp:docPr\b[^>]*?)(\s*\/?>)/, '$1 descr="{{ chart(s.sales) }}"$2')
    // 15 × 6 cm: two sections a page.
    .replace(/<wp:extent cx="\d+" cy="\d+"\/>/, '<wp:extent cx="5400000" cy="2160000"/>');
  const para = (t: string, extra = '') =>
    `<w:p>${extra}<w:r><w:t xml:space="preserve">${t}</w:t></w:r></w:p>`;
  const body =
    para('{% for s in sections %}') +
    para('{{ s.title }}', '<w:pPr><w:pStyle w:val="Heading1"/></w:pPr>') +
    para('{{ s.text }}') +
    para('{{ s.text }}') +
    (charts ? chartParagraph : '') +
    para('{{ s.text }}') +
    para('{% endfor %}');
  const bodyStart = xml.indexOf('<w:body>') + '<w:body>'.length;
  const sectPr = xml.indexOf('<w:sectPr');
  zip.file('word/document.xml', xml.slice(0, bodyStart) + body + xml.slice(sectPr));
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

function chartReportData(): Record<string, unknown> {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  return {
    sections: Array.from({ length: 24 }, (_, i) => ({
      title: `Region ${i + 1}`,
      text: 'Revenue grew in every quarter; the chart shows the monthly figures by product line. '.repeat(2),
      sales: {
        categories: months,
        series: ['Hardware', 'Services', 'Support'].map((name, k) => ({
          name,
          values: months.map((_, m) => 100 + ((i * 37 + k * 11 + m * 7) % 90)),
        })),
        title: `Region ${i + 1}: monthly sales`,
      },
    })),
  };
}

/** Ours with the 24 charts and without, alternating run by run; prints medians and the ratio. */
function runChartsCase(): boolean {
  const withCharts = chartReport(true);
  const without = chartReport(false);
  const data = chartReportData();
  const fns: Record<string, () => Buffer> = {
    'with 24 charts': () => renderDocx(withCharts, { template_data: data }),
    'without charts': () => renderDocx(without, { template_data: data }),
  };
  const check = fns['with 24 charts']();
  // Charts the document shows (the fixture's second, unbound chart stays in the package unshown).
  const charts = (
    new PizZip(check)
      .file('word/document.xml')!
      .asText()
      .match(/<c:chart\b/g) ?? []
  ).length;
  const runs = runsFor(20);
  console.log(
    `\n12-page report, 24 sections: with 24 charts (${charts} drawn) vs without; ${runs} runs each`,
  );
  const samples: Record<string, number[]> = { 'with 24 charts': [], 'without charts': [] };
  for (let i = 0; i < 3; i++) for (const fn of Object.values(fns)) fn();
  for (let i = 0; i < runs; i++)
    for (const n of i % 2 ? Object.keys(fns).reverse() : Object.keys(fns)) samples[n].push(elapsedMs(fns[n]));
  for (const [n, xs] of Object.entries(samples))
    console.log(`  ${n.padEnd(16)} ${formatMs(summarize(xs)).padStart(26)}`);
  const ratio = median(samples['with 24 charts']) / median(samples['without charts']);
  console.log(`  with / without = ${ratio.toFixed(2)}×`);
  return charts === 24;
}

/** The corpus deck: its fill timed, and the pool's PDF of the filled deck as the floor. */
async function runDeckCase(): Promise<boolean> {
  const template = deckTemplate();
  const request = deckRequest() as RenderRequest;
  const fill = () => renderPptx(template, request);
  const filled = fill();
  const slides = readDeck(filled).length;
  const runs = runsFor(50);
  const fills: number[] = [];
  for (let i = 0; i < 3; i++) fill();
  for (let i = 0; i < runs; i++) fills.push(elapsedMs(fill));
  const pool = new LibreOfficePool({ instances: 1, restartAfter: 0 });
  await pool.start();
  const floor: number[] = [];
  let pages: number | undefined;
  try {
    const convert = () => pool.convertTo(filled, PRESENTATION_TARGETS.pdf, { pdf: {} });
    const first = await convert();
    pages = Number(/\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)/.exec(first.toString('latin1'))?.[1] ?? 0);
    for (let i = 0; i < Math.max(ROUNDS, 10); i++) {
      const t0 = performance.now();
      await convert();
      floor.push(performance.now() - t0);
    }
  } finally {
    await pool.close();
  }
  console.log(
    `\ndeck (test/fixtures/slides/deck.impress.pptx), ${DECK_ITEMS}-item slide loop: ${slides} slides, PDF ${pages || '?'} pages`,
  );
  console.log(`  ours: fill to .pptx      ${formatMs(summarize(fills)).padStart(26)}   (${runs} runs)`);
  console.log(
    `  LibreOffice floor: PDF   ${formatMs(summarize(floor)).padStart(26)}   (${floor.length} runs, 1 pool instance, the filled deck)`,
  );
  console.log(`  fill / floor = ${(median(fills) / median(floor)).toFixed(3)}×`);
  return slides === DECK_ITEMS + 2;
}

/**
 * The chart deck (bench/corpus.ts deckChartsTemplate): a 30-item slide loop whose copies each get
 * their own chart part and workbook, beside the same loop without the chart.
 */
function runDeckChartsCase(): boolean {
  const request = deckChartsRequest() as RenderRequest;
  const templates = { 'with charts': deckChartsTemplate(true), 'without charts': deckChartsTemplate(false) };
  const runs = runsFor(50);
  const samples: Record<string, number[]> = {};
  for (const [name, template] of Object.entries(templates)) {
    const fill = () => renderPptx(template, request);
    for (let i = 0; i < 3; i++) fill();
    samples[name] = Array.from({ length: runs }, () => elapsedMs(fill));
  }
  const charts = (
    new PizZip(renderPptx(templates['with charts'], request)).file(/^ppt\/charts\/[^/]+\.xml$/) ?? []
  ).length;
  console.log(`
deck charts (python-pptx shp-access-chart.pptx), ${DECK_ITEMS}-item slide loop: ${charts} chart parts`);
  for (const [n, xs] of Object.entries(samples))
    console.log(`  ${n.padEnd(16)} ${formatMs(summarize(xs)).padStart(26)}`);
  console.log(
    `  with / without = ${(median(samples['with charts']) / median(samples['without charts'])).toFixed(2)}×`,
  );
  return charts === DECK_ITEMS;
}

/** The 2,000-row price list: bytes in, a filled .xlsx (deflated) out, as a request costs. */
function runPriceListCase(): boolean {
  const template = priceListTemplate();
  const request = priceListRequest(2000) as RenderRequest;
  const fill = () => renderXlsx(template, request);
  // The filled sheet holds every item (and the total's formula grew over them).
  const sheet = new PizZip(fill()).file('xl/worksheets/sheet1.xml')!.asText();
  const filledRows = (sheet.match(/<row\b/g) ?? []).length;
  const total = /<f\b[^>]*>SUM\(D4:D2003\)<\/f>/.test(sheet);
  // A fill of ~80 ms: 20 runs settle its median (runsFor(2000) would give 4).
  const runs = Math.max(20, runsFor(2000));
  console.log(`\nprice-list.xlsx, 2,000 rows (${filledRows} rows written): fill only, ${runs} runs`);
  for (let i = 0; i < 3; i++) fill();
  const samples = Array.from({ length: runs }, () => elapsedMs(fill));
  console.log(`  ours             ${formatMs(summarize(samples)).padStart(26)}`);
  if (!total) console.log('  WARNING: the total is not =SUM(D4:D2003)');
  return total;
}

function readsAs(docx: Buffer): string {
  const t = docxText(docx);
  return JSON.stringify({ body: t.body, headers: t.headers });
}

/** Runs one case; returns whether its targets were met and its outputs agreed. */
function runCase(c: Case): boolean {
  console.log(`\n${c.label}: ${c.runs} runs per contender in ${ROUNDS} rounds`);
  const outputs: Record<string, string> = {};
  for (const [name, fn] of Object.entries(c.js)) outputs[name] = readsAs(fn());
  if (c.same.some(([a, b]) => a === 'docxtpl' || b === 'docxtpl'))
    outputs.docxtpl = readsAs(docxtplOutput(c.docxtpl.template, c.docxtpl.request));
  let ok = true;
  for (const [a, b] of c.same)
    if (outputs[a] !== outputs[b]) {
      ok = false;
      console.log(`  WARNING: ${a} and ${b} do not read the same`);
    }

  const names = Object.keys(c.js);
  const samples: Record<string, number[][]> = Object.fromEntries(
    [...names, 'docxtpl'].map((n) => [n, [] as number[][]]),
  );
  const perRound = Math.ceil(c.runs / ROUNDS);
  for (let i = 0; i < Math.min(3, perRound); i++) for (const n of names) c.js[n]();
  for (let round = 0; round < ROUNDS; round++) {
    for (const n of names) samples[n].push([]);
    for (let i = 0; i < perRound; i++) {
      const order = i % 2 ? [...names].reverse() : names;
      for (const n of order) samples[n][round].push(elapsedMs(c.js[n]));
    }
    samples.docxtpl.push(
      docxtplTimes(c.docxtpl.template, c.docxtpl.request, perRound, Math.min(3, perRound)),
    );
  }
  for (const n of [...names, 'docxtpl'])
    console.log(`  ${n.padEnd(16)} ${formatMs(summarize(samples[n].flat())).padStart(26)}`);
  for (const [a, b, target] of c.ratios) {
    const ratio = median(samples[a].flat()) / median(samples[b].flat());
    const perRoundRatios = samples[a].map((s, r) => median(s) / median(samples[b][r]));
    const met = target === undefined || ratio <= target;
    ok &&= met;
    console.log(
      `  ${a} / ${b} = ${ratio.toFixed(2)}× (rounds ${Math.min(...perRoundRatios).toFixed(2)}–${Math.max(...perRoundRatios).toFixed(2)})` +
        (target === undefined ? '' : `   target ≤ ${target}×  ${met ? 'met' : 'MISSED'}`),
    );
  }
  return ok;
}

async function main(): Promise<number> {
  console.log(`render benchmark (fill only, no conversion); ${machineLine()}`);
  const cases: Array<() => Case> = [];
  if (DOCS.includes('invoice'))
    cases.push(
      () => invoiceCase(20),
      () => invoiceCase(500),
    );
  for (const name of ['contract', 'writer', 'gallery'] as const)
    if (DOCS.includes(name)) cases.push(() => corpusCase(name));
  if (DOCS.includes('minimal')) cases.push(minimalCase);
  let ok = true;
  for (const make of cases) ok = runCase(make()) && ok;
  if (DOCS.includes('charts')) ok = runChartsCase() && ok;
  if (DOCS.includes('deck')) ok = (await runDeckCase()) && ok;
  if (DOCS.includes('deck-charts')) ok = runDeckChartsCase() && ok;
  if (DOCS.includes('prices')) ok = runPriceListCase() && ok;
  console.log(`\nmedians in ms, range of all runs in parentheses; finished ${new Date().toISOString()}`);
  return CHECK && !ok ? 1 : 0;
}

void main().then((code) => {
  process.exitCode = code;
});
