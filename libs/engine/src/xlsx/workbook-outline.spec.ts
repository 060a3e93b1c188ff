import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { inspectTemplate } from '../inspect/inspect-template';
import { lintDocxTemplate } from '../lint/lint-template';

const FIXTURES = join(__dirname, '../../../../test/fixtures/spreadsheets');

/** The Calc-saved sales workbook with sheet cells replaced by inline strings (our edits only). */
function withCells(cells: Record<string, string>): Buffer {
  const zip = new PizZip(readFileSync(join(FIXTURES, 'sales-by-month.calc.xlsx')));
  const rows = new Map<number, string[]>();
  for (const [ref, text] of Object.entries(cells)) {
    const r = Number(/\d+$/.exec(ref)![0]);
    rows.set(r, [...(rows.get(r) ?? []), `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`]);
  }
  const data = [...rows.entries()].map(([r, c]) => `<row r="${r}">${c.join('')}</row>`).join('');
  const xml = zip.file('xl/worksheets/sheet1.xml')!.asText();
  zip.file(
    'xl/worksheets/sheet1.xml',
    xml.replace(/<sheetData>[\s\S]*<\/sheetData>/, `<sheetData>${data}</sheetData>`),
  );
  return zip.generate({ type: 'nodebuffer' });
}

describe('lint of a workbook', () => {
  it('passes the sales fixture, each cell a line located by sheet, cell and row', () => {
    const report = lintDocxTemplate(readFileSync(join(FIXTURES, 'sales-by-month.calc.xlsx')), {
      verbose: true,
    });
    expect(report.success).toBe(true);
    expect(report.summary.parts).toEqual(['xl/worksheets/sheet1.xml', 'xl/worksheets/sheet2.xml']);
    expect(report.tags!.find((t) => t.tag === '{{ r.name }}')!.location).toMatchObject({
      sheet: 'Sales',
      cell: 'A4',
      row: 4,
    });
  });

  it('passes both price lists: `{{ issued | date }}` alone in a cell is the fill’s date, not an unknown filter', () => {
    for (const writer of ['openpyxl', 'calc'])
      expect(lintDocxTemplate(readFileSync(join(FIXTURES, `price-list.${writer}.xlsx`))).errors).toEqual([]);
    // Inside text it is a filter the dialect lacks, as rendering would find.
    const inText = lintDocxTemplate(withCells({ A1: 'Issued {{ issued | date }}' }));
    expect(inText.errors.map((e) => e.code)).toEqual(['unknown_filter']);
  });

  it('lists every problem at once, where rendering would stop at the first', () => {
    const report = lintDocxTemplate(
      withCells({
        A1: '{{ customer | uper }}',
        B1: 'Total: {{ total ',
        C1: '{% if x %}open',
        A2: '{%tr for r in rows %}',
        A3: '{{ r.nmae }}',
        B3: '{{ r.name }}',
        C3: '{{ r.name }} {{ r.name }}',
      }),
    );
    expect(report.success).toBe(false);
    const byCell = Object.fromEntries(report.errors.map((e) => [e.location?.cell, e.code]));
    expect(byCell).toEqual({
      A1: 'unknown_filter',
      B1: 'tag_not_closed',
      C1: 'unclosed_block',
      A2: 'syntax_error',
    });
    expect(report.errors.find((e) => e.location?.cell === 'A1')!.suggestion).toContain("'upper'");
    expect(report.errors.find((e) => e.location?.cell === 'A2')!.message).toMatch(/never closed/);
    expect(report.warnings.map((w) => [w.code, w.location?.cell])).toEqual([['similar_variable_name', 'A3']]);
  });

  it('refuses column loops in different columns, as rendering does', () => {
    const report = lintDocxTemplate(
      withCells({
        A1: '{%tc for m in a %}',
        B1: '{{ m }}',
        C1: '{%tc endfor %}',
        B2: '{%tc for m in b %}',
        C2: '{{ m }}',
        D2: '{%tc endfor %}',
      }),
    );
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ location: { cell: 'B2' } });
    expect(report.errors[0].message).toMatch(/same columns/);
  });
});

describe('inspection of a workbook', () => {
  it('lists variables and loops by sheet and cell, with a skeleton to start from', () => {
    const inspection = inspectTemplate(readFileSync(join(FIXTURES, 'sales-by-month.openpyxl.xlsx')));
    expect(inspection.loops.map((l) => [l.iterable, l.placement, l.location.cell])).toEqual([
      ['months', 'tc', 'B2'],
      ['regions', 'tr', 'A3'],
      ['months', 'tc', 'B4'],
    ]);
    expect(inspection.variables.find((v) => v.path === 'regions[].name')!.locations[0]).toMatchObject({
      sheet: 'Sales',
      cell: 'A4',
    });
    expect(Object.keys(inspection.skeleton.template_data).sort()).toEqual([
      'customer',
      'months',
      'regions',
      'report_title',
    ]);
    // The sheet named by a tag: its name is a line of its own, without a cell.
    const title = inspection.variables.find((v) => v.path === 'report_title')!;
    expect(title.locations.map((l) => [l.sheet, l.cell ?? null])).toEqual([
      ['Sales', 'A8'],
      ['{{ report_title }}', null],
    ]);
  });
});
