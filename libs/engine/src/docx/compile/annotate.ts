/**
 * First compile pass: gives every Jinja tag its source as written, its context in the document,
 * its whitespace-control marks and placement prefix, and its parsed expression or statement.
 */
import { unknownNames } from '../../runtime/evaluator';
import type { Environment } from '../../runtime/ops';
import {
  JinjaSyntaxError,
  parseExpression,
  parseStatement,
  type Expr,
  type FilterCall,
  type Statement,
} from '../../syntax/parser';
import { decodeXmlText } from '../../syntax/tag-scanner';
import {
  enclosing,
  isJinja,
  isTextContent,
  type JinjaPart,
  type Part,
  type Placement,
  type Report,
} from '../parts';
import { WORD } from '../../package/formats';

/** Word's elements (the package description's). */
const ELEMENTS = WORD.elements;

export function annotate(
  p: JinjaPart,
  parsed: Part[],
  index: number,
  filePath: string,
  report: Report,
  /** The filters and tests the template may name (others are syntax errors). */
  env: Environment,
): void {
  const raw = decodeXmlText(p.value);
  // p.value lost its kind character to the matcher; rebuild the tag as written.
  const sigil = p.kind === 'expr' ? '{' : p.kind === 'block' ? '%' : '#';
  p.source = `{${sigil}${raw}}`;
  p.filePath = filePath;
  p.context = contextOf(parsed, index, p.source);
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
  const doubled = p.kind === 'expr' && /^\s*[%#]/.exec(inner);
  if (doubled) {
    // `{{% … %}}`: docxtpl renders it only where the element around goes ({%tr, {%tc, {%p).
    const fix = `{${doubled[0].trim()}${inner
      .slice(doubled[0].length)
      .replace(/[%#]\s*$/, '')
      .trimEnd()} ${doubled[0].trim()}}`;
    report(
      p,
      `'{{${doubled[0].trim()}' opens an expression, not a tag: did you mean '${fix}' (one brace on each side)?`,
    );
    return;
  }
  try {
    if (p.kind === 'expr') {
      Object.assign(p, runContext(parsed, index));
      p.expr = parseExpression(inner);
      for (const m of unknownNames(p.expr, env)) report(p, m);
    } else {
      p.statement = parseStatement(inner);
      for (const e of statementExprs(p.statement)) for (const m of unknownNames(e, env)) report(p, m);
    }
  } catch (e) {
    if (e instanceof JinjaSyntaxError) report(p, e.message);
    else throw e;
  }
}

/**
 * The paragraph and run properties around an expression tag whose run sits directly in its
 * paragraph: docxtpl copies them into the paragraphs a `\a` or `\f` in the value starts.
 */
function runContext(parsed: Part[], index: number): { paragraphProperties?: string; runProperties?: string } {
  const run = enclosing(parsed, index, ELEMENTS.run);
  const para = enclosing(parsed, index, ELEMENTS.paragraph);
  if (!run || !para || para[0] > run[0]) return {};
  let depth = 0;
  for (let k = para[0] + 1; k < run[0]; k++) {
    const q = parsed[k];
    if (q.type === 'tag' && q.position === 'start') depth++;
    else if (q.type === 'tag' && q.position === 'end') depth--;
  }
  if (depth !== 0) return {}; // inside a hyperlink, a field, a tracked change: no new paragraph there
  const xmlBetween = (from: number) => {
    let xml = '';
    for (let k = from + 1; k < parsed.length && parsed[k].type !== 'tag'; k++) xml += parsed[k].value;
    return xml;
  };
  return {
    paragraphProperties: /<w:pPr>[\s\S]*?<\/w:pPr>/.exec(xmlBetween(para[0]))?.[0] ?? '',
    runProperties: /<w:rPr>[\s\S]*?<\/w:rPr>/.exec(xmlBetween(run[0]))?.[0] ?? '',
  };
}

/** The expressions inside a statement (to find unknown filters and tests before rendering). */
function statementExprs(st: Statement): Expr[] {
  const asFilters = (filters: FilterCall[]): Expr[] =>
    filters.map((f) => ({ type: 'Filter', input: { type: 'Const', value: null }, ...f }));
  switch (st.type) {
    case 'if':
    case 'elif':
      return [st.test];
    case 'for':
      return [st.iter, ...(st.filter ? [st.filter] : [])];
    case 'set':
    case 'colspan':
    case 'cellbg':
      return [st.value];
    case 'with':
      return st.assignments.map(([, e]) => e);
    case 'call':
      return [st.call, ...st.params.flatMap((q) => (q.default ? [q.default] : []))];
    case 'macro':
      return st.params.flatMap((q) => (q.default ? [q.default] : []));
    case 'setblock':
    case 'filter':
      return asFilters(st.filters);
    default:
      return [];
  }
}

/** Some text before and after the tag, within its paragraph, as an author sees it in Word. */
function contextOf(parsed: Part[], index: number, source: string): string {
  const collect = (dir: 1 | -1): string => {
    let out = '';
    for (let i = index + dir; i >= 0 && i < parsed.length && out.length < 40; i += dir) {
      const p = parsed[i];
      if (p.type === 'tag' && p.tag === ELEMENTS.paragraph) break;
      let t = '';
      if (isTextContent(p)) t = decodeXmlText(p.value);
      else if (isJinja(p)) t = (p.source as string | undefined) ?? '{…}';
      out = dir === 1 ? out + t : t + out;
    }
    return dir === 1 ? out.slice(0, 40) : out.slice(-40);
  };
  return `${collect(-1)}${source}${collect(1)}`;
}
