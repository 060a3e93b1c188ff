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
