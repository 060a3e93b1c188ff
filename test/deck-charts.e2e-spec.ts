/**
 * Charts in slide decks (issue 41, as issue 39's in Word): the Impress-written deck
 * (fixtures/slides/deck-charts.impress.pptx, charts bound by their titles, no embedded workbook)
 * and PowerPoint's (python-pptx's shp-access-chart.pptx, a workbook beside its chart, bound here
 * by alternative text) are filled, each with a slide loop whose copies get charts of their own.
 * Read back: the chart parts' caches, the embedded workbooks through openpyxl, and LibreOffice's
 * PDF of the filled decks (one soffice run for both), whose pages hold each chart's labels.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import PizZip from 'pizzip';

import { renderTemplate } from '@app/engine';
import { cachedSeries, chartTitle, deckCharts } from './support/chart-parts';
import { DOCXTPL_PYTHON } from './support/docxtpl';

jest.setTimeout(120_000);

const SLIDES = join(__dirname, 'fixtures/slides');
const IMPRESS = readFileSync(join(SLIDES, 'deck-charts.impress.pptx'));
const POWERPOINT = readFileSync(join(SLIDES, 'python-pptx/shp-access-chart.pptx'));

const chartData = (categories: string[], series: Array<[string, number[]]>, title?: string) => ({
  categories,
  series: series.map(([name, values]) => ({ name, values })),
  ...(title ? { title } : {}),
});

const SALES = chartData(
  ['Janvier', 'Fevrier', 'Mars'],
  [
    ['Y2025', [120, 135, 180]],
    ['Y2026', [90, 95, 110]],
  ],
  'Sales by month',
);
const REGIONS = [
  { name: 'North', history: chartData(['Alder', 'Birch'], [['Units', [11, 12]]], 'North history') },
  {
    name: 'South',
    history: chartData(['Cedar', 'Dogwood', 'Elm'], [['Units', [21, 22, 23]]], 'South history'),
  },
];

/** PowerPoint's deck: slide 1's chart bound by alt text, in a slide loop over regions. */
function powerpointTemplate(): Buffer {
  const zip = new PizZip(POWERPOINT);
  const text = ['{%slide for item in regions %}', 'Region {{ item.name }}', '{%slide endfor %}']
    .map((p) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${p}</a:t></a:r></a:p>`)
    .join('');
  zip.file(
    'ppt/slides/slide1.xml',
    zip
      .file('ppt/slides/slide1.xml')!
      .asText()
      .replace(
        '<p:cNvPr id="2" name="Chart 1"/>',
        '<p:cNvPr id="2" name="Chart 1" descr="{{ chart(item.history) }}"/>',
      )
      .replace(
        '</p:spTree>',
        `<p:sp><p:nvSpPr><p:cNvPr id="9" name="Text 9"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>` +
          `<p:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="6000000" cy="900000"/></a:xfrm></p:spPr>` +
          `<p:txBody><a:bodyPr/><a:lstStyle/>${text}</p:txBody></p:sp></p:spTree>`,
      ),
  );
  return zip.generate({ type: 'nodebuffer' });
}

type Book = { sheets: Record<string, { cells: Record<string, { value: unknown }> }> };

function openpyxlRead(xlsx: Buffer): Book {
  const script = join(__dirname, 'support/xlsx_read.py');
  return JSON.parse(
    execFileSync(DOCXTPL_PYTHON, ['-W', 'ignore', script], { input: xlsx }).toString('utf8'),
  ) as Book;
}

/** Each page's text of the PDF LibreOffice makes of each deck, all decks in one soffice run. */
function pdfPagesOf(decks: Record<string, Buffer>): Record<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'deck-charts-'));
  try {
    const files = Object.entries(decks).map(([name, bytes]) => {
      writeFileSync(join(dir, `${name}.pptx`), bytes);
      return join(dir, `${name}.pptx`);
    });
    const r = spawnSync(
      'soffice',
      [
        `-env:UserInstallation=file://${dir}/profile`,
        '--headless',
        '--convert-to',
        'pdf',
        '--outdir',
        join(dir, 'out'),
        ...files,
      ],
      { timeout: 100_000 },
    );
    expect(r.status).toBe(0);
    const out: Record<string, string[]> = {};
    for (const name of Object.keys(decks)) {
      const pdf = join(dir, 'out', `${name}.pdf`);
      const pages = Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf]).toString('utf8'))![1]);
      out[name] = Array.from({ length: pages }, (_, i) =>
        execFileSync('pdftotext', ['-f', String(i + 1), '-l', String(i + 1), '-enc', 'UTF-8', pdf, '-'])
          .toString('utf8')
          .replace(/\s+/g, ' ')
          .trim(),
      );
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let impress: Buffer;
let powerpoint: Buffer;

beforeAll(() => {
  impress = renderTemplate(IMPRESS, {
    template_data: { title: 'Review', sales: SALES, regions: REGIONS },
  } as never);
  powerpoint = renderTemplate(powerpointTemplate(), { template_data: { regions: REGIONS } } as never);
});

it('Impress deck: the title-bound chart and each looped copy hold their own data', () => {
  const charts = deckCharts(impress);
  expect(charts.map((c) => c.slideIndex)).toEqual([0, 1, 2]);
  expect(cachedSeries(charts[0].xml).map((s) => [s.name, s.categories, s.values])).toEqual([
    ['Y2025', SALES.categories, [120, 135, 180]],
    ['Y2026', SALES.categories, [90, 95, 110]],
  ]);
  expect(chartTitle(charts[0].xml)).toBe('Sales by month');
  REGIONS.forEach((region, i) => {
    const chart = charts[1 + i];
    expect(chartTitle(chart.xml)).toBe(region.history.title);
    expect(cachedSeries(chart.xml).map((s) => [s.categories, s.values])).toEqual([
      [region.history.categories, region.history.series[0].values],
    ]);
  });
  expect(new Set(charts.map((c) => c.path)).size).toBe(3);
});

it('PowerPoint deck: each copy has its own chart part and embedded workbook, read back by openpyxl', () => {
  const charts = deckCharts(powerpoint);
  expect(charts.map((c) => c.slideIndex)).toEqual([0, 1]);
  expect(new Set(charts.map((c) => c.workbook)).size).toBe(2);
  const zip = new PizZip(powerpoint);
  REGIONS.forEach((region, i) => {
    const [series] = cachedSeries(charts[i].xml);
    expect(series.values).toEqual(region.history.series[0].values);
    expect(charts[i].descr).toMatch(/^Column chart "[^"]+ history": Units from/);
    const book = openpyxlRead(zip.file(charts[i].workbook!)!.asNodeBuffer());
    const cells = book.sheets.Sheet1.cells;
    expect(cells.B1.value).toBe('Units');
    region.history.categories.forEach((cat, r) => {
      expect(cells[`A${r + 2}`].value).toBe(cat);
      expect(cells[`B${r + 2}`].value).toBe(region.history.series[0].values[r]);
    });
    // The template's other series (C, D) are gone from the workbook, as from the chart.
    expect(Object.keys(cells).filter((k) => /^[CD]\d+$/.test(k))).toEqual([]);
  });
});

it("LibreOffice's PDF draws each slide's chart with its own labels and title", () => {
  const pages = pdfPagesOf({ impress, powerpoint });
  expect(pages.impress).toHaveLength(3);
  for (const label of [...SALES.categories, 'Sales by month']) expect(pages.impress[0]).toContain(label);
  REGIONS.forEach((region, i) => {
    for (const label of [...region.history.categories, region.history.title!, `Region ${region.name}`])
      expect(pages.impress[1 + i]).toContain(label);
    // Another copy's labels are not on this page: the copies do not share a chart.
    for (const other of REGIONS[1 - i].history.categories) expect(pages.impress[1 + i]).not.toContain(other);
  });
  expect(pages.powerpoint).toHaveLength(3);
  REGIONS.forEach((region, i) => {
    for (const label of [...region.history.categories, region.history.title!])
      expect(pages.powerpoint[i]).toContain(label);
  });
});
