/**
 * A filled .docx whose body holds one long table, cut into documents that each hold a run of its
 * rows (split conversion, split-converter.ts). Each part is the same document: the same styles,
 * headers and footers, the table's own properties and its repeated header rows; the first part
 * keeps what stands before the table, the last what stands after it. A part that does not start
 * the document starts its page numbers where the whole document's would be (`w:pgNumType
 * w:start`), and once the total is known its NUMPAGES / SECTIONPAGES fields show it, in the field
 * result's own formatting, through a DOCPROPERTY field on a custom document property (as text, the
 * footer of a 186-page statement sat 0.05 pt off the whole document's: LibreOffice places a field's
 * digits apart from the text around them).
 *
 * Only documents whose pages a part can reproduce are split: a table that is a
 * top-level body element with plain rows (no vertical merges, not floating), no endnotes (a
 * part's footnotes are numbered on from the whole document's, see ownFootnotes), no fields whose value depends on the rest of the document (TOC, PAGEREF, REF, SEQ,
 * STYLEREF…), no even/odd or mirrored pages. `planParts` answers null for anything else (and
 * planPartsOrWhy says why), and the document is converted whole.
 *
 * The XML is located, not rebuilt: the parts are slices of the original text, so a part's rows
 * are byte for byte the filled ones.
 */
import {
  CONTENT_TYPES_PART as CONTENT_TYPES,
  ContentTypes,
  CUSTOM_PROPERTIES_PART as CUSTOM_PROPERTIES,
  ROOT_RELS_PART as ROOT_RELS,
  withCustomProperty,
  WORD_FOOTER_TYPE,
  WORD_HEADER_TYPE,
  type PackageProperties,
} from '@app/ooxml';
import PizZip from 'pizzip';

/** Fields whose value does not depend on which pages a part holds (PAGE and NUMPAGES are handled). */
const SAFE_FIELDS = new Set([
  'PAGE',
  'NUMPAGES',
  'SECTIONPAGES',
  'DATE',
  'TIME',
  'CREATEDATE',
  'SAVEDATE',
  'PRINTDATE',
  'AUTHOR',
  'TITLE',
  'SUBJECT',
  'KEYWORDS',
  'DOCPROPERTY',
  'HYPERLINK',
  'MERGEFIELD',
]);
/** Fields a part shows as the whole document's page count. */
const TOTAL_FIELDS = new Set(['NUMPAGES', 'SECTIONPAGES']);
/** Switches under which NUMPAGES still prints plain decimal digits. */
const DECIMAL_SWITCH = /^\\\*\s*(MERGEFORMAT|CHARFORMAT|Arabic)$/i;

const DOCUMENT = 'word/document.xml';
const FOOTNOTES = 'word/footnotes.xml';
/** The custom document property a part's DOCPROPERTY field shows the whole document's page count from. */
export const TOTAL_PAGES_PROPERTY = 'DocgenTotalPages';
/**
 * A 1-pt paragraph, which parts put where the whole document has none and LibreOffice needs one:
 *   - before the table of a part after the first, on its lead page (not exported). LibreOffice puts
 *     the section's page number start on the body's first paragraph; on a body that starts with a
 *     table 25.2 lays the pages out as if the start were not there (7.4 did not);
 *   - after the table of a part before the last, on its last page (not exported either): Word
 *     never ends a body with a table, and there 25.2 narrows a column of a table of automatic
 *     width (`w:tblW w:type="auto"`): the mixed-height test's first, 42.5 pt in the grid, 36 pt.
 * The bridge counts the lead rows after the first one as before.
 */
const TINY_PARAGRAPH =
  '<w:p><w:pPr><w:spacing w:before="0" w:after="0" w:line="20" w:lineRule="exact"/><w:rPr><w:sz w:val="2"/></w:rPr></w:pPr></w:p>';
/** The parts whose fields show page numbers beside the body's, known by content type. */
const HEADER_FOOTER: ReadonlySet<string> = new Set([WORD_HEADER_TYPE, WORD_FOOTER_TYPE]);

export interface PartSpec {
  /** First data row (0-based, header rows not counted). */
  start: number;
  /** One past the last data row. */
  end: number;
  /**
   * Rows before `start` that fill a first page which is not exported, so that `start` begins page
   * 2 as a continued table, as it does in the whole document; 0 for the first part.
   */
  lead: number;
  /**
   * Where the first lead row stands on the page before the part in the whole document (1/100 mm
   * down the page), when that page does not start at a row: the bridge makes the part's first
   * paragraph a spacer that puts it there. Unset: the lead rows start the page.
   */
  leadTop?: number;
  /** Page number the part's first page shows (ignored for the first part, which keeps its own). */
  pageNumber: number;
  /** The whole document's page count for NUMPAGES fields; undefined while unknown. */
  totalPages?: number;
}

/** One of the long tables a plan cuts. */
export interface SplitTable {
  /** Its place among the body's top-level tables. */
  readonly ordinal: number;
  /** Its first data row, counted over the plan's tables. */
  readonly offset: number;
  /** Its data rows (header rows not counted). */
  readonly rows: number;
  /** Header rows repeated on each page (w:tblHeader), which every part repeats too. */
  readonly headerRows: number;
}

/** How the bridge finds a part's tables: the one its lead rows are in, the one a cut is looked for in. */
export interface PartTables {
  table: number;
  headerRows: number;
  cutTable: number;
  cutHeaderRows: number;
  /** Rows of the cut table that are the document's (header rows included); 1-pt padding follows. */
  cutRows: number;
  /** The row (counted over the plan's tables) the bridge's cutRow counts from. */
  cutOrigin: number;
}

export interface SplitPlan {
  /** Data rows of the long tables (header rows not counted), one run of rows over all of them. */
  readonly rows: number;
  /** The long tables, in document order (the longest, and others long enough in the same section). */
  readonly tables: readonly SplitTable[];
  /** Header rows of the first long table. */
  readonly headerRows: number;
  /** The first long table's place among the body's top-level tables (the bridge finds it by this). */
  readonly tableOrdinal: number;
  /** The page number the document starts with (its w:pgNumType w:start, else 1). */
  readonly firstPageNumber: number;
  /** Whether some header, footer or the body shows the page count (NUMPAGES, SECTIONPAGES). */
  readonly showsTotal: boolean;
  /** The part as a .docx. */
  build(part: PartSpec): Buffer;
  /** Which of the part's tables the bridge is to look at. */
  partTables(part: PartSpec): PartTables;
  /** The long table that row `row` (counted over them all) is in. */
  tableOf(row: number): SplitTable;
}

interface Range {
  start: number;
  end: number; // exclusive
}

interface BodyLayout {
  bodyOpenEnd: number;
  tables: { range: Range; rows: Range[] }[];
  /** The body's top-level sectPr elements, in order: paragraphs' (section breaks), then the body's own. */
  sectPrs: Range[];
}

const STRUCTURE = /<(\/?)w:(body|tbl|tr|sectPr)(?=[\s>/])[^>]*?(\/?)>/g;

/**
 * Offsets of the body's top-level tables, their rows, and its sectPr elements. Hand-written
 * rather than htmlparser2, which tokenizes every element: four tag names found by one regular
 * expression take 10,000 rows in tens of milliseconds where the full tokenizer took 0.8 s, and
 * this runs on the worker's event loop.
 */
function locate(xml: string): BodyLayout | null {
  const layout: BodyLayout = { bodyOpenEnd: -1, tables: [], sectPrs: [] };
  let depth = 0; // tables open
  let current: BodyLayout['tables'][number] | undefined;
  let rowStart = -1;
  for (const m of xml.matchAll(STRUCTURE)) {
    const at = m.index ?? 0;
    const closing = m[1] === '/';
    const selfClosing = m[3] === '/';
    const end = at + m[0].length;
    switch (m[2]) {
      case 'body':
        if (!closing) layout.bodyOpenEnd = end;
        break;
      case 'tbl':
        if (!closing) {
          if (depth++ === 0) current = { range: { start: at, end: -1 }, rows: [] };
        } else if (--depth === 0 && current) {
          current.range.end = end;
          layout.tables.push(current);
          current = undefined;
        }
        break;
      case 'tr':
        if (depth !== 1) break;
        if (!closing) rowStart = at;
        else current?.rows.push({ start: rowStart, end });
        break;
      case 'sectPr':
        if (depth !== 0) break;
        if (!closing) {
          layout.sectPrs.push({ start: at, end: selfClosing ? end : -1 });
        } else if (layout.sectPrs.length) layout.sectPrs[layout.sectPrs.length - 1].end = end;
        break;
    }
  }
  return layout.bodyOpenEnd > 0 && depth === 0 ? layout : null;
}

/** Whether `xml` opens as many of `tag` as it closes (a table after it is not inside one). */
function balanced(xml: string, tag: string): boolean {
  return xml.split(`<${tag}>`).length + xml.split(`<${tag} `).length === xml.split(`</${tag}>`).length + 1;
}

/** A `w:tblHeader` (or any on/off element) that is on: no value, or true/1/on. */
function isOn(xml: string, element: string): boolean {
  const m = new RegExp(`<${element}(?:\\s+w:val="([^"]*)")?\\s*/>`).exec(xml);
  return m !== null && (m[1] === undefined || /^(true|1|on)$/i.test(m[1]));
}

interface FieldUse {
  names: Set<string>;
  /** A NUMPAGES with a number format a literal cannot keep (roman, letters, a picture). */
  formatted: boolean;
}

const FIELD_TOKENS =
  /<w:fldChar\b[^>]*?w:fldCharType="(begin|separate|end)"[^>]*>|<w:instrText\b[^>]*>([^<]*)<\/w:instrText>|<w:fldSimple\b[^>]*?w:instr="([^"]*)"/g;

function fieldName(instruction: string): string {
  return (instruction.trim().split(/\s+/)[0] ?? '').toUpperCase();
}

function checkTotalSwitches(instruction: string, use: FieldUse): void {
  if (!TOTAL_FIELDS.has(fieldName(instruction))) return;
  const switches = instruction
    .trim()
    .split(/\s+(?=\\)/)
    .slice(1);
  if (switches.some((s) => !DECIMAL_SWITCH.test(s.trim()))) use.formatted = true;
}

/** The fields an XML part uses (complex fields' instructions gathered across runs). */
function fieldsIn(xml: string, use: FieldUse): void {
  const open: { instruction: string; separated: boolean }[] = [];
  const note = (instruction: string) => {
    use.names.add(fieldName(instruction));
    checkTotalSwitches(instruction, use);
  };
  for (const m of xml.matchAll(FIELD_TOKENS)) {
    const top = open[open.length - 1];
    if (m[3] !== undefined) note(decodeXml(m[3]));
    else if (m[1] === 'begin') open.push({ instruction: '', separated: false });
    else if (m[1] === 'separate' && top) top.separated = true;
    else if (m[1] === 'end' && top) note(open.pop()!.instruction);
    else if (m[2] !== undefined && top && !top.separated) top.instruction += decodeXml(m[2]);
  }
}

function decodeXml(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos);/g, (_, e: string) =>
    e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'amp' ? '&' : e === 'quot' ? '"' : "'",
  );
}

/**
 * Every top-level NUMPAGES / SECTIONPAGES field in `xml` replaced by a DOCPROPERTY field on
 * TOTAL_PAGES_PROPERTY showing `total` (`asText`: one run of text instead), with the formatting
 * of the field's first result run (else of the run that began it).
 */
export function replaceTotalFields(xml: string, total: number, asText = false): string {
  const totalRun = asText ? textRun : propertyField;
  const text = String(total);
  // Simple fields: <w:fldSimple w:instr=" NUMPAGES "><w:r>…</w:r></w:fldSimple>, or self-closed.
  let out = xml.replace(
    /<w:fldSimple\b[^>]*?w:instr="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/w:fldSimple>)/g,
    (whole, instr: string, inner: string | undefined) => {
      if (!TOTAL_FIELDS.has(fieldName(decodeXml(instr)))) return whole;
      return totalRun(firstRunProperties(inner ?? ''), text);
    },
  );
  // Complex fields: from the run holding fldChar begin to the run holding its fldChar end.
  const tokens =
    /<w:r(?=[\s>])[^>]*>|<\/w:r>|<w:fldChar\b[^>]*?w:fldCharType="(begin|separate|end)"[^>]*>|<w:instrText\b[^>]*>([^<]*)<\/w:instrText>/g;
  interface Open {
    runStart: number;
    instruction: string;
    separated: number;
    depth: number;
  }
  const replacements: { start: number; end: number; run: string }[] = [];
  let runStart = -1;
  let depth = 0;
  let field: Open | undefined;
  let pendingEnd = false;
  for (const m of out.matchAll(tokens)) {
    const at = m.index ?? 0;
    if (m[0].startsWith('<w:r') && !m[0].startsWith('<w:rPr')) {
      runStart = at;
      continue;
    }
    if (m[0] === '</w:r>') {
      if (pendingEnd && field) {
        const end = at + m[0].length;
        const result =
          field.separated >= 0 ? out.slice(field.separated, end) : out.slice(field.runStart, end);
        replacements.push({ start: field.runStart, end, run: totalRun(firstRunProperties(result), text) });
        field = undefined;
        pendingEnd = false;
      }
      continue;
    }
    if (m[1] === 'begin') {
      depth++;
      if (depth === 1) field = { runStart, instruction: '', separated: -1, depth };
    } else if (m[1] === 'separate') {
      if (depth === 1 && field) field.separated = at;
    } else if (m[1] === 'end') {
      if (depth === 1 && field) {
        if (TOTAL_FIELDS.has(fieldName(field.instruction))) pendingEnd = true;
        else field = undefined;
      }
      depth = Math.max(0, depth - 1);
    } else if (m[2] !== undefined && depth === 1 && field && field.separated < 0) {
      field.instruction += decodeXml(m[2]);
    }
  }
  for (const r of replacements.reverse()) out = out.slice(0, r.start) + r.run + out.slice(r.end);
  return out;
}

function firstRunProperties(xml: string): string {
  return /<w:rPr>[\s\S]*?<\/w:rPr>/.exec(xml)?.[0] ?? '';
}

function textRun(rPr: string, text: string): string {
  return `<w:r>${rPr}<w:t>${text}</w:t></w:r>`;
}

/** A DOCPROPERTY field on TOTAL_PAGES_PROPERTY, its result already `text` (totalPagesProperty sets the property). */
function propertyField(rPr: string, text: string): string {
  const run = (inner: string) => `<w:r>${rPr}${inner}</w:r>`;
  return (
    run('<w:fldChar w:fldCharType="begin"/>') +
    run(`<w:instrText xml:space="preserve"> DOCPROPERTY ${TOTAL_PAGES_PROPERTY} </w:instrText>`) +
    run('<w:fldChar w:fldCharType="separate"/>') +
    run(`<w:t>${text}</w:t>`) +
    run('<w:fldChar w:fldCharType="end"/>')
  );
}

/**
 * The package's custom properties, content types and root relationships with TOTAL_PAGES_PROPERTY
 * set to `total`, or null when its custom.xml is not one this can add to (then the total is
 * printed as text).
 */
export function totalPagesProperty(
  pkg: PackageProperties,
  total: number,
): Required<PackageProperties> | null {
  return withCustomProperty(pkg, TOTAL_PAGES_PROPERTY, String(total), 'rIdDocgenTotalPages');
}

/**
 * A part's body with its footnote references renumbered 1… in order, and the footnotes part with
 * only those notes, so numbered. LibreOffice 25.2 gives a reference the note that follows the one
 * it gave the reference before (in the footnotes part's order), not the note its id names: a part
 * whose first reference is the document's third note showed the second note's text under it.
 */
function ownFootnotes(body: string, footnotesXml: string): { body: string; footnotes: string } {
  const byId = new Map<string, string>();
  const notes = [...footnotesXml.matchAll(/<w:footnote\b[^>]*>[\s\S]*?<\/w:footnote>/g)];
  if (notes.length === 0) return { body, footnotes: footnotesXml };
  const kept: string[] = [];
  for (const [note] of notes) {
    const id = /\bw:id="(-?\d+)"/.exec(note.slice(0, note.indexOf('>')))?.[1];
    // Separators (w:type="separator", "continuationSeparator"…) stay as they are.
    if (/^<w:footnote\b[^>]*\bw:type="/.test(note)) kept.push(note);
    else if (id !== undefined) byId.set(id, note);
  }
  let next = 0;
  const used: string[] = [];
  const renumbered = body.replace(
    /(<w:footnoteReference\b[^>]*?\bw:id=")(-?\d+)"/g,
    (_, open: string, id: string) => {
      const note = byId.get(id);
      if (note === undefined) return `${open}${id}"`;
      used.push(note.replace(/(<w:footnote\b[^>]*?\bw:id=")-?\d+"/, `$1${++next}"`));
      return `${open}${next}"`;
    },
  );
  const start = notes[0].index!;
  const last = notes[notes.length - 1];
  const end = last.index! + last[0].length;
  return {
    body: renumbered,
    footnotes: footnotesXml.slice(0, start) + kept.join('') + used.join('') + footnotesXml.slice(end),
  };
}

/** Footnote references in `xml` (each prints a number; custom marks are refused by planParts). */
function footnoteRefs(xml: string): number {
  return (xml.match(/<w:footnoteReference\b/g) ?? []).length;
}

/**
 * The section properties for a part: numbering starts at `pageNumber`; no distinct first page;
 * footnotes numbered from `footnoteStart` (0: the section's own numbering).
 */
function partSectPr(sectPr: string, pageNumber: number, footnoteStart = 0): string {
  let out = sectPr.replace(/<w:titlePg\b[^>]*\/>/g, '');
  if (footnoteStart > 0) {
    // Schema order: footnotePr follows the header and footer references, before everything else.
    const refs = [...out.matchAll(/<w:(headerReference|footerReference)\b[^>]*\/>/g)];
    const at = refs.length
      ? refs[refs.length - 1].index! + refs[refs.length - 1][0].length
      : out.indexOf('>') + 1;
    out =
      out.slice(0, at) +
      `<w:footnotePr><w:numStart w:val="${footnoteStart}"/></w:footnotePr>` +
      out.slice(at);
  }
  const numType = /<w:pgNumType\b([^>]*?)\/>/.exec(out);
  if (numType) {
    const attrs = numType[1].replace(/\s*w:start="[^"]*"/, '');
    out = out.replace(numType[0], `<w:pgNumType${attrs} w:start="${pageNumber}"/>`);
  } else {
    // Schema order: pgNumType follows pgBorders, lnNumType, pgMar, pgSz, the headers and footers…
    const before =
      /<w:(cols|formProt|vAlign|noEndnote|titlePg|textDirection|bidi|rtlGutter|docGrid|printerSettings)\b/.exec(
        out,
      );
    const tag = `<w:pgNumType w:start="${pageNumber}"/>`;
    out = before
      ? out.slice(0, before.index) + tag + out.slice(before.index)
      : out.replace(/<\/w:sectPr>$/, `${tag}</w:sectPr>`);
  }
  return out;
}

/** At least `count` table rows anywhere: the few microseconds that spare a short document the parse. */
function hasRows(xml: string, count: number): boolean {
  let at = 0;
  for (let seen = 0; seen < count; seen++) {
    at = xml.indexOf('<w:tr', at);
    if (at < 0) return false;
    at += 5;
  }
  return true;
}

export interface PlanOptions {
  /** Fewer data rows than this: not worth splitting. */
  minRows: number;
}

/**
 * False when `docx` surely has fewer than `minRows` table rows: its document.xml is stored (the
 * worker stores the .docx it converts) and shows fewer `<w:tr` in the raw bytes. Spares every
 * short document the unzip (about a millisecond for the 20-row corpus invoice).
 */
function mayHoldRows(docx: Buffer, minRows: number): boolean {
  let at = 0;
  for (let seen = 0; seen < minRows; seen++) {
    at = docx.indexOf('<w:tr', at, 'latin1');
    if (at < 0) return !storedDocumentXml(docx);
    at += 5;
  }
  return true;
}

/** Whether the zip's local header for word/document.xml says it is stored (method 0), not deflated. */
function storedDocumentXml(docx: Buffer): boolean {
  const name = 'word/document.xml';
  for (let at = docx.indexOf(name, 0, 'latin1'); at >= 0; at = docx.indexOf(name, at + 1, 'latin1')) {
    // A local file header: signature 30 bytes before the name, the name's length at 26, the method at 8.
    const header = at - 30;
    if (
      header >= 0 &&
      docx.readUInt32LE(header) === 0x04034b50 &&
      docx.readUInt16LE(header + 26) === name.length
    ) {
      return docx.readUInt16LE(header + 8) === 0;
    }
  }
  return false;
}

/**
 * LibreOffice 25.2 lays a table's first page out otherwise once the table has some 520 rows: a
 * row that may break across pages and would break at the bottom of the table's first page moves
 * to the next page whole (the corpus statement in two-line rows: 512 rows, and 300 rows with 213
 * rows of 1 pt after them, broke the row; 530, 550 and 1,200 moved it). A part of a large table
 * therefore ends its last table with empty 1-pt rows up to LARGE_TABLE_ROWS, after its cut, where
 * they print nowhere; a table of SMALL_TABLE_ROWS to LARGE_TABLE_ROWS rows is not cut.
 */
const SMALL_TABLE_ROWS = 512;
const LARGE_TABLE_ROWS = 600;

interface CutTable {
  ordinal: number;
  headerRows: number;
  /** LARGE_TABLE_ROWS rows or more (header rows counted), and between that and SMALL_TABLE_ROWS. */
  large: boolean;
  undecided: boolean;
  /** An empty row of 1 pt spanning the table's grid. */
  padRow: string;
  /** From the table's start to its first row, its header rows, its data rows, from its last row to its end. */
  open: string;
  header: string;
  data: string[];
  close: string;
}

/** Table `ordinal` of the body as rows a part can hold some of, or why it cannot be cut. */
function cutTable(xml: string, layout: BodyLayout, ordinal: number): CutTable | WholeReason {
  const table = layout.tables[ordinal];
  if (table.rows.length === 0) return whole('its longest table has no rows', true);
  // Floating; or still in a table style, whose bands and first/last rows LibreOffice counts from
  // each part's own first row (RESOLVE_TABLE_STYLES, on by default, writes them out per cell).
  if (/<w:(tblpPr|tblStyle)\b/.test(xml.slice(table.range.start, table.rows[0].start)))
    return whole('its long table floats or keeps a table style');
  // A table inside a content control or custom XML element is not the body's own child.
  const before = xml.slice(layout.bodyOpenEnd, table.range.start);
  if (!balanced(before, 'w:sdtContent') || !balanced(before, 'w:customXml'))
    return whole('its long table is inside a content control');
  // Rows must follow one another (nothing between them a part would lose or repeat).
  for (let i = 1; i < table.rows.length; i++) {
    if (xml.slice(table.rows[i - 1].end, table.rows[i].start).trim() !== '')
      return whole('its long table has content between rows');
  }
  const rowXml = table.rows.map((r) => xml.slice(r.start, r.end));
  let headerRows = 0;
  while (
    headerRows < rowXml.length &&
    isOn(/<w:trPr>[\s\S]*?<\/w:trPr>/.exec(rowXml[headerRows])?.[0] ?? '', 'w:tblHeader')
  ) {
    headerRows++;
  }
  if (rowXml.some((row) => row.includes('<w:vMerge')))
    return whole('its long table has cells merged down rows (vertical merges)');
  const open = xml.slice(table.range.start, table.rows[0].start);
  const columns = Math.max(1, (open.match(/<w:gridCol\b/g) ?? []).length);
  return {
    ordinal,
    headerRows,
    large: rowXml.length >= LARGE_TABLE_ROWS,
    undecided: rowXml.length > SMALL_TABLE_ROWS && rowXml.length < LARGE_TABLE_ROWS,
    padRow:
      '<w:tr><w:trPr><w:trHeight w:val="20" w:hRule="exact"/></w:trPr>' +
      `<w:tc><w:tcPr>${columns > 1 ? `<w:gridSpan w:val="${columns}"/>` : ''}</w:tcPr><w:p/></w:tc></w:tr>`,
    open,
    header: rowXml.slice(0, headerRows).join(''),
    data: rowXml.slice(headerRows),
    close: xml.slice(table.rows[table.rows.length - 1].end, table.range.end),
  };
}

/**
 * Why a document is converted whole: `short` when it has no table long enough to be worth
 * parts (a whole conversion is as fast), else what a part could not reproduce. The reason is
 * said to the caller when the whole conversion is refused as beyond its time (conversion-budget.ts).
 */
export interface WholeReason {
  readonly short: boolean;
  readonly reason: string;
  /** The document.xml planPartsOrWhy read, when it got that far: the budget sizes it without unzipping again. */
  readonly documentXml?: string;
}

function whole(reason: string, short = false): WholeReason {
  return { short, reason };
}

export function isWholeReason<T extends object>(plan: T | WholeReason): plan is WholeReason {
  return 'reason' in plan;
}

/** How to cut `docx` into parts, or null when it has no long table or a part could not look the same. */
export function planParts(docx: Buffer, options: PlanOptions): SplitPlan | null {
  const plan = planPartsOrWhy(docx, options);
  return isWholeReason(plan) ? null : plan;
}

/** How to cut `docx` into parts, or why it is converted whole (planParts' answer, with its reason). */
export function planPartsOrWhy(docx: Buffer, options: PlanOptions): SplitPlan | WholeReason {
  let documentXml: string | undefined;
  const plan = planOrWhy(docx, options, (xml) => (documentXml = xml));
  return isWholeReason(plan) && documentXml !== undefined ? { ...plan, documentXml } : plan;
}

function planOrWhy(docx: Buffer, options: PlanOptions, read: (xml: string) => void): SplitPlan | WholeReason {
  const short = whole(`no table has ${options.minRows} rows or more`, true);
  if (!mayHoldRows(docx, options.minRows)) return short;
  let zip: PizZip;
  try {
    zip = new PizZip(docx);
  } catch {
    return whole('not a readable .docx'); // the converter reports what is wrong with it
  }
  const xml = zip.file(DOCUMENT)?.asText();
  if (xml) read(xml);
  if (!xml || !hasRows(xml, options.minRows)) return short;
  // Cheap refusals first: several sections, notes, page layouts a part cannot start in the middle of.
  // Endnotes print at the end, with the notes of every part: a part cannot show them.
  if (/<w:endnoteReference\b/.test(xml)) return whole('it has endnotes');
  const settings = zip.file('word/settings.xml')?.asText() ?? '';
  if (
    isOn(settings, 'w:evenAndOddHeaders') ||
    isOn(settings, 'w:mirrorMargins') ||
    isOn(settings, 'w:bookFoldPrinting')
  ) {
    return whole('it has even/odd headers, mirrored margins or book folding');
  }
  const layout = locate(xml);
  const bodySect = layout?.sectPrs[layout.sectPrs.length - 1];
  if (!layout || !bodySect || bodySect.end < 0) return whole('its body has no section properties at its end');

  let longest = -1;
  layout.tables.forEach((t, i) => {
    if (longest < 0 || t.rows.length > layout.tables[longest].rows.length) longest = i;
  });
  if (longest < 0) return short;
  const main = cutTable(xml, layout, longest);
  if (isWholeReason(main)) return main;
  if (main.data.length < options.minRows) return short;
  if (main.undecided)
    return whole(
      `its long table has ${SMALL_TABLE_ROWS + 1} to ${LARGE_TABLE_ROWS - 1} rows, a size LibreOffice lays out either way`,
    );
  // Other long tables of the same section are cut too (a statement's two halves): those of half
  // the minimum or more, each in one run with the longest, nothing but text and short tables
  // between them. A table that cannot be cut stays within a part, as the short ones do.
  const sectAfter = (t: number) => layout.sectPrs.find((r) => r.start > layout.tables[t].range.end)!;
  const tables = [main];
  for (const step of [-1, 1]) {
    for (let i = longest + step; i >= 0 && i < layout.tables.length; i += step) {
      if (layout.tables[i].rows.length < options.minRows / 2 || sectAfter(i) !== sectAfter(longest)) continue;
      const t = cutTable(xml, layout, i);
      if (isWholeReason(t) || t.data.length < options.minRows / 2 || t.undecided) continue;
      if (step < 0) tables.unshift(t);
      else tables.push(t);
    }
  }
  const table = layout.tables[tables[0].ordinal];
  const lastTable = layout.tables[tables[tables.length - 1].ordinal];
  // The tables' section: the first section break after them (a paragraph's sectPr), else the body's.
  // Sections before it print in the first part only, sections after it in the last.
  const tableSect = sectAfter(tables[0].ordinal);
  if (layout.sectPrs.some((r) => r.start > table.range.end && r.end < lastTable.range.start))
    return whole('a section break falls between its long tables');
  const sectPr = xml.slice(tableSect.start, tableSect.end);
  if (/<w:pgNumType\b[^>]*w:chapStyle/.test(sectPr)) return whole('its page numbers include chapter numbers');
  const sections = layout.sectPrs.length;
  // Page numbers count from the document's start: a section restarting them is left whole
  // (the table's own may restart them when it is the first section).
  const sectionsBefore = layout.sectPrs.filter((r) => r.end < table.range.start);
  if (
    sectionsBefore.length > 0 &&
    layout.sectPrs.some((r) => /<w:pgNumType\b[^>]*w:start=/.test(xml.slice(r.start, r.end)))
  )
    return whole('a section after the first restarts the page numbers');
  // Footnotes numbered per page or section restart where a part cannot tell; custom marks and a
  // numbering start of the document's own are left to a whole conversion too.
  const footnotes = footnoteRefs(xml);
  if (
    footnotes > 0 &&
    /<w:(numRestart|numStart)\b/.test(
      layout.sectPrs.map((r) => xml.slice(r.start, r.end)).join('') +
        (zip.file('word/settings.xml')?.asText() ?? ''),
    )
  )
    return whole('its footnotes restart their numbering or start at a number of their own');

  const use: FieldUse = { names: new Set(), formatted: false };
  const headerFooterNames = new ContentTypes(zip.file(CONTENT_TYPES)?.asText() ?? '').partsOfType(
    Object.keys(zip.files),
    HEADER_FOOTER,
  );
  fieldsIn(xml, use);
  for (const name of headerFooterNames) fieldsIn(zip.file(name)!.asText(), use);
  if (use.formatted) return whole('it shows the page count in a number format other than digits');
  const unsafe = [...use.names].filter((name) => !SAFE_FIELDS.has(name));
  if (unsafe.length > 0)
    return whole(`it has a field that depends on the whole document (${unsafe.join(', ')})`);
  const showsTotal = [...use.names].some((name) => TOTAL_FIELDS.has(name));
  // SECTIONPAGES of a document of several sections is not the total a part is given.
  if (sections > 1 && use.names.has('SECTIONPAGES'))
    return whole('it shows SECTIONPAGES in a document of several sections');

  const startAttr = /<w:pgNumType\b[^>]*?w:start="(\d+)"/.exec(sectPr);
  const firstPageNumber = startAttr ? Number(startAttr[1]) : 1;
  const prefix = xml.slice(0, table.range.start);
  const bodyOpen = xml.slice(0, layout.bodyOpenEnd);
  // Between one long table and the next: text, short tables.
  const between = tables
    .slice(1)
    .map((t, i) =>
      xml.slice(layout.tables[tables[i].ordinal].range.end, layout.tables[t.ordinal].range.start),
    );
  // What follows the last table to the body's sectPr: the tables' section break among it, if any.
  const after = xml.slice(lastTable.range.end, bodySect.start);
  const bodySectPr = xml.slice(bodySect.start, bodySect.end);
  const tableSectInAfter = tableSect === bodySect ? -1 : tableSect.start - lastTable.range.end;
  const suffix = xml.slice(bodySect.end);
  const offsets: number[] = [];
  let dataRows = 0;
  for (const t of tables) {
    offsets.push(dataRows);
    dataRows += t.data.length;
  }
  const splitTables: SplitTable[] = tables.map((t, i) => ({
    ordinal: t.ordinal,
    offset: offsets[i],
    rows: t.data.length,
    headerRows: t.headerRows,
  }));
  const indexOf = (row: number) => {
    let i = 0;
    while (i + 1 < tables.length && offsets[i + 1] <= row) i++;
    return i;
  };
  // Footnotes referenced before each data row (the text before the tables' and between them,
  // then the rows'): a part's footnote numbering starts after them (w:footnotePr w:numStart).
  const notesBefore: number[] = [];
  if (footnotes > 0) {
    let seen = footnoteRefs(prefix);
    tables.forEach((t, i) => {
      if (i > 0) seen += footnoteRefs(between[i - 1]);
      for (const row of t.data) {
        notesBefore.push(seen);
        seen += footnoteRefs(row);
      }
    });
  }
  const headersAndFooters = headerFooterNames.map((name) => [name, zip.file(name)!.asText()] as const);
  const footnotesXml = footnotes > 0 ? zip.file(FOOTNOTES)?.asText() : undefined;
  // Each reference its own note, as Word writes them (a note referenced twice prints once).
  const noteIds = [...xml.matchAll(/<w:footnoteReference\b[^>]*?\bw:id="(-?\d+)"/g)].map((m) => m[1]);
  if (footnotes > 0 && (footnotesXml === undefined || new Set(noteIds).size !== noteIds.length))
    return whole('a footnote is referenced twice, or its notes part is missing');
  const ownProperties: PackageProperties = {
    custom: zip.file(CUSTOM_PROPERTIES)?.asText(),
    contentTypes: zip.file(CONTENT_TYPES)?.asText() ?? '',
    rootRels: zip.file(ROOT_RELS)?.asText() ?? '',
  };

  // Every part converted with the same total gets the same properties: built once a total.
  const byTotal = new Map<number, Required<PackageProperties> | null>();
  const propertiesWith = (total: number) => {
    if (!byTotal.has(total)) byTotal.set(total, totalPagesProperty(ownProperties, total));
    return byTotal.get(total)!;
  };

  return {
    rows: dataRows,
    tables: splitTables,
    headerRows: tables[0].headerRows,
    tableOrdinal: tables[0].ordinal,
    firstPageNumber,
    showsTotal,
    build(part: PartSpec): Buffer {
      const from = part.start - part.lead;
      if (!(from >= 0 && part.lead >= 0 && part.end > part.start && part.end <= dataRows)) {
        throw new RangeError(`rows ${from}–${part.end} are not within 0–${dataRows}`);
      }
      const first = from === 0;
      // The last part holds the last table's end and what follows it.
      const last = part.end === dataRows;
      const totalPages = showsTotal ? part.totalPages : undefined;
      const withTotal = totalPages !== undefined ? propertiesWith(totalPages) : null;
      const total = (s: string) =>
        totalPages !== undefined ? replaceTotalFields(s, totalPages, withTotal === null) : s;
      const ownSectPr = first
        ? sectPr
        : partSectPr(
            sectPr,
            part.pageNumber - (part.lead > 0 ? 1 : 0),
            footnotes > 0 ? notesBefore[from] + 1 : 0,
          );
      // A part before the last ends with the table's section; the last has what follows the
      // table, the table's section break (its sectPr the part's) and later sections among it.
      const tail = !last
        ? TINY_PARAGRAPH + ownSectPr
        : tableSectInAfter < 0
          ? after + ownSectPr
          : after.slice(0, tableSectInAfter) +
            ownSectPr +
            after.slice(tableSectInAfter + sectPr.length) +
            bodySectPr;
      // The tables the part's rows are in, each with its header rows and what stands between.
      let rowsXml = '';
      for (let i = indexOf(from); i <= indexOf(part.end - 1); i++) {
        const t = tables[i];
        const a = Math.max(from, offsets[i]) - offsets[i];
        const b = Math.min(part.end, offsets[i] + t.data.length) - offsets[i];
        if (i > indexOf(from)) rowsXml += between[i - 1];
        // The part's last table, when it goes on past the part: padded to a large table's rows
        // after the cut (see LARGE_TABLE_ROWS), if the whole table is large.
        const pad =
          !last && i === indexOf(part.end - 1) && t.large
            ? Math.max(0, LARGE_TABLE_ROWS - t.headerRows - (b - a))
            : 0;
        rowsXml += t.open + t.header + t.data.slice(a, b).join('') + t.padRow.repeat(pad) + t.close;
      }
      let body = (first ? prefix : bodyOpen + TINY_PARAGRAPH) + rowsXml + tail + suffix;
      if (footnotesXml !== undefined) {
        // The zip is shared by every part built: the first part gets the document's notes back.
        const notes = first ? { body, footnotes: footnotesXml } : ownFootnotes(body, footnotesXml);
        body = notes.body;
        zip.file(FOOTNOTES, notes.footnotes);
      }
      zip.file(DOCUMENT, total(body));
      for (const [name, text] of headersAndFooters) zip.file(name, total(text));
      // The part's total as a custom property, or the package's own properties (built before).
      const properties = withTotal ?? ownProperties;
      if (properties.custom !== undefined) zip.file(CUSTOM_PROPERTIES, properties.custom);
      else zip.remove(CUSTOM_PROPERTIES);
      if (zip.file(CONTENT_TYPES)) zip.file(CONTENT_TYPES, properties.contentTypes);
      if (zip.file(ROOT_RELS)) zip.file(ROOT_RELS, properties.rootRels);
      // Stored, not deflated: LibreOffice reads it once, from tmpfs.
      return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
    },
    partTables(part: PartSpec): PartTables {
      const from = part.start - part.lead;
      const a = indexOf(from);
      const b = indexOf(part.end - 1);
      // A part after the first leaves out what stands before its first table; short tables
      // between its long ones count.
      const ordinal = (i: number) => tables[i].ordinal - (from === 0 ? 0 : tables[a].ordinal);
      return {
        table: ordinal(a),
        headerRows: tables[a].headerRows,
        cutTable: ordinal(b),
        cutHeaderRows: tables[b].headerRows,
        cutRows:
          tables[b].headerRows +
          Math.min(part.end, offsets[b] + tables[b].data.length) -
          Math.max(from, offsets[b]),
        cutOrigin: a === b ? part.start : offsets[b],
      };
    },
    tableOf(row: number): SplitTable {
      return splitTables[indexOf(row)];
    },
  };
}
