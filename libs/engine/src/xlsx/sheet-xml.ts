/**
 * The pieces of SpreadsheetML the fill reads and writes: rows, cells, attributes, shared strings,
 * cell styles. SpreadsheetML's sheet data is flat and regular (rows of cells, written by every
 * producer in one shape), so it is read with bounded regular expressions rather than a DOM: a
 * 2,000-row sheet is one pass over its text and no tree of a hundred thousand nodes.
 */
import { decodeXmlText } from '../syntax/tag-scanner';

export function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name.replace(':', '\\:')}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(tag);
  return m ? decodeXmlText(m[2] ?? m[3]) : undefined;
}

/** `attrs` (the text after an element's name) with `name` set to `value`, or removed when undefined. */
export function setAttr(attrs: string, name: string, value: string | undefined): string {
  const re = new RegExp(`\\s${name.replace(':', '\\:')}\\s*=\\s*("[^"]*"|'[^']*')`);
  const without = attrs.replace(re, '');
  return value === undefined ? without : `${without} ${name}="${escapeXml(value)}"`;
}

/** Characters XML 1.0 cannot hold (a control character in data would make the part unreadable). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text for element content: `&`, `<`, `>` escaped, characters XML cannot hold dropped. */
export function escapeText(s: string): string {
  return s.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text for an attribute value: also `"`. */
export function escapeXml(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}

export interface TemplateCell {
  /** Column, 0-based. */
  col: number;
  /** The `<c` element's attributes without `r`. */
  attrs: string;
  /** The element's content (`<f>…</f><v>…</v>`, `<is>…</is>`), '' when empty. */
  inner: string;
  /** The text of a string cell (shared or inline), decoded. */
  text?: string;
}

export interface TemplateRow {
  r: number;
  /** The `<row` element's attributes without `r` (height, style, outline…). */
  attrs: string;
  cells: TemplateCell[];
}

const ROW = /<row\b([^>]*?)(?:\/>|>([\s\S]*?)<\/row>)/g;
const CELL = /<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g;
const TEXT = /<t\b[^>]*?(?:\/>|>([\s\S]*?)<\/t>)/g;

export function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

export function columnName(index: number): string {
  let s = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** The text of an `<si>` or `<is>`: its runs' `<t>`s together, phonetic hints (`<rPh>`) left out. */
export function richText(xml: string): string {
  const plain = xml.replace(/<rPh\b[\s\S]*?<\/rPh>/g, '');
  let out = '';
  TEXT.lastIndex = 0;
  for (let m = TEXT.exec(plain); m; m = TEXT.exec(plain)) out += m[1] ?? '';
  return decodeXmlText(out);
}

/** The shared strings, in order. */
export function readSharedStrings(xml: string): string[] {
  const out: string[] = [];
  const SI = /<si\b[^>]*?(?:\/>|>([\s\S]*?)<\/si>)/g;
  for (let m = SI.exec(xml); m; m = SI.exec(xml)) out.push(m[1] ? richText(m[1]) : '');
  return out;
}

/** The rows of a `<sheetData>`, each with its cells; string cells carry their text. */
export function readRows(sheetData: string, shared: readonly string[]): TemplateRow[] {
  const rows: TemplateRow[] = [];
  let next = 1;
  ROW.lastIndex = 0;
  for (let m = ROW.exec(sheetData); m; m = ROW.exec(sheetData)) {
    const rAttr = attr(m[1], 'r');
    const r = rAttr ? Number(rAttr) : next;
    next = r + 1;
    const cells: TemplateCell[] = [];
    let nextCol = 0;
    const body = m[2] ?? '';
    CELL.lastIndex = 0;
    for (let c = CELL.exec(body); c; c = CELL.exec(body)) {
      const ref = attr(c[1], 'r');
      const col = ref ? columnIndex(/^[A-Za-z]+/.exec(ref)?.[0] ?? 'A') : nextCol;
      nextCol = col + 1;
      const inner = c[2] ?? '';
      const type = attr(c[1], 't');
      let text: string | undefined;
      if (type === 's') {
        const v = /<v>([^<]*)<\/v>/.exec(inner);
        text = v ? shared[Number(v[1])] : undefined;
      } else if (type === 'inlineStr') {
        const is = /<is>([\s\S]*?)<\/is>/.exec(inner);
        text = is ? richText(is[1]) : '';
      }
      cells.push({ col, attrs: setAttr(c[1], 'r', undefined), inner, text });
    }
    rows.push({ r, attrs: setAttr(m[1], 'r', undefined), cells });
  }
  return rows;
}

/** Built-in number formats that are dates or times (ECMA-376 part 1, 18.8.30). */
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** A number format code that shows a date or time (`yyyy-mm-dd`, `d.m.yy h:mm`), quoted text aside. */
function isDateCode(code: string): boolean {
  const bare = code.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, '');
  return /[dmyhs]/i.test(bare) && !/^general$/i.test(bare.trim());
}

/** The workbook's cell styles (`cellXfs`): which show dates, and adding a date style. */
export class CellStyles {
  private readonly xfs: string[];
  private readonly dateFormatIds = new Set<number>(BUILTIN_DATE_FORMATS);
  private readonly asDate = new Map<number, number>();
  private changed = false;

  constructor(private xml: string) {
    for (const m of xml.matchAll(/<numFmt\b[^>]*>/g)) {
      const id = Number(attr(m[0], 'numFmtId'));
      if (isDateCode(attr(m[0], 'formatCode') ?? '')) this.dateFormatIds.add(id);
    }
    const block = /<cellXfs\b[^>]*>([\s\S]*?)<\/cellXfs>/.exec(xml);
    this.xfs = block ? [...block[1].matchAll(/<xf\b[^>]*?(?:\/>|>[\s\S]*?<\/xf>)/g)].map((m) => m[0]) : [];
  }

  isDate(style: number): boolean {
    const xf = this.xfs[style];
    return xf !== undefined && this.dateFormatIds.has(Number(attr(xf, 'numFmtId') ?? '0'));
  }

  /** A style like `style` that shows a date (built-in format 14): itself when it does already. */
  dateStyleFor(style: number): number {
    if (this.isDate(style)) return style;
    const known = this.asDate.get(style);
    if (known !== undefined) return known;
    const base = this.xfs[style] ?? '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>';
    const open = /^<xf\b([^>]*?)(\/?)>/.exec(base)!;
    let attrs = setAttr(open[1], 'numFmtId', '14');
    attrs = setAttr(attrs, 'applyNumberFormat', '1');
    this.xfs.push(base.replace(open[0], `<xf${attrs}${open[2]}>`));
    this.asDate.set(style, this.xfs.length - 1);
    this.changed = true;
    return this.xfs.length - 1;
  }

  /** The styles part with any added style, or null when nothing changed. */
  toXml(): string | null {
    if (!this.changed) return null;
    return this.xml.replace(
      /<cellXfs\b[^>]*>[\s\S]*?<\/cellXfs>/,
      `<cellXfs count="${this.xfs.length}">${this.xfs.join('')}</cellXfs>`,
    );
  }
}
