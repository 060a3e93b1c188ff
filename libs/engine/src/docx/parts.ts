/**
 * The token stream the Jinja module works on (docxtemplater's parts) and the predicates every
 * compile pass and the runtime share.
 */
import type { Expr, Statement } from '../syntax/parser';
import type { Frame } from '../runtime/ops';
import { WORD, type Placement } from '../package/formats';

/** A docxtemplater token (XML tag, text, or placeholder). */
export interface Part {
  type: string;
  value: string;
  position?: string;
  tag?: string;
  text?: boolean;
  module?: string;
  [key: string]: unknown;
}

export type { Placement };
/** The element each placement prefix stands for, from the package description. */
export const ELEMENT: Readonly<Record<Placement, string>> = WORD.placements;
export const PLACEMENT_WHAT: Record<Placement, string> = {
  p: 'a paragraph',
  tr: 'a table row',
  tc: 'a table cell',
  r: 'a run',
};

export interface Branch {
  test?: Expr;
  body: Part[];
}

export const MODULE = 'jinja';

export interface JinjaPart extends Part {
  module: typeof MODULE;
  kind: 'expr' | 'block' | 'comment';
  /** The tag as the author wrote it, e.g. `{%tr for item in items %}`. */
  source: string;
  context: string;
  filePath: string;
  placement?: Placement;
  trimLeft: boolean;
  trimRight: boolean;
  expr?: Expr;
  statement?: Statement;
  broken?: boolean;
  branches?: Branch[];
  loopBody?: Part[];
  loopElse?: Part[];
  /** The body of a single-body block (set, macro, call, with, filter). */
  body?: Part[];
  /** Added by the compiler (docxtpl's `loop.first` tests around merged cells), not by the author. */
  synthetic?: boolean;
  /** `{% hm %}`: the cell's own span, multiplied by the loop's length. */
  cellSpan?: number;
  /** For `\a` / `\f` in a value: the paragraph and run properties around the tag (docxtpl copies them). */
  paragraphProperties?: string;
  runProperties?: string;
}

/** Reports a problem with a tag (collected, then raised as one template_syntax_error). */
export type Report = (p: JinjaPart, message: string) => void;

/** What docxtemplater passes to a module's render (the parts of it we use). */
export interface RenderOptions {
  filePath: string;
  jinjaFrame?: Frame;
  compiled: Part[];
  render(o: RenderOptions): { parts: string[]; errors: unknown[] };
  joinUncorrupt(parts: string[], o: RenderOptions & { basePart: Part }): string[];
  [key: string]: unknown;
}

export function isJinja(p: Part | undefined): p is JinjaPart {
  return p !== undefined && p.type === 'placeholder' && p.module === MODULE;
}

export function isTextContent(p: Part): boolean {
  return p.type === 'content' && p.position === 'insidetag';
}

/**
 * True when removing or repeating these parts keeps the XML well formed: after cancelling
 * matched pairs, what is left closes some elements and reopens the same ones (`</w:t></w:r>…<w:r><w:t>`).
 */
export function isBalanced(parts: Part[]): boolean {
  const stack: { tag: string; start: boolean }[] = [];
  for (const p of parts) {
    if (p.type !== 'tag' || p.position === 'selfclosing' || !p.tag) continue;
    const top = stack[stack.length - 1];
    if (p.position === 'start') stack.push({ tag: p.tag, start: true });
    else if (top && top.start && top.tag === p.tag) stack.pop();
    else stack.push({ tag: p.tag, start: false });
  }
  let k = 0;
  while (k < stack.length && !stack[k].start) k++;
  const ends = stack.slice(0, k);
  const starts = stack.slice(k);
  if (starts.some((s) => !s.start) || ends.length !== starts.length) return false;
  return ends.every((e, i) => e.tag === starts[starts.length - 1 - i].tag);
}

/** Indexes of the start and end tags of the `element` that encloses parsed[index], or null. */
export function enclosing(parsed: Part[], index: number, element: string): [number, number] | null {
  let depth = 0;
  let left = -1;
  for (let i = index - 1; i >= 0; i--) {
    const p = parsed[i];
    if (p.type !== 'tag' || p.tag !== element || p.position === 'selfclosing') continue;
    if (p.position === 'end') depth++;
    else if (depth === 0) {
      left = i;
      break;
    } else depth--;
  }
  if (left < 0) return null;
  depth = 0;
  for (let i = index + 1; i < parsed.length; i++) {
    const p = parsed[i];
    if (p.type !== 'tag' || p.tag !== element || p.position === 'selfclosing') continue;
    if (p.position === 'start') depth++;
    else if (depth === 0) return [left, i];
    else depth--;
  }
  return null;
}
