import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { corpusRequest, corpusTemplate, type CorpusName } from '../../../../bench/corpus';
import { renderDocx, type RenderRequest } from '@app/engine';
import {
  cellConditions,
  readStyleSheet,
  resolveTableStyles,
  resolveTableStylesInXml,
  tblLookMask,
} from './table-styles';

// python-docx's default template, as the corpus invoice carries it: Word's built-in table styles.
const INVOICE = join(__dirname, '../../../../bench/fixtures/invoice.docx');
const WORD_STYLES = new PizZip(readFileSync(INVOICE)).file('word/styles.xml')!.asText();
const sheet = readStyleSheet(WORD_STYLES);

const look = (attrs: string) => ({
  name: 'w:tblLook',
  attrs: Object.fromEntries([...attrs.matchAll(/(\S+)="([^"]*)"/g)].map((m) => [m[1], m[2]])),
  children: [],
});

function tbl(style: string, lookXml: string, rows: string[][], extra = ''): string {
  return (
    `<w:tbl><w:tblPr><w:tblStyle w:val="${style}"/><w:tblW w:w="0" w:type="auto"/>${lookXml}${extra}</w:tblPr>` +
    `<w:tblGrid>${'<w:gridCol w:w="2000"/>'.repeat(rows[0].length)}</w:tblGrid>` +
    rows.map((r) => `<w:tr>${r.join('')}</w:tr>`).join('') +
    '</w:tbl>'
  );
}
const tc = (text: string, inner = '') =>
  `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr><w:p>${inner}<w:r><w:t>${text}</w:t></w:r></w:p></w:tc>`;
const cellsOf = (xml: string) => [...xml.matchAll(/<w:tc>.*?<\/w:tc>/g)].map((m) => m[0]);

describe('tblLookMask', () => {
  it('reads the legacy hex, and 0x04A0 when there is none, as LibreOffice 7.4 does', () => {
    expect(tblLookMask(undefined)).toBe(0x4a0);
    expect(tblLookMask(look('w:val="01E0"'))).toBe(0x1e0);
    expect(tblLookMask(look('w:val="0000" w:firstRow="1"'))).toBe(0);
    // Attributes alone change nothing LibreOffice 7.4 draws.
    expect(tblLookMask(look('w:firstRow="0" w:noVBand="0"'))).toBe(0x4a0);
    expect(tblLookMask(look('w:val="zz"'))).toBe(0x4a0);
  });

  it('reads the attributes over the hex as Word does, when asked', () => {
    expect(tblLookMask(look('w:firstRow="1" w:lastRow="1" w:noVBand="0"'), { attributes: true })).toBe(0x60);
    expect(
      tblLookMask(look('w:val="04A0" w:firstColumn="0" w:lastColumn="true"'), { attributes: true }),
    ).toBe(0x520);
  });
});

describe('cellConditions', () => {
  const all = 0x1e0; // first/last row and column, both bands
  it('gives first and last rows and columns their formats, corners, and bands elsewhere', () => {
    expect([...cellConditions(all, 0, 5, 0, 4, false)].sort()).toEqual(['firstCol', 'firstRow', 'nwCell']);
    expect([...cellConditions(all, 4, 5, 3, 4, false)].sort()).toEqual(['lastCol', 'lastRow', 'seCell']);
    expect([...cellConditions(all, 1, 5, 1, 4, false)].sort()).toEqual(['band1Horz', 'band1Vert']);
    expect([...cellConditions(all, 2, 5, 2, 4, false)].sort()).toEqual(['band2Horz', 'band2Vert']);
  });

  it('counts bands from the first row when there is no header row, and by band size', () => {
    expect([...cellConditions(0x400, 0, 5, 0, 4, false)]).toEqual(['band1Horz']);
    expect([...cellConditions(0x400, 1, 5, 0, 4, false)]).toEqual(['band2Horz']);
    const sized = (row: number) => [...cellConditions(0x420, row, 9, 1, 4, false, 2)];
    expect([1, 2, 3, 4, 5].map(sized)).toEqual([
      ['band1Horz'],
      ['band1Horz'],
      ['band2Horz'],
      ['band2Horz'],
      ['band1Horz'],
    ]);
  });

  it('treats a w:tblHeader row inside the table as a first row, and noHBand / noVBand as no bands', () => {
    expect([...cellConditions(0x4a0, 2, 5, 1, 4, true)]).toEqual(['firstRow']);
    expect([...cellConditions(0x600, 2, 5, 1, 4, false)]).toEqual([]);
  });
});

describe('resolveTableStylesInXml', () => {
  const LOOK = '<w:tblLook w:val="04A0"/>';

  it('writes Light List Accent 1 as direct formatting and leaves the rest of the part as it was', () => {
    const before = '<?xml version="1.0"?><w:body><w:p><w:r><w:t>A &amp; B</w:t></w:r></w:p>';
    const table = tbl('LightList-Accent1', LOOK, [
      [tc('Head'), tc('Qty')],
      [tc('Описание'), tc('12')],
      [tc('数量'), tc('3')],
    ]);
    const after = '<w:p/></w:body>';
    const out = resolveTableStylesInXml(before + table + after, sheet);
    expect(out.startsWith(before)).toBe(true);
    expect(out.endsWith(after)).toBe(true);
    expect(out).not.toContain('w:tblStyle');
    // The table's borders and cell margins, from the style.
    expect(out).toMatch(/<w:tblBorders><w:top w:val="single" w:sz="8"[^>]*w:color="4F81BD"/);
    expect(out).toContain('<w:tblCellMar>');
    const cells = cellsOf(out);
    // Header row: accent fill, white bold text; the style's paragraph spacing on every paragraph.
    expect(cells[0]).toContain('<w:shd w:val="clear" w:color="auto" w:fill="4F81BD" w:themeFill="accent1"/>');
    expect(cells[0]).toMatch(/<w:r><w:rPr><w:b\/><w:bCs\/><w:color w:val="FFFFFF"/);
    expect(cells[0]).toMatch(
      /<w:spacing (?=[^>]*w:before="0")(?=[^>]*w:after="0")(?=[^>]*w:line="240")[^>]*\/>/,
    );
    // First column bold; band1Horz (the first body row) boxed; band2Horz not.
    expect(cells[2]).toMatch(/<w:rPr><w:b\/><w:bCs\/><\/w:rPr>/);
    expect(cells[3]).toContain('<w:tcBorders>');
    expect(cells[3]).not.toContain('<w:b/>');
    expect(cells[5]).not.toContain('<w:tcBorders>');
    expect(cells[5]).toContain('<w:spacing w:after="0" w:line="240" w:lineRule="auto"/>');
    // Text untouched, entities as written.
    expect(out).toContain('<w:t>Описание</w:t>');
    expect(out).toContain('<w:t>A &amp; B</w:t>');
  });

  it('keeps direct formatting over the style: run colour, cell fill, paragraph spacing', () => {
    const table = tbl('LightList-Accent1', LOOK, [
      [
        `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/><w:shd w:val="clear" w:color="auto" w:fill="FFC000"/></w:tcPr>` +
          `<w:p><w:pPr><w:spacing w:before="120"/></w:pPr><w:r><w:rPr><w:color w:val="C00000"/></w:rPr><w:t>H</w:t></w:r></w:p></w:tc>`,
        tc('Q'),
      ],
      [tc('a'), tc('b')],
    ]);
    const [first] = cellsOf(resolveTableStylesInXml(table, sheet));
    expect(first).toContain('w:fill="FFC000"');
    expect(first).not.toContain('4F81BD');
    expect(first).toContain('<w:color w:val="C00000"/>');
    // The run keeps its red; it takes the header's bold (the paragraph mark takes it all).
    expect(first).toContain('<w:r><w:rPr><w:color w:val="C00000"/><w:b/><w:bCs/></w:rPr>');
    // The paragraph's own spacing before stays; after and line come from the style.
    expect(first).toContain('<w:spacing w:before="120" w:after="0" w:line="240" w:lineRule="auto"/>');
  });

  it("leaves to a paragraph style what it sets, but not the default style's 11 pt", () => {
    const custom = WORD_STYLES.replace(
      '</w:styles>',
      '<w:style w:type="table" w:styleId="Big"><w:name w:val="Big"/><w:basedOn w:val="TableGrid"/>' +
        '<w:rPr><w:sz w:val="32"/><w:color w:val="00B050"/></w:rPr></w:style></w:styles>',
    );
    const s = readStyleSheet(custom);
    // A style that sets a size is kept below allFromRows rows; a long table is resolved anyway.
    const out = resolveTableStylesInXml(
      tbl('Big', LOOK, [[tc('n'), tc('h', '<w:pPr><w:pStyle w:val="Heading1"/></w:pPr>')]]),
      s,
      { allFromRows: 1 },
    );
    const [plain, heading] = cellsOf(out);
    expect(plain).toMatch(/<w:r><w:rPr><w:sz w:val="32"\/><w:color w:val="00B050"\/><\/w:rPr>/);
    // Heading 1 sets its own size and colour: the table style's do not reach it.
    expect(heading).not.toContain('w:val="32"');
    expect(heading).not.toContain('00B050');
    // basedOn Table Grid: its borders, inside ones included, on the table.
    expect(out).toContain('<w:insideH w:val="single" w:sz="4"');
  });

  it('places a conditional inside border on the cells it separates', () => {
    // Light Grid Accent 1, first row: insideV single, bottom 18 (insideH dropped with the bottom edge).
    const out = resolveTableStylesInXml(
      tbl('LightGrid-Accent1', LOOK, [
        [tc('a'), tc('b'), tc('c')],
        [tc('d'), tc('e'), tc('f')],
      ]),
      sheet,
    );
    const cells = cellsOf(out);
    expect(cells[1]).toMatch(/<w:tcBorders>.*<w:bottom w:val="single" w:sz="18"/);
    expect(cells[1]).toMatch(/<w:left w:val="single" w:sz="8"/);
    expect(cells[1]).toMatch(/<w:right w:val="single" w:sz="8"/);
    expect(cells[1]).not.toContain('insideV');
  });

  it('drops an unknown style, survives a basedOn cycle, and leaves unstyled tables alone', () => {
    const cyclic = readStyleSheet(
      '<w:styles><w:style w:type="table" w:styleId="A"><w:basedOn w:val="B"/><w:tblPr><w:tblInd w:w="720" w:type="dxa"/></w:tblPr></w:style>' +
        '<w:style w:type="table" w:styleId="B"><w:basedOn w:val="A"/></w:style></w:styles>',
    );
    expect(resolveTableStylesInXml(tbl('A', '', [[tc('x')]]), cyclic)).toContain(
      '<w:tblInd w:w="720" w:type="dxa"/>',
    );
    const unknown = resolveTableStylesInXml(tbl('Nope', '', [[tc('x')]]), sheet);
    expect(unknown).not.toContain('tblStyle');
    expect(unknown).toContain('<w:t>x</w:t>');
    const plain = '<w:tbl><w:tblPr/><w:tr><w:tc><w:p/></w:tc></w:tr></w:tbl>';
    expect(resolveTableStylesInXml(plain, sheet)).toBe(plain);
  });

  it('leaves a table styled when its style shades every cell, and resolves the others beside it', () => {
    // Dark List's w:tcPr/w:shd becomes LibreOffice's table background; Medium Grid 3 Accent 2 has
    // it through no conditional format but its own tcPr. Light List has none.
    const dark = tbl('DarkList', LOOK, [
      [tc('a'), tc('b')],
      [tc('c'), tc('d')],
    ]);
    const grid = tbl('MediumGrid3-Accent2', LOOK, [[tc('e')], [tc('f')]]);
    const light = tbl('LightList-Accent1', LOOK, [[tc('g')], [tc('h')]]);
    const xml = `<w:body>${dark}<w:p/>${grid}<w:p/>${light}</w:body>`;
    for (const rowByRow of [true, false]) {
      const out = resolveTableStylesInXml(xml, sheet, { rowByRow });
      expect(out).toContain(dark);
      expect(out).toContain(grid);
      expect(out).not.toContain('LightList-Accent1');
      expect(out).toContain('w:fill="4F81BD"');
    }
  });

  it('leaves a table styled when its style sets a font size, in the style or a conditional format', () => {
    const sheetWith = (rPr: string, cond = '') =>
      readStyleSheet(
        `<w:styles><w:style w:type="table" w:styleId="S"><w:rPr>${rPr}</w:rPr>${cond}</w:style></w:styles>`,
      );
    const table = tbl('S', LOOK, [[tc('a')], [tc('b')]]);
    for (const half of [18, 24, 28])
      expect(resolveTableStylesInXml(table, sheetWith(`<w:sz w:val="${half}"/>`))).toBe(table);
    expect(
      resolveTableStylesInXml(
        table,
        sheetWith('', '<w:tblStylePr w:type="firstRow"><w:rPr><w:sz w:val="24"/></w:rPr></w:tblStylePr>'),
      ),
    ).toBe(table);
    // A complex-script size alone does not size the paragraph's Latin text: resolved.
    const cs = resolveTableStylesInXml(table, sheetWith('<w:szCs w:val="28"/><w:b/>'));
    expect(cs).not.toContain('w:tblStyle');
    expect(cs).toContain('<w:szCs w:val="28"/>');
  });

  it('resolves a table in such a style from allFromRows rows on (long tables are split only without a style)', () => {
    const dark = tbl('DarkList', LOOK, [[tc('a')], [tc('b')], [tc('c')]]);
    for (const rowByRow of [true, false]) {
      expect(resolveTableStylesInXml(dark, sheet, { rowByRow, allFromRows: 4 })).toBe(dark);
      const resolved = resolveTableStylesInXml(dark, sheet, { rowByRow, allFromRows: 3 });
      expect(resolved).not.toContain('w:tblStyle');
      expect(resolved).toContain('<w:shd w:val="clear" w:color="auto" w:fill="000000" w:themeFill="text1"/>');
    }
  });

  it('leaves a table with cells merged down rows styled, however long, and resolves one merged across columns', () => {
    const merged = (tcPr: string) =>
      `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/>${tcPr}</w:tcPr><w:p><w:r><w:t>m</w:t></w:r></w:p></w:tc>`;
    const down = tbl('LightList-Accent1', LOOK, [
      [tc('a'), tc('b')],
      [merged('<w:vMerge w:val="restart"/>'), tc('c')],
      [merged('<w:vMerge/>'), tc('d')],
    ]);
    const across = tbl('LightList-Accent1', LOOK, [[tc('a'), tc('b')], [merged('<w:gridSpan w:val="2"/>')]]);
    for (const rowByRow of [true, false]) {
      expect(resolveTableStylesInXml(down, sheet, { rowByRow, allFromRows: 2 })).toBe(down);
      expect(resolveTableStylesInXml(across, sheet, { rowByRow })).not.toContain('w:tblStyle');
      // The outer table of a nested pair has its own cells merged down; the inner one is resolved.
      const outer = down.replace('<w:t>d</w:t></w:r></w:p>', `<w:t>d</w:t></w:r></w:p>${across}<w:p/>`);
      const out = resolveTableStylesInXml(outer, sheet, { rowByRow });
      expect(out.match(/<w:tblStyle /g)).toHaveLength(1);
    }
  });

  it('takes from a base table style what LibreOffice does: run, table and cell properties, not paragraph properties nor conditional formats', () => {
    const based = readStyleSheet(
      '<w:styles><w:style w:type="table" w:styleId="Base">' +
        '<w:pPr><w:spacing w:after="0"/></w:pPr><w:rPr><w:i/></w:rPr>' +
        '<w:tblPr><w:tblInd w:w="300" w:type="dxa"/><w:jc w:val="center"/>' +
        '<w:tblBorders><w:top w:val="single" w:sz="12" w:space="0" w:color="FF0000"/></w:tblBorders></w:tblPr>' +
        '<w:tcPr><w:vAlign w:val="center"/></w:tcPr>' +
        '<w:tblStylePr w:type="firstRow"><w:rPr><w:b/></w:rPr></w:tblStylePr></w:style>' +
        '<w:style w:type="table" w:styleId="Company"><w:basedOn w:val="Base"/>' +
        '<w:tblStylePr w:type="lastRow"><w:rPr><w:caps/></w:rPr></w:tblStylePr></w:style></w:styles>',
    );
    // First and last row formats on (0x0060).
    for (const rowByRow of [true, false]) {
      const out = resolveTableStylesInXml(
        tbl('Company', '<w:tblLook w:val="0060"/>', [[tc('head')], [tc('body')], [tc('foot')]]),
        based,
        {
          rowByRow,
        },
      );
      expect(out).not.toContain('w:tblStyle');
      // Inherited: the base's runs, table indent and borders, cell alignment; the own last row.
      expect(out.match(/<w:i\/>/g)).toHaveLength(6); // each cell's run and paragraph mark
      expect(out).toContain('<w:tblInd w:w="300" w:type="dxa"/>');
      expect(out).toContain('w:color="FF0000"');
      expect(out.match(/<w:vAlign w:val="center"\/>/g)).toHaveLength(3);
      expect(out).toContain('<w:caps/>');
      // Not: the base's paragraph spacing, its first-row bold, and no style's table alignment.
      expect(out).not.toContain('w:spacing');
      expect(out).not.toContain('<w:b/>');
      expect(out).not.toContain('<w:jc ');
    }
  });

  it('hands a table that keeps its style back byte for byte, as another program wrote it', () => {
    // Single quotes and a space before "/>": what a parse and serialize would rewrite.
    const written = tbl('DarkList', LOOK, [[tc('a')], [tc('b')]]).replace(
      '<w:tblStyle w:val="DarkList"/>',
      "<w:tblStyle w:val='DarkList' />",
    );
    expect(written).toContain("w:val='DarkList'");
    expect(resolveTableStylesInXml(written, sheet, { rowByRow: true })).toBe(written);
  });

  it('resolves nested tables with their own style only', () => {
    const inner = tbl('TableGrid', LOOK, [[tc('in')]]);
    const outer = tbl('LightList-Accent1', LOOK, [
      [`<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${inner}<w:p/></w:tc>`],
      [tc('b')],
    ]);
    const out = resolveTableStylesInXml(outer, sheet);
    expect(out).not.toContain('tblStyle');
    const innerOut = /<w:tbl><w:tblPr><w:tblW[^]*?<\/w:tbl>/.exec(out.slice(10))![0];
    expect(innerOut).not.toContain('FFFFFF'); // the outer header's white text stays outside
    expect(innerOut).toContain('<w:insideV w:val="single" w:sz="4"');
  });
});

describe('row by row', () => {
  it('resolves long filled tables as the whole-tree resolution does', () => {
    const fill = (name: CorpusName, rows: number) => {
      // The engine's own fill of the corpus (bench/fixtures), Word-written templates.
      const zip = new PizZip(
        renderDocx(corpusTemplate(name), corpusRequest(name, { rows }) as RenderRequest),
      );
      return [zip.file('word/document.xml')!.asText(), zip.file('word/styles.xml')!.asText()];
    };
    for (const [name, rows] of [
      ['invoice', 60],
      ['gallery', 40],
      ['writer', 12],
      ['contract', 3],
    ] as const) {
      const [doc, styles] = fill(name, rows);
      const s = readStyleSheet(styles);
      const rowByRow = resolveTableStylesInXml(doc, s);
      expect(rowByRow).not.toContain('<w:tblStyle ');
      // The same XML; the whole-tree path writes an emptied <w:t></w:t> as <w:t/>.
      const same = (x: string) => x.replaceAll('<w:t></w:t>', '<w:t/>');
      expect(same(rowByRow)).toBe(same(resolveTableStylesInXml(doc, s, { rowByRow: false })));
    }
    const built = tbl('MediumShading1-Accent1', '<w:tblLook w:val="01E0"/>', [
      [tc('h1'), tc('h2'), tc('h3')],
      ...Array.from({ length: 9 }, (_, i) => [tc(`a${i}`), tc(`b${i}`), tc(`c${i}`)]),
    ]);
    expect(resolveTableStylesInXml(built, sheet)).toBe(
      resolveTableStylesInXml(built, sheet, { rowByRow: false }),
    );
  });
});

describe('resolveTableStyles', () => {
  it('resolves a package the same with the style sheet it keeps as with a fresh one, time after time', () => {
    const resolved = () => {
      const zip = new PizZip(
        renderDocx(corpusTemplate('invoice'), corpusRequest('invoice') as RenderRequest),
      );
      const fresh = resolveTableStylesInXml(
        zip.file('word/document.xml')!.asText(),
        readStyleSheet(zip.file('word/styles.xml')!.asText()),
      );
      resolveTableStyles(zip); // the second and third time: the sheet kept by styles.xml's digest
      return [zip.file('word/document.xml')!.asText(), fresh];
    };
    const [first, fresh] = resolved();
    expect(first).toBe(fresh);
    expect(first).not.toContain('<w:tblStyle ');
    for (let i = 0; i < 2; i++) expect(resolved()).toEqual([first, fresh]);
  });

  it('rewrites the parts of a package that have styled tables', () => {
    const zip = new PizZip(readFileSync(INVOICE));
    const headerBefore = zip.file('word/header1.xml')?.asText();
    resolveTableStyles(zip);
    expect(zip.file('word/document.xml')!.asText()).not.toContain('<w:tblStyle ');
    expect(zip.file('word/header1.xml')?.asText()).toBe(headerBefore);
  });
});
