/**
 * The Jinja dialect of docxtpl as a docxtemplater module, through its module API only:
 *
 * - `on('before-preparse')`: marks every Jinja tag in the templated parts (tag-scanner.ts), so
 *   docxtemplater's lexer gathers tags that Word split across runs.
 * - `matchers`: claims those tags.
 * - `postparse`: parses every tag (all syntax errors at once), applies whitespace control and
 *   docxtpl's placement prefixes (`{%p`, `{%tr`, `{%tc`, `{%r`, and a block tag alone in its
 *   paragraph takes the paragraph with it), then folds if/for blocks into a tree.
 * - `render`: evaluates with our own evaluator and renders block bodies through docxtemplater's
 *   own `render` and `joinUncorrupt`, as its loop module does.
 */
import type { TemplateProblem } from '../errors';
import { TemplateRuntimeError } from '../errors';
import type { DocxImageWriter } from './docx-images';
import { evaluate, unknownNames } from '../runtime/evaluator';
import { Frame, iterate, JinjaRuntimeError, LoopInfo, type RenderState } from '../runtime/ops';
import {
  JinjaSyntaxError,
  parseExpression,
  parseStatement,
  type Expr,
  type Statement,
} from '../syntax/parser';
import { decodeXmlText, markJinjaTags, TAG_END, TAG_START } from '../syntax/tag-scanner';
import { ImageRef, str, truthy, Undefined, type Value } from '../runtime/values';
import type { RichWriter } from '../rich/rich-writer';

export { TAG_START, TAG_END };

/** A docxtemplater token (XML tag, text, or placeholder). */
interface Part {
  type: string;
  value: string;
  position?: string;
  tag?: string;
  text?: boolean;
  module?: string;
  [key: string]: unknown;
}

type Placement = 'p' | 'tr' | 'tc' | 'r';
const ELEMENT: Record<Placement, string> = { p: 'w:p', tr: 'w:tr', tc: 'w:tc', r: 'w:r' };
const PLACEMENT_WHAT: Record<Placement, string> = {
  p: 'a paragraph',
  tr: 'a table row',
  tc: 'a table cell',
  r: 'a run',
};

interface Branch {
  test?: Expr;
  body: Part[];
}

interface JinjaPart extends Part {
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
}

const MODULE = 'jinja';
const XML_WORDS_PART =
  /^word\/(document|header\d*|footer\d*|footnotes|endnotes|comments|glossary\/document)\.xml$/;
// Elements that make a paragraph more than its text: never swallowed by the "alone" rule.
const VISIBLE_XML =
  /<w:(tab|sym|object|pict|fldChar|instrText|footnoteReference|endnoteReference|ptab)\b|<mc:AlternateContent/;

function isJinja(p: Part | undefined): p is JinjaPart {
  return p !== undefined && p.type === 'placeholder' && p.module === MODULE;
}

function isTextContent(p: Part): boolean {
  return p.type === 'content' && p.position === 'insidetag';
}

/* eslint-disable no-control-regex -- matching control characters is the point here */
const XML_FORBIDDEN = new RegExp(
  '[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\ufffe\\uffff]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]',
  'g',
);
/* eslint-enable no-control-regex */

/** Removes characters that XML 1.0 forbids (control characters, lone surrogates, U+FFFE/F). */
function xmlSafe(s: string): string {
  return s.replace(XML_FORBIDDEN, '');
}

/** Plain text as the inside of a `<w:t>`: escaped, line breaks and tabs as Word elements. */
export function textToRunXml(s: string): string {
  const escaped = xmlSafe(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return escaped
    .replace(/\r\n|\r|\n/g, '</w:t><w:br/><w:t xml:space="preserve">')
    .replace(/\t/g, '</w:t><w:tab/><w:t xml:space="preserve">');
}

/**
 * True when removing or repeating these parts keeps the XML well formed: after cancelling
 * matched pairs, what is left closes some elements and reopens the same ones (`</w:t></w:r>…<w:r><w:t>`).
 */
function isBalanced(parts: Part[]): boolean {
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

function enclosing(parsed: Part[], index: number, element: string): [number, number] | null {
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

export class JinjaModule {
  readonly name = 'JinjaModule';
  // Set by docxtemplater when the module is attached (module API).
  zip?: { files: Record<string, { asText(): string }>; file(path: string, data: string): void };
  docxtemplater?: { templatedFiles?: string[]; fileTypeConfig?: { tagsXmlLexedArray: string[] } };

  private readonly scanProblems = new Map<string, TemplateProblem[]>();
  private readonly rootFrames = new Map<string, Frame>();
  tagCount = 0;

  constructor(
    private readonly state: RenderState,
    private readonly images: DocxImageWriter,
    private readonly rich?: RichWriter,
  ) {}

  optionsTransformer(
    options: Record<string, unknown>,
    doc: JinjaModule['docxtemplater'],
  ): Record<string, unknown> {
    // Lex the wrappers runs can sit in, so placement and balance checks see them as elements.
    const lexed = doc?.fileTypeConfig?.tagsXmlLexedArray;
    if (lexed) {
      for (const t of [
        'w:hyperlink',
        'w:txbxContent',
        'w:smartTag',
        'w:ins',
        'w:del',
        'w:fldSimple',
        'w:customXml',
      ]) {
        if (!lexed.includes(t)) lexed.push(t);
      }
    }
    return options;
  }

  on(event: string): void {
    if (event !== 'before-preparse' || !this.zip || !this.docxtemplater) return;
    for (const path of this.docxtemplater.templatedFiles ?? []) {
      const file = this.zip.files[path];
      if (!file || !XML_WORDS_PART.test(path)) continue;
      const xml = file.asText();
      if (xml.includes(TAG_START) || xml.includes(TAG_END)) {
        throw new JinjaRuntimeError(`${path} contains the reserved characters U+FDD0/U+FDD1`);
      }
      const { xml: marked, tagCount, unclosed } = markJinjaTags(xml);
      this.tagCount += tagCount;
      if (tagCount) this.zip.file(path, marked);
      if (unclosed.length) {
        this.scanProblems.set(
          path,
          unclosed.map((u) => ({
            message: 'tag is not closed before the end of its paragraph',
            tag: u.tag,
            context: u.context,
            part: path,
          })),
        );
      }
    }
  }

  matchers(): [string, string, Record<string, unknown>][] {
    // Priority over docxtemplater's loop module, whose `#` prefix would claim `{# comments #}`.
    return [
      [`{`, MODULE, { kind: 'expr', priority: 1000 }],
      [`%`, MODULE, { kind: 'block', priority: 1000 }],
      [`#`, MODULE, { kind: 'comment', priority: 1000 }],
    ];
  }

  postparse(parsed: Part[], options: { filePath: string }): { postparsed: Part[]; errors: Error[] } {
    const filePath = options.filePath;
    const problems: TemplateProblem[] = [...(this.scanProblems.get(filePath) ?? [])];
    const report = (p: JinjaPart, message: string) => {
      p.broken = true;
      problems.push({ message, tag: p.source, context: p.context, part: filePath });
    };

    parsed.forEach((p, i) => {
      if (isJinja(p)) this.annotate(p, parsed, i, filePath, report);
    });
    const ws = this.applyWhitespaceControl(parsed);
    const placed = this.applyPlacement(ws, report);
    const postparsed = this.buildTree(placed, report);

    const errors = problems.map((problem) => {
      const e = new Error(problem.message) as Error & { properties: Record<string, unknown> };
      e.properties = { id: 'jinja_template_problem', explanation: problem.message, problem };
      return e;
    });
    return { postparsed, errors };
  }

  private annotate(
    p: JinjaPart,
    parsed: Part[],
    index: number,
    filePath: string,
    report: (p: JinjaPart, m: string) => void,
  ): void {
    const raw = decodeXmlText(p.value);
    // p.value lost its kind character to the matcher; rebuild the tag as written.
    const sigil = p.kind === 'expr' ? '{' : p.kind === 'block' ? '%' : '#';
    p.source = `{${sigil}${raw}}`;
    p.filePath = filePath;
    p.context = this.contextOf(parsed, index, p.source);
    let inner = raw.slice(0, -1); // drop the closing sigil
    p.trimLeft = inner.startsWith('-') || inner.startsWith('+');
    if (p.trimLeft) {
      p.trimLeft = inner.startsWith('-');
      inner = inner.slice(1);
    }
    p.trimRight = inner.endsWith('-');
    if (inner.endsWith('-') || inner.endsWith('+')) inner = inner.slice(0, -1);
    const prefix = /^(tr|tc|p|r)\s/.exec(inner);
    if (prefix) {
      inner = inner.slice(prefix[1].length);
      // RICH HOOK: `{{p x }}` replaces its paragraph and `{{r x }}` places runs (rich/); `{{tr`/`{{tc` print.
      if (p.kind !== 'expr' || prefix[1] === 'p' || prefix[1] === 'r') p.placement = prefix[1] as Placement;
    }
    if (p.kind === 'comment') return;
    try {
      if (p.kind === 'expr') {
        p.expr = parseExpression(inner);
        for (const m of unknownNames(p.expr)) report(p, m);
      } else {
        p.statement = parseStatement(inner);
        const st = p.statement;
        const exprs: Expr[] =
          st.type === 'if' || st.type === 'elif'
            ? [st.test]
            : st.type === 'for'
              ? [st.iter, ...(st.filter ? [st.filter] : [])]
              : st.type === 'set'
                ? [st.value]
                : [];
        for (const e of exprs) for (const m of unknownNames(e)) report(p, m);
      }
    } catch (e) {
      if (e instanceof JinjaSyntaxError) report(p, e.message);
      else throw e;
    }
  }

  /** Some text before and after the tag, within its paragraph, as an author sees it in Word. */
  private contextOf(parsed: Part[], index: number, source: string): string {
    const collect = (dir: 1 | -1): string => {
      let out = '';
      for (let i = index + dir; i >= 0 && i < parsed.length && out.length < 40; i += dir) {
        const p = parsed[i];
        if (p.type === 'tag' && p.tag === 'w:p') break;
        let t = '';
        if (isTextContent(p)) t = decodeXmlText(p.value);
        else if (isJinja(p)) t = (p.source as string | undefined) ?? '{…}';
        out = dir === 1 ? out + t : t + out;
      }
      return dir === 1 ? out.slice(0, 40) : out.slice(-40);
    };
    return `${collect(-1)}${source}${collect(1)}`;
  }

  /** `{%-` / `-%}`: strip the whitespace beside the tag; at the edge of its text, join the text beyond. */
  private applyWhitespaceControl(parsed: Part[]): Part[] {
    if (!parsed.some((p) => isJinja(p) && (p.trimLeft || p.trimRight))) return parsed;
    const drop = new Set<number>();
    const strip = (p: Part, side: 'start' | 'end') => {
      p.value = side === 'start' ? p.value.replace(/^\s+/, '') : p.value.replace(/\s+$/, '');
    };
    parsed.forEach((p, i) => {
      if (!isJinja(p)) return;
      for (const dir of [-1, 1] as const) {
        if (dir === -1 ? !p.trimLeft : !p.trimRight) continue;
        const side = dir === -1 ? 'end' : 'start';
        const neighbour = parsed[i + dir];
        if (neighbour && isTextContent(neighbour) && neighbour.value.trim() !== '') {
          strip(neighbour, side);
          continue;
        }
        // The tag is at the edge of its text: join with the nearest text beyond, as docxtpl does.
        let j = i + dir;
        while (j >= 0 && j < parsed.length && !isTextContent(parsed[j]) && !isJinja(parsed[j])) j += dir;
        if (j < 0 || j >= parsed.length) continue;
        if (isTextContent(parsed[j]) && parsed[j].value.trim() === '' && parsed[j] === neighbour) {
          strip(parsed[j], side);
          continue;
        }
        const [a, b] = dir === -1 ? [j + 1, i] : [i + 1, j];
        const between = parsed.slice(a, b);
        if (!isBalanced(between)) continue;
        for (let k = a; k < b; k++) drop.add(k);
        if (isTextContent(parsed[j])) strip(parsed[j], side);
      }
    });
    return drop.size ? parsed.filter((_p, i) => !drop.has(i)) : parsed;
  }

  /** True when the paragraph holds nothing but block tags, comments and whitespace. */
  private aloneInParagraph(parsed: Part[], [left, right]: [number, number]): boolean {
    for (let k = left + 1; k < right; k++) {
      const q = parsed[k];
      if (isJinja(q)) {
        if (q.kind === 'expr') return false;
      } else if (q.type === 'placeholder') return false;
      else if (isTextContent(q)) {
        if (q.value.trim() !== '') return false;
      } else if (q.type === 'tag') {
        if (q.tag === 'w:drawing' || q.tag === 'w:br' || q.tag === 'w:sectPr' || q.tag === 'w:txbxContent')
          return false;
      } else if (q.type === 'content' && VISIBLE_XML.test(q.value)) return false;
    }
    return true;
  }

  private applyPlacement(parsed: Part[], report: (p: JinjaPart, m: string) => void): Part[] {
    const remove = new Uint8Array(parsed.length);
    let any = false;
    parsed.forEach((p, i) => {
      if (!isJinja(p) || (p.kind === 'expr' && p.placement !== 'p')) return; // RICH HOOK: {{p x }}
      let range: [number, number] | null;
      // docxtpl first moves a {%r %} tag into a run of its own, then drops that run: the text
      // beside the tag stays, so the tag acts inline (and here the run keeps its formatting).
      if (p.placement === 'r') return;
      if (p.placement) {
        range = enclosing(parsed, i, ELEMENT[p.placement]);
        if (!range) {
          report(p, `a {%${p.placement} …%} tag must be inside ${PLACEMENT_WHAT[p.placement]}`);
          return;
        }
      } else {
        range = enclosing(parsed, i, 'w:p');
        if (!range || !this.aloneInParagraph(parsed, range)) return;
      }
      any = true;
      for (let k = range[0]; k <= range[1]; k++) remove[k] = 1;
    });
    if (!any) return parsed;
    // The element goes; the block tags and comments in it stay, in order.
    return parsed.filter((p, i) => !remove[i] || (isJinja(p) && (p.kind !== 'expr' || p.placement === 'p')));
  }

  private buildTree(parsed: Part[], report: (p: JinjaPart, m: string) => void): Part[] {
    interface Open {
      part: JinjaPart;
      type: 'if' | 'for';
      branches: Branch[];
      elseSeen: boolean;
    }
    const root: Part[] = [];
    const stack: Open[] = [];
    const body = (): Part[] => {
      const top = stack[stack.length - 1];
      return top ? top.branches[top.branches.length - 1].body : root;
    };
    const close = (open: Open) => {
      const { part } = open;
      for (const b of open.branches) {
        if (!isBalanced(b.body)) {
          report(
            part,
            `this ${open.type} block and its end are in different parts of the document structure (for example different table cells or a table and the text after it); use {%p …%}, {%tr …%} or {%tc …%} tags or move them`,
          );
          break;
        }
      }
      if (open.type === 'if') part.branches = open.branches;
      else {
        part.loopBody = open.branches[0].body;
        part.loopElse = open.branches[1]?.body;
      }
    };
    for (const p of parsed) {
      if (!isJinja(p) || p.kind !== 'block') {
        if (!isJinja(p) || p.kind === 'expr') body().push(p);
        continue; // comments render nothing
      }
      const st = p.statement;
      if (!st) {
        body().push(p); // broken tag, already reported; rendering never happens
        continue;
      }
      const top = stack[stack.length - 1];
      switch (st.type) {
        case 'if':
        case 'for':
          body().push(p);
          stack.push({
            part: p,
            type: st.type,
            branches: [{ test: st.type === 'if' ? st.test : undefined, body: [] }],
            elseSeen: false,
          });
          break;
        case 'elif':
          if (!top || top.type !== 'if') report(p, "'elif' without an open 'if'");
          else if (top.elseSeen) report(p, "'elif' after 'else'");
          else top.branches.push({ test: st.test, body: [] });
          break;
        case 'else':
          if (!top) report(p, "'else' without an open 'if' or 'for'");
          else if (top.elseSeen) report(p, "a second 'else' in the same block");
          else {
            top.elseSeen = true;
            top.branches.push({ body: [] });
          }
          break;
        case 'endif':
        case 'endfor': {
          const want = st.type === 'endif' ? 'if' : 'for';
          if (!top) report(p, `'${st.type}' without an open '${want}'`);
          else if (top.type !== want)
            report(p, `'${st.type}' where the '${top.type}' opened by ${top.part.source} should end first`);
          else close(stack.pop()!);
          break;
        }
        case 'set':
          body().push(p);
          break;
      }
    }
    for (const open of stack.reverse()) report(open.part, `'${open.type}' has no 'end${open.type}'`);
    return root;
  }

  private frameFor(options: { jinjaFrame?: Frame; filePath: string }): Frame {
    if (options.jinjaFrame) return options.jinjaFrame;
    let f = this.rootFrames.get(options.filePath);
    if (!f) this.rootFrames.set(options.filePath, (f = new Frame()));
    return f;
  }

  render(part: Part, options: RenderOptions): { value: string; errors?: unknown[] } | null {
    if (!isJinja(part)) return null;
    const frame = this.frameFor(options);
    this.state.produced.length = 0;
    try {
      if (part.kind === 'expr')
        return { value: this.output(evaluate(part.expr!, frame, this.state), options, part.placement) };
      const st = part.statement!;
      if (st.type === 'set') {
        const v = evaluate(st.value, frame, this.state);
        this.assign(frame, st.targets, v);
        return { value: '' };
      }
      if (st.type === 'if') {
        for (const b of part.branches ?? []) {
          if (!b.test || truthy(this.state.use(evaluate(b.test, frame, this.state))))
            return this.renderBody(b.body, frame, part, options);
        }
        return { value: '' };
      }
      if (st.type === 'for') return this.renderLoop(part, st, frame, options);
      return { value: '' };
    } catch (e) {
      if (e instanceof JinjaRuntimeError) {
        const { handled, names } = this.state.explainFailure();
        if (handled) return { value: '' }; // strict mode: reported with every undefined variable
        const cause = names.length ? ` (undefined: ${names.join(', ')})` : '';
        throw new TemplateRuntimeError(`${e.message}${cause} in ${part.source}`, {
          tag: part.source,
          context: part.context,
          part: part.filePath,
        });
      }
      // A value too long for a string or data nested too deep to print: the data's fault, not ours.
      if (e instanceof RangeError) {
        throw new TemplateRuntimeError(
          `a value is too large or too deeply nested (${e.message}) in ${part.source}`,
          {
            tag: part.source,
            context: part.context,
            part: part.filePath,
          },
        );
      }
      throw e;
    }
  }

  private renderLoop(
    part: JinjaPart,
    st: Extract<Statement, { type: 'for' }>,
    frame: Frame,
    options: RenderOptions,
  ) {
    let items = iterate(this.state.use(evaluate(st.iter, frame, this.state)), `for ${st.targets.join(', ')}`);
    if (st.filter) {
      const filter = st.filter;
      items = items.filter((item) => {
        const f = new Frame(frame);
        this.assign(f, st.targets, item);
        return truthy(this.state.use(evaluate(filter, f, this.state)));
      });
    }
    if (!items.length)
      return part.loopElse ? this.renderBody(part.loopElse, frame, part, options) : { value: '' };
    this.state.countIterations(items.length);
    const values: string[] = [];
    const errors: unknown[] = [];
    items.forEach((item, i) => {
      const f = new Frame(frame);
      this.assign(f, st.targets, item);
      f.set('loop', new LoopInfo(items, i));
      const r = options.render({ ...options, compiled: part.loopBody!, jinjaFrame: f });
      values.push(...r.parts);
      errors.push(...r.errors);
    });
    return { value: options.joinUncorrupt(values, { ...options, basePart: part }), errors };
  }

  private renderBody(body: Part[], frame: Frame, part: JinjaPart, options: RenderOptions) {
    const r = options.render({ ...options, compiled: body, jinjaFrame: frame });
    return { value: options.joinUncorrupt(r.parts, { ...options, basePart: part }), errors: r.errors };
  }

  private assign(frame: Frame, targets: string[], value: Value): void {
    if (targets.length === 1) {
      frame.set(targets[0], value);
      return;
    }
    const seq = value instanceof Undefined ? [] : iterate(value, 'unpacking');
    if (seq.length !== targets.length)
      throw new JinjaRuntimeError(
        `cannot unpack ${seq.length} values into ${targets.length} names (${targets.join(', ')})`,
      );
    targets.forEach((t, i) => frame.set(t, seq[i]));
  }

  private output(v: Value, options: RenderOptions, placement?: Placement): string {
    // RICH HOOK (libs/engine/src/rich): rich values, sub-documents and `{{p x }}` paragraphs.
    const rich = this.rich?.output(v, placement, options.filePath, (plain) => this.output(plain, options));
    if (rich !== undefined) return rich;
    if (v instanceof ImageRef) {
      return `</w:t>${this.images.drawing(v.name, options.filePath)}<w:t xml:space="preserve">`;
    }
    this.state.use(v);
    return textToRunXml(v instanceof Undefined ? this.state.missingText(v) : str(v));
  }
}

interface RenderOptions {
  filePath: string;
  jinjaFrame?: Frame;
  compiled: Part[];
  render(o: RenderOptions): { parts: string[]; errors: unknown[] };
  joinUncorrupt(parts: string[], o: RenderOptions & { basePart: Part }): string;
  [key: string]: unknown;
}
