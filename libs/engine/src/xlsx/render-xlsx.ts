/**
 * Fills a spreadsheet template (.xlsx): tags in cells, row loops (`{%tr for %}` … `{%tr endfor %}`
 * in rows of their own), and everything that names rows below them moved down. Filled strings
 * are written as inline strings in their cells rather than into a new shared-string table: each
 * cell is then written once, on its own, without a second pass to number and deduplicate strings,
 * and the template's table stays as it was for the cells that kept theirs (Excel and LibreOffice
 * read both; Excel moves inline strings into its table on the next save).
 */
import {
  CONTENT_TYPES_PART,
  ContentTypes,
  relsPathOf,
  SHARED_STRINGS_TYPE,
  SHEET_STYLES_TYPE,
  zipPathOf,
} from '@app/ooxml';
import { isPlainObject, type RenderRequest } from '@app/contracts';
import { posix } from 'node:path';
import type { DocxPackage, TemplateLimits } from '../docx/package';
import { prepareImages, type ImageLimits, type PreparedImage } from '../docx/images';
import {
  InvalidRequestError,
  PayloadTooLargeError,
  TemplateRuntimeError,
  TemplateSyntaxError,
  UndefinedVariableError,
} from '../errors';
import { type EngineEnvironment } from '../environment';
import { renderStateFor } from '../render';
import { evaluate } from '../runtime/evaluator';
import { Frame, JinjaRuntimeError, RenderState } from '../runtime/ops';
import { isNumber, num, truthy, type Dict, type Value } from '../runtime/values';
import {
  JinjaSyntaxError,
  parseExpression,
  parseStatement,
  type Expr,
  type Statement,
} from '../syntax/parser';
import { CompiledCell, hasTags, placementTag, runLoop, soleExpression, textOf } from './cell-template';
import {
  ColumnMap,
  MAX_COLUMN,
  moveColumnSpans,
  moveFormulaRows,
  moveRef,
  moveSqref,
  RowMap,
  translateSharedFormula,
  WorkbookMaps,
} from './row-map';
import {
  attr,
  CellStyles,
  columnIndex,
  columnName,
  escapeText,
  escapeXml,
  readRows,
  readSharedStrings,
  setAttr,
  type TemplateCell,
  type TemplateRow,
} from './sheet-xml';
import { openSpreadsheetPackage } from './xlsx-package';
import { legalSheetName, renameSheetsInAppXml, renameSheetsInPart } from './sheet-names';
import { DRAWING_TYPE, fillSheetPictures } from './sheet-pictures';

export const DEFAULT_MAX_CELLS_PER_SHEET = 1_000_000;

export interface XlsxRenderOptions {
  environment?: EngineEnvironment;
  undefined?: 'empty' | 'strict' | 'debug' | 'property_missing';
  locale?: string;
  timezone?: string;
  maxLoopIterations?: number;
  maxValueLength?: number;
  maxUncompressedBytes?: number;
  maxWordXmlBytes?: number;
  /** Cells in one filled sheet (the template's and the loops' together): beyond it, 413. */
  maxCellsPerSheet?: number;
  /** ALLOW_MACRO_TEMPLATES: fill a .xlsm (its macros are kept, never run). */
  allowMacros?: boolean;
  templateChecked?: boolean;
  compression?: 'DEFLATE' | 'STORE';
  /** Told what was dropped from the workbook (external links, data connections), for a warning header. */
  onWarning?: (warning: string) => void;
  /** As Word's: the request's images already prepared, or their limits and whether the API decoded them. */
  preparedImages?: Map<string, PreparedImage>;
  imageLimits?: Partial<ImageLimits>;
  imagesVerified?: boolean;
}

const REL_TYPE_END = (xml: string, end: string) =>
  [...xml.matchAll(/<Relationship\b[^>]*>/g)]
    .map((m) => m[0])
    .filter((r) => (attr(r, 'Type') ?? '').endsWith(end));

const DATE_FILTERS = new Set(['date', 'dateformat', 'datetimeformat', 'format_date', 'format_datetime']);

type RowNode =
  | { kind: 'row'; row: TemplateRow }
  | {
      kind: 'for';
      st: Extract<Statement, { type: 'for' }>;
      body: RowNode[];
      orElse?: RowNode[];
      /** The control rows: the loop's tag, its `else` and its `endfor`. */
      open: number;
      elseRow?: number;
      end: number;
    }
  | { kind: 'if'; branches: { test?: Expr; body: RowNode[]; row: number }[]; open: number; end: number };

interface Emitted {
  row: TemplateRow;
  out: number;
  path: number[];
  frame: Frame;
  /** In a row holding the column loop's tags: one frame per iteration. */
  columnFrames?: Frame[];
}

/** A sheet's column loop: its tag columns (1-based) and each tag row's `for` statement. */
interface ColumnLoop {
  start: number;
  end: number;
  byRow: Map<number, { st: Extract<Statement, { type: 'for' }>; source: string }>;
}

interface SheetWork {
  name: string;
  path: string;
  xml: string;
  rows: TemplateRow[];
  emitted: Emitted[];
  map: RowMap;
  columns?: ColumnMap;
}

/** A path inside the package from a relationship's target, relative to the part that owns it. */
export function resolveTarget(ownerPath: string, target: string): string {
  if (target.startsWith('/')) return zipPathOf(target);
  return posix.normalize(posix.join(posix.dirname(ownerPath), target));
}

/** The `{%tr %}` statement a row holds, if any (a row holding one is a control row). */
function rowStatement(row: TemplateRow, sheet: string): { st: Statement; source: string } | null {
  for (const cell of row.cells) {
    if (cell.text === undefined) continue;
    const tag = placementTag(cell.text);
    if (!tag || tag.placement !== 'tr') continue;
    try {
      return { st: parseStatement(tag.body), source: tag.source };
    } catch (e) {
      throw syntaxError((e as Error).message, tag.source, sheet, row.r);
    }
  }
  return null;
}

function syntaxError(message: string, tag: string, sheet: string, row: number): TemplateSyntaxError {
  return new TemplateSyntaxError([{ message, tag, context: `${sheet}, row ${row}`, part: sheet }]);
}

/**
 * The sheet's column loop: `{%tc for %}` and `{%tc endfor %}` in cells of one row (or of several
 * rows, each in the same two columns). One loop per sheet, since its columns repeat in every row
 * and what is right of them moves for the whole sheet.
 */
export function columnLoopOf(rows: TemplateRow[], sheet: string): ColumnLoop | null {
  let loop: ColumnLoop | null = null;
  for (const row of rows) {
    let open: { col: number; st: Extract<Statement, { type: 'for' }>; source: string } | undefined;
    let close: number | undefined;
    for (const cell of row.cells) {
      if (cell.text === undefined) continue;
      const tag = placementTag(cell.text);
      if (!tag || tag.placement !== 'tc') continue;
      let st: Statement;
      try {
        st = parseStatement(tag.body);
      } catch (e) {
        throw syntaxError((e as Error).message, tag.source, sheet, row.r);
      }
      if (st.type === 'for' && open === undefined) open = { col: cell.col + 1, st, source: tag.source };
      else if (st.type === 'endfor' && open !== undefined && close === undefined) close = cell.col + 1;
      else
        throw syntaxError(
          'a row holds one column loop: one {%tc for %} and, right of it, one {%tc endfor %}',
          tag.source,
          sheet,
          row.r,
        );
    }
    if (open === undefined) continue;
    if (close === undefined)
      throw syntaxError('this column loop is never closed in a cell right of it', open.source, sheet, row.r);
    if (loop && (loop.start !== open.col || loop.end !== close))
      throw syntaxError(
        `column loops in a sheet sit in the same columns (${columnName(loop.start - 1)} and ${columnName(loop.end - 1)})`,
        open.source,
        sheet,
        row.r,
      );
    loop ??= { start: open.col, end: close, byRow: new Map() };
    loop.byRow.set(row.r, { st: open.st, source: open.source });
  }
  return loop;
}

/** The sheet's rows as a tree of row loops and conditions. */
export function rowTree(rows: TemplateRow[], sheet: string): RowNode[] {
  let at = 0;
  const parse = (
    until: readonly string[],
    opener?: { source: string; r: number },
  ): { nodes: RowNode[]; end?: Statement; endRow?: number } => {
    const nodes: RowNode[] = [];
    while (at < rows.length) {
      const row = rows[at++];
      const control = rowStatement(row, sheet);
      if (!control) {
        nodes.push({ kind: 'row', row });
        continue;
      }
      const { st, source } = control;
      if (until.includes(st.type)) return { nodes, end: st, endRow: row.r };
      if (st.type === 'for') {
        const b = parse(['else', 'endfor'], { source, r: row.r });
        let orElse: RowNode[] | undefined;
        let elseRow: number | undefined;
        let end = b.endRow!;
        if (b.end?.type === 'else') {
          elseRow = b.endRow;
          const e = parse(['endfor'], { source, r: row.r });
          orElse = e.nodes;
          end = e.endRow!;
        }
        nodes.push({ kind: 'for', st, body: b.nodes, orElse, open: row.r, elseRow, end });
      } else if (st.type === 'if') {
        const branches: { test?: Expr; body: RowNode[]; row: number }[] = [];
        let test: Expr | undefined = st.test;
        let branchRow = row.r;
        let end: number;
        for (;;) {
          const b = parse(['elif', 'else', 'endif'], { source, r: row.r });
          branches.push({ test, body: b.nodes, row: branchRow });
          end = b.endRow!;
          if (!b.end || b.end.type === 'endif') break;
          test = b.end.type === 'elif' ? b.end.test : undefined;
          branchRow = b.endRow!;
        }
        nodes.push({ kind: 'if', branches, open: row.r, end });
      } else throw syntaxError(`'{%tr ${st.type} %}' has no opening tag above it`, source, sheet, row.r);
    }
    if (opener)
      throw syntaxError('this row tag is never closed in a later row', opener.source, sheet, opener.r);
    return { nodes };
  };
  return parse([]).nodes;
}

/**
 * Rows between the first and last control rows that the XML leaves out (empty rows) are made
 * explicit: a loop repeats them too, and every row there then gets its number by counting.
 */
export function withEmptyRowsInLoops(rows: TemplateRow[], sheet: string): TemplateRow[] {
  const controls = rows.filter((r) =>
    r.cells.some((c) => c.text !== undefined && placementTag(c.text)?.placement === 'tr'),
  );
  if (controls.length < 2) return rows;
  const first = controls[0].r;
  const last = controls[controls.length - 1].r;
  const out: TemplateRow[] = [];
  let prev = 0;
  for (const row of rows) {
    if (row.r <= prev) throw syntaxError('the sheet lists its rows out of order', '', sheet, row.r);
    if (row.r > first && row.r <= last)
      for (let r = Math.max(prev + 1, first + 1); r < row.r; r++) out.push({ r, attrs: '', cells: [] });
    out.push(row);
    prev = row.r;
  }
  return out;
}

/** Shared formulas (`t="shared"`) written out in each cell: the rows they span may be repeated. */
function unshareFormulas(rows: TemplateRow[]): void {
  const masters = new Map<string, { formula: string; at: string }>();
  for (const row of rows)
    for (const cell of row.cells) {
      const f = /<f\b([^>]*?)(?:\/>|>([\s\S]*?)<\/f>)/.exec(cell.inner);
      if (!f || attr(f[1], 't') !== 'shared') continue;
      const si = attr(f[1], 'si') ?? '';
      const at = `${columnName(cell.col)}${row.r}`;
      let formula: string;
      if (f[2] !== undefined && f[2] !== '') {
        formula = f[2];
        masters.set(si, { formula, at });
      } else {
        const master = masters.get(si);
        if (!master) continue;
        formula = escapeText(translateSharedFormula(decodeEntities(master.formula), master.at, at));
      }
      cell.inner = cell.inner.replace(f[0], `<f>${formula}</f>`);
    }
}

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Days since 1899-12-30 (Excel's 1900 date system) of an ISO date or date-time, as written. */
function isoToSerial(v: Value): number | null {
  if (typeof v !== 'string') return null;
  const m =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/.exec(
      v.trim(),
    );
  if (!m) return null;
  const [y, mo, d, h = '0', mi = '0', s = '0', frac = ''] = m.slice(1);
  const ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, frac ? Math.round(parseFloat(frac) * 1000) : 0);
  if (!Number.isFinite(ms)) return null;
  return (ms - Date.UTC(1899, 11, 30)) / 86_400_000;
}

class XlsxFill {
  private readonly maps = new WorkbookMaps();
  private readonly compiled = new Map<string, CompiledCell>();
  private readonly sole = new Map<string, Expr | null>();

  constructor(
    private readonly state: RenderState,
    private readonly styles: CellStyles | undefined,
    private readonly maxCells: number,
  ) {}

  /** Phase 1: runs the row loops of a sheet; every row's copies are numbered. */
  layout(name: string, path: string, xml: string, shared: readonly string[]): SheetWork {
    const data = /<sheetData\b[^>]*?(?:\/>|>([\s\S]*?)<\/sheetData>)/.exec(xml);
    let rows = readRows(data?.[1] ?? '', shared);
    let cellCount = 0;
    for (const r of rows) cellCount += r.cells.length;
    this.checkCells(name, cellCount);
    rows = withEmptyRowsInLoops(rows, name);
    unshareFormulas(rows);
    const map = new RowMap();
    for (const r of rows) map.declare(r.r);
    const columnLoop = columnLoopOf(rows, name);
    let copies: number | undefined;
    const emitted: Emitted[] = [];
    let counter = 0;
    let lastTemplate = 0;
    let cells = 0;
    const emit = (nodes: RowNode[], frame: Frame, loopPath: number[]) => {
      for (const n of nodes) {
        if (n.kind === 'row') {
          // Rows the XML leaves out (empty) keep their place; a repeated row follows the last.
          counter += n.row.r > lastTemplate ? n.row.r - lastTemplate : 1;
          lastTemplate = n.row.r;
          map.add(n.row.r, { out: counter, path: loopPath });
          const tc = columnLoop?.byRow.get(n.row.r);
          let columnFrames: Frame[] | undefined;
          if (tc) {
            const frames: Frame[] = [];
            this.guard(name, () => runLoop(tc.st, frame, this.state, (f) => frames.push(f)), tc.source);
            // One set of columns for the whole sheet: every tag row must make as many.
            if (copies !== undefined && copies !== frames.length)
              throw new TemplateRuntimeError(
                `the column loop makes ${frames.length} columns in row ${n.row.r} but ${copies} in an earlier row; a sheet's column loops repeat the same number of times`,
                { tag: tc.source, context: name, part: name },
              );
            copies = frames.length;
            columnFrames = frames;
          }
          emitted.push({ row: n.row, out: counter, path: loopPath, frame, columnFrames });
          cells += n.row.cells.length + 1;
          if (columnLoop) cells += (copies ?? 0) * (columnLoop.end - columnLoop.start - 1);
          if (cells > this.maxCells) this.checkCells(name, cells);
          continue;
        }
        // Control rows make no row: the rows after them close up.
        if (n.open > lastTemplate) counter += n.open - lastTemplate - 1;
        this.guard(name, () => {
          if (n.kind === 'for')
            runLoop(
              n.st,
              frame,
              this.state,
              (f, i) => {
                lastTemplate = n.open;
                emit(n.body, f, [...loopPath, i]);
              },
              () => {
                lastTemplate = n.elseRow ?? n.open;
                if (n.orElse) emit(n.orElse, frame, loopPath);
              },
            );
          else
            for (const b of n.branches)
              if (!b.test || this.truthy(evaluate(b.test, frame, this.state))) {
                lastTemplate = b.row;
                emit(b.body, frame, loopPath);
                break;
              }
        });
        lastTemplate = n.end;
      }
    };
    const root = new Frame();
    emit(rowTree(rows, name), root, []);
    // The counter skipped control rows; rows after the last template row keep their distance.
    this.maps.set(name, map);
    let columns: ColumnMap | undefined;
    if (columnLoop) {
      // No tag row made output (a condition left it out): the tag columns still go.
      columns = new ColumnMap(columnLoop.start, columnLoop.end, copies ?? 0);
      let lastColumn = 0;
      for (const r of rows) for (const c of r.cells) lastColumn = Math.max(lastColumn, c.col + 1);
      const reach =
        lastColumn > columnLoop.end
          ? lastColumn + columns.shift
          : columns.start + columns.copies * columns.width - 1;
      if (reach > MAX_COLUMN)
        throw new PayloadTooLargeError(
          `The sheet '${name}' would reach column ${reach}, beyond the last column (${MAX_COLUMN})`,
          { sheet: name, limit: MAX_COLUMN },
        );
      this.maps.setColumns(name, columns);
    }
    return { name, path, xml, rows, emitted, map, columns };
  }

  private truthy(v: Value): boolean {
    return truthy(this.state.use(v));
  }

  private checkCells(sheet: string, cells: number): void {
    if (cells > this.maxCells)
      throw new PayloadTooLargeError(
        `The sheet '${sheet}' would hold more than ${this.maxCells} cells (limit)`,
        {
          sheet,
          limit: this.maxCells,
        },
      );
  }

  /** Runs a row tag's work; the runtime's errors become typed ones naming the sheet. */
  private guard(sheet: string, fn: () => void, tag = '{%tr %}'): void {
    this.state.produced.length = 0;
    try {
      fn();
    } catch (e) {
      throw this.runtimeError(e, sheet, tag);
    }
  }

  private runtimeError(e: unknown, sheet: string, tag: string): unknown {
    if (e instanceof JinjaRuntimeError) {
      const { names } = this.state.explainFailure();
      const cause = names.length ? ` (undefined: ${names.join(', ')})` : '';
      return new TemplateRuntimeError(`${e.message}${cause} in ${tag}`, { tag, context: sheet, part: sheet });
    }
    if (e instanceof RangeError)
      return new TemplateRuntimeError(`a value is too large (${e.message}) in ${tag}`, {
        tag,
        context: sheet,
        part: sheet,
      });
    return e;
  }

  /** Phase 2: the sheet's XML with its rows written and what names rows moved. */
  write(work: SheetWork, anyMoved: boolean): string {
    const { name, xml, map, columns } = work;
    const rowsXml: string[] = [];
    for (const e of work.emitted) {
      const cellsXml: string[] = [];
      for (const cell of e.row.cells) {
        const col = cell.col + 1;
        if (!columns || col < columns.start) cellsXml.push(this.cellXml(cell, e, name, anyMoved, col));
        else if (col > columns.end) cellsXml.push(this.cellXml(cell, e, name, anyMoved, col + columns.shift));
        else if (columns.isBody(col))
          // The loop's columns side by side; a tag row fills each copy with its own item.
          for (let i = 0; i < columns.copies; i++) {
            const frame = e.columnFrames?.[i] ?? e.frame;
            const at = columns.map(col, i, 'single')!;
            cellsXml.push(this.cellXml(cell, { ...e, frame }, name, anyMoved, at, i));
          }
      }
      rowsXml.push(
        cellsXml.length
          ? `<row r="${e.out}"${e.row.attrs}>${cellsXml.join('')}</row>`
          : `<row r="${e.out}"${e.row.attrs}/>`,
      );
    }
    let out = xml.replace(/<sheetData\b([^>]*?)(?:\/>|>[\s\S]*?<\/sheetData>)/, (_m, a: string) =>
      rowsXml.length ? `<sheetData${a}>${rowsXml.join('')}</sheetData>` : `<sheetData${a}/>`,
    );
    if (!map.changed && !columns) return out;
    if (columns)
      out = out.replace(/<cols>([\s\S]*?)<\/cols>/, (_m, inner: string) => {
        const spans = moveColumnSpans(inner, columns);
        return spans ? `<cols>${spans}</cols>` : '';
      });
    out = out.replace(/<dimension\b([^>]*?)\/>/, (m, a: string) => {
      const ref = attr(a, 'ref');
      const moved = ref ? moveRef(ref, map, columns) : null;
      return moved ? `<dimension${setAttr(a, 'ref', moved)}/>` : m;
    });
    out = out.replace(/<mergeCells\b[^>]*>([\s\S]*?)<\/mergeCells>/, (_m, inner: string) => {
      const refs = [...inner.matchAll(/<mergeCell\b[^>]*>/g)].flatMap((c) =>
        moveSqref(attr(c[0], 'ref') ?? '', map, columns),
      );
      return refs.length
        ? `<mergeCells count="${refs.length}">${refs.map((r) => `<mergeCell ref="${r}"/>`).join('')}</mergeCells>`
        : '';
    });
    // A rule's formula is written for the top-left cell of its first range (Excel applies it to
    // the others by relative offset): its references move as that cell's, the first copy's.
    const formulas = (s: string, sqref: string) => {
      const anchor = /^\s*\$?([A-Za-z]+)\$?(\d+)/.exec(sqref);
      const row = anchor ? Number(anchor[2]) : 0;
      const col = anchor ? columnIndex(anchor[1]) + 1 : 0;
      const path = row ? (map.pathsOf(row)[0] ?? []) : [];
      const iteration = columns?.isBody(col) ? 0 : undefined;
      return s.replace(
        /<(formula|formula1|formula2)>([\s\S]*?)<\/\1>/g,
        (_m, tag: string, f: string) =>
          `<${tag}>${escapeText(moveFormulaRows(decodeEntities(f), name, this.maps, path, iteration))}</${tag}>`,
      );
    };
    out = out.replace(
      /<conditionalFormatting\b([^>]*)>([\s\S]*?)<\/conditionalFormatting>/g,
      (m, a: string, inner: string) => {
        const refs = moveSqref(attr(a, 'sqref') ?? '', map, columns);
        return refs.length
          ? `<conditionalFormatting${setAttr(a, 'sqref', refs.join(' '))}>${formulas(inner, attr(a, 'sqref') ?? '')}</conditionalFormatting>`
          : '';
      },
    );
    out = out.replace(
      /<dataValidation\b([^>]*?)(\/>|>([\s\S]*?)<\/dataValidation>)/g,
      (m, a: string, _c: string, inner?: string) => {
        const refs = moveSqref(attr(a, 'sqref') ?? '', map, columns);
        if (!refs.length) return '';
        const open = `<dataValidation${setAttr(a, 'sqref', refs.join(' '))}`;
        return inner === undefined
          ? `${open}/>`
          : `${open}>${formulas(inner, attr(a, 'sqref') ?? '')}</dataValidation>`;
      },
    );
    out = out.replace(/<hyperlink\b([^>]*?)\/>/g, (m, a: string) => {
      const refs = moveSqref(attr(a, 'ref') ?? '', map, columns);
      return refs.map((r) => `<hyperlink${setAttr(a, 'ref', r)}/>`).join('');
    });
    out = out.replace(/<autoFilter\b([^>]*?)(\/?)>/g, (m, a: string, close: string) => {
      const ref = attr(a, 'ref');
      const moved = ref ? moveRef(ref, map, columns) : null;
      return moved ? `<autoFilter${setAttr(a, 'ref', moved)}${close}>` : m;
    });
    return out;
  }

  private cellXml(
    cell: TemplateCell,
    e: Emitted,
    sheet: string,
    anyMoved: boolean,
    col: number,
    iteration?: number,
  ): string {
    const ref = `${columnName(col - 1)}${e.out}`;
    if (cell.text !== undefined && hasTags(cell.text)) return this.filledCell(cell, ref, e, sheet);
    let inner = cell.inner;
    let attrs = cell.attrs;
    const f = /<f\b([^>]*?)(?:\/>|>([\s\S]*?)<\/f>)/.exec(inner);
    if (f && anyMoved) {
      let fAttrs = f[1];
      const arrayRef = attr(fAttrs, 'ref');
      if (arrayRef)
        fAttrs = setAttr(fAttrs, 'ref', moveFormulaRows(arrayRef, sheet, this.maps, e.path, iteration));
      const text =
        f[2] === undefined
          ? ''
          : escapeText(moveFormulaRows(decodeEntities(f[2]), sheet, this.maps, e.path, iteration));
      // The cached result is stale once rows moved: dropped, and the workbook recalculates on load.
      inner = `<f${fAttrs}>${text}</f>`;
      attrs = setAttr(attrs, 't', undefined);
    }
    return inner ? `<c r="${ref}"${attrs}>${inner}</c>` : `<c r="${ref}"${attrs}/>`;
  }

  private filledCell(cell: TemplateCell, ref: string, e: Emitted, sheet: string): string {
    const text = cell.text!;
    let attrs = setAttr(cell.attrs, 't', undefined);
    const tag = placementTag(text);
    // Every {%tc %} sits in a tag column (dropped) or was refused by columnLoopOf; a {%tr %} here
    // would be a row tag sharing its row with a column: said plainly rather than left empty.
    if (tag) throw syntaxError(`a {%${tag.placement} %} tag is not allowed here`, tag.source, sheet, e.row.r);
    this.state.produced.length = 0;
    try {
      const soleSource = soleExpression(text);
      if (soleSource !== null) {
        let expr = this.sole.get(soleSource);
        if (expr === undefined) {
          try {
            expr = parseExpression(soleSource);
          } catch (err) {
            throw syntaxError((err as Error).message, text.trim(), sheet, e.row.r);
          }
          this.sole.set(soleSource, expr);
        }
        if (expr && expr.type === 'Filter' && DATE_FILTERS.has(expr.name)) {
          const serial = isoToSerial(evaluate(expr.input, e.frame, this.state));
          if (serial !== null) {
            const style = Number(attr(cell.attrs, 's') ?? '0');
            const dateStyle = this.styles ? this.styles.dateStyleFor(style) : style;
            attrs = setAttr(attrs, 's', String(dateStyle));
            return `<c r="${ref}"${attrs}><v>${serial}</v></c>`;
          }
          // Not an ISO date: the filter formats it as text, as in Word.
        }
        if (expr && !(expr.type === 'Filter' && expr.name === 'date')) {
          const v = evaluate(expr, e.frame, this.state);
          return this.valueCell(v, ref, attrs);
        }
      }
      let compiled = this.compiled.get(text);
      if (!compiled) {
        try {
          compiled = CompiledCell.compile(text);
        } catch (err) {
          if (err instanceof JinjaSyntaxError) throw syntaxError(err.message, text.trim(), sheet, e.row.r);
          throw err;
        }
        this.compiled.set(text, compiled);
      }
      return this.stringCell(compiled.render(e.frame, this.state), ref, attrs);
    } catch (err) {
      throw this.runtimeError(err, sheet, text.trim());
    }
  }

  /** A lone `{{ expr }}`'s value with its own type: numbers and booleans stay what they are. */
  private valueCell(v: Value, ref: string, attrs: string): string {
    this.state.use(v);
    if (typeof v === 'boolean') return `<c r="${ref}"${attrs} t="b"><v>${v ? 1 : 0}</v></c>`;
    if (isNumber(v)) {
      const n = num(v);
      if (Number.isFinite(n)) return `<c r="${ref}"${attrs}><v>${n}</v></c>`;
    }
    if (v === null) return `<c r="${ref}"${attrs}/>`;
    return this.stringCell(textOf(v, this.state), ref, attrs);
  }

  private stringCell(text: string, ref: string, attrs: string): string {
    if (text === '') return `<c r="${ref}"${attrs}/>`;
    return `<c r="${ref}"${attrs} t="inlineStr"><is><t xml:space="preserve">${escapeText(text)}</t></is></c>`;
  }

  get workbookMaps(): WorkbookMaps {
    return this.maps;
  }
}

/**
 * A table's `<tableColumn>`s after a column loop: one per column of its new range, the loop's
 * repeated (numbered, since a table's column names are unique) and the tag columns' dropped.
 */
function repeatTableColumns(
  table: string,
  ref: string,
  columns: ColumnMap,
  /** The filled header cell's text by output column (1-based): Excel expects the names there. */
  header: ReadonlyMap<number, string>,
): string {
  const left = columnIndex(/^\$?([A-Za-z]+)/.exec(ref)?.[1] ?? 'A') + 1;
  return table.replace(/<tableColumns\b[^>]*>([\s\S]*?)<\/tableColumns>/, (m, inner: string) => {
    const list = [...inner.matchAll(/<tableColumn\b[^>]*?(?:\/>|>[\s\S]*?<\/tableColumn>)/g)].map(
      (c) => c[0],
    );
    const out: string[] = [];
    const names = new Set<string>();
    list.forEach((xml, k) => {
      const col = left + k;
      if (col === columns.start || col === columns.end) return;
      const copies = columns.isBody(col) ? columns.copies : 1;
      for (let i = 0; i < copies; i++) {
        const at = columns.isBody(col)
          ? columns.map(col, i, 'single')!
          : columns.map(col, undefined, 'single')!;
        const filled = header.get(at)?.trim();
        const base = filled || (attr(xml, 'name') ?? `Column${out.length + 1}`);
        let name = i === 0 || filled ? base : `${base}${i + 1}`;
        for (let n = 2; names.has(name.toLowerCase()); n++) name = `${base}_${n}`;
        names.add(name.toLowerCase());
        const open = /^<tableColumn\b([^>]*?)(\/?)>/.exec(xml)!;
        let a = setAttr(open[1], 'id', String(out.length + 1));
        a = setAttr(a, 'name', name);
        out.push(xml.replace(open[0], `<tableColumn${a}${open[2]}>`));
      }
    });
    if (!out.length) return m;
    return `<tableColumns count="${out.length}">${out.join('')}</tableColumns>`;
  });
}

const EXTERNAL_KINDS = [
  ['/externalLink', 'external link'],
  ['/connections', 'data connections'],
] as const;

/** The workbook part, from the package's root relationships. */
export function workbookPathOf(zip: DocxPackage['zip']): string {
  const rootRels = zip.file('_rels/.rels')?.asText() ?? '';
  const officeDoc = REL_TYPE_END(rootRels, '/officeDocument')[0];
  return officeDoc ? resolveTarget('', attr(officeDoc, 'Target') ?? '') : 'xl/workbook.xml';
}

/** The workbook's external links and data connections: relationship, part and what to call it. */
function externalContentOf(pkg: DocxPackage, workbookPath: string) {
  const relsPath = relsPathOf(workbookPath);
  if (!pkg.zip.file(relsPath)) return [];
  const rels = pkg.readText(relsPath);
  return EXTERNAL_KINDS.flatMap(([end, what]) =>
    REL_TYPE_END(rels, end).map((rel) => {
      const target = resolveTarget(workbookPath, attr(rel, 'Target') ?? '');
      return { rel, target, id: attr(rel, 'Id') ?? '', name: `${what} (${posix.basename(target)})` };
    }),
  );
}

/**
 * What filling a spreadsheet template will drop from it (external links, data connections), as
 * the API names it in the answer's Warning header; [] for a template with none (and for Word).
 */
export function spreadsheetWarnings(template: Buffer): string[] {
  const pkg = openSpreadsheetPackage(template, { keepContent: false, checked: true, allowMacros: true });
  return externalContentOf(pkg, workbookPathOf(pkg.zip)).map((x) => `dropped ${x.name}`);
}

/** Drops external links and data connections (never fetched); returns what was dropped. */
function dropExternalContent(pkg: DocxPackage, workbookPath: string): string[] {
  const zip = pkg.zip;
  const found = externalContentOf(pkg, workbookPath);
  if (!found.length) return [];
  const relsPath = relsPathOf(workbookPath);
  let rels = pkg.readText(relsPath);
  let workbook = zip.file(workbookPath)!.asText();
  let typesXml = zip.file(CONTENT_TYPES_PART)!.asText();
  for (const { rel, target, id } of found) {
    rels = rels.replace(rel, '');
    if (zip.file(target)) {
      zip.remove(target);
      const targetRels = relsPathOf(target);
      if (zip.file(targetRels)) zip.remove(targetRels);
    }
    typesXml = typesXml.replace(
      new RegExp(`<Override\\b[^>]*PartName="/${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^>]*/>`, 'i'),
      '',
    );
    workbook = workbook.replace(new RegExp(`<externalReference\\b[^>]*r:id="${id}"[^>]*/>`), '');
  }
  workbook = workbook.replace(/<externalReferences>\s*<\/externalReferences>/, '');
  zip.file(relsPath, rels);
  zip.file(workbookPath, workbook);
  zip.file(CONTENT_TYPES_PART, typesXml);
  return found.map((x) => x.name);
}

/** `<calcPr>` where the schema orders it: after the defined names, external references or sheets. */
function insertCalcPr(workbook: string): string {
  for (const end of ['</definedNames>', '</externalReferences>', '</sheets>'])
    if (workbook.includes(end)) return workbook.replace(end, `${end}<calcPr fullCalcOnLoad="1"/>`);
  return workbook;
}

/**
 * The sheets whose names hold tags, filled and made legal and unique (sheet-names.ts): by the
 * template's name, lower-cased, as formulas compare them.
 */
function sheetRenames(sheets: { name: string }[], state: RenderState): Map<string, string> {
  const renames = new Map<string, string>();
  const taken = new Set(sheets.filter((s) => !hasTags(s.name)).map((s) => s.name.toLowerCase()));
  sheets.forEach((sheet, i) => {
    if (!hasTags(sheet.name)) return;
    let filled: string;
    try {
      filled = CompiledCell.compile(sheet.name).render(new Frame(), state);
    } catch (e) {
      if (e instanceof JinjaSyntaxError)
        throw new TemplateSyntaxError([
          { message: e.message, tag: sheet.name, context: `the name of sheet ${i + 1}`, part: sheet.name },
        ]);
      if (e instanceof JinjaRuntimeError)
        throw new TemplateRuntimeError(`${e.message} in the name of sheet ${i + 1}`, {
          tag: sheet.name,
          context: 'sheet name',
          part: sheet.name,
        });
      throw e;
    }
    renames.set(sheet.name.toLowerCase(), legalSheetName(filled, taken, `Sheet${i + 1}`));
  });
  return renames;
}

/** Fills an .xlsx template; returns the filled .xlsx or throws one of the typed errors. */
export function renderXlsx(
  template: Buffer,
  request: RenderRequest,
  options: XlsxRenderOptions = {},
): Buffer {
  if (!isPlainObject(request) || !isPlainObject(request.template_data))
    throw new InvalidRequestError('template_data must be a JSON object', { field: 'template_data' });
  const limits: Partial<TemplateLimits> = {
    ...(options.maxUncompressedBytes !== undefined
      ? { maxUncompressedBytes: options.maxUncompressedBytes }
      : {}),
    ...(options.maxWordXmlBytes !== undefined ? { maxWordXmlBytes: options.maxWordXmlBytes } : {}),
  };
  const pkg = openSpreadsheetPackage(template, {
    limits,
    allowMacros: options.allowMacros === true,
    checked: options.templateChecked === true,
  });
  const zip = pkg.zip;
  const types = new ContentTypes(zip.file(CONTENT_TYPES_PART)!.asText());
  const workbookPath = workbookPathOf(zip);
  if (!zip.file(workbookPath))
    throw new TemplateRuntimeError('The .xlsx has no workbook part', { reason: 'not_spreadsheet' });
  for (const w of dropExternalContent(pkg, workbookPath)) options.onWarning?.(`dropped ${w}`);

  const state = renderStateFor(options, request.template_data as Dict, new Set());
  // Validated as Word's `images` (PNG, size limits), whether or not a picture names them.
  const images =
    options.preparedImages ??
    prepareImages(request.images, options.imageLimits, { pixelsVerified: options.imagesVerified === true });

  const partsOf = (type: string) => Object.keys(zip.files).filter((n) => types.typeOf(n) === type);
  const sharedPath = partsOf(SHARED_STRINGS_TYPE)[0];
  const shared = sharedPath ? readSharedStrings(pkg.readText(sharedPath)) : [];
  const stylesPath = partsOf(SHEET_STYLES_TYPE)[0];
  const styles = stylesPath ? new CellStyles(pkg.readText(stylesPath)) : undefined;

  let workbook = zip.file(workbookPath)!.asText();
  const wbRels = zip.file(relsPathOf(workbookPath))?.asText() ?? '';
  const targets = new Map(
    [...wbRels.matchAll(/<Relationship\b[^>]*>/g)].map((m) => [
      attr(m[0], 'Id'),
      resolveTarget(workbookPath, attr(m[0], 'Target') ?? ''),
    ]),
  );
  const sheets = [...workbook.matchAll(/<sheet\b[^>]*>/g)].map((m) => ({
    tag: m[0],
    name: attr(m[0], 'name') ?? '',
    path: targets.get(attr(m[0], 'r:id')) ?? '',
  }));
  const renames = sheetRenames(sheets, state);

  const fill = new XlsxFill(state, styles, options.maxCellsPerSheet ?? DEFAULT_MAX_CELLS_PER_SHEET);
  const works: SheetWork[] = [];
  for (const sheet of sheets) {
    if (!sheet.path || !zip.file(sheet.path)) continue; // a chart sheet or a missing part: left as it is
    works.push(fill.layout(sheet.name, sheet.path, pkg.readText(sheet.path), shared));
  }
  const undefinedNames = state.undefinedNames;
  const anyMoved = works.some((w) => w.map.changed || w.columns);
  for (const w of works) {
    zip.file(w.path, fill.write(w, anyMoved));
    if (!w.map.changed && !w.columns) continue;
    // The sheet's tables (ListObjects) grow over the repeated rows.
    const relsPath = relsPathOf(w.path);
    const rels = zip.file(relsPath)?.asText() ?? '';
    for (const rel of REL_TYPE_END(rels, '/table')) {
      const tablePath = resolveTarget(w.path, attr(rel, 'Target') ?? '');
      const table = zip.file(tablePath)?.asText();
      if (!table) continue;
      const tableRef = attr(/<table\b[^>]*>/.exec(table)?.[0] ?? '', 'ref');
      let filled = table.replace(
        /<(table|autoFilter)\b([^>]*?)(\/?)>/g,
        (m, tag: string, a: string, close: string) => {
          const ref = attr(a, 'ref');
          const moved = ref ? moveRef(ref, w.map, w.columns) : null;
          return moved ? `<${tag}${setAttr(a, 'ref', moved)}${close}>` : m;
        },
      );
      if (w.columns && tableRef) {
        // The table's header row as filled (its first row unless it has none).
        const headerRows = Number(attr(/<table\b[^>]*>/.exec(table)?.[0] ?? '', 'headerRowCount') ?? '1');
        const moved = moveRef(tableRef, w.map, w.columns);
        const top = /^\$?[A-Za-z]+\$?(\d+)/.exec(moved ?? '')?.[1];
        const header = new Map<number, string>();
        const row =
          top && headerRows > 0
            ? new RegExp(`<row r="${top}"[^>]*?(?:/>|>[\\s\\S]*?</row>)`).exec(zip.file(w.path)!.asText())
            : null;
        if (row)
          for (const r of readRows(row[0], shared))
            for (const c of r.cells) if (c.text !== undefined) header.set(c.col + 1, c.text);
        filled = repeatTableColumns(filled, tableRef, w.columns, header);
      }
      zip.file(tablePath, filled);
    }
  }
  const allUndefined = [...new Set([...undefinedNames, ...state.undefinedNames])];
  if (allUndefined.length) throw new UndefinedVariableError(allUndefined);
  if (anyMoved) {
    const maps = fill.workbookMaps;
    workbook = workbook.replace(
      /<definedName\b([^>]*)>([\s\S]*?)<\/definedName>/g,
      (_m, a: string, f: string) => {
        const local = attr(a, 'localSheetId');
        const sheet = local !== undefined ? (sheets[Number(local)]?.name ?? '') : (sheets[0]?.name ?? '');
        return `<definedName${a}>${escapeText(moveFormulaRows(decodeEntities(f), sheet, maps, []))}</definedName>`;
      },
    );
    // Formulas' cached results were dropped: both Excel and LibreOffice recalculate on opening.
    workbook = /<calcPr\b/.test(workbook)
      ? workbook.replace(
          /<calcPr\b([^>]*?)(\/?)>/,
          (_m, a: string, close: string) => `<calcPr${setAttr(a, 'fullCalcOnLoad', '1')}${close}>`,
        )
      : insertCalcPr(workbook);
  }
  if (renames.size) {
    // The sheets keep their template names while their rows are laid out (formulas name them so);
    // then every reference follows the filled name.
    workbook = renameSheetsInPart(workbook, renames).replace(/<sheet\b[^>]*>/g, (tag) => {
      const renamed = renames.get((attr(tag, 'name') ?? '').toLowerCase());
      return renamed === undefined
        ? tag
        : tag.replace(/\sname\s*=\s*("[^"]*"|'[^']*')/, ` name="${escapeXml(renamed)}"`);
    });
    for (const part of Object.keys(zip.files)) {
      const type = types.typeOf(part) ?? '';
      if (zip.files[part].dir || !/(worksheet|chart|drawingml\.chart)\+xml$/.test(type)) continue;
      zip.file(part, renameSheetsInPart(zip.file(part)!.asText(), renames));
    }
    const app = zip.file('docProps/app.xml');
    if (app) zip.file('docProps/app.xml', renameSheetsInAppXml(app.asText(), renames));
  }
  zip.file(workbookPath, workbook);
  fillSheetPictures(zip, partsOf(DRAWING_TYPE), images);
  const stylesXml = styles?.toXml();
  if (stylesPath && stylesXml) zip.file(stylesPath, stylesXml);
  try {
    return pkg.toBuffer(options.compression ?? 'DEFLATE');
  } catch (e) {
    if (e instanceof RangeError)
      throw new TemplateRuntimeError(`The filled workbook would be too large (${e.message})`, {
        reason: 'too_large',
      });
    throw e;
  }
}
