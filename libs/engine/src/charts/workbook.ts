/**
 * The workbook embedded beside a chart (word/embeddings/*.xlsx), which Word's "Edit data" opens:
 * its sheet rewritten with the chart's cells, so it shows what the chart's caches show.
 *
 * Written by hand with pizzip rather than exceljs: the fill is synchronous (renderDocx) and
 * exceljs reads and writes workbooks only asynchronously; and editing the sheet's cells in place
 * keeps what a round trip through exceljs would drop or rewrite (Word's table over the data, its
 * styles, column widths). The tests read the result back with exceljs.
 */
import PizZip from 'pizzip';
import { escapeXml } from '../docx/run-text';
import { columnName } from './chart-xml';

export type Cells = ReadonlyArray<ReadonlyArray<string | number | null>>;

function rowsXml(cells: Cells): string {
  return cells
    .map((row, r) => {
      const cs = row
        .map((v, c) => {
          const ref = `${columnName(c)}${r + 1}`;
          if (v === null)
            return r === 0 && c === 0
              ? `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve"> </t></is></c>`
              : '';
          if (typeof v === 'number') return `<c r="${ref}"><v>${v}</v></c>`;
          return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${escapeXml(v)}</t></is></c>`;
        })
        .join('');
      return `<row r="${r + 1}">${cs}</row>`;
    })
    .join('');
}

function rangeOf(cells: Cells): string {
  const cols = Math.max(1, ...cells.map((r) => r.length));
  return `A1:${columnName(cols - 1)}${Math.max(1, cells.length)}`;
}

function resolve(base: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = base.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.') parts.push(seg);
  }
  return parts.join('/');
}

function relTargets(zip: PizZip, part: string): Map<string, { type: string; target: string }> {
  const relsPath = part.replace(/([^/]+)$/, '_rels/$1.rels');
  const xml = zip.file(relsPath)?.asText() ?? '';
  const out = new Map<string, { type: string; target: string }>();
  for (const m of xml.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /\bId="([^"]*)"/.exec(m[0])?.[1];
    const type = /\bType="([^"]*)"/.exec(m[0])?.[1] ?? '';
    const target = /\bTarget="([^"]*)"/.exec(m[0])?.[1];
    if (id && target) out.set(id, { type, target: resolve(part, target) });
  }
  return out;
}

/** Unique, non-empty table column names (Excel refuses duplicates). */
function columnNames(header: ReadonlyArray<string | number | null>): string[] {
  const seen = new Set<string>();
  return header.map((v, i) => {
    let name = v === null || v === '' ? (i === 0 ? ' ' : `Column${i + 1}`) : String(v);
    for (let k = 2; seen.has(name.toLowerCase()); k++) name = `${String(v ?? 'Column')} ${k}`;
    seen.add(name.toLowerCase());
    return name;
  });
}

/** The embedded workbook with `sheet` (else its first sheet) holding exactly `cells` from A1. */
export function rewriteWorkbook(xlsx: Uint8Array, sheet: string, cells: Cells): Buffer {
  const zip = new PizZip(xlsx);
  const workbook = zip.file('xl/workbook.xml')?.asText();
  if (!workbook) throw new Error('the embedded workbook has no xl/workbook.xml');
  const sheets = [...workbook.matchAll(/<sheet\b[^>]*>/g)].map((m) => ({
    name: /\bname="([^"]*)"/.exec(m[0])?.[1] ?? '',
    rid: /\br:id="([^"]*)"/.exec(m[0])?.[1] ?? '',
  }));
  const chosen = sheets.find((s) => s.name === escapeXml(sheet)) ?? sheets[0];
  const target = chosen && relTargets(zip, 'xl/workbook.xml').get(chosen.rid)?.target;
  const sheetXml = target && zip.file(target)?.asText();
  if (!target || !sheetXml) throw new Error('the embedded workbook has no sheet');
  const ref = rangeOf(cells);
  let out = sheetXml.replace(
    /<sheetData\s*\/>|<sheetData\b[^>]*>[\s\S]*?<\/sheetData>/,
    `<sheetData>${rowsXml(cells)}</sheetData>`,
  );
  out = out.replace(/<dimension\b[^>]*\/>/, `<dimension ref="${ref}"/>`);
  zip.file(target, out);
  // Word's charts keep their data in a table: its range and column names follow the cells.
  for (const rel of relTargets(zip, target).values()) {
    if (!rel.type.endsWith('/table')) continue;
    const table = zip.file(rel.target)?.asText();
    if (!table) continue;
    const names = columnNames(cells[0] ?? []);
    const columns = names.map((n, i) => `<tableColumn id="${i + 1}" name="${escapeXml(n)}"/>`).join('');
    zip.file(
      rel.target,
      table
        .replace(/(<table\b[^>]*\bref=")[^"]*"/, `$1${ref}"`)
        .replace(/(<autoFilter\b[^>]*\bref=")[^"]*"/, `$1${ref}"`)
        .replace(
          /<tableColumns\b[^>]*>[\s\S]*?<\/tableColumns>/,
          `<tableColumns count="${names.length}">${columns}</tableColumns>`,
        ),
    );
  }
  // Cached results of formulas elsewhere would be stale: Excel recalculates on open.
  zip.remove('xl/calcChain.xml');
  // Stored, not deflated: the .docx deflates the workbook as a whole when it is written, and
  // pizzip's JavaScript deflate of every entry again was a third of a chart's fill time.
  return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
}

const XLSX_MAIN = 'application/vnd.openxmlformats-officedocument.spreadsheetml';

/** A workbook of one sheet `Sheet1` holding `cells`, for a chart made from scratch. */
export function newWorkbook(cells: Cells): Buffer {
  const zip = new PizZip();
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
      `<Override PartName="/xl/workbook.xml" ContentType="${XLSX_MAIN}.sheet.main+xml"/>` +
      `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${XLSX_MAIN}.worksheet+xml"/></Types>`,
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
  );
  zip.file(
    'xl/workbook.xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
      '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
  );
  zip.file(
    'xl/_rels/workbook.xml.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
  );
  zip.file(
    'xl/worksheets/sheet1.xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
      `<dimension ref="${rangeOf(cells)}"/><sheetData>${rowsXml(cells)}</sheetData></worksheet>`,
  );
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}
