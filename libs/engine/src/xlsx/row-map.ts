/**
 * Where each template row of a sheet went once row loops ran, and the references that follow:
 * formulas, merged cells, conditional formats, validations, tables, defined names. Formulas are
 * tokenized by @borgar/fx (a maintained Excel formula tokenizer), so strings, functions and
 * structured references are never taken for cell references.
 */
import {
  parseA1Ref,
  stringifyA1Ref,
  tokenize,
  translateFormulaToA1,
  translateFormulaToR1C1,
  type ReferenceA1,
} from '@borgar/fx';

/** One output row made from a template row: its number and the loop iterations it was made in. */
export interface RowInstance {
  out: number;
  /** The iteration index of each enclosing row loop, outermost first (`[]` outside loops). */
  path: readonly number[];
}

/** `single`/`single-bottom`: the two ends of one cell's reference, gone with its row. */
type Mode = 'single' | 'single-bottom' | 'top' | 'bottom';

const REF_ERROR = '#REF!';

function startsWith(path: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > path.length) return false;
  for (let i = 0; i < prefix.length; i++) if (path[i] !== prefix[i]) return false;
  return true;
}

export class RowMap {
  private readonly instances = new Map<number, RowInstance[]>();
  /** Template rows that exist in the sheet's XML, ascending. */
  private rows: number[] = [];
  private sorted = true;

  add(templateRow: number, instance: RowInstance): void {
    this.declare(templateRow);
    this.instances.get(templateRow)!.push(instance);
  }

  /**
   * A template row that was read, before any copy of it is made: one that makes none (a loop's
   * tag row, a loop of no items) is then known as gone rather than as an empty row.
   */
  declare(templateRow: number): void {
    if (this.instances.has(templateRow)) return;
    if (this.rows.length && this.rows[this.rows.length - 1] > templateRow) this.sorted = false;
    this.rows.push(templateRow);
    this.instances.set(templateRow, []);
  }

  /** Whether any row moved or repeated (else references stay as they are). */
  get changed(): boolean {
    for (const [row, list] of this.instances) if (list.length !== 1 || list[0].out !== row) return true;
    return false;
  }

  private ordered(): number[] {
    if (!this.sorted) {
      this.rows.sort((a, b) => a - b);
      this.sorted = true;
    }
    return this.rows;
  }

  /** The last template row at or before `row` that made output, by binary search. */
  private emittedAtOrBefore(row: number): number | undefined {
    const rows = this.ordered();
    let lo = 0;
    let hi = rows.length - 1;
    let found: number | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (rows[mid] <= row) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    for (let i = found ?? -1; i >= 0; i--) if (this.instances.get(rows[i])!.length) return rows[i];
    return undefined;
  }

  private emittedAtOrAfter(row: number): number | undefined {
    const rows = this.ordered();
    for (const r of rows) if (r >= row && this.instances.get(r)!.length) return r;
    return undefined;
  }

  private readonly pathIndex = new Map<number, Map<string, RowInstance>>();

  /** A row's copies by their loop path (`'2,0'`), built on first use. */
  private byPath(row: number, list: readonly RowInstance[]): Map<string, RowInstance> {
    let index = this.pathIndex.get(row);
    if (!index) {
      index = new Map(list.map((i) => [i.path.join(','), i]));
      this.pathIndex.set(row, index);
    }
    return index;
  }

  // Copies are added in output order: the first is the lowest, the last the highest.
  private maxOut(list: readonly RowInstance[]): number {
    return list[list.length - 1].out;
  }

  private minOut(list: readonly RowInstance[]): number {
    return list[0].out;
  }

  /**
   * Where template row `row` (1-based) is for a reference made at loop path `path`: the same
   * iteration's copy when there is one, else the first copy (`top`, `single`) or the last
   * (`bottom`), so a range over repeated rows grows to cover every copy. Rows absent from the
   * XML (empty) move with the nearest row above them. Null: the row is gone (`#REF!`).
   */
  map(row: number, path: readonly number[], mode: Mode): number | null {
    const list = this.instances.get(row);
    if (list === undefined) {
      const before = this.emittedAtOrBefore(row);
      if (before === undefined) return row;
      return this.maxOut(this.instances.get(before)!) + (row - before);
    }
    if (!list.length) {
      if (mode === 'single' || mode === 'single-bottom') return null;
      if (mode === 'top') {
        const after = this.emittedAtOrAfter(row + 1);
        return after === undefined ? null : this.minOut(this.instances.get(after)!);
      }
      const before = this.emittedAtOrBefore(row - 1);
      return before === undefined ? null : this.maxOut(this.instances.get(before)!);
    }
    if (list.length === 1) return list[0].out;
    // The common cases without a scan (a 2,000-row loop would scan 2,000 copies per reference):
    // a reference from outside every loop spans all copies; one inside names its iteration's.
    if (path.length === 0)
      return mode === 'bottom' || mode === 'single-bottom' ? this.maxOut(list) : this.minOut(list);
    const exact = this.byPath(row, list);
    for (let k = path.length; k > 0; k--) {
      const hit = exact.get(path.slice(0, k).join(','));
      if (hit) return hit.out;
    }
    let candidates = list.filter((i) => startsWith(i.path, path) || startsWith(path, i.path));
    if (!candidates.length) candidates = list;
    if (candidates.length === 1) return candidates[0].out;
    return mode === 'bottom' || mode === 'single-bottom' ? this.maxOut(candidates) : this.minOut(candidates);
  }

  /** The loop paths a row was repeated at (one `[]` for a row outside loops). */
  pathsOf(row: number): readonly (readonly number[])[] {
    return (this.instances.get(row) ?? [{ out: row, path: [] }]).map((i) => i.path);
  }

  /** The copy of `row` made at exactly `path`, if any. */
  exactly(row: number, path: readonly number[]): number | undefined {
    const list = this.instances.get(row);
    if (!list) return undefined;
    return this.byPath(row, list).get(path.join(','))?.out;
  }
}

/**
 * Where each template column went once a sheet's column loop (`{%tc for %}` in column `start`,
 * `{%tc endfor %}` in column `end`, both 1-based) ran `copies` times: the two tag columns are
 * gone, the columns between repeat side by side, and the columns right of them move right. It is
 * arithmetic (one loop per sheet), so nothing is stored per column.
 */
export class ColumnMap {
  constructor(
    readonly start: number,
    readonly end: number,
    readonly copies: number,
  ) {}

  get width(): number {
    return this.end - this.start - 1;
  }

  /** The last column the sheet's output reaches from a template's last column. */
  get shift(): number {
    return this.copies * this.width - (this.end - this.start + 1);
  }

  isBody(col: number): boolean {
    return col > this.start && col < this.end;
  }

  /**
   * Where template column `col` is for a reference made in iteration `iteration` of the column
   * loop (undefined outside it): that iteration's copy, else the first (`top`, `single`) or the
   * last (`bottom`) copy, so a range over the repeated columns grows. Null: the column is gone.
   */
  map(col: number, iteration: number | undefined, mode: Mode): number | null {
    const { start, end, copies, width } = this;
    if (col < start) return col;
    if (col > end) return col + this.shift;
    const single = mode === 'single' || mode === 'single-bottom';
    const afterLoop = start + copies * width;
    const beforeLoop = start - 1 >= 1 ? start - 1 : null;
    if (this.isBody(col) && copies > 0) {
      const j = col - start - 1;
      if (iteration !== undefined && iteration < copies) return start + iteration * width + j;
      return mode === 'bottom' || mode === 'single-bottom' ? start + (copies - 1) * width + j : start + j;
    }
    if (single) return null;
    if (mode === 'top') return col === start && copies > 0 ? start : afterLoop;
    return col === end && copies > 0 ? afterLoop - 1 : beforeLoop;
  }
}

/** The row maps of a workbook's sheets, by sheet name (case-insensitive, as Excel compares them). */
export class WorkbookMaps {
  private readonly bySheet = new Map<string, RowMap>();
  private readonly columnsBySheet = new Map<string, ColumnMap>();

  set(sheet: string, map: RowMap): void {
    this.bySheet.set(sheet.toLowerCase(), map);
  }

  get(sheet: string): RowMap | undefined {
    return this.bySheet.get(sheet.toLowerCase());
  }

  setColumns(sheet: string, map: ColumnMap): void {
    this.columnsBySheet.set(sheet.toLowerCase(), map);
  }

  columns(sheet: string): ColumnMap | undefined {
    return this.columnsBySheet.get(sheet.toLowerCase());
  }

  get anyColumns(): boolean {
    return this.columnsBySheet.size > 0;
  }
}

type A1Range = ReferenceA1['range'];

const TOKENS = new Map<string, ReturnType<typeof tokenize>>();

/**
 * A range's rows moved; null when a bound is gone. Whole columns (no rows) stay. A reference made
 * outside a row loop to a repeated row covers every copy (`SUM(D5)`, as Calc writes a one-row
 * `SUM(D5:D5)`, grows to `SUM(D5:D9)`); one made inside names its own iteration's copy.
 */
function moveRange(
  range: A1Range,
  map: RowMap | undefined,
  path: readonly number[],
  cell: boolean,
  columns?: ColumnMap,
  iteration?: number,
): A1Range | null {
  let moved = range;
  if (map && range.top != null && range.bottom != null) {
    const top = map.map(range.top + 1, path, cell ? 'single' : 'top');
    const bottom = map.map(range.bottom + 1, path, cell ? 'single-bottom' : 'bottom');
    if (top === null || bottom === null || bottom < top) return null;
    moved = { ...moved, top: top - 1, bottom: bottom - 1 };
  }
  if (columns && range.left != null && range.right != null) {
    const left = columns.map(range.left + 1, iteration, cell ? 'single' : 'top');
    const right = columns.map(range.right + 1, iteration, cell ? 'single-bottom' : 'bottom');
    if (left === null || right === null || right < left) return null;
    moved = { ...moved, left: left - 1, right: right - 1 };
  }
  return moved;
}

/**
 * A formula (as stored, without `=`) with its row references moved. `sheet` is the sheet the
 * formula sits in (references without a sheet name are to it), `path` its loop iteration.
 */
export function moveFormulaRows(
  formula: string,
  sheet: string,
  maps: WorkbookMaps,
  path: readonly number[],
  iteration?: number,
): string {
  if (!/[0-9]/.test(formula) && !maps.anyColumns) return formula;
  let tokens = TOKENS.get(formula);
  if (!tokens) {
    tokens = tokenize(formula, { mergeRefs: true });
    // A template's formula is moved once per copy of its row: tokenized once.
    if (TOKENS.size > 10_000) TOKENS.clear();
    TOKENS.set(formula, tokens);
  }
  let changed = false;
  const out = tokens.map((t) => {
    if (t.type !== 'range' && t.type !== 'range_beam') return t.value;
    const ref = parseA1Ref(t.value, { allowNamed: false, allowTernary: false }) as ReferenceA1 | undefined;
    if (!ref || !('range' in ref) || !ref.range) return t.value;
    const context = (ref as { context?: string[] }).context ?? [];
    // Another workbook's ([1]Sheet!A1) or a 3-D reference: not ours to move.
    if (context.length > 1 || (context[0] ?? '').startsWith('[')) return t.value;
    const target = context.length ? context[0] : sheet;
    const map = maps.get(target);
    const columns = maps.columns(target);
    if (!map && !columns) return t.value;
    const sameSheet = target.toLowerCase() === sheet.toLowerCase();
    const moved = moveRange(
      ref.range,
      map,
      sameSheet ? path : [],
      !t.value.includes(':'),
      columns,
      sameSheet ? iteration : undefined,
    );
    changed = true;
    if (!moved) return REF_ERROR;
    return stringifyA1Ref({ ...ref, range: moved } as ReferenceA1);
  });
  return changed ? out.join('') : formula;
}

/**
 * A space-separated list of ranges (sqref of merged cells, conditional formats, validations):
 * a range inside repeated rows is repeated with them, one copy per iteration; one that spans
 * them grows; one whose rows are gone is dropped.
 */
export function moveSqref(sqref: string, map: RowMap, columns?: ColumnMap): string[] {
  const byRows = moveSqrefRows(sqref, map);
  return columns ? byRows.flatMap((part) => moveColumns(part, columns)) : byRows;
}

/**
 * One range's columns moved: a range inside the repeated columns is repeated with them, one per
 * copy; one that spans them grows; one whose columns are gone is dropped.
 */
function moveColumns(part: string, columns: ColumnMap): string[] {
  const ref = parseA1Ref(part, { allowNamed: false, allowTernary: false }) as ReferenceA1 | undefined;
  if (!ref || !('range' in ref) || !ref.range || ref.range.left == null || ref.range.right == null)
    return [part];
  const range = ref.range;
  const left = range.left! + 1;
  const right = range.right! + 1;
  if (columns.isBody(left) && columns.isBody(right) && columns.copies > 1) {
    const out: string[] = [];
    for (let i = 0; i < columns.copies; i++)
      out.push(
        stringifyA1Ref({
          ...ref,
          range: {
            ...range,
            left: columns.map(left, i, 'top')! - 1,
            right: columns.map(right, i, 'bottom')! - 1,
          },
        } as ReferenceA1),
      );
    return out;
  }
  const moved = moveRange(range, undefined, [], false, columns);
  return moved ? [stringifyA1Ref({ ...ref, range: moved } as ReferenceA1)] : [];
}

function moveSqrefRows(sqref: string, map: RowMap): string[] {
  const out: string[] = [];
  for (const part of sqref.trim().split(/\s+/)) {
    if (!part) continue;
    const ref = parseA1Ref(part, { allowNamed: false, allowTernary: false }) as ReferenceA1 | undefined;
    if (!ref || !('range' in ref) || !ref.range || ref.range.top == null || ref.range.bottom == null) {
      out.push(part);
      continue;
    }
    const range = ref.range;
    const topRow = range.top! + 1;
    const bottomRow = range.bottom! + 1;
    const paths = map.pathsOf(topRow);
    const perIteration =
      paths.length > 1 && paths.every((p) => p.length > 0 && map.exactly(bottomRow, p) !== undefined);
    if (perIteration) {
      for (const p of paths) {
        const top = map.exactly(topRow, p)!;
        const bottom = map.exactly(bottomRow, p)!;
        out.push(
          stringifyA1Ref({ ...ref, range: { ...range, top: top - 1, bottom: bottom - 1 } } as ReferenceA1),
        );
      }
      continue;
    }
    const moved = moveRange(range, map, [], false);
    if (moved) out.push(stringifyA1Ref({ ...ref, range: moved } as ReferenceA1));
  }
  return out;
}

/** One range (a table's, the sheet's dimension) grown over repeated rows; null when gone. */
export function moveRef(refText: string, map: RowMap, columns?: ColumnMap): string | null {
  const ref = parseA1Ref(refText, { allowNamed: false, allowTernary: false }) as ReferenceA1 | undefined;
  if (!ref || !('range' in ref) || !ref.range) return refText;
  const moved = moveRange(ref.range, map, [], false, columns);
  return moved ? stringifyA1Ref({ ...ref, range: moved } as ReferenceA1) : null;
}

/** A shared formula's text as written in the cell `to`, from its master's text in `from`. */
export function translateSharedFormula(formula: string, from: string, to: string): string {
  const r1c1 = translateFormulaToR1C1('=' + formula, from);
  return translateFormulaToA1(r1c1, to, { wrapEdges: false }).replace(/^=/, '');
}

/** The last column a sheet can have (XFD). */
export const MAX_COLUMN = 16_384;

/**
 * A sheet's `<col>` elements (widths and styles by column span) with the loop's columns repeated
 * and the columns right of it moved; the two tag columns' spans are dropped.
 */
export function moveColumnSpans(cols: string, columns: ColumnMap): string {
  const spans: { min: number; max: number; tag: string }[] = [];
  const put = (tag: string, min: number, max: number) => {
    const hi = Math.min(max, MAX_COLUMN);
    if (min > hi) return;
    spans.push({
      min,
      max: hi,
      tag: tag.replace(/\smin="\d+"/, ` min="${min}"`).replace(/\smax="\d+"/, ` max="${hi}"`),
    });
  };
  for (const m of cols.matchAll(/<col\b[^>]*?\/>/g)) {
    const min = Number(/\smin="(\d+)"/.exec(m[0])?.[1] ?? 'NaN');
    const max = Number(/\smax="(\d+)"/.exec(m[0])?.[1] ?? 'NaN');
    if (!Number.isFinite(min) || !Number.isFinite(max)) continue;
    const { start, end } = columns;
    if (min < start) put(m[0], min, Math.min(max, start - 1));
    const lo = Math.max(min, start + 1);
    const hi = Math.min(max, end - 1);
    if (lo <= hi)
      for (let i = 0; i < columns.copies; i++)
        put(m[0], columns.map(lo, i, 'top')!, columns.map(hi, i, 'bottom')!);
    if (max > end) put(m[0], Math.max(min, end + 1) + columns.shift, max + columns.shift);
  }
  spans.sort((a, b) => a.min - b.min);
  return spans.map((s) => s.tag).join('');
}
