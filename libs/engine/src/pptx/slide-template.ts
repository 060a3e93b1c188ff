/**
 * One slide's (or notes slide's) XML as a Jinja template. The tag scanner, given the deck's
 * elements (`a:p`, `a:r`, `a:t`), joins tags PowerPoint split across runs and marks them; the
 * placement prefixes then stand for their element (`{%p %}` for its `a:p`, `{%tr %}` for its
 * `a:tr`), and the whole part is compiled into literal XML, expressions and blocks, run with the
 * engine's own parser and evaluator (the same dialect, filters and limits as Word's and cells').
 * Hand-written rather than through docxtemplater: its Word passes (placements, tables, grids)
 * are written against `w:` elements, and a deck's slide loop needs each part rendered once per
 * item with its own variables, which a one-shot docxtemplater render cannot give.
 */
import { ChartValue } from '../charts/chart-writer';
import { evaluate } from '../runtime/evaluator';
import { type Frame, JinjaRuntimeError, type RenderState } from '../runtime/ops';
import { ImageRef, truthy } from '../runtime/values';
import { type Expr, parseExpression, parseStatement, type Statement } from '../syntax/parser';
import { decodeXmlText, markJinjaTags, TAG_END, TAG_START } from '../syntax/tag-scanner';
import {
  InvalidTemplateError,
  TemplateRuntimeError,
  TemplateSyntaxError,
  type TemplateProblem,
} from '../errors';
import { PRESENTATION } from '../package/formats';
import { runLoop, textOf } from '../xlsx/cell-template';
import { escapeText } from '../xlsx/sheet-xml';

type Node =
  | { kind: 'xml'; xml: string }
  | { kind: 'expr'; expr: Expr; source: string }
  | { kind: 'if'; branches: { test?: Expr; body: Node[] }[] }
  | { kind: 'for'; st: Extract<Statement, { type: 'for' }>; body: Node[]; orElse?: Node[]; source: string }
  | { kind: 'set'; st: Extract<Statement, { type: 'set' }>; source: string };

/** A marked tag: `␐{ x }␑`, `␐% if x %␑`, `␐# note #␑` (tag-scanner.ts changes one brace each side). */
const MARKED = new RegExp(`${TAG_START}([{%#])([\\s\\S]*?)([}%#])${TAG_END}`, 'g');

const PLACED = /^\s*(p|tr|tc|slide)\s+([\s\S]*?)\s*$/;

/** The element each placement prefix removes and stands for (`slide`: its paragraph goes). */
const ELEMENT_OF: Readonly<Record<string, string>> = {
  p: PRESENTATION.placements.p,
  tr: PRESENTATION.placements.tr,
  slide: PRESENTATION.placements.p,
};

/** A table row's optional id (PowerPoint 2016 and later), in its own extension list. */
const ROW_ID_EXTENSION =
  /<a:extLst>\s*<a:ext uri="\{0D108BD9-81ED-4DB2-BD59-A6C34878D82A\}">\s*<a16:rowId\b[^>]*\/>\s*<\/a:ext>\s*<\/a:extLst>/g;

/** A slide loop's statement: `{%slide for item in items %}` (the paragraphs holding it are gone). */
export interface SlideLoop {
  st: Extract<Statement, { type: 'for' }>;
  source: string;
}

/** A slide condition's: `{%slide if show_terms %}`, the slide kept when its test is truthy. */
export interface SlideCondition {
  test: Expr;
  source: string;
}

/**
 * The slide's `{%slide %}` tags as its loop or its condition, or the problem with them: one
 * opening and its end, both on the slide, and never a loop and a condition on one slide.
 */
function slideStatement(
  tags: { st: Statement; source: string }[],
  part: string,
): { loop?: SlideLoop; condition?: SlideCondition; problem?: string } {
  const [open, close] = tags;
  if (tags.length === 2 && open.st.type === 'for' && close.st.type === 'endfor')
    return { loop: { st: open.st, source: open.source } };
  if (tags.length === 2 && open.st.type === 'if' && close.st.type === 'endif')
    return { condition: { test: open.st.test, source: open.source } };
  const types = new Set<string>(tags.map((t) => t.st.type));
  const looped = types.has('for') || types.has('endfor');
  const conditional = ['if', 'endif', 'elif', 'else'].some((t) => types.has(t));
  if (looped && conditional)
    return {
      problem: `${part} has both '{%slide for %}' and '{%slide if %}': a slide is either repeated or kept by a condition; put the condition in the loop's list (a filter, or 'for … if …')`,
    };
  return {
    problem: conditional
      ? `a slide condition is one '{%slide if … %}' and one '{%slide endif %}' (no elif or else) on the same slide (${part})`
      : `a slide loop is one '{%slide for … in … %}' and one '{%slide endfor %}' on the same slide (${part})`,
  };
}

function bodyOf(inner: string): string {
  return decodeXmlText(inner).replace(/^-/, '').replace(/-$/, '');
}

/** The range of the innermost `element` around `at` in `xml`. */
function enclosing(xml: string, at: number, element: string): [number, number] | null {
  const open = Math.max(xml.lastIndexOf(`<${element}>`, at), xml.lastIndexOf(`<${element} `, at));
  const close = xml.indexOf(`</${element}>`, at);
  if (open < 0 || close < 0) return null;
  return [open, close + element.length + 3];
}

/** A text body left without a paragraph (its only one held a slide tag) gets an empty one: DrawingML needs one. */
function withParagraphs(xml: string): string {
  return xml.replace(
    /(<(p|a):txBody>)([\s\S]*?)(<\/\2:txBody>)/g,
    (m, open: string, _ns, inner: string, close: string) =>
      /<a:p[\s>/]/.test(inner) ? m : `${open}${inner}<a:p/>${close}`,
  );
}

export class SlideTemplate {
  private constructor(
    private readonly nodes: Node[],
    readonly loop: SlideLoop | undefined,
    readonly condition: SlideCondition | undefined,
    readonly tagCount: number,
    readonly part: string,
  ) {}

  /** Compiles a slide or notes part; every problem of the part is thrown at once, typed. */
  static compile(xml: string, part: string, allowSlideLoop: boolean): SlideTemplate {
    if (xml.includes(TAG_START) || xml.includes(TAG_END))
      throw new InvalidTemplateError(`${part} contains the reserved characters U+FDD0/U+FDD1`, {
        reason: 'reserved_characters',
        part,
      });
    const scan = markJinjaTags(xml, PRESENTATION.elements);
    const problems: TemplateProblem[] = [
      ...scan.unclosed.map((u) => ({
        message: 'tag is not closed before the end of its paragraph',
        tag: u.tag,
        context: u.context,
        part,
      })),
      ...scan.unjoinable.map((u) => ({
        message: 'tag is split across table cells or text boxes, which cannot be joined',
        tag: u.opening,
        context: u.context,
        part,
      })),
    ];
    const fail = (message: string, tag: string) => problems.push({ message, tag, context: part, part });
    let marked = scan.xml;
    const slideTags: { st: Statement; source: string }[] = [];
    let rowLoops = false;
    // Placement tags stand for their element: the element is replaced by the bare tag, repeatedly
    // (another placement tag may sit in the same element).
    for (;;) {
      MARKED.lastIndex = 0;
      let found: { at: number; prefix: string; source: string } | undefined;
      for (let m = MARKED.exec(marked); m; m = MARKED.exec(marked)) {
        if (m[1] !== '%') continue;
        const p = PLACED.exec(bodyOf(m[2]));
        if (p) {
          found = { at: m.index, prefix: p[1], source: `{%${decodeXmlText(m[2])}%}` };
          break;
        }
      }
      if (!found) break;
      if (found.prefix === 'tc') {
        fail("'{%tc %}' column tags are not supported in slides", found.source);
        marked = marked.replace(MARKED, (m, _o, inner: string) =>
          PLACED.exec(bodyOf(inner))?.[1] === 'tc' ? '' : m,
        );
        continue;
      }
      const element = ELEMENT_OF[found.prefix];
      const range = enclosing(marked, found.at, element);
      if (!range) {
        fail(`'{%${found.prefix} %}' is not inside a ${element}`, found.source);
        marked = marked.slice(0, found.at) + marked.slice(marked.indexOf(TAG_END, found.at) + 1);
        continue;
      }
      const inside = marked.slice(range[0], range[1]);
      const kept: string[] = [];
      MARKED.lastIndex = 0;
      for (let m = MARKED.exec(inside); m; m = MARKED.exec(inside)) {
        const p = m[1] === '%' ? PLACED.exec(bodyOf(m[2])) : null;
        if (!p || p[1] !== found.prefix) continue;
        if (p[1] === 'slide') {
          try {
            slideTags.push({ st: parseStatement(p[2]), source: `{%slide ${p[2]} %}` });
          } catch (e) {
            fail((e as Error).message, `{%slide ${p[2]} %}`);
          }
        } else {
          // Kept as the scanner left it (XML-escaped): the tag's text is decoded once, when parsed.
          kept.push(`${TAG_START}%${escapeText(p[2])}%${TAG_END}`);
          if (p[1] === 'tr') rowLoops = true;
        }
      }
      marked = marked.slice(0, range[0]) + kept.join('') + marked.slice(range[1]);
    }
    // PowerPoint 2016's row ids (a16:rowId) must stay unique: repeated rows go without theirs.
    if (rowLoops) marked = marked.replace(ROW_ID_EXTENSION, '');
    let statement: ReturnType<typeof slideStatement> = {};
    if (slideTags.length) {
      if (!allowSlideLoop) fail("'{%slide %}' tags belong on a slide, not in its notes", slideTags[0].source);
      else {
        statement = slideStatement(slideTags, part);
        if (statement.problem) fail(statement.problem, slideTags[0].source);
      }
      marked = withParagraphs(marked);
    }
    const nodes = problems.length ? [] : parseNodes(marked, fail);
    if (problems.length) throw new TemplateSyntaxError(problems);
    return new SlideTemplate(nodes, statement.loop, statement.condition, scan.tagCount, part);
  }

  /** The part's XML with its tags filled in `frame`; runtime errors typed, naming the part. */
  render(frame: Frame, state: RenderState): string {
    const out: string[] = [];
    this.run(this.nodes, frame, state, out);
    const xml = out.join('');
    state.checkLength(xml.length);
    return xml;
  }

  private run(nodes: Node[], frame: Frame, state: RenderState, out: string[]): void {
    for (const n of nodes) {
      if (n.kind === 'xml') {
        out.push(n.xml);
        continue;
      }
      const source = n.kind === 'expr' || n.kind === 'for' || n.kind === 'set' ? n.source : '{% if %}';
      state.produced.length = 0;
      try {
        switch (n.kind) {
          case 'expr': {
            const value = evaluate(n.expr, frame, state);
            if (value instanceof ImageRef)
              throw new JinjaRuntimeError(
                "a picture cannot be printed in a slide's text; name it in a picture's name or alternative text",
              );
            if (value instanceof ChartValue)
              throw new JinjaRuntimeError(
                "a chart cannot be made in a slide's text; insert a chart on the slide and bind it by {{ chart(…) }} in its title or alternative text",
              );
            out.push(escapeText(textOf(value, state)));
            break;
          }
          case 'set':
            frame.assign(n.st.targets, evaluate(n.st.value, frame, state));
            break;
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
      } catch (e) {
        throw runtimeError(e, state, source, this.part);
      }
    }
  }
}

/** A runtime failure as the typed error, naming the tag and the part (once: nested blocks rethrow it). */
export function runtimeError(e: unknown, state: RenderState, tag: string, part: string): unknown {
  if (e instanceof JinjaRuntimeError) {
    const { names } = state.explainFailure();
    const cause = names.length ? ` (undefined: ${names.join(', ')})` : '';
    return new TemplateRuntimeError(`${e.message}${cause} in ${tag}`, { tag, context: part, part });
  }
  if (e instanceof RangeError)
    return new TemplateRuntimeError(`a value is too large (${e.message}) in ${tag}`, {
      tag,
      context: part,
      part,
    });
  return e;
}

/** The marked XML as nodes: literal XML between tags, blocks nested by their end tags. */
function parseNodes(marked: string, fail: (message: string, tag: string) => void): Node[] {
  type Token = { kind: 'xml'; xml: string } | { kind: 'expr' | 'stmt'; src: string; raw: string };
  const tokens: Token[] = [];
  let last = 0;
  MARKED.lastIndex = 0;
  for (let m = MARKED.exec(marked); m; m = MARKED.exec(marked)) {
    if (m.index > last) tokens.push({ kind: 'xml', xml: marked.slice(last, m.index) });
    last = m.index + m[0].length;
    const src = bodyOf(m[2]);
    if (m[1] === '{') tokens.push({ kind: 'expr', src, raw: `{{${src}}}` });
    else if (m[1] === '%') tokens.push({ kind: 'stmt', src, raw: `{%${src}%}` });
  }
  if (last < marked.length) tokens.push({ kind: 'xml', xml: marked.slice(last) });
  let at = 0;
  const parseBody = (until: readonly string[]): { nodes: Node[]; end?: Statement } => {
    const nodes: Node[] = [];
    while (at < tokens.length) {
      const t = tokens[at++];
      if (t.kind === 'xml') {
        nodes.push({ kind: 'xml', xml: t.xml });
        continue;
      }
      if (t.kind === 'expr') {
        try {
          nodes.push({ kind: 'expr', expr: parseExpression(t.src), source: t.raw });
        } catch (e) {
          fail((e as Error).message, t.raw);
        }
        continue;
      }
      let st: Statement;
      try {
        st = parseStatement(t.src);
      } catch (e) {
        fail((e as Error).message, t.raw);
        continue;
      }
      if (until.includes(st.type)) return { nodes, end: st };
      switch (st.type) {
        case 'if': {
          const branches: { test?: Expr; body: Node[] }[] = [];
          let test: Expr | undefined = st.test;
          for (;;) {
            const b = parseBody(['elif', 'else', 'endif']);
            branches.push({ test, body: b.nodes });
            if (!b.end) {
              fail("'if' is never closed with 'endif'", t.raw);
              break;
            }
            if (b.end.type === 'endif') break;
            test = b.end.type === 'elif' ? b.end.test : undefined;
          }
          nodes.push({ kind: 'if', branches });
          break;
        }
        case 'for': {
          const b = parseBody(['else', 'endfor']);
          let orElse: Node[] | undefined;
          if (!b.end) fail("'for' is never closed with 'endfor'", t.raw);
          else if (b.end.type === 'else') {
            const e = parseBody(['endfor']);
            if (!e.end) fail("'for' is never closed with 'endfor'", t.raw);
            orElse = e.nodes;
          }
          nodes.push({ kind: 'for', st, body: b.nodes, orElse, source: t.raw });
          break;
        }
        case 'set':
          nodes.push({ kind: 'set', st, source: t.raw });
          break;
        default:
          fail(`'${st.type}' has no opening tag or is not supported in slides`, t.raw);
      }
    }
    return { nodes };
  };
  const nodes = parseBody([]);
  return nodes.nodes;
}
