/**
 * Spreadsheet templates (.xlsx, issue 41; docs/spreadsheets-and-slides.md) through the service's
 * pipeline, on a price list written by openpyxl (shaped like Excel's output) and the same saved
 * by LibreOffice Calc (test/fixtures/spreadsheets/make-fixtures.py): the filled workbook read back
 * by openpyxl, and the PDF and ODS made by Calc through the pool, which recalculates the totals.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import PizZip from 'pizzip';

import { httpStatusOf, type TypedError } from '@app/contracts';
import { LibreOfficePool } from '@app/converters';
import { produceDocument } from '@app/pipeline';

import { DOCXTPL_PYTHON } from './support/docxtpl';

const ROOT = join(__dirname, '..');
const FIXTURES = join(__dirname, 'fixtures/spreadsheets');
const WRITERS = ['openpyxl', 'calc'] as const;
const REQUEST = {
  template_data: {
    customer: 'ACME & Co',
    issued: '2026-03-15',
    vip: false,
    currency: 'EUR',
    items: [
      { name: 'Apple', qty: 2, price: 1.5 },
      { name: 'Pear', qty: 3, price: 2.25 },
      { name: 'Plum', qty: 10, price: 12 },
      { name: 'Fig', qty: 1, price: 0.5 },
    ],
  },
};

interface SheetRead {
  cells: Record<string, { value: unknown; type: string; format: string }>;
  heights: Record<string, number>;
  merged: string[];
  tables: Record<string, string>;
  conditional: string[];
  validations: string[];
  print_area: string | string[] | null;
}

function openpyxlRead(xlsx: Buffer): { sheets: Record<string, SheetRead>; names: Record<string, string> } {
  const script = join(__dirname, 'support/xlsx_read.py');
  return JSON.parse(execFileSync(DOCXTPL_PYTHON, [script], { input: xlsx }).toString('utf8'));
}

/** The PDF's text as laid out (a sheet's rows stay lines), runs of spaces as one. */
const layoutText = (pdf: Buffer) =>
  execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf })
    .toString('utf8')
    .replace(/[ \t]+/g, ' ');

const template = (writer: string) => readFileSync(join(FIXTURES, `price-list.${writer}.xlsx`));

let pool: LibreOfficePool;

beforeAll(async () => {
  pool = new LibreOfficePool({ instances: 1 });
  await pool.start();
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

describe.each(WRITERS)('the price list saved by %s', (writer) => {
  it('filled as .xlsx: openpyxl reads the values with their types, moved formulas, merges, table and names', async () => {
    const produced = await produceDocument(template(writer), { output: 'xlsx', request: REQUEST }, {});
    expect(produced.contentType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const book = openpyxlRead(produced.body);
    const prices = book.sheets.Prices;
    expect(prices.cells.A1.value).toBe('Price list for ACME & Co');
    expect(prices.cells.B2).toMatchObject({ value: '2026-03-15T00:00:00', type: 'datetime' });
    expect(['A4', 'A5', 'A6', 'A7'].map((c) => prices.cells[c].value)).toEqual([
      'Apple',
      'Pear',
      'Plum',
      'Fig',
    ]);
    expect(prices.cells.B6).toMatchObject({ value: 10, type: 'int' });
    expect(prices.cells.C5).toMatchObject({ value: 2.25, type: 'float', format: '#,##0.00' });
    expect(prices.cells.D7.value).toBe('=B7*C7');
    expect(prices.cells.A8.value).toBe('Total');
    expect(prices.cells.D8.value).toBe('=SUM(D4:D7)');
    expect(prices.cells.A9.value).toBe('Note: standard customer, 4 lines');
    expect(Object.values(prices.cells).some((c) => String(c.value).includes('{'))).toBe(false);
    for (const r of ['4', '5', '6', '7']) expect(prices.heights[r]).toBe(21);
    expect(prices.merged).toEqual(['A1:D1', 'A9:D9']);
    expect(prices.tables).toEqual({ Lines: 'A3:D7' });
    expect(prices.conditional).toEqual(['D4 D5 D6 D7']);
    expect(prices.validations).toEqual(['B4 B5 B6 B7']);
    expect(String(prices.print_area)).toContain('$A$1:$D$9');
    expect(book.names.LineTotals).toBe('Prices!$D$4:$D$7');
    expect(book.sheets.Summary.cells.B1.value).toBe('=Prices!D8');
    expect(book.sheets.Summary.cells.B2.value).toBe('EUR');
  });

  it('to PDF through Calc: the totals over the repeated rows are recalculated', async () => {
    const produced = await produceDocument(
      template(writer),
      { output: 'pdf', request: REQUEST, pdf: {} },
      {},
      { converter: pool },
    );
    const text = layoutText(produced.body);
    expect(text).toMatch(/Plum 10 12\.00 120\.00/);
    // 3 + 6.75 + 120 + 0.5, summed by LibreOffice over the rows the loop made.
    expect(text).toMatch(/Total 130\.25/);
    expect(text).toMatch(/Grand total 130\.25/);
  });
});

it('to ODS through Calc', async () => {
  const produced = await produceDocument(
    template('calc'),
    { output: 'ods', request: REQUEST },
    {},
    { converter: pool },
  );
  expect(produced.contentType).toBe('application/vnd.oasis.opendocument.spreadsheet');
  const zip = new PizZip(produced.body);
  expect(zip.file('mimetype')!.asText()).toBe('application/vnd.oasis.opendocument.spreadsheet');
  const content = zip.file('content.xml')!.asText();
  expect(content).toContain('Fig');
  expect(content).toContain('of:=SUM([.D4:.D7])');
});

it('a Word-only PDF option on a spreadsheet is a 400 naming it, before any conversion', async () => {
  const started = pool.stats().conversions;
  const refusal = await produceDocument(
    template('openpyxl'),
    { output: 'pdf', request: REQUEST, pdf: { pdfua: true } },
    {},
    { converter: pool },
  ).catch((e: TypedError) => e);
  expect(httpStatusOf((refusal as TypedError).errorType)).toBe(400);
  expect((refusal as TypedError).details).toMatchObject({ field: 'options.pdf.pdfua' });
  expect(pool.stats().conversions).toBe(started);
});

it('the command line fills a workbook into OUT.xlsx, the format told by the package', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sheets-cli-'));
  try {
    const requestPath = join(dir, 'request.json');
    writeFileSync(requestPath, JSON.stringify(REQUEST));
    // Named .bin: the file name plays no part in telling the format.
    const templatePath = join(dir, 'template.bin');
    writeFileSync(templatePath, template('calc'));
    const out = join(dir, 'out.xlsx');
    execFileSync(
      join(ROOT, 'node_modules/.bin/tsx'),
      [join(ROOT, 'apps/cli/src/main.ts'), templatePath, requestPath, out],
      {
        cwd: ROOT,
        env: { ...process.env, INIT_CWD: dir },
        stdio: 'pipe',
      },
    );
    const book = openpyxlRead(readFileSync(out));
    expect(book.sheets.Prices.cells.D8.value).toBe('=SUM(D4:D7)');
    expect(book.sheets.Prices.cells.A7.value).toBe('Fig');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe.each(WRITERS)('a column loop inside a row loop, saved by %s', (writer) => {
  const sales = readFileSync(join(FIXTURES, `sales-by-month.${writer}.xlsx`));
  const request = {
    template_data: {
      customer: 'ACME',
      report_title: 'Report: Q1/2026',
      months: ['Jan', 'Feb', 'Mar', 'Apr'],
      regions: [
        { name: 'North', sales: [1, 2, 3, 4] },
        { name: 'South', sales: [10, 20, 30, 40] },
      ],
    },
  };

  it('as .xlsx: the month columns repeat, the totals right of and below them grow over the copies', async () => {
    const produced = await produceDocument(sales, { output: 'xlsx', request }, {});
    const book = openpyxlRead(produced.body);
    const s = book.sheets.Sales;
    expect(['A2', 'B2', 'C2', 'D2', 'E2', 'F2'].map((c) => s.cells[c]?.value)).toEqual([
      'Region',
      'Jan',
      'Feb',
      'Mar',
      'Apr',
      'Total',
    ]);
    expect(s.cells.C4).toMatchObject({ value: 20, type: 'int' });
    expect(s.cells.F3.value).toBe('=SUM(B3:E3)');
    expect(s.cells.F4.value).toBe('=SUM(B4:E4)');
    expect(['B5', 'C5', 'D5', 'E5', 'F5'].map((c) => s.cells[c].value)).toEqual([
      '=SUM(B3:B4)',
      '=SUM(C3:C4)',
      '=SUM(D3:D4)',
      '=SUM(E3:E4)',
      '=SUM(F3:F4)',
    ]);
    expect(s.merged).toEqual(['A1:F1']);
    expect(String(s.print_area)).toContain('$A$1:$F$7');
    expect(book.names.MonthTotals).toBe('Sales!$B$5:$E$5');
  });

  it('a sheet named by a tag: filled, made legal (no : or /), and every reference renamed', async () => {
    const produced = await produceDocument(sales, { output: 'xlsx', request }, {});
    const book = openpyxlRead(produced.body);
    expect(Object.keys(book.sheets)).toEqual(['Sales', 'Report Q1 2026']);
    const report = book.sheets['Report Q1 2026'];
    expect(report.cells.B1.value).toBe('=Sales!F5');
    expect(String(report.print_area)).toContain('$A$1:$B$1');
    // openpyxl shows a print area without its sheet: the workbook's own text names the new name.
    expect(new PizZip(produced.body).file('xl/workbook.xml')!.asText()).toMatch(
      /<definedName\b[^>]*>(?:'|&apos;)Report Q1 2026(?:'|&apos;)!\$A\$1:\$B\$1<\/definedName>/,
    );
    expect(book.sheets.Sales.cells.A7.value).toBe("See 'Report: Q1/2026'");
    expect(book.sheets.Sales.cells.F7.value).toBe("='Report Q1 2026'!B1");
  });

  it('to PDF through Calc: the sums over the repeated columns are recalculated', async () => {
    const produced = await produceDocument(
      sales,
      { output: 'pdf', request, pdf: {} },
      {},
      { converter: pool },
    );
    const text = layoutText(produced.body);
    expect(text).toMatch(/Region Jan Feb Mar Apr Total/);
    expect(text).toMatch(/North 1 2 3 4 10/);
    expect(text).toMatch(/South 10 20 30 40 100/);
    expect(text).toMatch(/Total 11 22 33 44 110/);
    // The renamed sheet's formula and the one naming it, recalculated by Calc.
    expect(text).toMatch(/Grand total 110/);
    expect(text).toMatch(/See 'Report: Q1\/2026' 110/);
  });
});

describe.each(WRITERS)('a picture whose alternative text names an image key, saved by %s', (writer) => {
  const quote = readFileSync(join(FIXTURES, `picture.${writer}.xlsx`));
  // A 3×2 blue PNG, unlike the template's red picture.
  const BLUE =
    'iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAFUlEQVR4nGNkYPjPwMDAwMDAxAADABErAQPdiBRnAAAAAElFTkSuQmCC';
  const request = { template_data: { customer: 'ACME', total: 12.5 }, images: { logo: { data: BLUE } } };

  it('as .xlsx: the picture shows the request image in the same anchor; the template media stays', async () => {
    const produced = await produceDocument(quote, { output: 'xlsx', request }, {});
    const zip = new PizZip(produced.body);
    const drawing = zip.file('xl/drawings/drawing1.xml')!.asText();
    const embed = /r:embed="([^"]+)"/.exec(drawing)![1];
    const rels = zip.file('xl/drawings/_rels/drawing1.xml.rels')!.asText();
    const target = new RegExp(`Id="${embed}"[^>]*Target="\\.\\./media/([^"]+)"`).exec(rels)![1];
    expect(zip.file(`xl/media/${target}`)!.asNodeBuffer().equals(Buffer.from(BLUE, 'base64'))).toBe(true);
    expect(drawing).toMatch(/<(?:xdr:)?col>2<\/(?:xdr:)?col>/);
    expect(zip.file('xl/media/image1.png')).not.toBeNull();
    expect(openpyxlRead(produced.body).sheets.Quote.cells.B10).toMatchObject({ value: 12.5, type: 'float' });
  });

  it('to PDF through Calc: the page holds the request image', async () => {
    const produced = await produceDocument(
      quote,
      { output: 'pdf', request, pdf: {} },
      {},
      { converter: pool },
    );
    // pdfimages reads a file, not stdin.
    const dir = mkdtempSync(join(tmpdir(), 'sheets-pic-'));
    let list: string;
    try {
      writeFileSync(join(dir, 'out.pdf'), produced.body);
      list = execFileSync('pdfimages', ['-list', join(dir, 'out.pdf')]).toString('utf8');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // One image on the page, 3×2 pixels: the request's, not the template's 120×60.
    expect(list).toMatch(/^\s*1\s+\d+\s+image\s+3\s+2\b/m);
    expect(list).not.toMatch(/\b120\s+60\b/);
  });
});
