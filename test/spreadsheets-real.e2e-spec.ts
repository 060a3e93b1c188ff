/**
 * Workbooks that Excel, Google Sheets and LibreOffice wrote for other people (exceljs's test data,
 * test/fixtures/spreadsheets/exceljs): each goes through the pipeline as a template. Untouched, the
 * filled workbook reads back in openpyxl exactly as the original does (cells and their types,
 * number formats, merged ranges, tables, conditional formats, validations, print areas, defined
 * names); with a tag put into its first shared string, only the cells that used that string change;
 * and Calc prints it to a PDF. A damaged one is a typed 400.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import PizZip from 'pizzip';

import { httpStatusOf, type TypedError } from '@app/contracts';
import { LibreOfficePool } from '@app/converters';
import { produceDocument } from '@app/pipeline';

import { DOCXTPL_PYTHON } from './support/docxtpl';
import { pdfImages } from './support/pdf-inspect';

const DIR = join(__dirname, 'fixtures/spreadsheets/exceljs');
const DAMAGED = 'invalid-xml.xlsx';
const BOOKS = readdirSync(DIR).filter((f) => f.endsWith('.xlsx') && f !== DAMAGED);
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

type Book = { sheets: Record<string, { cells: Record<string, { value: unknown }> }> };

function openpyxlRead(xlsx: Buffer): Book {
  const script = join(__dirname, 'support/xlsx_read.py');
  return JSON.parse(execFileSync(DOCXTPL_PYTHON, [script], { input: xlsx }).toString('utf8')) as Book;
}

const fill = async (template: Buffer, templateData: Record<string, unknown>) =>
  (await produceDocument(template, { output: 'xlsx', request: { template_data: templateData } }, {})).body;

/** The workbook with its first plain shared string replaced by `{{ tag }}`, and that string. */
function withTag(template: Buffer): { tagged: Buffer; replaced: string } | undefined {
  const zip = new PizZip(template);
  const name = Object.keys(zip.files).find((n) => /sharedStrings\d*\.xml$/.test(n));
  if (!name) return undefined;
  const sst = zip.file(name)!.asText();
  const first = /<si><t(?: xml:space="preserve")?>([^<{}]+)<\/t><\/si>/.exec(sst);
  if (!first) return undefined;
  zip.file(name, sst.replace(first[0], '<si><t>{{ tag }}</t></si>'));
  // XML's entities, then OOXML's own escapes (`_x000D_` is a carriage return, `_x005F_` a "_").
  const replaced = first[1]
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return { tagged: zip.generate({ type: 'nodebuffer' }), replaced };
}

// Those with a plain shared string (no rich text) to put a tag in.
const TAGGABLE = BOOKS.filter((f) => withTag(readFileSync(join(DIR, f))));

describe('workbooks written by Excel, Google Sheets and LibreOffice', () => {
  it('has the files this test is about', () => {
    expect(BOOKS.length).toBeGreaterThanOrEqual(12);
  });

  it.each(BOOKS)('%s: untouched, it reads back in openpyxl as the original does', async (file) => {
    const original = readFileSync(join(DIR, file));
    const filled = await fill(original, {});
    expect(openpyxlRead(filled)).toEqual(openpyxlRead(original));
  });

  it.each(TAGGABLE)('%s: a tag in its first shared string changes those cells only', async (file) => {
    const tagged = withTag(readFileSync(join(DIR, file)))!;
    const before = openpyxlRead(readFileSync(join(DIR, file)));
    const after = openpyxlRead(await fill(tagged.tagged, { tag: 'Filled by the service' }));
    for (const [sheet, { cells }] of Object.entries(before.sheets)) {
      for (const [ref, cell] of Object.entries(cells)) {
        const expected = cell.value === tagged.replaced ? 'Filled by the service' : cell.value;
        expect([sheet, ref, after.sheets[sheet].cells[ref]?.value]).toEqual([sheet, ref, expected]);
      }
    }
  });

  it('most of them carry a plain shared string to put a tag in', () => {
    expect(TAGGABLE.length).toBeGreaterThanOrEqual(BOOKS.length - 3);
  });

  it('a sheet with text before its root element is a 400 naming the part', async () => {
    const e = (await produceDocument(
      readFileSync(join(DIR, DAMAGED)),
      { output: 'xlsx', request: { template_data: {} } },
      {},
    ).catch((err: unknown) => err)) as TypedError;
    expect(httpStatusOf(e.errorType)).toBe(400);
    expect(e.details).toMatchObject({ reason: 'malformed_xml', part: 'xl/worksheets/sheet1.xml' });
  });

  describe('Calc prints them', () => {
    let pool: LibreOfficePool;
    beforeAll(async () => {
      pool = new LibreOfficePool({ instances: 1 });
      await pool.start();
    }, 120_000);
    afterAll(async () => {
      await pool?.close();
    });

    it.each(['formulas.xlsx', 'gold.xlsx', '1519293514-KRISHNAPATNAM_LINE_UP.xlsx'])(
      '%s to a PDF holding its first text cell',
      async (file) => {
        const template = readFileSync(join(DIR, file));
        const firstText = Object.values(Object.values(openpyxlRead(template).sheets)[0].cells)
          .map((c) => c.value)
          .find((v): v is string => typeof v === 'string' && !v.startsWith('=') && /\w{3}/.test(v));
        expect(firstText).toBeDefined();
        const text = pdfText(await toPdf(template));
        expect(text).toContain(firstText!.replace(/\s+/g, ' ').trim().slice(0, 20));
      },
    );

    it('images.xlsx to a PDF that draws its pictures', async () => {
      const pdf = await toPdf(readFileSync(join(DIR, 'images.xlsx')));
      expect(pdfImages(pdf).length).toBeGreaterThanOrEqual(1);
    });

    const toPdf = async (template: Buffer) => {
      const pdf = await produceDocument(
        template,
        { output: 'pdf', request: { template_data: {} }, pdf: {} },
        {},
        { converter: pool },
      );
      expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');
      return pdf.body;
    };
    const pdfText = (pdf: Buffer) =>
      execFileSync('pdftotext', ['-enc', 'UTF-8', '-', '-'], { input: pdf })
        .toString('utf8')
        .replace(/\s+/g, ' ');
  });

  it('answers in the workbook content type', async () => {
    const produced = await produceDocument(
      readFileSync(join(DIR, 'formulas.xlsx')),
      { output: 'xlsx', request: { template_data: {} } },
      {},
    );
    expect(produced.contentType).toBe(XLSX);
  });
});
