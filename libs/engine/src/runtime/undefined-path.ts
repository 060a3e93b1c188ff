/**
 * The name an undefined value is reported under, as the template wrote it: `customer.name` rather
 * than `name` when `customer` exists but has no `name` (ops.getAttr only sees the object). Strict
 * mode's error and debug mode's `[Missing variable: …]` marker both use it.
 */
import type { Expr } from '../syntax/parser';
import { Undefined } from './values';

/** `a.b["c d"][0]` for a chain of names, attributes and constant keys; null for anything else. */
function writtenPath(e: Expr): string | null {
  switch (e.type) {
    case 'Name':
      return e.name;
    case 'Attr': {
      const base = writtenPath(e.obj);
      return base === null ? null : `${base}.${e.name}`;
    }
    case 'Item': {
      const base = writtenPath(e.obj);
      if (base === null || e.index.type !== 'Const') return null;
      const key = e.index.value;
      if (typeof key === 'string') return `${base}[${JSON.stringify(key)}]`;
      if (typeof key === 'number') return `${base}[${key}]`;
      return null;
    }
    default:
      return null;
  }
}

/** The same undefined value under its written path, when the expression has one. */
export function withWrittenPath(v: Undefined, e: Expr): Undefined {
  const path = writtenPath(e);
  return path === null || path === v.path ? v : new Undefined(path);
}
