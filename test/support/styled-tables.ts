/**
 * Documents with tables in Word's built-in table styles, on python-docx's default template (the
 * corpus invoice's package: Word's styles.xml, kept whole): for the table-style resolution's page
 * comparison (test/table-styles.e2e-spec.ts).
 */
import { readFileSync } from 'node:fs';
import PizZip from 'pizzip';
import { corpusFile } from '../../bench/corpus';

// Tables on python-docx's default template: Word's styles.xml with its built-in table styles.
const BASE = corpusFile('invoice');
const CELL_TEXT = ['Описание', '数量 12', 'Café Œuvre', 'Ünïcode ß', '1 234,50 €', 'Æble &amp; pære'];

export function cell(text: string, opts: { tcPr?: string; pPr?: string; rPr?: string } = {}): string {
  return (
    `<w:tc><w:tcPr><w:tcW w:w="1800" w:type="dxa"/>${opts.tcPr ?? ''}</w:tcPr>` +
    `<w:p>${opts.pPr ? `<w:pPr>${opts.pPr}</w:pPr>` : ''}<w:r>${opts.rPr ? `<w:rPr>${opts.rPr}</w:rPr>` : ''}` +
    `<w:t xml:space="preserve">${text}</w:t></w:r></w:p></w:tc>`
  );
}

export interface TableSpec {
  style: string;
  look: string;
  rows: number;
  cols?: number;
  /** Direct formatting on cell [row, col]. */
  direct?: Record<string, { tcPr?: string; pPr?: string; rPr?: string }>;
  header?: boolean;
}

export function table(spec: TableSpec): string {
  const cols = spec.cols ?? 4;
  const rows: string[] = [];
  for (let r = 0; r < spec.rows; r++) {
    const cells: string[] = [];
    for (let c = 0; c < cols; c++)
      cells.push(
        cell(r === 0 ? `Head ${c + 1}` : CELL_TEXT[(r + c) % CELL_TEXT.length], spec.direct?.[`${r},${c}`]),
      );
    const trPr = r === 0 && spec.header ? '<w:trPr><w:tblHeader/></w:trPr>' : '';
    rows.push(`<w:tr>${trPr}${cells.join('')}</w:tr>`);
  }
  return (
    `<w:tbl><w:tblPr><w:tblStyle w:val="${spec.style}"/><w:tblW w:w="0" w:type="auto"/>${spec.look}</w:tblPr>` +
    `<w:tblGrid>${'<w:gridCol w:w="1800"/>'.repeat(cols)}</w:tblGrid>${rows.join('')}</w:tbl>`
  );
}

/**
 * A table with merged cells, in `style`: across columns (`w:gridSpan`) at the start, middle and
 * end of rows and over a whole row, and, with `down`, also down rows (`w:vMerge`) in the first and
 * a middle column, one merge crossing a merge across.
 */
export function mergedTable(style: string, look: string, down = false): string {
  const span = (n: number) => `<w:gridSpan w:val="${n}"/>`;
  const start = '<w:vMerge w:val="restart"/>';
  const more = '<w:vMerge/>';
  const rows: string[][] = [
    ['Head 1', 'Head 2', 'Head 3', 'Head 4'].map((t) => cell(t)),
    [cell('Zwei Spalten', { tcPr: span(2) }), cell('b'), cell('c')],
    [cell('1'), cell('Двe', { tcPr: span(2) }), cell('4')],
    [cell('p'), cell('q'), cell('两列', { tcPr: span(2) })],
    [cell('Whole row', { tcPr: span(4) })],
  ];
  if (down)
    rows.push(
      [cell('Down', { tcPr: start }), cell('x'), cell('y', { tcPr: start }), cell('z')],
      [cell('', { tcPr: more }), cell('x2'), cell('', { tcPr: more }), cell('z2')],
      [cell('', { tcPr: more }), cell('across', { tcPr: span(2) }), cell('z3')],
    );
  rows.push([cell('e'), cell('f'), cell('g'), cell('h')]);
  return (
    `<w:tbl><w:tblPr><w:tblStyle w:val="${style}"/><w:tblW w:w="0" w:type="auto"/>${look}</w:tblPr>` +
    `<w:tblGrid>${'<w:gridCol w:w="1800"/>'.repeat(4)}</w:tblGrid>${rows.map((r) => `<w:tr>${r.join('')}</w:tr>`).join('')}</w:tbl>`
  );
}

export function para(text: string, style?: string): string {
  return `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
}

export function onBase(blocks: string[]): Buffer {
  const zip = new PizZip(readFileSync(BASE));
  const doc = zip.file('word/document.xml')!.asText();
  const open = doc.slice(0, doc.indexOf('<w:body>') + '<w:body>'.length);
  const sectPr =
    '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1417" w:right="1417" w:bottom="1417" ' +
    'w:left="1417" w:header="720" w:footer="720" w:gutter="0"/><w:cols w:space="720"/></w:sectPr>';
  zip.file('word/document.xml', `${open}${blocks.join('')}${sectPr}</w:body></w:document>`);
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

export const LOOK_DEFAULT =
  '<w:tblLook w:val="04A0" w:firstRow="1" w:lastRow="0" w:firstColumn="1" w:lastColumn="0" w:noHBand="0" w:noVBand="1"/>';
/** Every conditional format on, bands both ways: the legacy hex LibreOffice reads, and the attributes. */
export const LOOK_ALL =
  '<w:tblLook w:val="01E0" w:firstRow="1" w:lastRow="1" w:firstColumn="1" w:lastColumn="1" w:noHBand="0" w:noVBand="0"/>';
/** The attributes alone (Word 2010+ writes the hex too; LibreOffice 7.4 reads only the hex). */
export const LOOK_ATTRIBUTES_ONLY =
  '<w:tblLook w:firstRow="1" w:lastRow="1" w:firstColumn="1" w:lastColumn="1" w:noHBand="0" w:noVBand="0"/>';
export const LOOK_LEGACY_NO_HBAND = '<w:tblLook w:val="0280"/>'; // firstColumn + noHBand, vertical bands on
export const LOOK_NONE =
  '<w:tblLook w:val="0000" w:firstRow="0" w:lastRow="0" w:firstColumn="0" w:lastColumn="0" w:noHBand="1" w:noVBand="1"/>';

const border = (side: string, val: string, sz: number, color: string) =>
  `<w:${side} w:val="${val}" w:sz="${sz}" w:space="0" w:color="${color}"/>`;
const all = (
  val: string,
  sz: number,
  color: string,
  sides = ['top', 'left', 'bottom', 'right', 'insideH', 'insideV'],
) => sides.map((s) => border(s, val, sz, color)).join('');
const cond = (type: string, inner: string) => `<w:tblStylePr w:type="${type}">${inner}</w:tblStylePr>`;
/** A company report table style; `sizes` (half-points) for its text and its header row. */
function reportTable(sizes?: { body: number; head: number }): string {
  const size = (half?: number) => (half ? `<w:sz w:val="${half}"/>` : '');
  return (
    `<w:basedOn w:val="TableNormal"/><w:pPr><w:spacing w:before="40" w:after="40"/></w:pPr><w:rPr><w:rFonts w:ascii="Liberation Sans" w:hAnsi="Liberation Sans"/>${size(sizes?.body)}</w:rPr><w:tblPr><w:tblStyleRowBandSize w:val="1"/><w:tblStyleColBandSize w:val="1"/><w:tblCellMar><w:left w:w="85" w:type="dxa"/><w:right w:w="85" w:type="dxa"/></w:tblCellMar><w:tblBorders>${all('single', 6, 'A5A5A5')}</w:tblBorders></w:tblPr><w:tcPr><w:vAlign w:val="center"/></w:tcPr>` +
    cond(
      'firstRow',
      `<w:pPr><w:jc w:val="center"/></w:pPr><w:rPr><w:caps/><w:b/>${size(sizes?.head)}<w:color w:val="1F3864"/></w:rPr><w:tblPr/><w:tcPr><w:tcBorders>${border('bottom', 'thick', 12, '1F3864')}</w:tcBorders><w:vAlign w:val="bottom"/></w:tcPr>`,
    ) +
    cond('lastCol', `<w:pPr><w:jc w:val="right"/></w:pPr>`) +
    cond(
      'lastRow',
      `<w:rPr><w:i/></w:rPr><w:tblPr/><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="EDEDED"/></w:tcPr>`,
    ) +
    cond('band2Horz', `<w:tblPr/><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="F2F2F2"/></w:tcPr>`) +
    cond(
      'nwCell',
      `<w:tblPr/><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="1F3864"/></w:tcPr><w:rPr><w:color w:val="FFFFFF"/></w:rPr>`,
    ) +
    cond('seCell', `<w:rPr><w:b/><w:u w:val="double"/></w:rPr>`)
  );
}

/**
 * Table styles of the kinds Word 2013 and later write, authored here after them (Word's own
 * definitions are not in python-docx's template): Grid Table 4 (inside borders, a filled header
 * whose inside borders are cleared, a double-ruled total row), List Table 3 (band borders, corner
 * cells), Plain Table 2 (rules only), and a custom report style with what a company template
 * sets: a font, cell margins, spacing, vertical alignment, centred capitals in the
 * header, right-aligned last column, corner cells.
 */
export const MODERN_TABLE_STYLES: Record<string, string> = {
  GridTable4Like:
    `<w:basedOn w:val="TableNormal"/><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr><w:tblPr><w:tblStyleRowBandSize w:val="1"/><w:tblStyleColBandSize w:val="1"/><w:tblBorders>${all('single', 4, '8EAADB')}</w:tblBorders></w:tblPr>` +
    cond(
      'firstRow',
      `<w:rPr><w:b/><w:bCs/><w:color w:val="FFFFFF"/></w:rPr><w:tblPr/><w:tcPr><w:tcBorders>${all('single', 4, '4472C4', ['top', 'left', 'bottom', 'right'])}<w:insideH w:val="nil"/><w:insideV w:val="nil"/></w:tcBorders><w:shd w:val="clear" w:color="auto" w:fill="4472C4"/></w:tcPr>`,
    ) +
    cond(
      'lastRow',
      `<w:rPr><w:b/><w:bCs/></w:rPr><w:tblPr/><w:tcPr><w:tcBorders>${border('top', 'double', 4, '4472C4')}</w:tcBorders></w:tcPr>`,
    ) +
    cond('firstCol', `<w:rPr><w:b/><w:bCs/></w:rPr>`) +
    cond('lastCol', `<w:rPr><w:b/><w:bCs/></w:rPr>`) +
    cond('band1Vert', `<w:tblPr/><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="D9E2F3"/></w:tcPr>`) +
    cond('band1Horz', `<w:tblPr/><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="D9E2F3"/></w:tcPr>`),
  ListTable3Like:
    `<w:basedOn w:val="TableNormal"/><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr><w:tblPr><w:tblStyleRowBandSize w:val="1"/><w:tblStyleColBandSize w:val="1"/><w:tblBorders>${all('single', 4, '5B9BD5', ['top', 'left', 'bottom', 'right'])}</w:tblBorders></w:tblPr>` +
    cond(
      'firstRow',
      `<w:rPr><w:b/><w:bCs/><w:color w:val="FFFFFF"/></w:rPr><w:tblPr/><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="5B9BD5"/></w:tcPr>`,
    ) +
    cond(
      'lastRow',
      `<w:rPr><w:b/><w:bCs/></w:rPr><w:tblPr/><w:tcPr><w:tcBorders>${border('top', 'double', 4, '5B9BD5')}</w:tcBorders><w:shd w:val="clear" w:color="auto" w:fill="FFFFFF"/></w:tcPr>`,
    ) +
    cond(
      'firstCol',
      `<w:rPr><w:b/><w:bCs/></w:rPr><w:tblPr/><w:tcPr><w:tcBorders><w:right w:val="nil"/></w:tcBorders></w:tcPr>`,
    ) +
    cond(
      'lastCol',
      `<w:rPr><w:b/><w:bCs/></w:rPr><w:tblPr/><w:tcPr><w:tcBorders><w:left w:val="nil"/></w:tcBorders></w:tcPr>`,
    ) +
    cond(
      'band1Vert',
      `<w:tblPr/><w:tcPr><w:tcBorders>${border('left', 'single', 4, '5B9BD5')}${border('right', 'single', 4, '5B9BD5')}</w:tcBorders></w:tcPr>`,
    ) +
    cond(
      'band1Horz',
      `<w:tblPr/><w:tcPr><w:tcBorders>${border('top', 'single', 4, '5B9BD5')}${border('bottom', 'single', 4, '5B9BD5')}</w:tcBorders></w:tcPr>`,
    ) +
    cond('neCell', `<w:tblPr/><w:tcPr><w:tcBorders><w:left w:val="nil"/></w:tcBorders></w:tcPr>`) +
    cond('nwCell', `<w:tblPr/><w:tcPr><w:tcBorders><w:right w:val="nil"/></w:tcBorders></w:tcPr>`),
  PlainTable2Like:
    `<w:basedOn w:val="TableNormal"/><w:tblPr><w:tblStyleRowBandSize w:val="1"/><w:tblStyleColBandSize w:val="1"/><w:tblBorders>${all('single', 4, '7F7F7F', ['top', 'bottom'])}</w:tblBorders></w:tblPr>` +
    cond(
      'firstRow',
      `<w:rPr><w:b/><w:bCs/></w:rPr><w:tblPr/><w:tcPr><w:tcBorders>${border('bottom', 'single', 4, '7F7F7F')}</w:tcBorders></w:tcPr>`,
    ) +
    cond(
      'lastRow',
      `<w:rPr><w:b/><w:bCs/></w:rPr><w:tblPr/><w:tcPr><w:tcBorders>${border('top', 'single', 4, '7F7F7F')}</w:tcBorders></w:tcPr>`,
    ) +
    cond('firstCol', `<w:rPr><w:b/><w:bCs/></w:rPr>`) +
    cond('lastCol', `<w:rPr><w:b/><w:bCs/></w:rPr>`) +
    cond(
      'band1Vert',
      `<w:tblPr/><w:tcPr><w:tcBorders>${border('left', 'single', 4, '7F7F7F')}${border('right', 'single', 4, '7F7F7F')}</w:tcBorders></w:tcPr>`,
    ) +
    cond(
      'band2Vert',
      `<w:tblPr/><w:tcPr><w:tcBorders>${border('left', 'single', 4, '7F7F7F')}${border('right', 'single', 4, '7F7F7F')}</w:tcBorders></w:tcPr>`,
    ) +
    cond(
      'band1Horz',
      `<w:tblPr/><w:tcPr><w:tcBorders>${border('top', 'single', 4, '7F7F7F')}${border('bottom', 'single', 4, '7F7F7F')}</w:tcBorders></w:tcPr>`,
    ),
  ReportTable: reportTable(),
};

/**
 * Company styles based on Word's built-ins, as a template's author makes them (Modify Style, New
 * Style based on…): on Light List Accent 1 with a header and last row of their own, one more level
 * on that, centred with wider cell margins and a font, and on Table Grid with banding and a header.
 * LibreOffice takes from the base its run, table and cell properties, not its paragraph properties
 * nor its conditional formats, and no style's table alignment.
 */
export const BASED_TABLE_STYLES: Record<string, string> = {
  CompanyList:
    '<w:basedOn w:val="LightList-Accent1"/><w:uiPriority w:val="99"/><w:tblPr/>' +
    cond(
      'firstRow',
      '<w:rPr><w:color w:val="FFFF00"/></w:rPr><w:tblPr/><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="C00000"/></w:tcPr>',
    ) +
    cond(
      'lastRow',
      `<w:rPr><w:i/></w:rPr><w:tblPr/><w:tcPr><w:tcBorders>${border('top', 'double', 6, '000000')}</w:tcBorders></w:tcPr>`,
    ),
  CompanyListCentred:
    '<w:basedOn w:val="CompanyList"/><w:pPr><w:jc w:val="center"/></w:pPr><w:rPr><w:rFonts w:ascii="Cambria" w:hAnsi="Cambria"/></w:rPr>' +
    '<w:tblPr><w:jc w:val="center"/><w:tblCellMar><w:left w:w="200" w:type="dxa"/><w:right w:w="200" w:type="dxa"/></w:tblCellMar></w:tblPr>',
  GridBanded:
    '<w:basedOn w:val="TableGrid"/><w:tblPr><w:tblStyleRowBandSize w:val="1"/></w:tblPr>' +
    cond('band1Horz', '<w:tblPr/><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="EDEDED"/></w:tcPr>') +
    cond(
      'firstRow',
      '<w:pPr><w:jc w:val="center"/></w:pPr><w:rPr><w:b/><w:caps/></w:rPr><w:tblPr/><w:tcPr><w:vAlign w:val="bottom"/></w:tcPr>',
    ),
};

/** The report style at 9 pt, its header at 10: what LibreOffice sizes whole paragraphs by (kept styled). */
export const REPORT_TABLE_9PT = reportTable({ body: 18, head: 20 });

/** The report style at 12 pt, its header at 14: sizes over the default 11 pt (kept styled too). */
export const REPORT_TABLE_12PT = reportTable({ body: 24, head: 28 });

/** `docx` with these table styles (id -> the style's inner XML) added to its styles.xml. */
export function withTableStyles(docx: Buffer, styles: Record<string, string>): Buffer {
  const zip = new PizZip(docx);
  const defs = Object.entries(styles)
    .map(
      ([id, body]) =>
        `<w:style w:type="table" w:customStyle="1" w:styleId="${id}"><w:name w:val="${id}"/>${body}</w:style>`,
    )
    .join('');
  zip.file(
    'word/styles.xml',
    zip.file('word/styles.xml')!.asText().replace('</w:styles>', `${defs}</w:styles>`),
  );
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}
