/**
 * The value model of the template language: JSON data plus the few Python notions Jinja templates
 * observe (floats that print as `2.0`, tuples, undefined values, None/True/False spelling).
 *
 * Data comes from strangers, so values are only ever read through `getOwn` (own enumerable
 * properties of plain JSON objects and arrays); nothing reaches a prototype, a constructor or a
 * JavaScript function. The only callables are the `Callable` instances this module creates.
 */

import { formatFloat } from '@app/contracts';
import { PyFloat } from '../syntax/literals';

export { PyFloat };

/** A missing value; remembers how it was reached, for strict mode's error and `default`. */
export class Undefined {
  constructor(readonly path: string) {}
}

/** A function exposed to templates (range, dict methods, loop.cycle, …). */
export class Callable {
  constructor(
    readonly name: string,
    readonly fn: (args: Value[], kwargs: Record<string, Value>) => Value,
    /** How Jinja prints it: `<function …>`, or `<Macro '…'>` for a template's macro. */
    readonly printed = `<function ${name}>`,
  ) {}
}

/** A picture a filter drew (a barcode): PNG bytes and its size in the document. */
export interface GeneratedImage {
  name: string;
  png: Buffer;
  widthPx: number;
  heightPx: number;
  widthEmu: number;
  heightEmu: number;
  descr: string;
  /** A link the picture carries (`a:hlinkClick`): a signature place's marker. */
  link?: string;
}

/**
 * Marker the image layer recognises at output time: an image of the request placed by name or by
 * `| image`, or one a filter drew (`generated`).
 */
export class ImageRef {
  constructor(
    readonly name: string,
    readonly generated?: GeneratedImage,
  ) {}
}

/** An object of our own with attributes (the `loop` variable): only `attr` is ever reached. */
export abstract class TemplateObject {
  abstract attr(name: string): Value;
  /** What `str()` prints; objects that are not text print their kind. */
  text(): string {
    return '<object>';
  }
  /** `obj(…)` for objects that can be called (`loop(children)` in a recursive loop). */
  call?(args: Value[], kwargs: Record<string, Value>): Value;
}

/**
 * Document XML a template produced (a macro's output, a block `set`, `loop(children)`): printed
 * as is, and as its plain text wherever a string is expected.
 */
export class Markup extends TemplateObject {
  constructor(
    readonly xml: string,
    readonly plain: string,
  ) {
    super();
  }
  attr(): Value {
    return new Undefined('');
  }
  override text(): string {
    return this.plain;
  }
}

/** `namespace(…)`: the one object whose attributes a template may set (`{% set ns.x = … %}`). */
export class Namespace extends TemplateObject {
  private readonly values = new Map<string, Value>();
  constructor(initial: Record<string, Value>) {
    super();
    for (const k of Object.keys(initial)) this.values.set(k, initial[k]);
  }
  attr(name: string): Value {
    return this.values.has(name) ? this.values.get(name)! : new Undefined(name);
  }
  setAttr(name: string, v: Value): void {
    this.values.set(name, v);
  }
  override text(): string {
    return `<Namespace ${[...this.values].map(([k, v]) => `${k}=${repr(v)}`).join(', ')}>`;
  }
}

export type Value =
  | TemplateObject
  | null
  | boolean
  | number
  | string
  | PyFloat
  | Undefined
  | Callable
  | ImageRef
  | Value[]
  | { [key: string]: Value };

const tuples = new WeakSet<object>();

/** Arrays that Python would print as tuples, `('a', 1)`: the pairs of `items()`. */
export function tuple(items: Value[]): Value[] {
  tuples.add(items);
  return items;
}

export function isTuple(v: unknown): boolean {
  return Array.isArray(v) && tuples.has(v);
}

const groupTuples = new WeakSet<object>();

/** groupby's `(grouper, list)` pair: a tuple whose items also read as `.grouper` and `.list`. */
export function groupTuple(grouper: Value, list: Value[]): Value[] {
  const t = tuple([grouper, list]);
  groupTuples.add(t);
  return t;
}

export function groupTupleAttr(v: Value[], name: string): Value | undefined {
  if (!groupTuples.has(v)) return undefined;
  return name === 'grouper' ? v[0] : name === 'list' ? v[1] : undefined;
}

export type Dict = { [key: string]: Value };

/** A JSON object (not an array, not one of our own value classes). */
export function isDict(v: unknown): v is Dict {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function isNumber(v: unknown): v is number | PyFloat {
  return typeof v === 'number' || v instanceof PyFloat;
}

export function num(v: number | PyFloat): number {
  return typeof v === 'number' ? v : v.value;
}

/** True when Python would hold this number as a float. */
export function isFloat(v: number | PyFloat): boolean {
  return v instanceof PyFloat || !Number.isInteger(v);
}

/** A float result: integral values keep their float-ness so they print as `2.0`. */
export function toFloat(n: number): number | PyFloat {
  return Number.isInteger(n) ? new PyFloat(n) : n;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** The one way values are read from data: own properties only, never inherited ones. */
export function getOwn(obj: Dict, key: string): Value | undefined {
  return hasOwn.call(obj, key) ? obj[key] : undefined;
}

export function dictKeys(obj: Dict): string[] {
  return Object.keys(obj);
}

/** Python truthiness. */
export function truthy(v: Value): boolean {
  if (v === null || v === false || v instanceof Undefined) return false;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof PyFloat) return v.value !== 0;
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  if (v instanceof Markup) return v.plain.length > 0;
  return true;
}

export { formatFloat };

function formatInt(n: number): string {
  // Integers beyond 2^53 are already inexact in JSON.parse; print them without exponent like Python.
  if (Math.abs(n) >= 1e21) return BigInt(Math.trunc(n)).toString();
  return String(n);
}

function formatNumber(v: number | PyFloat): string {
  if (v instanceof PyFloat) return formatFloat(v.value);
  return Number.isInteger(v) ? formatInt(v) : formatFloat(v);
}

/** Python's repr() of a string. */
function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else out += ch;
  }
  return quote + out + quote;
}

/** Python's repr(), as lists and dicts print their items. */
export function repr(v: Value): string {
  if (typeof v === 'string') return reprString(v);
  if (Array.isArray(v)) {
    const inner = v.map(repr).join(', ');
    if (isTuple(v)) return v.length === 1 ? `(${inner},)` : `(${inner})`;
    return `[${inner}]`;
  }
  if (isDict(v))
    return `{${Object.keys(v)
      .map((k) => `${reprString(k)}: ${repr(v[k])}`)
      .join(', ')}}`;
  return str(v);
}

/** Python's str(): what `{{ value }}` prints (before XML escaping). Undefined prints nothing. */
export function str(v: Value): string {
  if (typeof v === 'string') return v;
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number' || v instanceof PyFloat) return formatNumber(v);
  if (v instanceof Undefined) return '';
  if (v instanceof Callable) return v.printed;
  if (v instanceof ImageRef) return '';
  if (v instanceof TemplateObject) return v.text();
  return repr(v);
}

/** Python type names, for error messages that template authors recognise. */
export function typeName(v: Value): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (v instanceof PyFloat) return 'float';
  if (typeof v === 'string') return 'str';
  if (v instanceof Undefined) return 'Undefined';
  if (v instanceof Callable) return 'function';
  if (v instanceof ImageRef) return 'image';
  if (v instanceof Markup) return 'Markup';
  if (v instanceof TemplateObject) return 'object';
  if (Array.isArray(v)) return isTuple(v) ? 'tuple' : 'list';
  return 'dict';
}

/** Python ==: 1 == 1.0, deep equality of lists and dicts, True == 1. */
export function pyEquals(a: Value, b: Value): boolean {
  if (isNumber(a) || typeof a === 'boolean') {
    const na = typeof a === 'boolean' ? Number(a) : num(a);
    if (isNumber(b)) return na === num(b);
    if (typeof b === 'boolean') return na === Number(b);
    return false;
  }
  if (typeof a === 'string' || a === null) return a === b;
  if (a instanceof Undefined) return b instanceof Undefined;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEquals(x, b[i]));
  }
  if (isDict(a)) {
    if (!isDict(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => hasOwn.call(b, k) && pyEquals(a[k], b[k]));
  }
  return a === b;
}
