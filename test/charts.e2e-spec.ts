/**
 * Charts filled from data (issue 39, docs/charts.md) through LibreOffice: the LibreOffice-made
 * fixture of every chart type and the Word-made one (test/fixtures/charts) filled with data unlike
 * the template's, then converted — to ODT, whose chart table must hold the data, and to PDF, where
 * pdftotext finds the title and category labels and the raster changes inside the chart with the
 * data (and not with the same data). One pool, one batch of conversions in beforeAll.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import PizZip from 'pizzip';

import { convertDocument, LibreOfficePool } from '@app/converters';
import { renderDocx } from '@app/engine';

import { cachedSeries, docxCharts, withChartAltText, workbookCells } from './support/chart-parts';
import { buildDocx, p } from './support/docx-builder';
import { pdfToText } from './support/converter-fixtures';
import { qdf } from './support/pdf-inspect';
import { meanDifference, pdftoppmPage } from './support/page-raster';

const FIXTURES = join(__dirname, 'fixtures/charts');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

const CATEGORIES = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo'];
const DATA_A = {
  categories: CATEGORIES,
  series: [
    { name: 'Yankee', values: [31, 57, 12, 88, 45] },
    { name: 'Zulu', values: [64, 22, 71, 39, 93] },
  ],
  title: 'Quarterly Zeta',
};
const DATA_B = {
  ...DATA_A,
  series: [
    { name: 'Yankee', values: [90, 10, 80, 20, 70] },
    { name: 'Zulu', values: [5, 95, 15, 85, 25] },
  ],
};
const SCATTER = {
  categories: [],
  series: [
    { name: 'Yankee', values: [31, 57, 12, 88], x: [1.5, 3, 4.5, 9] },
    { name: 'Zulu', values: [64, 22, 71, 39], x: [1.5, 3, 4.5, 9] },
  ],
  title: 'Quarterly Zeta',
};

const TYPES = [
  'lo-column-clustered',
  'lo-bar-clustered',
  'lo-column-stacked',
  'lo-column-percent',
  'lo-line',
  'lo-area',
  'lo-pie',
  'lo-doughnut',
  'lo-scatter',
  'lo-combo-bar-line',
  'word-column-clustered',
  'word-line',
  'word-combo-bar-line',
  'word-scatter',
] as const;
type Name = (typeof TYPES)[number];

const dataOf = (name: Name) => (name.endsWith('scatter') ? SCATTER : DATA_A);
const templateOf = (name: Name) =>
  name.startsWith('word-')
    ? withChartAltText(fixture(`${name}.docx`), '{{ chart(sales) }}', 0)
    : fixture(`${name}.docx`);

let pool: LibreOfficePool;
let work: string;
const docx = new Map<string, Buffer>();
const pdf = new Map<string, Buffer>();
const odt = new Map<string, Buffer>();

const LOOP_DATA = {
  regions: ['Kilo', 'Lima', 'Mike'].map((name, i) => ({
    name,
    history: {
      categories: [`${name}-a`, `${name}-b`],
      series: [{ name: `${name} s`, values: [i + 1, 10 - i] }],
    },
  })),
  products: ['Oscar', 'Papa'].map((name, i) => ({
    name,
    history: {
      categories: [`${name}-x`, `${name}-y`],
      series: [{ name: `${name} s`, values: [3 + i, 7 - i] }],
    },
  })),
};

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'charts-e2e-'));
  pool = new LibreOfficePool({ instances: 1 });
  await pool.start();
  for (const name of TYPES)
    docx.set(name, renderDocx(templateOf(name), { template_data: { sales: dataOf(name) } }));
  docx.set('line-B', renderDocx(fixture('lo-line.docx'), { template_data: { sales: DATA_B } }));
  docx.set('line-A-again', renderDocx(fixture('lo-line.docx'), { template_data: { sales: DATA_A } }));
  docx.set('loops', renderDocx(fixture('lo-loops.docx'), { template_data: LOOP_DATA }));
  docx.set(
    'new-line',
    renderDocx(
      buildDocx([p('New chart:'), p("{{ chart(sales, type='line', width_mm=150, height_mm=80) }}")]),
      {
        template_data: { sales: DATA_A },
      },
    ),
  );
  for (const [name, d] of docx) {
    pdf.set(name, await pool.convert(d));
    if (!name.startsWith('line-')) odt.set(name, await convertDocument(pool, d, 'odt'));
  }
  pdf.set('line-pdfua', await pool.convert(docx.get('lo-line')!, { pdf: { pdfua: true } }));
}, 300_000);

afterAll(async () => {
  await pool?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Each chart object's data table in an ODT: rows of cell texts (floats by their value). */
function odtChartTables(doc: Buffer): string[][][] {
  const zip = new PizZip(doc);
  return Object.keys(zip.files)
    .filter((f) => /^Object \d+\/content\.xml$/.test(f))
    .sort((a, b) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]))
    .map((f) => zip.file(f)!.asText())
    .filter((xml) => xml.includes('<chart:chart'))
    .map((xml) =>
      [...xml.matchAll(/<table:table-row>([\s\S]*?)<\/table:table-row>/g)].map((row) =>
        [...row[1].matchAll(/<table:table-cell\b([^>]*?)(?:\/>|>([\s\S]*?)<\/table:table-cell>)/g)].map(
          (c) => {
            const value = /office:value="([^"]*)"/.exec(c[1])?.[1];
            return value ?? (c[2] ?? '').replace(/<[^>]+>/g, '');
          },
        ),
      ),
    );
}

describe.each(TYPES)('%s filled with new data', (name) => {
  const data = dataOf(name);

  it('the .docx caches equal the data', async () => {
    const out = docx.get(name)!;
    const [chart] = docxCharts(out);
    expect(cachedSeries(chart.xml).map((s) => [s.name, s.values])).toEqual(
      data.series.map((s) => [s.name, s.values]),
    );
    if (chart.workbook)
      expect((await workbookCells(out, chart.workbook)).slice(1).map((r) => r.slice(1))).toEqual(
        data.series[0].values.map((_, i) => data.series.map((s) => s.values[i])),
      );
  });

  it("LibreOffice's ODT holds the data in the chart's table", () => {
    const [table] = odtChartTables(odt.get(name)!);
    const header = table[0].slice(1);
    const body = table.slice(1).map((r) => r.slice(1).map(Number));
    if (name.endsWith('scatter')) {
      // LibreOffice's table for scatter: each series' y values under its name, its x values in
      // the column after.
      const column = (i: number) => table.slice(1).map((r) => Number(r[i]));
      for (const s of data.series) {
        const at = table[0].indexOf(s.name);
        expect(column(at)).toEqual(s.values);
        expect(column(at + 1)).toEqual((s as { x?: number[] }).x);
      }
      return;
    }
    expect(header).toEqual(data.series.map((s) => s.name));
    expect(body).toEqual(data.series[0].values.map((_, i) => data.series.map((s) => s.values[i])));
    expect(table.slice(1).map((r) => r[0])).toEqual(CATEGORIES);
  });

  it('the PDF shows the title and the category labels', () => {
    const text = pdfToText(pdf.get(name)!);
    expect(text).toContain('Quarterly Zeta');
    if (!name.endsWith('scatter')) for (const c of CATEGORIES) expect(text).toContain(c);
    expect(text).not.toContain('chart(');
  });
});

describe('the raster follows the data', () => {
  /** Rows (at 50 dpi) of page 1 where two rasters differ. */
  function differingRows(a: Buffer, b: Buffer): number[] {
    const ra = pdftoppmPage(a, 1, ['-r', '50'], work);
    const rb = pdftoppmPage(b, 1, ['-r', '50'], work);
    expect([ra.width, ra.height]).toEqual([rb.width, rb.height]);
    const rows: number[] = [];
    for (let y = 0; y < ra.height; y++) {
      const row = (img: typeof ra) => ({ data: img.data.subarray(y * ra.width * 4, (y + 1) * ra.width * 4) });
      if (meanDifference(row(ra), 4, row(rb), 4, ra.width) > 0) rows.push(y);
    }
    return rows;
  }

  /** The y (points, from the top) of a word on page 1, by pdftotext -bbox. */
  function wordY(doc: Buffer, word: string): { yMin: number; yMax: number } {
    const file = join(work, `bbox-${word}.pdf`);
    writeFileSync(file, doc);
    const html = execFileSync('pdftotext', ['-bbox', '-f', '1', '-l', '1', file, '-']).toString('utf8');
    const m = new RegExp(`yMin="([\\d.]+)"[^>]*yMax="([\\d.]+)">${word}<`).exec(html)!;
    return { yMin: Number(m[1]), yMax: Number(m[2]) };
  }

  it('two data sets differ inside the chart box only; the same data gives the same pixels', () => {
    const a = pdf.get('lo-line')!;
    expect(differingRows(a, pdf.get('line-A-again')!)).toEqual([]);
    const rows = differingRows(a, pdf.get('line-B')!);
    expect(rows.length).toBeGreaterThan(20);
    // The chart sits between the paragraph "Fixture: …" and "After the chart.".
    const top = (wordY(a, 'Fixture:').yMax * 50) / 72;
    const bottom = (wordY(a, 'After').yMin * 50) / 72;
    expect(Math.min(...rows)).toBeGreaterThanOrEqual(Math.floor(top));
    expect(Math.max(...rows)).toBeLessThanOrEqual(Math.ceil(bottom));
  });
});

describe('charts in loops and new charts', () => {
  it('{%tr for %} and {% for %}: one chart per item, each with its own data in the ODT and the PDF', () => {
    const tables = odtChartTables(odt.get('loops')!);
    expect(tables.map((t) => t.slice(1).map((r) => r[0]))).toEqual([
      ['Kilo-a', 'Kilo-b'],
      ['Lima-a', 'Lima-b'],
      ['Mike-a', 'Mike-b'],
      ['Oscar-x', 'Oscar-y'],
      ['Papa-x', 'Papa-y'],
    ]);
    const text = pdfToText(pdf.get('loops')!);
    for (const label of ['Kilo-a', 'Lima-b', 'Mike-a', 'Oscar-y', 'Papa-x']) expect(text).toContain(label);
  });

  it("chart(sales, type='line') draws a new chart with the data", () => {
    const [table] = odtChartTables(odt.get('new-line')!);
    expect(table.slice(1).map((r) => r[0])).toEqual(CATEGORIES);
    const text = pdfToText(pdf.get('new-line')!);
    for (const c of CATEGORIES) expect(text).toContain(c);
  });

  it('pdfua: the generated summary is the figure’s /Alt', () => {
    // qpdf's QDF form keeps a text string as LibreOffice wrote it: UTF-16BE in hex.
    const alts = [...qdf(pdf.get('line-pdfua')!).matchAll(/\/Alt <feff([0-9a-f]*)>/gi)].map((m) =>
      Buffer.from(m[1], 'hex').swap16().toString('utf16le'),
    );
    expect(alts).toContain(
      'Line chart "Quarterly Zeta": Yankee from 31 to 45 over 5 points; Zulu from 64 to 93 over 5 points (Alpha to Echo)',
    );
  });
});
