/**
 * Python semantics of the template language's operations: attribute and item access, iteration,
 * arithmetic and comparison. Every access goes through `getOwn` and a fixed table of methods, so a
 * template can reach nothing but the data it was given (no `__proto__`, `constructor`, `__class__`).
 */
import {
  Callable,
  dictKeys,
  getOwn,
  groupTupleAttr,
  ImageRef,
  Markup,
  isDict,
  isFloat,
  isNumber,
  isTuple,
  num,
  PyFloat,
  pyEquals,
  str,
  TemplateObject,
  toFloat,
  truthy,
  tuple,
  typeName,
  Undefined,
  type Dict,
  type Value,
} from './values';
import { pyReplace, pyStrip, stringMethod } from './str-methods';
import { chars, type EvalLimits, iterate, JinjaRuntimeError, normIndex } from './sequences';
import { DEFAULT_FORMAT_DEFAULTS, type FormatDefaults } from '../format/locale';

export { pyReplace, pyStrip };
export {
  chars,
  DEFAULT_EVAL_LIMITS,
  type EvalLimits,
  getSlice,
  iterate,
  JinjaRuntimeError,
  length,
  normIndex,
} from './sequences';

/** Printed form of undefined values outside strict mode (the seed system's undefined_behavior). */
export type MissingOutput = 'empty' | 'debug' | 'property_missing';

/** Macro calls (and `caller()`) nested in one another: a macro calling itself ends here. */
export const MAX_MACRO_CALL_DEPTH = 64;
/** Levels of a recursive loop (`loop(children)`): data nested deeper is refused. */
export const MAX_LOOP_RECURSION_DEPTH = 64;

export type FilterFn = (st: RenderState, input: Value, args: Value[], kwargs: Record<string, Value>) => Value;
export type TestFn = (st: RenderState, input: Value, args: Value[]) => boolean;

/**
 * The filters and tests a render may use, built by its caller (runtime/environment.ts, and the
 * engine's defaultEnvironment with the formatting and rich-content filters): nothing is
 * registered process-wide, so lint and inspect know what render knows by getting the same one.
 */
export interface Environment {
  /** Tells environments apart where compiled templates are kept (a compile checks filter names). */
  readonly id: string;
  readonly filters: Readonly<Record<string, FilterFn>>;
  readonly tests: Readonly<Record<string, TestFn>>;
}

/** What one render shares across tags: data, image names, strictness, limits and counters. */
export class RenderState {
  iterations = 0;
  /** The request's locale and time zone: what the formatting filters use unless given theirs. */
  format: FormatDefaults = DEFAULT_FORMAT_DEFAULTS;
  /** Pictures the barcode filters drew in this render, by what they encode (a repeat is reused). */
  readonly barcodes = new Map<string, ImageRef>();
  /** Their pixels, together (MAX_BARCODE_PIXELS_PER_DOCUMENT). */
  barcodePixels = 0;
  /** The names of the signature_field places printed so far (each once per document). */
  readonly signatureFields = new Set<string>();
  private readonly undefinedUsed = new Set<string>();

  constructor(
    /** The filters and tests this render's templates may call. */
    readonly environment: Environment,
    readonly data: Dict,
    readonly imageNames: ReadonlySet<string>,
    readonly strict: boolean,
    readonly limits: EvalLimits,
    /** What printing an undefined value writes (strict mode reports it instead). */
    readonly missingOutput: MissingOutput = 'empty',
  ) {}

  /** The text `{{ missing }}` prints: nothing, or a marker an author can spot in the PDF. */
  missingText(u: Undefined): string {
    if (this.missingOutput === 'debug' && u.path) return `[Missing variable: ${u.path}]`;
    if (this.missingOutput === 'property_missing' && u.path) return '<property missing in json>';
    return '';
  }

  /** Undefined values produced while evaluating the current tag (to explain its failure). */
  readonly produced: Undefined[] = [];

  noteUndefined(u: Undefined): Undefined {
    if (this.produced.length < 20) this.produced.push(u);
    return u;
  }

  /**
   * A tag failed: when undefined values took part, strict mode reports them as undefined
   * variables (true: keep rendering); otherwise returns false and the error names them.
   */
  explainFailure(): { handled: boolean; names: string[] } {
    const names = [...new Set(this.produced.map((u) => u.path).filter((n) => n !== ''))];
    if (this.strict && names.length) {
      names.forEach((n) => this.undefinedUsed.add(n));
      return { handled: true, names };
    }
    return { handled: false, names };
  }

  /** Marks a value as consumed: in strict mode an undefined one is remembered for the error. */
  use(v: Value): Value {
    if (v instanceof Undefined && this.strict) this.undefinedUsed.add(v.path);
    return v;
  }

  get undefinedNames(): string[] {
    return [...this.undefinedUsed];
  }

  countIterations(n: number): void {
    this.iterations += n;
    if (this.iterations > this.limits.maxLoopIterations)
      throw new JinjaRuntimeError(
        `the template ran more than ${this.limits.maxLoopIterations} loop iterations (limit)`,
      );
  }

  checkLength(n: number): void {
    if (n > this.limits.maxValueLength)
      throw new JinjaRuntimeError(`a value longer than ${this.limits.maxValueLength} would be built (limit)`);
  }
}

/** Scopes: one per file for top-level `set`, one per loop iteration, as in Jinja. */
export class Frame {
  private readonly vars = new Map<string, Value>();
  constructor(readonly parent?: Frame) {}

  lookup(name: string): Value | undefined {
    if (this.vars.has(name)) return this.vars.get(name);
    return this.parent?.lookup(name);
  }

  set(name: string, value: Value): void {
    this.vars.set(name, value);
  }

  /**
   * A loop's or a `set`'s targets: one name takes the value, several unpack a sequence of as
   * many (`for k, v in d.items()`), as Jinja does. Shared by Word's blocks and spreadsheet cells.
   */
  assign(targets: string[], value: Value): void {
    if (targets.length === 1) {
      this.set(targets[0], value);
      return;
    }
    const seq = value instanceof Undefined ? [] : iterate(value, 'unpacking');
    if (seq.length !== targets.length)
      throw new JinjaRuntimeError(
        `cannot unpack ${seq.length} values into ${targets.length} names (${targets.join(', ')})`,
      );
    targets.forEach((t, i) => this.set(t, seq[i]));
  }
}

function pathOf(base: Value, name: string, bracket: boolean): string {
  const prefix = base instanceof Undefined ? base.path : '';
  if (!prefix) return name;
  return bracket ? `${prefix}[${JSON.stringify(name)}]` : `${prefix}.${name}`;
}

function listMethod(list: Value[], name: string): Callable | undefined {
  switch (name) {
    case 'index':
      return new Callable('list.index', (a) => {
        const i = list.findIndex((x) => pyEquals(x, a[0] ?? null));
        if (i < 0) throw new JinjaRuntimeError(`${str(a[0] ?? null)} is not in list`);
        return i;
      });
    case 'count':
      return new Callable('list.count', (a) => list.filter((x) => pyEquals(x, a[0] ?? null)).length);
  }
  return undefined;
}

function dictMethod(d: Dict, name: string): Callable | undefined {
  switch (name) {
    case 'items':
      return new Callable('dict.items', () => dictKeys(d).map((k) => tuple([k, d[k]])));
    case 'keys':
      return new Callable('dict.keys', () => dictKeys(d));
    case 'values':
      return new Callable('dict.values', () => dictKeys(d).map((k) => d[k]));
    case 'get':
      return new Callable('dict.get', (a) => {
        const v = typeof a[0] === 'string' ? getOwn(d, a[0]) : undefined;
        return v === undefined ? (a[1] ?? null) : v;
      });
  }
  return undefined;
}

/**
 * `obj.name`. Unlike Jinja, a key wins over a dict method of the same name (`order.items` is the
 * data's `items` list, a classic docxtpl trap); `order.items()` still calls the method.
 */
/** How str.format's fields (`{0.name}`, `{0[key]}`) reach into the values they name. */
function formatField(obj: Value, key: string, bracket: boolean): Value {
  return bracket ? getItem(obj, /^-?\d+$/.test(key) ? Number(key) : key) : getAttr(obj, key);
}

export function getAttr(obj: Value, name: string, forCall = false): Value {
  if (obj instanceof Undefined) return new Undefined(pathOf(obj, name, false));
  if (isDict(obj)) {
    if (forCall) {
      const m = dictMethod(obj, name);
      if (m) return m;
    }
    const v = getOwn(obj, name);
    if (v !== undefined) return v;
    return dictMethod(obj, name) ?? new Undefined(name);
  }
  if (typeof obj === 'string') return stringMethod(obj, name, formatField) ?? new Undefined(name);
  if (Array.isArray(obj)) return groupTupleAttr(obj, name) ?? listMethod(obj, name) ?? new Undefined(name);
  if (obj instanceof Markup) return stringMethod(obj.plain, name, formatField) ?? new Undefined(name);
  if (obj instanceof TemplateObject) return obj.attr(name);
  return new Undefined(name);
}

/** Python's getattr(): a dict's keys are not attributes (Jinja's `attr` filter). */
export function getPythonAttr(obj: Value, name: string): Value {
  if (isDict(obj)) return dictMethod(obj, name) ?? new Undefined(name);
  return getAttr(obj, name);
}

/** `obj[key]`: dict keys, list and string indexes (negative from the end). */
export function getItem(obj: Value, key: Value): Value {
  const keyText = typeof key === 'string' ? key : str(key);
  if (obj instanceof Undefined) return new Undefined(pathOf(obj, keyText, true));
  if (isDict(obj)) {
    if (typeof key === 'string') return getOwn(obj, key) ?? new Undefined(keyText);
    if (isNumber(key)) return getOwn(obj, str(key)) ?? new Undefined(keyText);
    return new Undefined(keyText);
  }
  if (Array.isArray(obj) || typeof obj === 'string') {
    if (!isNumber(key) || isFloat(key)) {
      if (typeof key === 'string' && typeof obj === 'string')
        return stringMethod(obj, key, formatField) ?? new Undefined(key);
      return new Undefined(keyText);
    }
    const seq = typeof obj === 'string' ? chars(obj) : obj;
    const i = normIndex(num(key), seq.length);
    return i >= 0 && i < seq.length ? seq[i] : new Undefined(keyText);
  }
  if (obj instanceof TemplateObject && typeof key === 'string') return obj.attr(key);
  return new Undefined(keyText);
}

function asNumber(v: Value): number | PyFloat | undefined {
  if (typeof v === 'boolean') return Number(v);
  return isNumber(v) ? v : undefined;
}

function unsupported(op: string, a: Value, b: Value): never {
  throw new JinjaRuntimeError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
}

function numResult(n: number, float: boolean): number | PyFloat {
  if (!Number.isFinite(n) && !float) throw new JinjaRuntimeError('integer result too large');
  return float ? toFloat(n) : n;
}

export function binary(op: string, a: Value, b: Value, st: RenderState): Value {
  if (op === '~') {
    st.use(a);
    st.use(b);
    const s = str(a) + str(b);
    st.checkLength(s.length);
    return s;
  }
  if (a instanceof Undefined || b instanceof Undefined) {
    st.use(a);
    st.use(b);
    return a instanceof Undefined ? a : b;
  }
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== undefined && nb !== undefined) {
    const x = num(na);
    const y = num(nb);
    const float = isFloat(na) || isFloat(nb);
    switch (op) {
      case '+':
        return numResult(x + y, float);
      case '-':
        return numResult(x - y, float);
      case '*':
        return numResult(x * y, float);
      case '/':
        if (y === 0) throw new JinjaRuntimeError('division by zero');
        return toFloat(x / y);
      case '//':
        if (y === 0) throw new JinjaRuntimeError('integer division or modulo by zero');
        return numResult(Math.floor(x / y), float);
      case '%': {
        if (y === 0) throw new JinjaRuntimeError('integer division or modulo by zero');
        const r = x - y * Math.floor(x / y);
        return numResult(r, float);
      }
      case '**': {
        if (x === 0 && y < 0) throw new JinjaRuntimeError('0.0 cannot be raised to a negative power');
        const r = x ** y;
        return numResult(r, float || y < 0);
      }
    }
  }
  if (op === '+') {
    if (typeof a === 'string' && typeof b === 'string') {
      st.checkLength(a.length + b.length);
      return a + b;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      st.checkLength(a.length + b.length);
      return [...a, ...b];
    }
  }
  if (op === '*') {
    const [seq, times] = typeof a === 'string' || Array.isArray(a) ? [a, nb] : [b, na];
    if ((typeof seq === 'string' || Array.isArray(seq)) && times !== undefined && !isFloat(times)) {
      const n = Math.max(0, num(times));
      st.checkLength(seq.length * n);
      if (typeof seq === 'string') return seq.repeat(n);
      const out: Value[] = [];
      for (let i = 0; i < n; i++) out.push(...seq);
      return out;
    }
  }
  return unsupported(op, a, b);
}

function orderable(a: Value, b: Value, op: string): number {
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== undefined && nb !== undefined) return num(na) - num(nb);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!pyEquals(a[i], b[i])) return orderable(a[i], b[i], op);
    }
    return a.length - b.length;
  }
  throw new JinjaRuntimeError(
    `'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`,
  );
}

export function compare(op: string, a: Value, b: Value, st: RenderState): boolean {
  switch (op) {
    case '==':
      return pyEquals(a, b);
    case '!=':
      return !pyEquals(a, b);
    case 'in':
      return contains(b, a, st);
    case 'not in':
      return !contains(b, a, st);
  }
  if (a instanceof Undefined || b instanceof Undefined) {
    st.use(a);
    st.use(b);
    return false;
  }
  const c = orderable(a, b, op);
  switch (op) {
    case '<':
      return c < 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    default:
      return c >= 0;
  }
}

export function contains(container: Value, item: Value, st: RenderState): boolean {
  st.use(container);
  if (container instanceof Undefined) return false;
  if (typeof container === 'string') {
    if (typeof item !== 'string')
      throw new JinjaRuntimeError(`'in <string>' requires string as left operand, not ${typeName(item)}`);
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((x) => pyEquals(x, item));
  if (isDict(container)) return typeof item === 'string' && getOwn(container, item) !== undefined;
  throw new JinjaRuntimeError(`argument of type '${typeName(container)}' is not iterable`);
}

export { truthy, isTuple, ImageRef };

/** What the iterations of one loop share: `loop.changed()`'s memory. */
export class LoopRun {
  lastChanged: Value[] | undefined;
}

/** The `loop` variable of a for loop. */
export class LoopInfo extends TemplateObject {
  constructor(
    private readonly items: Value[],
    readonly index0: number,
    private readonly depth0 = 0,
    private readonly run = new LoopRun(),
    /** Set in a `recursive` loop: renders the loop body over other items, one level deeper. */
    private readonly recurse?: (items: Value) => Value,
  ) {
    super();
  }

  override call(args: Value[]): Value {
    if (!this.recurse) throw new JinjaRuntimeError("'loop' can only be called in a loop marked 'recursive'");
    if (args.length !== 1) throw new JinjaRuntimeError('loop() takes exactly one argument (the items)');
    return this.recurse(args[0]);
  }

  attr(name: string): Value {
    const n = this.items.length;
    const i = this.index0;
    switch (name) {
      case 'index':
        return i + 1;
      case 'index0':
        return i;
      case 'revindex':
        return n - i;
      case 'revindex0':
        return n - i - 1;
      case 'first':
        return i === 0;
      case 'last':
        return i === n - 1;
      case 'length':
        return n;
      case 'depth':
        return this.depth0 + 1;
      case 'depth0':
        return this.depth0;
      case 'previtem':
        return i > 0 ? this.items[i - 1] : new Undefined('loop.previtem');
      case 'nextitem':
        return i < n - 1 ? this.items[i + 1] : new Undefined('loop.nextitem');
      case 'cycle':
        return new Callable('loop.cycle', (args) => {
          if (!args.length) throw new JinjaRuntimeError('no items for cycling given');
          return args[i % args.length];
        });
      case 'changed':
        return new Callable('loop.changed', (args) => {
          const last = this.run.lastChanged;
          if (last && last.length === args.length && last.every((v, k) => pyEquals(v, args[k]))) return false;
          this.run.lastChanged = args;
          return true;
        });
    }
    return new Undefined(`loop.${name}`);
  }
}
