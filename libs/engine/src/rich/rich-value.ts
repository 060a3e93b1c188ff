/**
 * The values rich content arrives as at output time: HTML or Markdown from the `html` and
 * `markdown` filters, and the JSON forms `{"$rich": [...]}` / `{"$paragraphs": [...]}`, which stay
 * plain data (recognised here, never rewritten in the request).
 */
import { arg, type FilterFn } from '../runtime/filters';
import { JinjaRuntimeError } from '../runtime/ops';
import { getOwn, isDict, TemplateObject, Undefined, type Value } from '../runtime/values';

/** Markup handed to the `html` / `markdown` filters, converted when it is placed. */
export class RichMarkup extends TemplateObject {
  constructor(
    readonly kind: 'html' | 'markdown',
    readonly source: string,
    /** Markdown only: raw HTML in it is HTML, not text (the caller opted in). */
    readonly allowHtml = false,
  ) {
    super();
  }

  attr(): Value {
    return new Undefined('');
  }
}

export type JsonRichForm = { kind: '$rich'; runs: Value } | { kind: '$paragraphs'; paragraphs: Value };

/** `{"$rich": [...]}` or `{"$paragraphs": [...]}` (the only key), else undefined. */
export function jsonRichForm(v: Value): JsonRichForm | undefined {
  if (!isDict(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length !== 1) return undefined;
  if (keys[0] === '$rich') return { kind: '$rich', runs: getOwn(v, '$rich')! };
  if (keys[0] === '$paragraphs') return { kind: '$paragraphs', paragraphs: getOwn(v, '$paragraphs')! };
  return undefined;
}

/** The `html` and `markdown` filters' value. */
export function markupFilter(kind: 'html' | 'markdown', v: Value, allowHtml: Value = false): Value {
  if (v instanceof Undefined || v === null) return v;
  if (typeof v !== 'string') throw new JinjaRuntimeError(`the ${kind} filter expects a string`);
  return new RichMarkup(kind, v, allowHtml === true);
}

/** The filters rich content adds to a render's environment (environment.ts): HTML and Markdown as Word content. */
export const RICH_FILTERS: Record<string, FilterFn> = {
  html: (st, v) => markupFilter('html', st.use(v)),
  markdown: (st, v, a, k) => markupFilter('markdown', st.use(v), arg(a, k, 0, 'html', false)),
};
