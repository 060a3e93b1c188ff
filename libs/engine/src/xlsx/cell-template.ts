/**
 * The text of one spreadsheet cell as a small Jinja template: `{{ … }}`, `{% if %}`, `{% for %}`
 * and `{% set %}` inside the cell. Word's fill runs through docxtemplater, which has no
 * spreadsheet support in its free core; a cell is plain text, so its tags are parsed and run here
 * with the engine's own parser and evaluator (the same dialect, filters and limits).
 */
import { evaluate } from '../runtime/evaluator';
import { Frame, iterate, JinjaRuntimeError, LoopInfo, LoopRun, type RenderState } from '../runtime/ops';
import {
  type Expr,
  JinjaSyntaxError,
  parseExpression,
  parseStatement,
  type Statement,
} from '../syntax/parser';
import { ImageRef, Markup, str, truthy, Undefined, type Value } from '../runtime/values';

/** A tag's placement prefix (`{%tr for … %}` → `tr`) and the statement after it. */
export interface CellTag {
  placement: 'tr' | 'tc' | null;
  source: string;
  body: string;
}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'expr'; expr: Expr; source: string }
  | { kind: 'if'; branches: { test?: Expr; body: Node[] }[] }
  | { kind: 'for'; st: Extract<Statement, { type: 'for' }>; body: Node[]; orElse?: Node[] }
  | { kind: 'set'; st: Extract<Statement, { type: 'set' }> };

const TAG = /\{\{-?([\s\S]*?)-?\}\}|\{%-?([\s\S]*?)-?%\}|\{#[\s\S]*?#\}/g;

/** Whether a cell's text holds any tag. */
export function hasTags(text: string): boolean {
  return text.includes('{{') || text.includes('{%') || text.includes('{#');
}

/** The `{%tr … %}` / `{%tc … %}` tag a cell holds alone, if it does. */
export function placementTag(text: string): CellTag | null {
  const m = /^\s*\{%-?\s*(tr|tc)\s+([\s\S]*?)-?%\}\s*$/.exec(text);
  if (!m) return null;
  return { placement: m[1] as 'tr' | 'tc', source: text.trim(), body: m[2].trim() };
}

/** A cell that holds one `{{ expr }}` and nothing else: its value keeps its type. */
export function soleExpression(text: string): string | null {
  const m = /^\s*\{\{-?([\s\S]*?)-?\}\}\s*$/.exec(text);
  if (!m || m[1].includes('}}') || m[1].includes('{{')) return null;
  return m[1];
}

export class CompiledCell {
  private constructor(private readonly nodes: Node[]) {}

  /** Parses a cell's text; a syntax error is thrown as JinjaSyntaxError with the tag. */
  static compile(text: string): CompiledCell {
    const tokens: ({ kind: 'text'; text: string } | { kind: 'expr' | 'stmt'; src: string; raw: string })[] =
      [];
    let last = 0;
    TAG.lastIndex = 0;
    for (let m = TAG.exec(text); m; m = TAG.exec(text)) {
      if (m.index > last) tokens.push({ kind: 'text', text: text.slice(last, m.index) });
      last = m.index + m[0].length;
      if (m[1] !== undefined) tokens.push({ kind: 'expr', src: m[1], raw: m[0] });
      else if (m[2] !== undefined) tokens.push({ kind: 'stmt', src: m[2], raw: m[0] });
    }
    if (last < text.length) tokens.push({ kind: 'text', text: text.slice(last) });
    let at = 0;
    const fail = (raw: string, why: string): never => {
      throw new JinjaSyntaxError(`${why} in ${raw}`);
    };
    const parseBody = (until: readonly string[]): { nodes: Node[]; end?: Statement; raw?: string } => {
      const nodes: Node[] = [];
      while (at < tokens.length) {
        const t = tokens[at++];
        if (t.kind === 'text') {
          nodes.push({ kind: 'text', text: t.text });
          continue;
        }
        if (t.kind === 'expr') {
          try {
            nodes.push({ kind: 'expr', expr: parseExpression(t.src), source: t.raw });
          } catch (e) {
            fail(t.raw, (e as Error).message);
          }
          continue;
        }
        let st: Statement;
        try {
          st = parseStatement(t.src);
        } catch (e) {
          return fail(t.raw, (e as Error).message);
        }
        if (until.includes(st.type)) return { nodes, end: st, raw: t.raw };
        switch (st.type) {
          case 'if': {
            const branches: { test?: Expr; body: Node[] }[] = [];
            let test: Expr | undefined = st.test;
            for (;;) {
              const b = parseBody(['elif', 'else', 'endif']);
              branches.push({ test, body: b.nodes });
              if (!b.end) fail(t.raw, "'if' is never closed with 'endif' in this cell");
              if (b.end!.type === 'endif') break;
              test = b.end!.type === 'elif' ? b.end.test : undefined;
            }
            nodes.push({ kind: 'if', branches });
            break;
          }
          case 'for': {
            const b = parseBody(['else', 'endfor']);
            if (!b.end) fail(t.raw, "'for' is never closed with 'endfor' in this cell");
            let orElse: Node[] | undefined;
            if (b.end!.type === 'else') {
              const e = parseBody(['endfor']);
              if (!e.end) fail(t.raw, "'for' is never closed with 'endfor' in this cell");
              orElse = e.nodes;
            }
            nodes.push({ kind: 'for', st, body: b.nodes, orElse });
            break;
          }
          case 'set':
            nodes.push({ kind: 'set', st });
            break;
          default:
            fail(t.raw, `'${st.type}' is not supported inside a spreadsheet cell`);
        }
      }
      return { nodes };
    };
    const top = parseBody([]);
    return new CompiledCell(top.nodes);
  }

  /** The cell's text with its tags filled. */
  render(frame: Frame, state: RenderState): string {
    const out: string[] = [];
    this.run(this.nodes, frame, state, out);
    const text = out.join('');
    state.checkLength(text.length);
    return text;
  }

  private run(nodes: Node[], frame: Frame, state: RenderState, out: string[]): void {
    for (const n of nodes) {
      switch (n.kind) {
        case 'text':
          out.push(n.text);
          break;
        case 'expr':
          out.push(textOf(evaluate(n.expr, frame, state), state));
          break;
        case 'set': {
          const v = evaluate(n.st.value, frame, state);
          frame.assign(n.st.targets, v);
          break;
        }
        case 'if':
          for (const b of n.branches)
            if (!b.test || truthy(state.use(evaluate(b.test, frame, state)))) {
              this.run(b.body, frame, state, out);
              break;
            }
          break;
        case 'for':
          runLoop(
            n.st,
            frame,
            state,
            (f) => this.run(n.body, f, state, out),
            () => {
              if (n.orElse) this.run(n.orElse, frame, state, out);
            },
          );
          break;
      }
    }
  }
}

/** A value as a cell's text: undefined prints as the render's missing-value text. */
export function textOf(v: Value, state: RenderState): string {
  state.use(v);
  if (v instanceof Undefined) return state.missingText(v);
  if (v instanceof Markup) return v.plain;
  if (v instanceof ImageRef)
    throw new JinjaRuntimeError('pictures cannot be placed in a spreadsheet cell yet');
  return str(v);
}

/** A for loop's items, filtered, counted against the render's budget; `each` runs per item. */
export function runLoop(
  st: Extract<Statement, { type: 'for' }>,
  frame: Frame,
  state: RenderState,
  each: (f: Frame, index: number) => void,
  empty: () => void = () => undefined,
): void {
  if (st.recursive) throw new JinjaRuntimeError('recursive loops are not supported in spreadsheets');
  let items = iterate(state.use(evaluate(st.iter, frame, state)), `for ${st.targets.join(', ')}`);
  if (st.filter) {
    const filter = st.filter;
    items = items.filter((item) => {
      const f = new Frame(frame);
      f.assign(st.targets, item);
      return truthy(state.use(evaluate(filter, f, state)));
    });
  }
  if (!items.length) {
    empty();
    return;
  }
  state.countIterations(items.length);
  const run = new LoopRun();
  for (let i = 0; i < items.length; i++) {
    const f = new Frame(frame);
    f.assign(st.targets, items[i]);
    f.set('loop', new LoopInfo(items, i, 0, run));
    each(f, i);
  }
}
