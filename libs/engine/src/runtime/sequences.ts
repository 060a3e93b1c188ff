/**
 * The parts of the runtime that need nothing of attribute access: its error, its limits, and
 * Python's view of strings and lists as sequences (characters, indexes, slices, iteration,
 * length). str-methods.ts and ops.ts both build on them, so neither imports the other both ways.
 */
import { dictKeys, isDict, isFloat, isNumber, Markup, num, typeName, Undefined, type Value } from './values';

/** A failure while evaluating; the template layer adds the tag and its context. */
export class JinjaRuntimeError extends Error {}

export interface EvalLimits {
  /** Loop iterations in one render, all loops together (guards against `range(10**9)`). */
  maxLoopIterations: number;
  /** Longest string or list a template may build (`'x' * 10**9`). */
  maxValueLength: number;
}

export const DEFAULT_EVAL_LIMITS: EvalLimits = { maxLoopIterations: 100_000, maxValueLength: 1_000_000 };

/** A string's characters as Python counts them (code points, not UTF-16 units). */
export function chars(s: string): string[] {
  return Array.from(s);
}

/** A Python index: negative counts from the end. */
export function normIndex(i: number, len: number): number {
  return i < 0 ? i + len : i;
}

export function getSlice(obj: Value, start: Value, stop: Value, step: Value): Value {
  if (obj instanceof Undefined) return obj;
  const isStr = typeof obj === 'string';
  if (!isStr && !Array.isArray(obj))
    throw new JinjaRuntimeError(`'${typeName(obj)}' object is not sliceable`);
  const seq = isStr ? chars(obj) : (obj as Value[]);
  const n = seq.length;
  const intOr = (v: Value, d: number | null): number | null => {
    if (v === null || v instanceof Undefined) return d;
    if (!isNumber(v) || isFloat(v)) throw new JinjaRuntimeError('slice indices must be integers');
    return num(v);
  };
  const st = intOr(step, 1)!;
  if (st === 0) throw new JinjaRuntimeError('slice step cannot be zero');
  const clamp = (v: number | null, d: number, lo: number, hi: number) =>
    v === null ? d : Math.min(Math.max(v < 0 ? v + n : v, lo), hi);
  const out: Value[] = [];
  if (st > 0) {
    const a = clamp(intOr(start, null), 0, 0, n);
    const b = clamp(intOr(stop, null), n, 0, n);
    for (let i = a; i < b; i += st) out.push(seq[i]);
  } else {
    const a = clamp(intOr(start, null), n - 1, -1, n - 1);
    const b = clamp(intOr(stop, null), -1, -1, n - 1);
    for (let i = a; i > b; i += st) out.push(seq[i]);
  }
  return isStr ? (out as string[]).join('') : out;
}

/** Python iteration: lists, dict keys, string characters; undefined iterates as empty. */
export function iterate(v: Value, what = 'loop'): Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof Markup) return chars(v.plain);
  if (isDict(v)) return dictKeys(v);
  if (typeof v === 'string') return chars(v);
  if (v instanceof Undefined || v === null) {
    if (v === null) throw new JinjaRuntimeError(`'NoneType' object is not iterable (${what})`);
    return [];
  }
  throw new JinjaRuntimeError(`'${typeName(v)}' object is not iterable (${what})`);
}

export function length(v: Value): number {
  if (typeof v === 'string') return chars(v).length;
  if (v instanceof Markup) return chars(v.plain).length;
  if (Array.isArray(v)) return v.length;
  if (isDict(v)) return dictKeys(v).length;
  if (v instanceof Undefined) return 0;
  throw new JinjaRuntimeError(`object of type '${typeName(v)}' has no len()`);
}
