/**
 * Table styles resolved into direct formatting, for a .docx on its way to LibreOffice.
 *
 * LibreOffice (25.2, which the service runs, as 7.4 before it) spends most of a long table's import
 * applying its table style (measured in docs/conversion.md, "LibreOffice versions and long
 * tables"): the same look written as each
 * table's, cell's, paragraph's and run's own formatting imports in about half the time. This module
 * writes that formatting and drops `w:tblStyle`, so the pages must come out as LibreOffice draws
 * the styled table. Its rules therefore follow LibreOffice's writerfilter (the converter we must
 * match) and say so where that differs from ECMA-376 / Word:
 *
 * - whole-table properties (`w:pPr`, `w:rPr`, `w:tblPr`, `w:tcPr` of the style) merge along the
 *   `w:basedOn` chain (StyleSheetEntry::GetMergedInheritedProperties); the conditional formats
 *   (`w:tblStylePr`) are the style's own (TableStyleSheetEntry::GetLocalPropertiesFromMask).
 * - Which conditional formats a cell takes: DomainMapperTableHandler::endTableGetCellProperties.
 *   First row / last row (and a `w:tblHeader` row) take no horizontal band, first / last cell no
 *   vertical band; bands count from the first non-header row / column. `w:tblLook` (0x04A0 when
 *   absent): the legacy `w:val` hex, as LibreOffice reads it, 25.2 as 7.4 (tblLookMask). Bands are one row
 *   or column each, as LibreOffice counts them whatever `w:tblStyleRowBandSize` / `ColBandSize`
 *   say (ECMA-376 §17.7.6 would group them; every built-in Word style uses 1): the resolution must
 *   not change the page LibreOffice draws.
 * - Precedence, lowest first: band2Horz, band1Horz, band2Vert, band1Vert, lastCol, firstCol,
 *   lastRow, firstRow, swCell, seCell, nwCell, neCell; a firstRow / lastRow / firstCol / lastCol
 *   format with its outer edge drops the inside border merged so far (lcl_mergeProps).
 * - Cell borders: the conditional `insideH` / `insideV` become the cell's own edges as
 *   lcl_computeCellBorders places them; the table's own borders stay on the table.
 * - Paragraph and run properties of the style go where the paragraph, its run, the run's
 *   character style and the paragraph's style (not the document defaults) set nothing, except
 *   that the default paragraph style's font size of 11 or 12 pt and left alignment give way to
 *   the table style (DomainMapperTableHandler::ApplyParagraphPropertiesFromTableStyle).
 * - Direct formatting already present always wins.
 * - Two things of a style LibreOffice applies where no direct formatting reaches, and a table
 *   whose style has either keeps it (keepsStyle):
 *   - shading of every cell (`w:tcPr/w:shd` outside the conditional formats: 49 of the 100
 *     built-in styles of Word's default template, Medium Grid, Dark List, Colorful…). LibreOffice
 *     also makes it the table's background, painted once under all cells; cells shaded one by one
 *     leave seams that show the page as hairlines at some positions (seen at 100 dpi on Dark List
 *     and Medium Grid 2). No direct formatting sets a table's background in its DOCX import
 *     (`w:tblPr/w:shd` goes to the cells), and a generated style holding only the shading made
 *     LibreOffice slower than the original style did (1,500 rows of Medium Grid 1 Accent 1:
 *     2.35 s against 2.05 s styled, 1.77 s resolved);
 *   - a font size (`w:sz`, in the style or a conditional format). LibreOffice sets it on the
 *     whole paragraph (ApplyParagraphPropertiesFromTableStyle), whose size also counts in the
 *     height of its lines; written on the runs and the paragraph mark, the paragraph keeps the
 *     default 11 pt: a 9 pt table's rows grew 0.3 pt each, and 12, 14 and 16 pt (in the style, a
 *     header or a band) moved rows too.
 *   Except from `allFromRows` rows on: a long table must lose its style to be converted in parts
 *   (split conversion), which matters more than a hairline or a row a little taller.
 * - A style based on another table style (`w:basedOn`, a company style on Table Grid or Light
 *   List) takes from it what LibreOffice does, not what Word does: its run, table and cell
 *   properties, but neither its paragraph properties (Table Grid's single spacing) nor its
 *   conditional formats (measured on 25.2: a style based on one that sets each, against that one).
 * - A table with cells merged down rows (`w:vMerge`) keeps its style, however long: LibreOffice
 *   borders a merged cell of Light List and Medium Shading 2 (14 of the 100 built-in styles)
 *   otherwise than the cells written out (seen at 100 dpi), and such a table is never converted
 *   in parts anyway. Cells merged across columns (`w:gridSpan`) are resolved: all 100 styles
 *   draw the same.
 *
 * Hand-written over a small element tree (htmlparser2 in XML mode, entities left as written), on
 * each styled table's text only: everything outside the tables stays byte for byte.
 */
import { Parser } from 'htmlparser2';
import { DigestLru, readStylesPart, type StylesPart } from '@app/engine';
import { packagePartsOfType } from '@app/ooxml';
import { LAID_OUT_PART_TYPES } from './word-parts';

interface El {
  name: string;
  attrs: Record<string, string>;
  children: Node[];
}
type Node = El | string;

function parseXml(xml: string): Node[] {
  const root: El = { name: '', attrs: {}, children: [] };
  const stack: El[] = [root];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        const el: El = { name, attrs, children: [] };
        stack[stack.length - 1].children.push(el);
        stack.push(el);
      },
      onclosetag() {
        if (stack.length > 1) stack.pop();
      },
      ontext(text) {
        stack[stack.length - 1].children.push(text);
      },
      onprocessinginstruction(_name, data) {
        stack[stack.length - 1].children.push(`<${data}>`);
      },
    },
    { xmlMode: true, decodeEntities: false, recognizeSelfClosing: true },
  );
  parser.write(xml);
  parser.end();
  return root.children;
}

// String concatenation (V8 ropes), not an array of pieces: a 2,000-row table is ~100,000 nodes.
function serialize(nodes: Node[]): string {
  let out = '';
  for (const n of nodes) {
    if (typeof n === 'string') {
      out += n;
      continue;
    }
    out += '<' + n.name;
    for (const k in n.attrs) {
      const v = n.attrs[k];
      out += v.includes('"') ? ` ${k}='${v}'` : ` ${k}="${v}"`;
    }
    out += n.children.length === 0 ? '/>' : '>' + serialize(n.children) + '</' + n.name + '>';
  }
  return out;
}

function child(el: El | undefined, name: string): El | undefined {
  if (!el) return undefined;
  for (const c of el.children) if (typeof c !== 'string' && c.name === name) return c;
  return undefined;
}
const elements = (el: El): El[] => el.children.filter((c): c is El => typeof c !== 'string');

// ---------------------------------------------------------------------------------------------
// Properties as keyed maps. A key is what LibreOffice treats as one property: an element
// (`w:b`), one edge of a border or margin container (`w:tcBorders/w:top`), or one group of
// attributes of the elements whose attributes set separate properties (`w:spacing@after`).

interface Prop {
  /** The element (or, for a container's edge, the container). */
  el: string;
  /** A container's child element. */
  sub?: El;
  /** The element itself (simple properties) or the attributes of one group. */
  node?: El;
  attrs?: Record<string, string>;
}
type PropMap = Map<string, Prop>;

const CONTAINERS = new Set(['w:tcBorders', 'w:tblBorders', 'w:pBdr', 'w:tblCellMar', 'w:tcMar']);
/** Attributes that set separate properties: spacing before/after/line, indents, fonts per script. */
const ATTR_GROUPS: Record<string, Record<string, string>> = {
  'w:spacing': {
    'w:before': 'before',
    'w:beforeLines': 'before',
    'w:beforeAutospacing': 'before',
    'w:after': 'after',
    'w:afterLines': 'after',
    'w:afterAutospacing': 'after',
    'w:line': 'line',
    'w:lineRule': 'line',
  },
  'w:ind': {
    'w:left': 'start',
    'w:start': 'start',
    'w:leftChars': 'start',
    'w:startChars': 'start',
    'w:right': 'end',
    'w:end': 'end',
    'w:rightChars': 'end',
    'w:endChars': 'end',
    'w:firstLine': 'first',
    'w:firstLineChars': 'first',
    'w:hanging': 'first',
    'w:hangingChars': 'first',
  },
  'w:rFonts': {
    'w:ascii': 'ascii',
    'w:asciiTheme': 'ascii',
    'w:hAnsi': 'hAnsi',
    'w:hAnsiTheme': 'hAnsi',
    'w:eastAsia': 'eastAsia',
    'w:eastAsiaTheme': 'eastAsia',
    'w:cs': 'cs',
    'w:cstheme': 'cs',
    'w:hint': 'hint',
  },
  'w:lang': { 'w:val': 'val', 'w:eastAsia': 'eastAsia', 'w:bidi': 'bidi' },
};
/** Never copied: change tracking and what only means something inside a style. */
const SKIPPED = new Set([
  'w:rPrChange',
  'w:pPrChange',
  'w:tcPrChange',
  'w:tblPrChange',
  'w:trPrChange',
  'w:tblStyle',
  'w:tblStyleRowBandSize',
  'w:tblStyleColBandSize',
  'w:tblLook',
  'w:rPr',
  'w:sectPr',
  'w:cnfStyle',
  'w:tcW',
  'w:gridSpan',
  'w:vMerge',
  'w:hMerge',
  'w:pStyle',
  'w:rStyle',
  'w:numPr',
]);

function propsOf(el: El | undefined, into: PropMap = new Map()): PropMap {
  if (!el) return into;
  for (const c of elements(el)) {
    if (SKIPPED.has(c.name)) continue;
    if (CONTAINERS.has(c.name)) {
      for (const edge of elements(c)) into.set(`${c.name}/${edge.name}`, { el: c.name, sub: edge });
    } else if (ATTR_GROUPS[c.name]) {
      const groups = ATTR_GROUPS[c.name];
      const byGroup = new Map<string, Record<string, string>>();
      for (const [k, v] of Object.entries(c.attrs)) {
        const g = groups[k] ?? k;
        byGroup.set(g, { ...byGroup.get(g), [k]: v });
      }
      for (const [g, attrs] of byGroup) into.set(`${c.name}@${g}`, { el: c.name, attrs });
    } else into.set(c.name, { el: c.name, node: c });
  }
  return into;
}

function merged(...maps: (PropMap | undefined)[]): PropMap {
  const out: PropMap = new Map();
  for (const m of maps) if (m) for (const [k, v] of m) out.set(k, v);
  return out;
}

/** Writes `add` into the property element `target` (which has none of its keys). */
function writeProps(target: El, add: PropMap, before: readonly string[]): void {
  if (add.size === 0) return;
  const fresh: El[] = [];
  const find = (name: string): El | undefined => child(target, name) ?? fresh.find((e) => e.name === name);
  for (const p of add.values()) {
    if (p.sub) {
      let box = find(p.el);
      if (!box) fresh.push((box = { name: p.el, attrs: {}, children: [] }));
      box.children.push(p.sub);
    } else if (p.attrs) {
      const el = find(p.el);
      if (el) Object.assign(el.attrs, p.attrs);
      else fresh.push({ name: p.el, attrs: { ...p.attrs }, children: [] });
    } else if (p.node) fresh.push(p.node);
  }
  if (!fresh.length) return;
  // Before the elements the schema puts last (w:rPr, w:sectPr, change tracking).
  let at = target.children.findIndex((c) => typeof c !== 'string' && before.includes(c.name));
  if (at < 0) at = target.children.length;
  target.children.splice(at, 0, ...fresh.map((e) => cloneEl(e)));
}

function cloneEl(e: El): El {
  return {
    name: e.name,
    attrs: { ...e.attrs },
    children: e.children.map((c) => (typeof c === 'string' ? c : cloneEl(c))),
  };
}

/** The property element `name` of `owner`, created first among its children if missing. */
function propsElement(owner: El, name: string): El {
  let el = child(owner, name);
  if (!el) {
    el = { name, attrs: {}, children: [] };
    owner.children.unshift(el);
  }
  return el;
}

// ---------------------------------------------------------------------------------------------
// styles.xml

const COND_TYPES = [
  'band2Horz',
  'band1Horz',
  'band2Vert',
  'band1Vert',
  'lastCol',
  'firstCol',
  'lastRow',
  'firstRow',
  'swCell',
  'seCell',
  'nwCell',
  'neCell',
] as const;
type CondType = (typeof COND_TYPES)[number];

interface Cond {
  p: PropMap;
  r: PropMap;
  tc: PropMap;
}

interface StyleDef {
  type: string;
  basedOn?: string;
  pPr?: El;
  rPr?: El;
  tblPr?: El;
  tcPr?: El;
  cond: Map<CondType, Cond>;
}

export interface TableStyleSheet {
  styles: Map<string, StyleDef>;
  defaultParagraph?: string;
}

export function readStyleSheet(stylesXml: string): TableStyleSheet {
  const styles = new Map<string, StyleDef>();
  let defaultParagraph: string | undefined;
  const root = parseXml(stylesXml).find((n): n is El => typeof n !== 'string');
  for (const s of root ? elements(root) : []) {
    if (s.name !== 'w:style') continue;
    const id = s.attrs['w:styleId'];
    if (id === undefined) continue;
    const type = s.attrs['w:type'] ?? 'paragraph';
    const def: StyleDef = {
      type,
      basedOn: child(s, 'w:basedOn')?.attrs['w:val'],
      pPr: child(s, 'w:pPr'),
      rPr: child(s, 'w:rPr'),
      tblPr: child(s, 'w:tblPr'),
      tcPr: child(s, 'w:tcPr'),
      cond: new Map(),
    };
    for (const c of elements(s)) {
      const t = c.attrs['w:type'] as CondType;
      if (c.name !== 'w:tblStylePr' || !COND_TYPES.includes(t)) continue;
      const tc = propsOf(child(c, 'w:tcPr'));
      // StyleSheetTable: a first/last row (column) format with its outer edge loses its inside one.
      const edge = { firstRow: 'bottom', lastRow: 'top', firstCol: 'right', lastCol: 'left' }[t as string];
      if (edge && tc.has(`w:tcBorders/w:${edge}`))
        tc.delete(t.endsWith('Row') ? 'w:tcBorders/w:insideH' : 'w:tcBorders/w:insideV');
      def.cond.set(t, { p: propsOf(child(c, 'w:pPr')), r: propsOf(child(c, 'w:rPr')), tc });
    }
    styles.set(id, def);
    // "If this attribute is specified by multiple styles, then the last instance shall be used."
    if (type === 'paragraph' && (s.attrs['w:default'] === '1' || s.attrs['w:default'] === 'true'))
      defaultParagraph = id;
  }
  return { styles, defaultParagraph };
}

/** A style's chain, base first (at most 32 deep, cycles cut). */
function chain(sheet: TableStyleSheet, id: string | undefined): StyleDef[] {
  const out: StyleDef[] = [];
  const seen = new Set<string>();
  while (id !== undefined && !seen.has(id) && out.length < 32) {
    seen.add(id);
    const s = sheet.styles.get(id);
    if (!s) break;
    out.unshift(s);
    id = s.basedOn;
  }
  return out;
}

interface ResolvedTableStyle {
  p: PropMap;
  r: PropMap;
  tbl: PropMap;
  tc: PropMap;
  cond: Map<CondType, Cond>;
  rowBand: number;
  colBand: number;
  /** LibreOffice applies something of it that direct formatting cannot say: see the header comment. */
  keepsStyle: boolean;
}

/** A font size (w:sz): what LibreOffice puts on the whole paragraph (see the header comment). */
function setsSize(props: PropMap): boolean {
  return props.has('w:sz');
}

function resolveTableStyle(sheet: TableStyleSheet, id: string): ResolvedTableStyle | undefined {
  const defs = chain(sheet, id);
  const own = sheet.styles.get(id);
  if (!own || own.type !== 'table') return undefined;
  const tblPrs = defs.map((d) => d.tblPr);
  const tbl = merged(...tblPrs.map((t) => propsOf(t)));
  // LibreOffice does not align a table by its style's w:jc (25.2: centred and right-aligned styles
  // drew the table at the left margin); written on the table, it would.
  tbl.delete('w:jc');
  return {
    // What LibreOffice takes from the styles a table style is based on (see the header comment):
    // their run, table and cell properties, not their paragraph properties nor conditional formats.
    p: propsOf(own.pPr),
    r: merged(...defs.map((d) => propsOf(d.rPr))),
    tbl,
    tc: merged(...defs.map((d) => propsOf(d.tcPr))),
    cond: own.cond,
    // LibreOffice's band size, not the style's (see the header comment).
    rowBand: 1,
    colBand: 1,
    keepsStyle:
      defs.some((d) => child(d.tcPr, 'w:shd') !== undefined) ||
      defs.some((d) => setsSize(propsOf(d.rPr))) ||
      [...own.cond.values()].some((c) => setsSize(c.r)),
  };
}

/** What a paragraph (or character) style chain sets, document defaults left out. */
function styleProps(
  sheet: TableStyleSheet,
  id: string | undefined,
  cache: Map<string, { p: PropMap; r: PropMap }>,
): { p: PropMap; r: PropMap } {
  const key = id ?? '';
  let got = cache.get(key);
  if (!got) {
    const defs = chain(sheet, id);
    got = { p: merged(...defs.map((d) => propsOf(d.pPr))), r: merged(...defs.map((d) => propsOf(d.rPr))) };
    cache.set(key, got);
  }
  return got;
}

// ---------------------------------------------------------------------------------------------
// tblLook and the cells' conditional formats

const LOOK = {
  firstRow: 0x20,
  lastRow: 0x40,
  firstColumn: 0x80,
  lastColumn: 0x100,
  noHBand: 0x200,
  noVBand: 0x400,
};

const onOff = (v: string): boolean => v === '1' || v === 'true' || v === 'on';

/**
 * The tblLook mask (TableInfo::nTblLook). LibreOffice (25.2, as 7.4) reads only the legacy `w:val` hex
 * (0x04A0 when absent): the attributes Word 2010+ writes beside it (firstRow, lastRow,
 * firstColumn, lastColumn, noHBand, noVBand) go to its grab bag and change nothing it draws, so
 * by default they are ignored here too (a table with attributes only draws as 0x04A0, measured by
 * the page comparison). `attributes: true` reads them as Word does, over the hex.
 */
export function tblLookMask(look: El | undefined, opts: { attributes?: boolean } = {}): number {
  const val = look?.attrs['w:val'];
  let mask = val !== undefined && /^[0-9a-fA-F]{1,4}$/.test(val) ? parseInt(val, 16) : 0x4a0;
  if (look && opts.attributes) {
    if (val === undefined) mask = 0;
    for (const [attr, bit] of Object.entries(LOOK)) {
      const v = look.attrs[`w:${attr}`];
      if (v !== undefined) mask = onOff(v) ? mask | bit : mask & ~bit;
    }
  }
  return mask;
}

/** The conditional formats a cell takes, in no particular order. */
export function cellConditions(
  look: number,
  row: number,
  rows: number,
  cell: number,
  cells: number,
  header: boolean,
  rowBand = 1,
  colBand = 1,
): Set<CondType> {
  const out = new Set<CondType>();
  let rowKind: CondType | undefined;
  if (row === 0) rowKind = look & LOOK.firstRow ? 'firstRow' : undefined;
  else if (row === rows - 1) rowKind = look & LOOK.lastRow ? 'lastRow' : undefined;
  else if (header) rowKind = 'firstRow';
  if (rowKind) out.add(rowKind);
  else if (!(look & LOOK.noHBand)) {
    const n = row - (look & LOOK.firstRow ? 1 : 0);
    out.add(Math.floor(n / rowBand) % 2 === 0 ? 'band1Horz' : 'band2Horz');
  }
  let colKind: CondType | undefined;
  if (cell === 0) colKind = look & LOOK.firstColumn ? 'firstCol' : undefined;
  else if (cell === cells - 1) colKind = look & LOOK.lastColumn ? 'lastCol' : undefined;
  if (colKind) out.add(colKind);
  else if (!(look & LOOK.noVBand)) {
    const n = cell - (look & LOOK.firstColumn ? 1 : 0);
    out.add(Math.floor(n / colBand) % 2 === 0 ? 'band1Vert' : 'band2Vert');
  }
  if (rowKind === 'firstRow' && colKind === 'firstCol') out.add('nwCell');
  if (rowKind === 'firstRow' && colKind === 'lastCol') out.add('neCell');
  if (rowKind === 'lastRow' && colKind === 'firstCol') out.add('swCell');
  if (rowKind === 'lastRow' && colKind === 'lastCol') out.add('seCell');
  return out;
}

function conditionalProps(style: ResolvedTableStyle, types: Set<CondType>): Cond {
  const acc: Cond = { p: new Map(), r: new Map(), tc: new Map() };
  for (const t of COND_TYPES) {
    const c = style.cond.get(t);
    if (!types.has(t) || !c) continue;
    const edge = { firstRow: 'bottom', lastRow: 'top', lastCol: 'right', firstCol: 'left' }[t as string];
    if (edge && c.tc.has(`w:tcBorders/w:${edge}`))
      acc.tc.delete(t.endsWith('Row') ? 'w:tcBorders/w:insideH' : 'w:tcBorders/w:insideV');
    for (const [k, v] of c.p) acc.p.set(k, v);
    for (const [k, v] of c.r) acc.r.set(k, v);
    for (const [k, v] of c.tc) acc.tc.set(k, v);
  }
  return acc;
}

const NO_LINE = new Set(['nil', 'none']);
const visible = (p: Prop | undefined): boolean => !!p?.sub && !NO_LINE.has(p.sub.attrs['w:val'] ?? 'nil');

// ---------------------------------------------------------------------------------------------
// The document

const TRANSPARENT = new Set(['w:sdt', 'w:sdtContent', 'w:customXml', 'w:smartTag']);
/** Subtrees whose paragraphs are not the cell's: nested tables, drawings, text boxes. */
const OPAQUE = new Set(['w:tbl', 'w:drawing', 'w:pict', 'mc:AlternateContent', 'w:object', 'w:txbxContent']);

function collect(el: El, name: string, out: El[] = []): El[] {
  for (const c of elements(el)) {
    if (c.name === name) out.push(c);
    else if (TRANSPARENT.has(c.name)) collect(c, name, out);
  }
  return out;
}

function descendants(el: El, name: string, out: El[] = []): El[] {
  for (const c of elements(el)) {
    if (c.name === name) out.push(c);
    else if (!OPAQUE.has(c.name)) descendants(c, name, out);
  }
  return out;
}

interface Context {
  sheet: TableStyleSheet;
  paraCache: Map<string, { p: PropMap; r: PropMap }>;
  charCache: Map<string, { p: PropMap; r: PropMap }>;
  tableCache: Map<string, ResolvedTableStyle | undefined>;
  /** Tables of this many rows or more are resolved even when their style keepsStyle. */
  allFromRows: number;
}

const PPR_LAST = ['w:rPr', 'w:sectPr', 'w:pPrChange'];
const RPR_LAST = ['w:rPrChange'];
const TCPR_LAST = ['w:headers', 'w:cellIns', 'w:cellDel', 'w:cellMerge', 'w:tcPrChange'];
const TBLPR_LAST = ['w:tblCaption', 'w:tblDescription', 'w:tblPrChange'];

interface TableInfo {
  style: ResolvedTableStyle;
  look: number;
  tableBorders: PropMap;
}

/**
 * The table's own properties: its style's tblPr written under them, w:tblStyle dropped.
 * `mergedDown`: some cell has w:vMerge (the table keeps its style; see the header comment).
 */
function resolveTableProps(tbl: El, rows: number, mergedDown: boolean, ctx: Context): TableInfo | undefined {
  const tblPr = child(tbl, 'w:tblPr');
  const styleEl = child(tblPr, 'w:tblStyle');
  const id = styleEl?.attrs['w:val'];
  if (!tblPr || !styleEl || id === undefined || mergedDown) return undefined;
  let style = ctx.tableCache.get(id);
  if (!ctx.tableCache.has(id)) ctx.tableCache.set(id, (style = resolveTableStyle(ctx.sheet, id)));
  if (style?.keepsStyle && rows < ctx.allFromRows) return undefined; // see the header comment
  tblPr.children.splice(tblPr.children.indexOf(styleEl), 1);
  if (!style) return undefined; // an unknown style: LibreOffice draws the table plain, so does this.
  const ownTbl = propsOf(tblPr);
  writeProps(tblPr, without(style.tbl, ownTbl), TBLPR_LAST);
  return { style, look: tblLookMask(child(tblPr, 'w:tblLook')), tableBorders: merged(style.tbl, ownTbl) };
}

function resolveRow(tr: El, r: number, rows: number, info: TableInfo, ctx: Context): void {
  const { style, look, tableBorders } = info;
  const header = !!child(child(tr, 'w:trPr'), 'w:tblHeader');
  const cells = collect(tr, 'w:tc');
  cells.forEach((tc, c) => {
    const types = cellConditions(look, r, rows, c, cells.length, header, style.rowBand, style.colBand);
    const cond = conditionalProps(style, types);
    resolveCell(tc, style, cond, { r, rows, c, cells: cells.length }, tableBorders, ctx);
  });
}

function resolveTable(tbl: El, ctx: Context): void {
  // Inner tables first: each takes only its own style.
  for (const row of collect(tbl, 'w:tr'))
    for (const tc of collect(row, 'w:tc')) for (const inner of nestedTables(tc)) resolveTable(inner, ctx);
  const rows = collect(tbl, 'w:tr');
  const mergedDown = rows.some((tr) =>
    collect(tr, 'w:tc').some((tc) => child(child(tc, 'w:tcPr'), 'w:vMerge')),
  );
  const info = resolveTableProps(tbl, rows.length, mergedDown, ctx);
  if (!info) return;
  rows.forEach((tr, r) => resolveRow(tr, r, rows.length, info, ctx));
}

const TEXT_RUN = /(<w:t(?:\s[^>]*)?>)([^<]*)(<\/w:t>)/g;
const MARK = '\u0001';

/**
 * A table without nested tables, row by row: the rows a loop filled differ mostly in their text,
 * so each row is reduced to its skeleton (the text of its w:t replaced by a mark) and the
 * skeleton resolved once per kind of row (first, last, band, header); the texts go back in.
 * The same result as resolveTable, at a fraction of the parsing on long tables.
 */
function resolveFlatTable(text: string, ctx: Context): string | undefined {
  const rowStart = text.search(/<w:tr[ >]/);
  if (rowStart < 0 || text.includes(MARK)) return undefined;
  const headNodes = parseXml(text.slice(0, rowStart) + '</w:tbl>');
  const tbl = headNodes.find((n): n is El => typeof n !== 'string' && n.name === 'w:tbl');
  if (!tbl) return undefined;
  const ROW = /<w:tr[ >][^]*?<\/w:tr>/g;
  const rows = text.slice(rowStart).match(ROW)?.length ?? 0;
  const info = resolveTableProps(tbl, rows, text.includes('<w:vMerge'), ctx);
  // A table that keeps its style is handed back as written, its head not serialized again.
  if (!info && child(child(tbl, 'w:tblPr'), 'w:tblStyle')) return text;
  const head = serialize(headNodes);
  let out = head.slice(0, head.lastIndexOf('</w:tbl>'));
  if (!info) return out + text.slice(rowStart);
  const firstRow = info.look & 0x20 ? 1 : 0;
  const cache = new Map<string, string>();
  let r = 0;
  let at = rowStart;
  ROW.lastIndex = rowStart;
  for (let m = ROW.exec(text); m; m = ROW.exec(text)) {
    out += text.slice(at, m.index);
    at = m.index + m[0].length;
    const texts: string[] = [];
    const skeleton = m[0].replace(TEXT_RUN, (_all, open: string, t: string, close: string) => {
      texts.push(t);
      return open + MARK + close;
    });
    const kind =
      r === 0 ? 'F' : r === rows - 1 ? 'L' : `B${Math.floor((r - firstRow) / info.style.rowBand) % 2}`;
    const key = kind + skeleton;
    let resolved = cache.get(key);
    if (resolved === undefined) {
      const nodes = parseXml(skeleton);
      const tr = nodes.find((n): n is El => typeof n !== 'string' && n.name === 'w:tr');
      if (tr) resolveRow(tr, r, rows, info, ctx);
      resolved = serialize(nodes);
      cache.set(key, resolved);
    }
    let k = 0;
    out += resolved.replaceAll(MARK, () => texts[k++]);
    r++;
  }
  return out + text.slice(at);
}

function nestedTables(tc: El): El[] {
  const out: El[] = [];
  const walk = (el: El): void => {
    for (const c of elements(el)) {
      if (c.name === 'w:tbl') out.push(c);
      else if (!OPAQUE.has(c.name)) walk(c);
    }
  };
  walk(tc);
  return out;
}

function without(add: PropMap, present: PropMap): PropMap {
  const out: PropMap = new Map();
  for (const [k, v] of add) if (!present.has(k)) out.set(k, v);
  return out;
}

function resolveCell(
  tc: El,
  style: ResolvedTableStyle,
  cond: Cond,
  at: { r: number; rows: number; c: number; cells: number },
  tableBorders: PropMap,
  ctx: Context,
): void {
  const tcPr = propsElement(tc, 'w:tcPr');
  const own = propsOf(tcPr);
  const fromStyle = merged(style.tc, cond.tc);
  const remove = new Set<string>();
  for (const edge of ['top', 'left', 'bottom', 'right']) {
    const k = `w:tcBorders/w:${edge}`;
    const s = fromStyle.get(k);
    const d = own.get(k);
    if (!s || !d) continue;
    // endTableGetCellProperties: a style border cleared by direct formatting, or no border from
    // either where the table has one, leaves the edge to the table's borders.
    if (
      (visible(s) && !visible(d)) ||
      (!visible(s) && !visible(d) && visible(tableBorders.get(`w:tblBorders/w:${edge}`)))
    ) {
      fromStyle.delete(k);
      remove.add(edge);
    }
  }
  // lcl_computeCellBorders: the cell's own inside borders become its inner edges.
  const all = merged(fromStyle, own);
  const insideV = fromStyle.get('w:tcBorders/w:insideV');
  const insideH = fromStyle.get('w:tcBorders/w:insideH');
  fromStyle.delete('w:tcBorders/w:insideV');
  fromStyle.delete('w:tcBorders/w:insideH');
  const edges: [string, Prop | undefined][] = [];
  const startCol = at.c === 0;
  const endCol = at.c === at.cells - 1;
  const endRow = at.r === at.rows - 1;
  if (startCol && tableBorders.has('w:tblBorders/w:left')) edges.push(['left', undefined]);
  if (endCol && tableBorders.has('w:tblBorders/w:right')) edges.push(['right', undefined]);
  if (insideV) {
    if (!endCol) edges.push(['right', insideV]);
    if (!startCol) edges.push(['left', insideV]);
  }
  if (at.r === 0) {
    if (tableBorders.has('w:tblBorders/w:top')) edges.push(['top', undefined]);
    if (insideH) edges.push(['bottom', insideH]);
  }
  if (endRow) {
    if (tableBorders.has('w:tblBorders/w:bottom')) edges.push(['bottom', undefined]);
    if (insideH) edges.push(['top', insideH]);
  }
  if (at.r > 0 && !endRow && insideH) {
    edges.push(['top', insideH]);
    edges.push(['bottom', insideH]);
  }
  const taken = new Set<string>();
  for (const [edge, p] of edges) {
    const k = `w:tcBorders/w:${edge}`;
    if (all.has(k) || taken.has(edge)) continue;
    taken.add(edge); // the table's own edge (undefined) is left for LibreOffice to apply
    if (p?.sub) fromStyle.set(k, { el: 'w:tcBorders', sub: { ...p.sub, name: `w:${edge}` } });
  }
  if (remove.size) {
    const box = child(tcPr, 'w:tcBorders');
    if (box) box.children = box.children.filter((e) => typeof e === 'string' || !remove.has(e.name.slice(2)));
  }
  writeProps(tcPr, without(fromStyle, own), TCPR_LAST);

  const p = merged(style.p, cond.p);
  const r = merged(style.r, cond.r);
  if (!p.size && !r.size) return;
  for (const para of descendants(tc, 'w:p')) resolveParagraph(para, p, r, ctx);
}

function resolveParagraph(para: El, tableP: PropMap, tableR: PropMap, ctx: Context): void {
  const pPr = child(para, 'w:pPr');
  const pStyle = child(pPr, 'w:pStyle')?.attrs['w:val'] ?? ctx.sheet.defaultParagraph;
  const isDefault = pStyle === ctx.sheet.defaultParagraph;
  const fromStyle = styleProps(ctx.sheet, pStyle, ctx.paraCache);
  // ApplyParagraphPropertiesFromTableStyle: the paragraph style wins, except the default
  // style's 11/12 pt size and left alignment.
  const styleWins = (k: string, map: PropMap): boolean => {
    const s = map.get(k);
    if (!s) return false;
    if (!isDefault) return true;
    if (k === 'w:sz') return !['22', '24'].includes(s.node?.attrs['w:val'] ?? '');
    if (k === 'w:jc') return !['left', 'start'].includes(s.node?.attrs['w:val'] ?? '');
    return true;
  };
  const addP: PropMap = new Map();
  const ownP = propsOf(pPr);
  for (const [k, v] of tableP) if (!ownP.has(k) && !styleWins(k, fromStyle.p)) addP.set(k, v);
  const addR: PropMap = new Map();
  for (const [k, v] of tableR) if (!styleWins(k, fromStyle.r)) addR.set(k, v);
  if (addP.size || addR.size) {
    const target = pPr ?? propsElement(para, 'w:pPr');
    writeProps(target, addP, PPR_LAST);
    // The paragraph mark: its size sets an empty paragraph's height.
    if (addR.size) {
      const markRPr = propsElement(target, 'w:rPr');
      // w:rPr goes after the other paragraph properties.
      target.children.splice(target.children.indexOf(markRPr), 1);
      const at = target.children.findIndex(
        (c) => typeof c !== 'string' && ['w:sectPr', 'w:pPrChange'].includes(c.name),
      );
      target.children.splice(at < 0 ? target.children.length : at, 0, markRPr);
      writeProps(markRPr, without(addR, propsOf(markRPr)), RPR_LAST);
    }
  }
  if (!addR.size) return;
  for (const run of descendants(para, 'w:r')) {
    const rPr = child(run, 'w:rPr');
    const rStyle = child(rPr, 'w:rStyle')?.attrs['w:val'];
    const charStyle = rStyle ? styleProps(ctx.sheet, rStyle, ctx.charCache).r : undefined;
    const add = without(addR, merged(charStyle, propsOf(rPr)));
    if (add.size) writeProps(rPr ?? propsElement(run, 'w:rPr'), add, RPR_LAST);
  }
}

// ---------------------------------------------------------------------------------------------

const TBL_TOKEN = /<w:tbl[ >]|<\/w:tbl>/g;

/**
 * The part's XML with every styled table's style written as direct formatting. Text outside
 * the styled tables is returned as it was.
 */
export function resolveTableStylesInXml(
  xml: string,
  sheet: TableStyleSheet,
  opts: { rowByRow?: boolean } & ResolveOptions = {},
): string {
  if (!xml.includes('<w:tblStyle ')) return xml;
  const ctx: Context = {
    sheet,
    paraCache: new Map(),
    charCache: new Map(),
    tableCache: new Map(),
    allFromRows: opts.allFromRows ?? Infinity,
  };
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  let copied = 0;
  TBL_TOKEN.lastIndex = 0;
  for (let m = TBL_TOKEN.exec(xml); m; m = TBL_TOKEN.exec(xml)) {
    if (m[0] !== '</w:tbl>') {
      if (depth++ === 0) start = m.index;
    } else if (depth > 0 && --depth === 0) {
      const end = m.index + m[0].length;
      const text = xml.slice(start, end);
      if (!text.includes('<w:tblStyle ')) continue;
      // One table level: row by row (resolveFlatTable); nested tables: the whole tree.
      const flat =
        opts.rowByRow !== false && (text.match(/<w:tbl[ >]/g) ?? []).length === 1
          ? resolveFlatTable(text, ctx)
          : undefined;
      if (flat !== undefined) out.push(xml.slice(copied, start), flat);
      else {
        const nodes = parseXml(text);
        for (const n of nodes) if (typeof n !== 'string' && n.name === 'w:tbl') resolveTable(n, ctx);
        out.push(xml.slice(copied, start), serialize(nodes));
      }
      copied = end;
    }
  }
  out.push(xml.slice(copied));
  return out.join('');
}

export interface ZipLike {
  file(name: string): { asText(): string } | null;
  file(name: string, data: string): unknown;
  files: Record<string, unknown>;
}

/**
 * Style sheets read before, by the digest of their styles.xml: reading Word's 349 KB styles.xml
 * (python-docx's default template) took 13.5 ms, more than the rest of a 20-row invoice's fill;
 * hashing it takes well under one. The resolution only reads a sheet, never writes it.
 */
const SHEETS = new DigestLru<TableStyleSheet>(32);

function styleSheetOf(styles: StylesPart): TableStyleSheet {
  let sheet = SHEETS.get(styles.digest);
  if (!sheet) {
    sheet = readStyleSheet(styles.xml);
    SHEETS.set(styles.digest, sheet);
  }
  return sheet;
}

export interface ResolveOptions {
  /**
   * Tables of this many rows (`w:tr`) or more are resolved even when their style has what only a
   * style can say to LibreOffice (whole-table shading, a font size), so that split conversion,
   * which cuts only tables without a style, can convert them in parts; seams may then show and
   * rows grow a little. Default: such tables always keep their style.
   */
  allFromRows?: number;
}

/**
 * Resolves the table styles of every part of a package (a PizZip) in place. `styles`: the
 * package's styles.xml already read (renderDocx reads it once for this and the style pruner);
 * otherwise read here, and only when a table names a style.
 */
export function resolveTableStyles(zip: ZipLike, styles?: StylesPart, opts: ResolveOptions = {}): void {
  let sheet: TableStyleSheet | undefined;
  for (const name of packagePartsOfType(zip, LAID_OUT_PART_TYPES)) {
    const xml = zip.file(name)?.asText();
    if (!xml || !xml.includes('<w:tblStyle ')) continue;
    if (!sheet) {
      const part = styles ?? readStylesPart(zip);
      if (!part) return;
      sheet = styleSheetOf(part);
    }
    zip.file(name, resolveTableStylesInXml(xml, sheet, opts));
  }
}
