import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';

import {
  isWholeReason,
  planParts,
  planPartsOrWhy,
  replaceTotalFields,
  TOTAL_PAGES_PROPERTY,
  totalPagesProperty,
} from './docx-parts';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

function complexField(instr: string[], result: string, rPr = '<w:rPr><w:b/></w:rPr>'): string {
  return (
    `<w:r>${rPr}<w:fldChar w:fldCharType="begin"/></w:r>` +
    instr.map((part) => `<w:r>${rPr}<w:instrText xml:space="preserve">${part}</w:instrText></w:r>`).join('') +
    `<w:r>${rPr}<w:fldChar w:fldCharType="separate"/></w:r><w:r>${rPr}<w:t>${result}</w:t></w:r>` +
    `<w:r>${rPr}<w:fldChar w:fldCharType="end"/></w:r>`
  );
}

const FOOTER =
  `<w:ftr xmlns:w="${W}"><w:p><w:r><w:t xml:space="preserve">Page </w:t></w:r>${complexField([' PAGE '], '1')}` +
  `<w:r><w:t xml:space="preserve"> of </w:t></w:r>${complexField([' NUM', 'PAGES \\* MERGEFORMAT '], '3')}</w:p></w:ftr>`;

function row(i: number, props = ''): string {
  return `<w:tr>${props}<w:tc><w:p><w:r><w:t>row ${i}</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>${i * 10}</w:t></w:r></w:p></w:tc></w:tr>`;
}

interface DocOptions {
  rows?: number;
  header?: string;
  before?: string;
  after?: string;
  tblPr?: string;
  sectPr?: string;
  settings?: string;
  footer?: string;
  rowProps?: (i: number) => string;
  /** docProps/custom.xml. */
  custom?: string;
  /** Other parts of the package, by name. */
  files?: Record<string, string>;
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  // Headers and footers are known by their content type, as in every package Word writes.
  '<Override PartName="/word/footer1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/></Types>';
const ROOT_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/** A statement-like document: a paragraph, a table (a repeated header row, `rows` rows), a paragraph. */
function docx(o: DocOptions = {}): Buffer {
  const rows = Array.from({ length: o.rows ?? 500 }, (_, i) => row(i, o.rowProps?.(i) ?? '')).join('');
  const header =
    o.header ??
    '<w:tr><w:trPr><w:tblHeader/></w:trPr><w:tc><w:p><w:r><w:t>Item</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Amount</w:t></w:r></w:p></w:tc></w:tr>';
  const sectPr =
    o.sectPr ??
    '<w:sectPr><w:footerReference w:type="default" r:id="rId9"/><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/><w:titlePg/><w:docGrid w:linePitch="360"/></w:sectPr>';
  const document =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>` +
    (o.before ?? '<w:p><w:r><w:t>Statement</w:t></w:r></w:p>') +
    `<w:tbl><w:tblPr>${o.tblPr ?? '<w:tblW w:w="0" w:type="auto"/>'}</w:tblPr><w:tblGrid><w:gridCol w:w="4000"/><w:gridCol w:w="4000"/></w:tblGrid>${header}${rows}</w:tbl>` +
    (o.after ?? '<w:p><w:r><w:t>Closing balance</w:t></w:r></w:p>') +
    `${sectPr}</w:body></w:document>`;
  const zip = new PizZip();
  zip.file('word/document.xml', document);
  zip.file('word/footer1.xml', o.footer ?? FOOTER);
  zip.file('word/settings.xml', `<w:settings xmlns:w="${W}">${o.settings ?? ''}</w:settings>`);
  zip.file('[Content_Types].xml', CONTENT_TYPES);
  zip.file('_rels/.rels', ROOT_RELS);
  if (o.custom !== undefined) zip.file('docProps/custom.xml', o.custom);
  for (const [name, text] of Object.entries(o.files ?? {})) zip.file(name, text);
  return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
}

function partXml(buf: Buffer, name = 'word/document.xml'): string {
  return new PizZip(buf).file(name)!.asText();
}

describe('planParts', () => {
  it('finds the long table, its repeated header rows and the page count field', () => {
    const plan = planParts(docx(), { minRows: 300 })!;
    expect(plan).not.toBeNull();
    expect(plan.rows).toBe(500);
    expect(plan.headerRows).toBe(1);
    expect(plan.tableOrdinal).toBe(0);
    expect(plan.firstPageNumber).toBe(1);
    expect(plan.showsTotal).toBe(true);
  });

  it('builds parts from the filled rows: the first with what precedes the table, the last with what follows', () => {
    const plan = planParts(docx(), { minRows: 300 })!;
    const first = partXml(plan.build({ start: 0, end: 200, lead: 0, pageNumber: 1 }));
    expect(first).toContain('<w:t>Statement</w:t>');
    expect(first).not.toContain('Closing balance');
    expect(first).toContain('<w:t>row 199</w:t>');
    expect(first).not.toContain('<w:t>row 200</w:t>');
    expect(first).toContain('<w:titlePg/>'); // the document's own first page
    expect(first).not.toContain('w:start=');

    const last = partXml(plan.build({ start: 300, end: 500, lead: 40, pageNumber: 9, totalPages: 12 }));
    expect(last).not.toContain('<w:t>Statement</w:t>');
    expect(last).toContain('Closing balance');
    // Header row, then the 40 lead rows (the page before, not exported), then the part's own rows.
    expect(last.indexOf('<w:tblHeader/>')).toBeLessThan(last.indexOf('<w:t>row 260</w:t>'));
    expect(last).not.toContain('<w:t>row 259</w:t>');
    expect(last).toContain('<w:t>row 499</w:t>');
    // The lead page is page 8, so the part's own first page shows 9; no distinct first page.
    expect(last).toContain('<w:pgNumType w:start="8"/>');
    expect(last).not.toContain('titlePg');
    const footer = partXml(
      plan.build({ start: 300, end: 500, lead: 40, pageNumber: 9, totalPages: 12 }),
      'word/footer1.xml',
    );
    // The total through a DOCPROPERTY field on a custom property set to it, in the result's formatting.
    expect(footer).toContain(
      `<w:r><w:rPr><w:b/></w:rPr><w:instrText xml:space="preserve"> DOCPROPERTY ${TOTAL_PAGES_PROPERTY} </w:instrText></w:r>`,
    );
    expect(footer).toContain('<w:r><w:rPr><w:b/></w:rPr><w:t>12</w:t></w:r>');
    expect(footer).not.toContain('NUMPAGES');
    expect(footer).toContain(' PAGE '); // PAGE stays a field: it counts from w:start
    const lastPart = plan.build({ start: 300, end: 500, lead: 40, pageNumber: 9, totalPages: 12 });
    expect(partXml(lastPart, 'docProps/custom.xml')).toContain(
      `name="${TOTAL_PAGES_PROPERTY}"><vt:lpwstr>12</vt:lpwstr></property>`,
    );
    expect(partXml(lastPart, '[Content_Types].xml')).toContain('PartName="/docProps/custom.xml"');
    expect(partXml(lastPart, '_rels/.rels')).toContain('Target="docProps/custom.xml"');
    // A part built after it without a total has the package's own properties back.
    const again = new PizZip(plan.build({ start: 0, end: 200, lead: 0, pageNumber: 1 }));
    expect(again.file('docProps/custom.xml')).toBeNull();
    expect(again.file('[Content_Types].xml')!.asText()).toBe(CONTENT_TYPES);
    expect(again.file('_rels/.rels')!.asText()).toBe(ROOT_RELS);
  });

  it('prints the total as text when the package has custom properties it cannot add to', () => {
    const odd =
      '<op:Properties xmlns:op="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"/>';
    const plan = planParts(docx({ custom: odd }), { minRows: 300 })!;
    const part = plan.build({ start: 300, end: 500, lead: 40, pageNumber: 9, totalPages: 12 });
    expect(partXml(part, 'word/footer1.xml')).toContain('<w:r><w:rPr><w:b/></w:rPr><w:t>12</w:t></w:r>');
    expect(partXml(part, 'word/footer1.xml')).not.toContain('DOCPROPERTY');
    expect(partXml(part, 'docProps/custom.xml')).toBe(odd);
  });

  it('ends a part before the last with a paragraph after its table, and starts a part after the first with one', () => {
    const plan = planParts(docx({ tblPr: '<w:tblW w:w="0" w:type="auto"/>' }), { minRows: 300 })!;
    const first = partXml(plan.build({ start: 0, end: 200, lead: 0, pageNumber: 1 }));
    // Word never ends a body with a table; LibreOffice 25.2 narrows a column where a part did.
    expect(first).toMatch(/<\/w:tbl><w:p>.*?<\/w:p><w:sectPr>/);
    const middle = partXml(plan.build({ start: 200, end: 400, lead: 40, pageNumber: 5 }));
    // The section's page number start needs a paragraph before the table to take effect (25.2).
    expect(middle).toMatch(/<w:body><w:p>.*?<\/w:p><w:tbl>/);
    expect(middle).toMatch(/<\/w:tbl><w:p>.*?<\/w:p><w:sectPr>/);
    const last = partXml(plan.build({ start: 400, end: 500, lead: 40, pageNumber: 9 }));
    expect(last).toMatch(/<\/w:tbl><w:p><w:r><w:t>Closing balance<\/w:t><\/w:r><\/w:p><w:sectPr>/);
  });

  it('leaves a document whose NUMPAGES is not yet known with its field', () => {
    const plan = planParts(docx(), { minRows: 300 })!;
    expect(partXml(plan.build({ start: 0, end: 300, lead: 0, pageNumber: 1 }), 'word/footer1.xml')).toContain(
      'PAGES',
    );
  });

  it('keeps a w:pgNumType format and replaces its start', () => {
    const sectPr =
      '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgNumType w:fmt="lowerRoman" w:start="5"/></w:sectPr>';
    const plan = planParts(docx({ sectPr }), { minRows: 300 })!;
    expect(plan.firstPageNumber).toBe(5);
    expect(partXml(plan.build({ start: 100, end: 500, lead: 10, pageNumber: 9 }))).toContain(
      '<w:pgNumType w:fmt="lowerRoman" w:start="8"/>',
    );
  });

  it("cuts the table's section, keeping sections before it in the first part and after it in the last", () => {
    const portrait =
      '<w:sectPr><w:footerReference w:type="default" r:id="rId9"/><w:pgSz w:w="11906" w:h="16838"/><w:titlePg/></w:sectPr>';
    const landscape = '<w:sectPr><w:pgSz w:w="16838" w:h="11906" w:orient="landscape"/></w:sectPr>';
    const plan = planParts(
      docx({
        before:
          '<w:p><w:r><w:t>Cover</w:t></w:r></w:p><w:p><w:pPr><w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:pPr></w:p>',
        after: `<w:p><w:r><w:t>Closing</w:t></w:r></w:p><w:p><w:pPr>${portrait}</w:pPr></w:p><w:p><w:r><w:t>Appendix</w:t></w:r></w:p>`,
        sectPr: landscape,
      }),
      { minRows: 300 },
    )!;
    expect(plan).not.toBeNull();
    const body = (part: Buffer) => /<w:body>([\s\S]*)<\/w:body>/.exec(partXml(part))![1];
    // The first part: the cover and its section, the rows, the table's section last.
    const first = body(plan.build({ start: 0, end: 100, lead: 0, pageNumber: 1 }));
    expect(first).toMatch(/^<w:p><w:r><w:t>Cover<\/w:t>/);
    expect(first).not.toContain('Closing');
    expect(first.endsWith(portrait)).toBe(true);
    // A middle part: the table's section, numbered on, nothing of the others.
    const middle = body(plan.build({ start: 100, end: 200, lead: 10, pageNumber: 4 }));
    expect(middle).not.toMatch(/Cover|Closing|Appendix|landscape/);
    expect(middle).toMatch(/<w:pgSz w:w="11906" w:h="16838"\/><w:pgNumType w:start="3"\/><\/w:sectPr>$/);
    // The last part: the closing text, the table's section break numbered on, the appendix's section.
    const last = body(plan.build({ start: 400, end: 500, lead: 10, pageNumber: 9 }));
    expect(last).not.toContain('Cover');
    expect(last).toContain(
      '<w:t>Closing</w:t></w:r></w:p><w:p><w:pPr><w:sectPr><w:footerReference w:type="default" r:id="rId9"/>' +
        '<w:pgSz w:w="11906" w:h="16838"/><w:pgNumType w:start="8"/></w:sectPr></w:pPr></w:p><w:p><w:r><w:t>Appendix',
    );
    expect(last.endsWith(landscape)).toBe(true);
  });

  it('cuts two long tables as one run of rows, text between them kept once', () => {
    const second =
      '<w:p><w:r><w:t>Between</w:t></w:r></w:p><w:tbl><w:tblPr><w:tblW w:w="0" w:type="auto"/></w:tblPr>' +
      '<w:tblGrid><w:gridCol w:w="4000"/><w:gridCol w:w="4000"/></w:tblGrid>' +
      Array.from({ length: 400 }, (_, i) => row(1000 + i)).join('') +
      '</w:tbl><w:p><w:r><w:t>After</w:t></w:r></w:p>';
    const plan = planParts(docx({ after: second }), { minRows: 300 })!;
    expect(plan).not.toBeNull();
    expect(plan.rows).toBe(900);
    expect(plan.tables).toEqual([
      { ordinal: 0, offset: 0, rows: 500, headerRows: 1 },
      { ordinal: 1, offset: 500, rows: 400, headerRows: 0 },
    ]);
    const body = (part: Buffer) => /<w:body>([\s\S]*)<\/w:body>/.exec(partXml(part))![1];
    // Across the boundary: the first table's last rows, the text between, the second's first rows.
    const spec = { start: 450, end: 600, lead: 20, pageNumber: 9 };
    const across = body(plan.build(spec));
    expect(across).toMatch(
      /row 430<[^]*row 499<[^]*<\/w:tbl><w:p><w:r><w:t>Between<[^]*row 1000<[^]*row 1099<\/w:t>/,
    );
    expect(across).not.toMatch(/row 429<|row 1100<|After/);
    // The bridge: lead rows in table 0 of the part, the cut in table 1, counted from row 500.
    expect(plan.partTables(spec)).toEqual({
      table: 0,
      headerRows: 1,
      cutTable: 1,
      cutHeaderRows: 0,
      cutRows: 100,
      cutOrigin: 500,
    });
    // Within the second table: it alone, then what follows it in the last part.
    const last = body(plan.build({ start: 700, end: 900, lead: 20, pageNumber: 20 }));
    expect(last).toMatch(/^<w:p>[^]*<w:tbl>[^]*row 1180<[^]*row 1399<[^]*After/);
    expect(last).not.toMatch(/Between|row 499</);
    expect(plan.tableOf(499).offset).toBe(0);
    expect(plan.tableOf(500).offset).toBe(500);
  });

  /** One note before the table (id 1), one in every tenth row (rows 0, 10, 20…: ids 2, 3, 4…). */
  function footnoted(rowNote = (i: number) => i / 10 + 2): Buffer {
    const ref = (id: number) => `<w:r><w:footnoteReference w:id="${id}"/></w:r>`;
    const note = (id: number) =>
      `<w:footnote w:id="${id}"><w:p><w:r><w:t>note ${id}</w:t></w:r></w:p></w:footnote>`;
    const footnotes =
      `<w:footnotes xmlns:w="${W}"><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>` +
      Array.from({ length: 51 }, (_, i) => note(i + 1)).join('') +
      '</w:footnotes>';
    return docx({
      before: `<w:p>${ref(1)}</w:p>`,
      rowProps: (i) => (i % 10 === 0 ? `<w:tc><w:p>${ref(rowNote(i))}</w:p></w:tc>` : ''),
      files: { 'word/footnotes.xml': footnotes },
    });
  }

  it("numbers a part's footnotes on from those referenced before its first row, lead rows included", () => {
    const plan = planParts(footnoted(), { minRows: 300 })!;
    expect(plan).not.toBeNull();
    // Rows 0–89 (lead included) hold 9 notes, the text before the table 1: the part's first is 11.
    const part = plan.build({ start: 100, end: 200, lead: 10, pageNumber: 5 });
    expect(partXml(part)).toContain(
      '<w:footerReference w:type="default" r:id="rId9"/><w:footnotePr><w:numStart w:val="11"/></w:footnotePr><w:pgSz',
    );
    // Its references and notes renumbered from 1 in order (rows 90, 100 … 190: notes 11 … 21),
    // the separator kept.
    expect([...partXml(part).matchAll(/footnoteReference w:id="(\d+)"/g)].map((m) => m[1])).toEqual(
      Array.from({ length: 11 }, (_, i) => String(i + 1)),
    );
    const notes = partXml(part, 'word/footnotes.xml');
    expect(notes).toContain('<w:footnote w:type="separator" w:id="-1">');
    expect(
      [...notes.matchAll(/<w:footnote w:id="(\d+)"><w:p><w:r><w:t>note (\d+)</g)].map((m) => [m[1], m[2]]),
    ).toEqual(Array.from({ length: 11 }, (_, i) => [String(i + 1), String(i + 11)]));
    // The first part keeps the document's own numbering and notes.
    const first = plan.build({ start: 0, end: 100, lead: 0, pageNumber: 1 });
    expect(partXml(first)).not.toContain('w:numStart');
    expect(partXml(first, 'word/footnotes.xml')).toContain('<w:footnote w:id="51">');
  });

  it('refuses a note referenced twice, and footnotes without their part', () => {
    expect(
      planParts(
        footnoted((i) => (i === 20 ? 2 : i / 10 + 2)),
        { minRows: 300 },
      ),
    ).toBeNull();
    const zip = new PizZip(footnoted());
    zip.remove('word/footnotes.xml');
    expect(planParts(zip.generate({ type: 'nodebuffer' }), { minRows: 300 })).toBeNull();
  });

  it('counts no header rows when the first row does not repeat', () => {
    const header = row(-1, '<w:trPr><w:tblHeader w:val="false"/></w:trPr>');
    expect(planParts(docx({ header }), { minRows: 300 })!.headerRows).toBe(0);
  });

  it.each<[string, DocOptions]>([
    ['fewer rows than the minimum', { rows: 299 }],
    [
      'a section before the table that restarts page numbers',
      { before: '<w:p><w:pPr><w:sectPr><w:pgNumType w:start="1"/></w:sectPr></w:pPr></w:p>' },
    ],
    [
      'SECTIONPAGES in a document of two sections',
      {
        after: '<w:p><w:pPr><w:sectPr/></w:pPr></w:p>',
        footer: `<w:ftr xmlns:w="${W}"><w:p>${complexField([' SECTIONPAGES '], '3')}</w:p></w:ftr>`,
      },
    ],
    ['an endnote', { after: '<w:p><w:r><w:endnoteReference w:id="1"/></w:r></w:p>' }],
    [
      'footnotes numbered per page',
      {
        rowProps: (i) =>
          i === 3 ? '<w:tc><w:p><w:r><w:footnoteReference w:id="1"/></w:r></w:p></w:tc>' : '',
        settings: '<w:footnotePr><w:numRestart w:val="eachPage"/></w:footnotePr>',
      },
    ],
    ['a table of contents', { before: `<w:p>${complexField([' TOC \\o "1-3" '], 'Contents')}</w:p>` }],
    [
      'a PAGEREF in a simple field',
      { after: '<w:p><w:fldSimple w:instr=" PAGEREF _Toc1 "><w:r><w:t>3</w:t></w:r></w:fldSimple></w:p>' },
    ],
    [
      'NUMPAGES in roman numerals',
      { footer: `<w:ftr xmlns:w="${W}"><w:p>${complexField([' NUMPAGES \\* roman '], 'iii')}</w:p></w:ftr>` },
    ],
    ['even and odd headers', { settings: '<w:evenAndOddHeaders/>' }],
    ['mirrored margins', { settings: '<w:mirrorMargins w:val="1"/>' }],
    ['a table style (bands counted per part)', { tblPr: '<w:tblStyle w:val="LightList-Accent1"/>' }],
    ['a floating table', { tblPr: '<w:tblpPr w:leftFromText="180" w:vertAnchor="text"/>' }],
    [
      'vertically merged cells',
      { rowProps: (i) => (i === 100 ? '<w:trPr/><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc>' : '') },
    ],
    [
      'a table inside a content control',
      { before: '<w:sdt><w:sdtContent>', after: '</w:sdtContent></w:sdt><w:p/>' },
    ],
  ])('converts whole a document with %s', (_, options) => {
    expect(planParts(docx(options), { minRows: 300 })).toBeNull();
  });

  it('finds the footers by their content type, whatever their part name', () => {
    const roman = `<w:ftr xmlns:w="${W}"><w:p>${complexField([' NUMPAGES \\* roman '], 'iii')}</w:p></w:ftr>`;
    const contentTypes = (part: string) =>
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      `<Override PartName="/${part}" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/></Types>`;
    const withFooterAt = (part: string, typed: string) => {
      const zip = new PizZip(docx());
      zip.remove('word/footer1.xml');
      zip.file(part, roman);
      zip.file('[Content_Types].xml', contentTypes(typed));
      return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
    };
    // A roman page count in a footer makes the document go whole: seen at a path Word never uses…
    expect(planParts(withFooterAt('word/pagefoot.xml', 'word/pagefoot.xml'), { minRows: 300 })).toBeNull();
    // …and not seen in a part of that name that is no footer.
    expect(planParts(withFooterAt('word/footer1.xml', 'word/other.xml'), { minRows: 300 })).not.toBeNull();
  });

  it('says no to what is not a .docx, or a document without tables', () => {
    expect(planParts(Buffer.from('not a zip'), { minRows: 1 })).toBeNull();
    const zip = new PizZip();
    zip.file(
      'word/document.xml',
      `<w:document xmlns:w="${W}"><w:body><w:p/><w:sectPr/></w:body></w:document>`,
    );
    expect(planParts(zip.generate({ type: 'nodebuffer' }), { minRows: 1 })).toBeNull();
  });

  it('reads a deflated document.xml too (the raw-byte shortcut is for stored ones)', () => {
    const deflated = new PizZip(docx()).generate({ type: 'nodebuffer', compression: 'DEFLATE' });
    expect(deflated.indexOf('<w:tr')).toBe(-1);
    expect(planParts(deflated, { minRows: 300 })?.rows).toBe(500);
  });

  it('refuses a part outside the table', () => {
    const plan = planParts(docx(), { minRows: 300 })!;
    expect(() => plan.build({ start: 10, end: 20, lead: 11, pageNumber: 2 })).toThrow(RangeError);
    expect(() => plan.build({ start: 10, end: 501, lead: 0, pageNumber: 2 })).toThrow(RangeError);
  });
});

describe('replaceTotalFields', () => {
  it('turns complex and simple NUMPAGES / SECTIONPAGES fields into the number, in the result run formatting', () => {
    const xml =
      `<w:p>${complexField([' SECTION', 'PAGES '], '2', '<w:rPr><w:i/></w:rPr>')}</w:p>` +
      '<w:p><w:fldSimple w:instr=" NUMPAGES "><w:r><w:rPr><w:sz w:val="18"/></w:rPr><w:t>2</w:t></w:r></w:fldSimple></w:p>' +
      `<w:p>${complexField([' PAGE '], '1')}</w:p>`;
    const asField = replaceTotalFields(xml, 417);
    expect(asField).toBe(
      `<w:p>${complexField([` DOCPROPERTY ${TOTAL_PAGES_PROPERTY} `], '417', '<w:rPr><w:i/></w:rPr>')}</w:p>` +
        `<w:p>${complexField([` DOCPROPERTY ${TOTAL_PAGES_PROPERTY} `], '417', '<w:rPr><w:sz w:val="18"/></w:rPr>')}</w:p>` +
        `<w:p>${complexField([' PAGE '], '1')}</w:p>`,
    );
    const out = replaceTotalFields(xml, 417, true);
    expect(out).toBe(
      '<w:p><w:r><w:rPr><w:i/></w:rPr><w:t>417</w:t></w:r></w:p>' +
        '<w:p><w:r><w:rPr><w:sz w:val="18"/></w:rPr><w:t>417</w:t></w:r></w:p>' +
        `<w:p>${complexField([' PAGE '], '1')}</w:p>`,
    );
  });

  it('leaves a field nested inside another field alone', () => {
    const nested = `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> IF </w:instrText></w:r>${complexField([' NUMPAGES '], '3')}<w:r><w:instrText> &gt; 1 "many" "one" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`;
    expect(replaceTotalFields(nested, 9)).toBe(nested);
  });
});

describe('totalPagesProperty', () => {
  const pkg = { contentTypes: CONTENT_TYPES, rootRels: ROOT_RELS };

  it('adds custom properties to a package without them, its content type and relationship once', () => {
    const out = totalPagesProperty(pkg, 186)!;
    expect(out.custom).toContain(`pid="2" name="${TOTAL_PAGES_PROPERTY}"><vt:lpwstr>186</vt:lpwstr>`);
    expect(out.contentTypes.match(/docProps\/custom\.xml/g)).toHaveLength(1);
    expect(out.rootRels.match(/custom-properties/g)).toHaveLength(1);
    expect(totalPagesProperty({ ...out, custom: undefined }, 7)!.contentTypes).toBe(out.contentTypes);
  });

  it("adds to Word's custom properties after their highest pid, and refuses what it cannot read", () => {
    const word =
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">' +
      '<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="2" name="Client"><vt:lpwstr>Müller</vt:lpwstr></property>' +
      '<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="5" name="Ref"><vt:i4>7</vt:i4></property></Properties>';
    const out = totalPagesProperty({ ...pkg, custom: word }, 12)!;
    expect(out.custom).toContain('name="Client"');
    expect(out.custom).toMatch(
      new RegExp(`pid="6" name="${TOTAL_PAGES_PROPERTY}"><vt:lpwstr>12</vt:lpwstr></property></Properties>$`),
    );
    expect(totalPagesProperty({ ...pkg, custom: '<Properties/>' }, 12)).toBeNull();
    expect(totalPagesProperty({ ...pkg, custom: out.custom }, 13)).toBeNull(); // the name taken
  });

  it('names the property the UNO bridge leaves unrefreshed', () => {
    const bridge = readFileSync(join(__dirname, '../uno_bridge.py'), 'utf8');
    expect(bridge).toContain(`TOTAL_PAGES_PROPERTY = "${TOTAL_PAGES_PROPERTY}"`);
  });
});

describe('planPartsOrWhy: why a document is converted whole', () => {
  it.each<[RegExp, DocOptions, boolean]>([
    [/no table has 300 rows or more/, { rows: 299 }, true],
    [
      /restarts the page numbers/,
      { before: '<w:p><w:pPr><w:sectPr><w:pgNumType w:start="1"/></w:sectPr></w:pPr></w:p>' },
      false,
    ],
    [/endnotes/, { after: '<w:p><w:r><w:endnoteReference w:id="1"/></w:r></w:p>' }, false],
    [/its notes part is missing/, { after: '<w:p><w:r><w:footnoteReference w:id="1"/></w:r></w:p>' }, false],
    [/a field .*\(TOC\)/, { before: `<w:p>${complexField([' TOC \\o "1-3" '], 'Contents')}</w:p>` }, false],
    [
      /a field .*\(PAGEREF\)/,
      { after: '<w:p><w:fldSimple w:instr=" PAGEREF _Toc1 "><w:r><w:t>3</w:t></w:r></w:fldSimple></w:p>' },
      false,
    ],
    [
      /page count in a number format/,
      { footer: `<w:ftr xmlns:w="${W}"><w:p>${complexField([' NUMPAGES \\* roman '], 'iii')}</w:p></w:ftr>` },
      false,
    ],
    [/even\/odd headers/, { settings: '<w:evenAndOddHeaders/>' }, false],
    [/mirrored margins/, { settings: '<w:mirrorMargins w:val="1"/>' }, false],
    [/table style/, { tblPr: '<w:tblStyle w:val="LightList-Accent1"/>' }, false],
    [/floats/, { tblPr: '<w:tblpPr w:leftFromText="180" w:vertAnchor="text"/>' }, false],
    [
      /cells merged down rows \(vertical merges\)/,
      { rowProps: (i) => (i === 100 ? '<w:trPr/><w:tc><w:tcPr><w:vMerge/></w:tcPr><w:p/></w:tc>' : '') },
      false,
    ],
    [
      /inside a content control/,
      { before: '<w:sdt><w:sdtContent>', after: '</w:sdtContent></w:sdt><w:p/>' },
      false,
    ],
  ])('says %s, where planParts answers null', (reason, options, short) => {
    const doc = docx(options);
    const plan = planPartsOrWhy(doc, { minRows: 300 });
    expect(planParts(doc, { minRows: 300 })).toBeNull();
    expect(isWholeReason(plan) ? { short: plan.short, reason: plan.reason } : 'a plan').toEqual({
      short,
      reason: expect.stringMatching(reason),
    });
  });

  it('plans what planParts plans', () => {
    const plan = planPartsOrWhy(docx(), { minRows: 300 });
    expect(isWholeReason(plan)).toBe(false);
    expect(isWholeReason(plan) ? 0 : plan.rows).toBe(planParts(docx(), { minRows: 300 })!.rows);
  });

  it('hands over the document.xml it read, so that the budget does not unzip the docx again', () => {
    const doc = docx({ after: '<w:p><w:r><w:endnoteReference w:id="1"/></w:r></w:p>' });
    const plan = planPartsOrWhy(doc, { minRows: 300 });
    expect(isWholeReason(plan) && plan.documentXml).toBe(new PizZip(doc).file('word/document.xml')!.asText());
  });

  it('says what is not a .docx', () => {
    expect(planPartsOrWhy(Buffer.from(`not a zip${'<w:tr>'.repeat(3)}`), { minRows: 1 })).toEqual({
      short: false,
      reason: 'not a readable .docx',
    });
  });
});
