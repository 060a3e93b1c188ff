import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { renderTemplate, templateFormatOf, templateWarnings, warningHeader } from '../template-format';
import { renderXlsx } from './render-xlsx';

const FIXTURES = join(__dirname, '../../../../test/fixtures/spreadsheets');
const DATA = {
  customer: 'ACME & Co',
  issued: '2026-03-15',
  vip: true,
  currency: 'EUR',
  items: [
    { name: 'Apple', qty: 2, price: 1.5 },
    { name: 'Pear', qty: 3, price: 2.25 },
    { name: 'Plum', qty: 10, price: 12 },
    { name: 'Fig', qty: 1, price: 0.5 },
  ],
};

function text(xlsx: Buffer, part: string): string {
  return new PizZip(xlsx).file(part)!.asText();
}

/** A cell's XML in a sheet part, by reference. */
function cell(sheetXml: string, ref: string): string | undefined {
  return new RegExp(`<c r="${ref}"[^>]*?(?:/>|>[\\s\\S]*?</c>)`).exec(sheetXml)?.[0];
}

/** The smallest workbook around `sheetData` (our own builder, for the edge cases only). */
function workbook(
  sheetData: string,
  extra: { sheetTail?: string; mainType?: string; parts?: Record<string, string> } = {},
): Buffer {
  const zip = new PizZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      `<Override PartName="/xl/workbook.xml" ContentType="${extra.mainType ?? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml'}"/>` +
      '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
      '<Override PartName="/xl/externalLinks/externalLink1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/>' +
      '</Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
  );
  const external = extra.parts?.['xl/externalLinks/externalLink1.xml'] !== undefined;
  zip.file(
    'xl/workbook.xml',
    '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
      '<sheets><sheet name="Sheet 1" sheetId="1" r:id="rId1"/></sheets>' +
      (external ? '<externalReferences><externalReference r:id="rId9"/></externalReferences>' : '') +
      '</workbook>',
  );
  zip.file(
    'xl/_rels/workbook.xml.rels',
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>' +
      (external
        ? '<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/externalLink" Target="externalLinks/externalLink1.xml"/>'
        : '') +
      '</Relationships>',
  );
  zip.file(
    'xl/worksheets/sheet1.xml',
    '<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
      `<sheetData>${sheetData}</sheetData>${extra.sheetTail ?? ''}</worksheet>`,
  );
  for (const [name, content] of Object.entries(extra.parts ?? {})) zip.file(name, content);
  return zip.generate({ type: 'nodebuffer' });
}

const inline = (ref: string, s: string) => `<c r="${ref}" t="inlineStr"><is><t>${s}</t></is></c>`;

describe.each(['openpyxl', 'calc'])('the price list written by %s', (writer) => {
  const template = readFileSync(join(FIXTURES, `price-list.${writer}.xlsx`));
  const out = renderTemplate(template, { template_data: DATA });
  const sheetPaths = (xlsx: Buffer) => {
    const wb = text(xlsx, 'xl/workbook.xml');
    const rels = text(xlsx, 'xl/_rels/workbook.xml.rels');
    return [...wb.matchAll(/<sheet\b[^>]*name="([^"]*)"[^>]*r:id="([^"]*)"/g)].map((m) => {
      const target = new RegExp(`Id="${m[2]}"[^>]*Target="([^"]*)"|Target="([^"]*)"[^>]*Id="${m[2]}"`).exec(
        rels,
      )!;
      return { name: m[1], path: `xl/${(target[1] ?? target[2]).replace(/^\/?xl\//, '')}` };
    });
  };
  const [prices, summary] = sheetPaths(out).map((s) => text(out, s.path));
  const sharedPart = Object.keys(new PizZip(out).files).find((n) => /sharedStrings\.xml$/.test(n));
  const shared = sharedPart
    ? [...text(out, sharedPart).matchAll(/<si>([\s\S]*?)<\/si>/g)].map((m) => m[1])
    : [];
  /** A cell's text, from its inline string or the shared strings (cells without tags keep theirs). */
  const cellText = (xml: string, ref: string) => {
    const c = cell(xml, ref) ?? '';
    return /t="s"/.test(c) ? shared[Number(/<v>(\d+)<\/v>/.exec(c)![1])] : c;
  };

  it('is told a spreadsheet by its content types', () => {
    expect(templateFormatOf(template)).toBe('xlsx');
  });

  it('repeats the loop rows once per item, the tag rows gone, with each row height kept', () => {
    expect(cell(prices, 'A4')).toContain('Apple');
    expect(cell(prices, 'A7')).toContain('Fig');
    expect(cellText(prices, 'A8')).toContain('Total');
    expect(prices).not.toContain('{%tr');
    for (const r of [4, 5, 6, 7]) expect(prices).toMatch(new RegExp(`<row r="${r}"[^>]*ht="21"`));
  });

  it('keeps a lone expression typed: numbers stay numbers with the cell style, the date is a serial with a date format', () => {
    expect(cell(prices, 'B6')).toMatch(/<v>10<\/v>/);
    expect(cell(prices, 'B6')).not.toContain('t="');
    expect(cell(prices, 'C5')).toMatch(/<v>2.25<\/v>/);
    // 2026-03-15 is day 46096 of Excel's 1900 date system.
    expect(cell(prices, 'B2')).toMatch(/<v>46096<\/v>/);
    expect(cell(prices, 'A9')).toContain('Note: VIP customer, 4 lines');
    expect(cell(prices, 'A1')).toContain('Price list for ACME &amp; Co');
  });

  it('moves formulas: each copy names its own row, the total grows over the copies, another sheet follows', () => {
    expect(cell(prices, 'D5')).toMatch(/<f[^>]*>B5\*C5<\/f>/);
    expect(cell(prices, 'D8')).toMatch(/<f[^>]*>SUM\(D4:D7\)<\/f>/);
    expect(cell(summary, 'B1')).toMatch(/<f[^>]*>Prices!D8<\/f>/);
    expect(text(out, 'xl/workbook.xml')).toContain('fullCalcOnLoad="1"');
  });

  it('moves merged cells, conditional formats, validations, the table and the defined names', () => {
    expect(prices).toContain('<mergeCell ref="A1:D1"/>');
    expect(prices).toContain('<mergeCell ref="A9:D9"/>');
    expect(prices).toMatch(/<conditionalFormatting[^>]*sqref="D4 D5 D6 D7"/);
    expect(prices).toMatch(/<dataValidation[^>]*sqref="B4 B5 B6 B7"/);
    const table = Object.keys(new PizZip(out).files).find((n) => /tables\/table\d+\.xml$/.test(n))!;
    expect(text(out, table)).toMatch(/<table\b[^>]*ref="A3:D7"/);
    const names = text(out, 'xl/workbook.xml');
    expect(names).toMatch(/Print_Area[^>]*>(?:'?Prices'?!)?\$A\$1:\$D\$9</);
    expect(names).toMatch(/LineTotals[^>]*>Prices!\$D\$4:\$D\$7</);
  });
});

describe('telling the format', () => {
  it('reads only the content types: a workbook is xlsx whatever its name, anything else goes the Word way', () => {
    const xlsx = workbook('');
    expect(templateFormatOf(xlsx)).toBe('xlsx');
    const word = workbook('', {
      mainType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
    });
    expect(templateFormatOf(word)).toBe('docx');
    expect(templateFormatOf(Buffer.from('not a zip at all'))).toBe('docx');
    // Damaged (cut in half): no throw here; the Word path's checks report it, typed.
    expect(templateFormatOf(xlsx.subarray(0, xlsx.length >> 1))).toBe('docx');
    const stored = new PizZip(xlsx).generate({ type: 'nodebuffer', compression: 'STORE' });
    expect(templateFormatOf(stored)).toBe('xlsx');
  });
});

describe('cells and row loops', () => {
  it('nested row loops: each inner row names its own iteration, a per-group subtotal covers its own rows only', () => {
    const xlsx = workbook(
      `<row r="1">${inline('A1', '{%tr for g in groups %}')}</row>` +
        `<row r="2">${inline('A2', '{{ g.name }}')}</row>` +
        `<row r="3">${inline('A3', '{%tr for n in g.values %}')}</row>` +
        `<row r="4">${inline('B4', '{{ n }}')}<c r="C4"><f>B4*2</f></c></row>` +
        `<row r="5">${inline('A5', '{%tr endfor %}')}</row>` +
        `<row r="6"><c r="B6"><f>SUM(B4:B4)</f></c></row>` +
        `<row r="7">${inline('A7', '{%tr endfor %}')}</row>` +
        `<row r="8"><c r="B8"><f>SUM(B4)</f></c></row>`,
    );
    const out = text(
      renderXlsx(xlsx, {
        template_data: {
          groups: [
            { name: 'x', values: [1, 2] },
            { name: 'y', values: [3, 4, 5] },
          ],
        },
      }),
      'xl/worksheets/sheet1.xml',
    );
    // x at row 1, its values at 2-3, subtotal 4; y at 5, values 6-8, subtotal 9; grand total 10.
    expect(cell(out, 'A1')).toContain('>x<');
    expect(cell(out, 'C3')).toContain('<f>B3*2</f>');
    expect(cell(out, 'B4')).toContain('<f>SUM(B2:B3)</f>');
    expect(cell(out, 'A5')).toContain('>y<');
    expect(cell(out, 'C8')).toContain('<f>B8*2</f>');
    expect(cell(out, 'B9')).toContain('<f>SUM(B6:B8)</f>');
    expect(cell(out, 'B10')).toContain('<f>SUM(B2:B8)</f>');
  });

  it('a loop of no items: the rows close up and a range over only its rows becomes #REF!', () => {
    const xlsx = workbook(
      `<row r="1">${inline('A1', 'Head')}</row>` +
        `<row r="2">${inline('A2', '{%tr for i in items %}')}</row>` +
        `<row r="3">${inline('A3', '{{ i }}')}</row>` +
        `<row r="4">${inline('A4', '{%tr endfor %}')}</row>` +
        `<row r="5"><c r="A5"><f>SUM(A3:A3)</f></c><c r="B5"><f>A1&amp;"!"</f></c></row>`,
    );
    const out = text(renderXlsx(xlsx, { template_data: { items: [] } }), 'xl/worksheets/sheet1.xml');
    expect(cell(out, 'A2')).toContain('<f>SUM(#REF!)</f>');
    expect(cell(out, 'B2')).toContain('<f>A1&amp;"!"</f>');
  });

  it('an if in a cell, a row condition, booleans and null', () => {
    const xlsx = workbook(
      `<row r="1">${inline('A1', '{%tr if show %}')}</row>` +
        `<row r="2">${inline('A2', '{{ flag }}')}${inline('B2', '{{ nothing }}')}${inline('C2', '{% if n > 1 %}many{% else %}one{% endif %}')}</row>` +
        `<row r="3">${inline('A3', '{%tr endif %}')}</row>` +
        `<row r="4">${inline('A4', '{{ missing }}')}</row>`,
    );
    const out = text(
      renderXlsx(xlsx, { template_data: { show: true, flag: true, nothing: null, n: 2 } }),
      'xl/worksheets/sheet1.xml',
    );
    expect(cell(out, 'A1')).toBe('<c r="A1" t="b"><v>1</v></c>');
    expect(cell(out, 'B1')).toBe('<c r="B1"/>');
    expect(cell(out, 'C1')).toContain('>many<');
    expect(cell(out, 'A2')).toBe('<c r="A2"/>');
  });

  it('a tag error is a typed syntax error naming the sheet and row', () => {
    const xlsx = workbook(`<row r="1">${inline('A1', '{{ a + }}')}</row>`);
    expect(() => renderXlsx(xlsx, { template_data: {} })).toThrow(
      expect.objectContaining({ errorType: 'template_syntax_error' }),
    );
    const unclosed = workbook(`<row r="3">${inline('A3', '{%tr for x in y %}')}</row>`);
    expect(() => renderXlsx(unclosed, { template_data: {} })).toThrow(/never closed/);
    const columns = workbook(`<row r="1">${inline('A1', '{%tc for c in cols %}')}</row>`);
    expect(() => renderXlsx(columns, { template_data: { cols: [1] } })).toThrow(/never closed/);
  });

  it('strict mode names every undefined variable', () => {
    const xlsx = workbook(`<row r="1">${inline('A1', '{{ a }}')}${inline('B1', 'x {{ b.c }}')}</row>`);
    expect(() => renderXlsx(xlsx, { template_data: {} }, { undefined: 'strict' })).toThrow(
      expect.objectContaining({ errorType: 'undefined_variable', variables: ['a', 'b.c'] }),
    );
  });
});

describe('column loops ({%tc for %})', () => {
  // Row 1: headers; row 2: values; row 3: a total per month and, right of the loop, a grand total.
  const sheet =
    `<row r="1">${inline('A1', 'Item')}${inline('B1', '{%tc for m in months %}')}${inline('C1', '{{ m }}')}` +
    `${inline('D1', '{%tc endfor %}')}${inline('E1', 'Total')}</row>` +
    `<row r="2">${inline('A2', 'Apples')}${inline('B2', '{%tc for m in months %}')}${inline('C2', '{{ sales[m] }}')}` +
    `${inline('D2', '{%tc endfor %}')}<c r="E2"><f>SUM(C2:C2)</f></c></row>` +
    `<row r="3"><c r="C3"><f>C2*2</f></c><c r="E3"><f>E2+C2</f></c></row>`;
  const tail =
    '<mergeCells count="2"><mergeCell ref="C4:C5"/><mergeCell ref="E4:F4"/></mergeCells>' +
    '<conditionalFormatting sqref="C2:E2"><cfRule type="cellIs" priority="1" operator="greaterThan"><formula>$E$2</formula></cfRule></conditionalFormatting>' +
    '<dataValidations count="1"><dataValidation type="whole" sqref="E2"><formula1>0</formula1></dataValidation></dataValidations>';
  const months = ['Jan', 'Feb', 'Mar'];
  const data = { months, sales: { Jan: 1, Feb: 2, Mar: 4 } };

  function filled(): string {
    const xlsx = workbook(sheet, {
      sheetTail: tail,
      parts: {},
    });
    // The widths: A, B (tag), C (loop), D (tag), E and F.
    const zip = new PizZip(xlsx);
    const xml = zip.file('xl/worksheets/sheet1.xml')!.asText();
    zip.file(
      'xl/worksheets/sheet1.xml',
      xml.replace(
        '<sheetData>',
        '<cols><col min="1" max="1" width="20" customWidth="1"/><col min="2" max="2" width="3" customWidth="1"/>' +
          '<col min="3" max="3" width="9" customWidth="1"/><col min="4" max="4" width="3" customWidth="1"/>' +
          '<col min="5" max="6" width="12" customWidth="1"/></cols><sheetData>',
      ),
    );
    return text(
      renderXlsx(zip.generate({ type: 'nodebuffer' }), { template_data: data }),
      'xl/worksheets/sheet1.xml',
    );
  }

  it('repeats the columns between the tags once per item; the tag columns go', () => {
    const out = filled();
    expect(cell(out, 'A1')).toContain('>Item<');
    expect(cell(out, 'B1')).toContain('>Jan<');
    expect(cell(out, 'C1')).toContain('>Feb<');
    expect(cell(out, 'D1')).toContain('>Mar<');
    expect(cell(out, 'E1')).toContain('>Total<');
    expect(out).not.toContain('{%tc');
    expect(cell(out, 'B2')).toBe('<c r="B2"><v>1</v></c>');
    expect(cell(out, 'D2')).toBe('<c r="D2"><v>4</v></c>');
  });

  it('moves what is right of the loop: formulas grow over the copies, each copy names its own column', () => {
    const out = filled();
    expect(cell(out, 'E2')).toContain('<f>SUM(B2:D2)</f>');
    // A formula inside the loop's column is repeated and points at its own copy.
    expect(cell(out, 'B3')).toContain('<f>B2*2</f>');
    expect(cell(out, 'C3')).toContain('<f>C2*2</f>');
    expect(cell(out, 'D3')).toContain('<f>D2*2</f>');
    // As with rows: a one-cell reference from outside the loop to its column covers every copy.
    expect(cell(out, 'E3')).toContain('<f>E2+B2:D2</f>');
  });

  it('moves merged cells, conditional formats, validations and column widths', () => {
    const out = filled();
    expect(out).toContain(
      '<mergeCell ref="B4:B5"/><mergeCell ref="C4:C5"/><mergeCell ref="D4:D5"/><mergeCell ref="E4:F4"/>',
    );
    expect(out).toContain('sqref="B2:E2"');
    expect(out).toContain('<formula>$E$2</formula>');
    expect(out).toMatch(/<dataValidation[^>]*sqref="E2"/);
    expect(out).toContain(
      '<cols><col min="1" max="1" width="20" customWidth="1"/><col min="2" max="2" width="9" customWidth="1"/>' +
        '<col min="3" max="3" width="9" customWidth="1"/><col min="4" max="4" width="9" customWidth="1"/>' +
        '<col min="5" max="6" width="12" customWidth="1"/></cols>',
    );
  });

  it("a table over the loop's columns grows, its columns named by their filled header cells", () => {
    const ct = new PizZip(workbook('')).file('[Content_Types].xml')!.asText();
    const xlsx = workbook(
      `<row r="1">${inline('A1', 'Item')}${inline('B1', '{%tc for m in months %}')}${inline('C1', '{{ m }}')}` +
        `${inline('D1', '{%tc endfor %}')}${inline('E1', 'Total')}</row><row r="2">${inline('A2', 'x')}</row>`,
      {
        sheetTail:
          '<tableParts count="1"><tablePart r:id="rId1" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"/></tableParts>',
        parts: {
          '[Content_Types].xml': ct.replace(
            '</Types>',
            '<Override PartName="/xl/tables/table1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.table+xml"/></Types>',
          ),
          'xl/worksheets/_rels/sheet1.xml.rels':
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/table" Target="../tables/table1.xml"/></Relationships>',
          'xl/tables/table1.xml':
            '<table xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" id="1" name="T" displayName="T" ref="A1:E2">' +
            '<autoFilter ref="A1:E2"/><tableColumns count="5"><tableColumn id="1" name="Item"/><tableColumn id="2" name="Tag"/>' +
            '<tableColumn id="3" name="Month"/><tableColumn id="4" name="End"/><tableColumn id="5" name="Total"/></tableColumns></table>',
        },
      },
    );
    const table = text(
      renderXlsx(xlsx, { template_data: { months: ['Jan', 'Feb', 'Mar'] } }),
      'xl/tables/table1.xml',
    );
    expect(table).toContain('ref="A1:E2"');
    expect(table).toContain(
      '<tableColumns count="5"><tableColumn id="1" name="Item"/><tableColumn id="2" name="Jan"/>' +
        '<tableColumn id="3" name="Feb"/><tableColumn id="4" name="Mar"/><tableColumn id="5" name="Total"/></tableColumns>',
    );
    // The same month twice: names stay unique.
    const twice = text(
      renderXlsx(xlsx, { template_data: { months: ['Jan', 'Jan'] } }),
      'xl/tables/table1.xml',
    );
    expect(twice).toContain('<tableColumn id="2" name="Jan"/><tableColumn id="3" name="Jan_2"/>');
  });

  it("a rule's relative formula follows its first range's top-left cell, in rows and in columns", () => {
    const rule = (sqref: string, f: string) =>
      `<conditionalFormatting sqref="${sqref}"><cfRule type="expression" priority="1"><formula>${f}</formula></cfRule></conditionalFormatting>`;
    const byColumn = text(
      renderXlsx(workbook(sheet, { sheetTail: rule('C2', 'C2&gt;1') }), { template_data: data }),
      'xl/worksheets/sheet1.xml',
    );
    expect(byColumn).toContain('<conditionalFormatting sqref="B2 C2 D2">');
    expect(byColumn).toContain('<formula>B2&gt;1</formula>');
    const rows =
      `<row r="1">${inline('A1', '{%tr for i in items %}')}</row><row r="2">${inline('A2', '{{ i }}')}</row>` +
      `<row r="3">${inline('A3', '{%tr endfor %}')}</row>`;
    const byRow = text(
      renderXlsx(workbook(rows, { sheetTail: rule('A2', 'A2&gt;1') }), {
        template_data: { items: [1, 2, 3] },
      }),
      'xl/worksheets/sheet1.xml',
    );
    expect(byRow).toContain('<conditionalFormatting sqref="A1 A2 A3">');
    expect(byRow).toContain('<formula>A1&gt;1</formula>');
  });

  it('an empty list removes the loop columns; a reference to them only is #REF!', () => {
    const xlsx = workbook(sheet);
    const out = text(
      renderXlsx(xlsx, { template_data: { months: [], sales: {} } }),
      'xl/worksheets/sheet1.xml',
    );
    expect(cell(out, 'B1')).toContain('>Total<');
    expect(cell(out, 'B3')).toContain('<f>B2+#REF!</f>');
  });

  it('refuses tag rows that repeat a different number of times, or tags in other columns', () => {
    const uneven =
      `<row r="1">${inline('A1', '{%tc for m in a %}')}${inline('B1', '{{ m }}')}${inline('C1', '{%tc endfor %}')}</row>` +
      `<row r="2">${inline('A2', '{%tc for m in b %}')}${inline('B2', '{{ m }}')}${inline('C2', '{%tc endfor %}')}</row>`;
    expect(() => renderXlsx(workbook(uneven), { template_data: { a: [1, 2], b: [1] } })).toThrow(
      expect.objectContaining({ errorType: 'template_runtime_error' }),
    );
    const moved =
      `<row r="1">${inline('A1', '{%tc for m in a %}')}${inline('B1', '{{ m }}')}${inline('C1', '{%tc endfor %}')}</row>` +
      `<row r="2">${inline('B2', '{%tc for m in a %}')}${inline('C2', '{{ m }}')}${inline('D2', '{%tc endfor %}')}</row>`;
    expect(() => renderXlsx(workbook(moved), { template_data: { a: [1] } })).toThrow(/same columns/);
  });

  it('refuses a loop that would run past the last column (XFD) with 413', () => {
    const wide = `<row r="1">${inline('A1', '{%tc for m in a %}')}${inline('B1', '{{ m }}')}${inline('C1', '{%tc endfor %}')}</row>`;
    expect(() =>
      renderXlsx(workbook(wide), { template_data: { a: Array.from({ length: 20_000 }, (_, i) => i) } }),
    ).toThrow(expect.objectContaining({ errorType: 'payload_too_large' }));
  });
});

describe('tags in sheet names', () => {
  /** The builder's workbook with its sheet named `name`, a defined name and app.xml's titles. */
  function named(name: string, sheetData: string): Buffer {
    const zip = new PizZip(workbook(sheetData));
    const esc = name.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    zip.file(
      'xl/workbook.xml',
      zip
        .file('xl/workbook.xml')!
        .asText()
        .replace('name="Sheet 1"', `name="${esc}"`)
        .replace(
          '</sheets>',
          `</sheets><definedNames><definedName name="_xlnm.Print_Area" localSheetId="0">'${esc.replace(/'/g, "''")}'!$A$1:$B$2</definedName></definedNames>`,
        ),
    );
    zip.file(
      'docProps/app.xml',
      `<Properties xmlns:vt="v"><TitlesOfParts><vt:vector size="1" baseType="lpstr"><vt:lpstr>${esc}</vt:lpstr></vt:vector></TitlesOfParts></Properties>`,
    );
    return zip.generate({ type: 'nodebuffer' });
  }

  it('fills the name, makes it legal (no []:*?/\\, at most 31 characters) and renames every reference', () => {
    const xlsx = named(
      '{{ title }}',
      `<row r="1">${inline('A1', '{{ n }}')}<c r="B1"><f>'{{ title }}'!A1*2</f></c></row>`,
    );
    const out = new PizZip(
      renderXlsx(xlsx, { template_data: { title: 'Q1: [draft] a/b & c — a long title, cut at 31', n: 3 } }),
    );
    const book = out.file('xl/workbook.xml')!.asText();
    // `: [ ] /` gone and spaces closed up: 'Q1 draft a b & c — a long title' (31 characters).
    const name = 'Q1 draft a b & c — a long title';
    expect(book).toContain('<sheet name="Q1 draft a b &amp; c — a long title"');
    expect(book).toContain(`'${name.replace(/&/g, '&amp;')}'!$A$1:$B$2</definedName>`);
    expect(cell(out.file('xl/worksheets/sheet1.xml')!.asText(), 'B1')).toContain(
      `<f>'${name.replace(/&/g, '&amp;')}'!A1*2</f>`,
    );
    expect(out.file('docProps/app.xml')!.asText()).toContain(
      `<vt:lpstr>${name.replace(/&/g, '&amp;')}</vt:lpstr>`,
    );
  });

  it('an empty or reserved name falls back to SheetN; a syntax error is a 422 naming the sheet', () => {
    const out = renderXlsx(named('{{ missing }}', ''), { template_data: {} });
    expect(text(out, 'xl/workbook.xml')).toContain('<sheet name="Sheet1"');
    expect(() => renderXlsx(named('{{ a + }}', ''), { template_data: {} })).toThrow(
      expect.objectContaining({ errorType: 'template_syntax_error' }),
    );
  });
});

describe('pictures by name or alternative text', () => {
  const quote = readFileSync(join(FIXTURES, 'picture.calc.xlsx'));

  it("validates `images` as Word's: a non-PNG is image_processing_error naming the image", () => {
    expect(() => renderXlsx(quote, { template_data: {}, images: { logo: { data: 'aGVsbG8=' } } })).toThrow(
      expect.objectContaining({
        errorType: 'image_processing_error',
        details: expect.objectContaining({ image_name: 'logo' }),
      }),
    );
  });

  it("names the picture by its image's alt", () => {
    const png = readFileSync(join(FIXTURES, '../../../bench/fixtures/images/logo.png')).toString('base64');
    const out = new PizZip(
      renderXlsx(quote, { template_data: {}, images: { logo: { data: png, alt: 'ACME & Co logo' } } }),
    );
    expect(out.file('xl/drawings/drawing1.xml')!.asText()).toMatch(
      /<xdr:cNvPr\b[^>]*descr="ACME &amp; Co logo"/,
    );
  });

  it('leaves a picture no key names as it was', () => {
    const out = new PizZip(renderXlsx(quote, { template_data: {} }));
    expect(out.file('xl/drawings/_rels/drawing1.xml.rels')!.asText()).toBe(
      new PizZip(quote).file('xl/drawings/_rels/drawing1.xml.rels')!.asText(),
    );
  });
});

describe('hostile and refused workbooks', () => {
  it('refuses a sheet whose loops would make more cells than the limit (413) before writing it', () => {
    const xlsx = workbook(
      `<row r="1">${inline('A1', '{%tr for i in items %}')}</row><row r="2">${inline('A2', '{{ i }}')}</row>` +
        `<row r="3">${inline('A3', '{%tr endfor %}')}</row>`,
    );
    expect(() =>
      renderXlsx(
        xlsx,
        { template_data: { items: Array.from({ length: 600 }, (_, i) => i) } },
        { maxCellsPerSheet: 1000 },
      ),
    ).toThrow(expect.objectContaining({ errorType: 'payload_too_large' }));
  });

  it('refuses a workbook without a worksheet: 400 invalid_template, nothing to fill or print', () => {
    const zip = new PizZip(workbook(`<row r="1">${inline('A1', '{{ a }}')}</row>`));
    zip.remove('xl/worksheets/sheet1.xml');
    const sheetless = zip.generate({ type: 'nodebuffer' });
    expect(() => renderXlsx(sheetless, { template_data: { a: 1 } })).toThrow(
      expect.objectContaining({
        errorType: 'invalid_template',
        details: expect.objectContaining({ reason: 'no_worksheet' }),
      }),
    );
  });

  it('refuses a macro-enabled workbook unless allowed', () => {
    const xlsm = workbook(`<row r="1">${inline('A1', '{{ a }}')}</row>`, {
      mainType: 'application/vnd.ms-excel.sheet.macroEnabled.main+xml',
    });
    expect(() => renderXlsx(xlsm, { template_data: { a: 1 } })).toThrow(
      expect.objectContaining({
        errorType: 'invalid_template',
        details: expect.objectContaining({ reason: 'macros' }),
      }),
    );
    expect(
      text(renderXlsx(xlsm, { template_data: { a: 1 } }, { allowMacros: true }), 'xl/worksheets/sheet1.xml'),
    ).toContain('<v>1</v>');
  });

  it('drops an external link, never fetched, and says so', () => {
    const xlsx = workbook(`<row r="1"><c r="A1"><f>[1]Other!A1</f></c></row>`, {
      parts: {
        'xl/externalLinks/externalLink1.xml':
          '<externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"/>',
      },
    });
    const warnings: string[] = [];
    const out = renderXlsx(xlsx, { template_data: {} }, { onWarning: (w) => warnings.push(w) });
    const zip = new PizZip(out);
    expect(zip.file('xl/externalLinks/externalLink1.xml')).toBeNull();
    expect(zip.file('xl/workbook.xml')!.asText()).not.toContain('externalReference');
    expect(zip.file('xl/_rels/workbook.xml.rels')!.asText()).not.toContain('externalLink');
    expect(zip.file('[Content_Types].xml')!.asText()).not.toContain('externalLink1');
    expect(warnings).toEqual(['dropped external link (externalLink1.xml)']);
    // The API names it before the fill, from the template alone.
    expect(templateWarnings(xlsx)).toEqual(warnings);
    expect(warningHeader(templateWarnings(xlsx))).toBe('299 - "dropped external link (externalLink1.xml)"');
    expect(templateWarnings(workbook(''))).toEqual([]);
  });

  it('refuses a shared-string table beyond the XML limit before reading it (413)', () => {
    const many = '<si><t>x</t></si>'.repeat(100_000);
    const xlsx = workbook(`<row r="1"><c r="A1" t="s"><v>0</v></c></row>`, {
      parts: {
        'xl/sharedStrings.xml': `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${many}</sst>`,
        '[Content_Types].xml': new PizZip(workbook(''))
          .file('[Content_Types].xml')!
          .asText()
          .replace(
            '</Types>',
            '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
          ),
      },
    });
    expect(() => renderXlsx(xlsx, { template_data: {} }, { maxWordXmlBytes: 1024 * 1024 })).toThrow(
      expect.objectContaining({ errorType: 'payload_too_large' }),
    );
  });

  it('refuses a shared-string table of millions of entries at the default limits (413), before reading it', () => {
    const table = `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${'<si/>'.repeat(2_000_000)}</sst>`;
    const xlsx = workbook(`<row r="1"><c r="A1" t="s"><v>1999999</v></c></row>`, {
      parts: {
        'xl/sharedStrings.xml': table,
        '[Content_Types].xml': new PizZip(workbook(''))
          .file('[Content_Types].xml')!
          .asText()
          .replace(
            '</Types>',
            '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
          ),
      },
    });
    expect(() => renderXlsx(xlsx, { template_data: {} })).toThrow(
      expect.objectContaining({
        errorType: 'payload_too_large',
        details: expect.objectContaining({ limit: 4 * 1024 * 1024 }),
      }),
    );
  });

  describe('a formula chain 100,000 long and a formula nested 100,000 deep', () => {
    // Rows 5 … 100,004: each cell adds 1 to the one above; the last row's formula nests 100,000
    // parentheses. A row loop above moves every one of them (each is tokenized: no recursion).
    const N = 100_000;
    const rows = [
      `<row r="1">${inline('A1', '{%tr for i in items %}')}</row><row r="2">${inline('A2', '{{ i }}')}</row>`,
      `<row r="3">${inline('A3', '{%tr endfor %}')}</row><row r="4"><c r="A4"><v>1</v></c></row>`,
    ];
    for (let r = 5; r < 5 + N; r++) rows.push(`<row r="${r}"><c r="A${r}"><f>A${r - 1}+1</f></c></row>`);
    rows.push(`<row r="${5 + N}"><c r="B${5 + N}"><f>${'('.repeat(N)}A4${')'.repeat(N)}</f></c></row>`);
    const xlsx = workbook(rows.join(''));

    it('is refused by the XML limit at the defaults (413)', () => {
      expect(() => renderXlsx(xlsx, { template_data: { items: [1, 2] } })).toThrow(
        expect.objectContaining({ errorType: 'payload_too_large' }),
      );
    });

    it('is filled, every reference moved, when the operator raises the limit', () => {
      const out = text(
        renderXlsx(xlsx, { template_data: { items: [1, 2] } }, { maxWordXmlBytes: 64 * 1024 * 1024 }),
        'xl/worksheets/sheet1.xml',
      );
      // Two items in place of three template rows: everything below moves up one row.
      expect(cell(out, 'A4')).toBe('<c r="A4"><f>A3+1</f></c>');
      expect(cell(out, 'A100003')).toBe('<c r="A100003"><f>A100002+1</f></c>');
      expect(cell(out, 'B100004')).toBe(`<c r="B100004"><f>${'('.repeat(N)}A3${')'.repeat(N)}</f></c>`);
      // Not a speed target: ~2 s on a quiet 2-core machine, 5 s on a loaded one; room for CI.
    }, 30_000);
  });

  it('refuses a DTD (entity expansion)', () => {
    const xlsx = workbook('', {
      parts: { 'xl/styles.xml': '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><styleSheet/>' },
    });
    expect(() => renderXlsx(xlsx, { template_data: {} })).toThrow(
      expect.objectContaining({
        errorType: 'invalid_template',
        details: expect.objectContaining({ reason: 'dtd' }),
      }),
    );
  });
});
