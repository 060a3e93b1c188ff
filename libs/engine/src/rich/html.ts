/**
 * HTML as the model, parsed with htmlparser2 (a maintained, streaming, non-recursive parser).
 * Mapped: p, br, b/strong, i/em, u/ins, s/del/strike, sup, sub, a[href], span/font styles (color,
 * background-color, font-weight, font-style, text-decoration, font-size, font-family,
 * text-align), h1–h6, ul/ol/li (nested), blockquote, pre/code, table/tr/th/td with spans, and
 * img with a data:image/png;base64 source. Scripts, styles and the like are dropped with their
 * content; comments are dropped; unknown elements are dropped and their text kept.
 */
import { Parser } from 'htmlparser2';
import { prepareImage, type ImageLimits } from '../docx/images';
import { PayloadTooLargeError } from '../errors';
import type { Align, Block, Inline, ListInfo, ParagraphBlock, RunProps, TableCell } from './model';
import { markupTooLong, nestingTooDeep, tableTooLarge, type RichLimits } from './limits';
import { checkColor, checkUrl } from './paragraphs';

interface Element {
  tag: string;
  attrs: Record<string, string>;
  children: Node[];
}
type Node = Element | string;

/** Elements whose content is not document text. */
const DROPPED = new Set([
  'script',
  'style',
  'head',
  'title',
  'template',
  'iframe',
  'object',
  'embed',
  'svg',
  'math',
  'canvas',
  'noscript',
  'select',
  'textarea',
  'button',
]);
const BLOCKS = new Set([
  'p',
  'div',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'blockquote',
  'pre',
  'table',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'nav',
  'aside',
  'figure',
  'figcaption',
  'address',
  'dl',
  'dt',
  'dd',
  'hr',
  'body',
  'html',
  'center',
]);
const HEADING_HALF_POINTS = [32, 28, 26, 24, 22, 22];
const NAMED_COLORS: Record<string, string> = {
  black: '000000',
  white: 'FFFFFF',
  red: 'FF0000',
  green: '008000',
  blue: '0000FF',
  yellow: 'FFFF00',
  gray: '808080',
  grey: '808080',
  silver: 'C0C0C0',
  maroon: '800000',
  olive: '808000',
  lime: '00FF00',
  aqua: '00FFFF',
  teal: '008080',
  navy: '000080',
  fuchsia: 'FF00FF',
  purple: '800080',
  orange: 'FFA500',
};
const MONOSPACE = 'Courier New';

/** The HTML as a tree, refusing more than `maxDepth` open elements. Iterative: no recursion. */
function parseTree(html: string, maxDepth: number, kind: string): Element {
  const root: Element = { tag: '#root', attrs: {}, children: [] };
  const stack: Element[] = [root];
  let dropping = 0;
  const parser = new Parser(
    {
      onopentag(tag, attrs) {
        if (dropping || DROPPED.has(tag)) {
          dropping++;
          return;
        }
        if (stack.length > maxDepth) throw nestingTooDeep(kind, maxDepth);
        const el: Element = { tag, attrs, children: [] };
        stack[stack.length - 1].children.push(el);
        stack.push(el);
      },
      onclosetag() {
        if (dropping) dropping--;
        else if (stack.length > 1) stack.pop();
      },
      ontext(text) {
        if (dropping) return;
        // The tokenizer hands text over in pieces (around entities): one string per text node.
        const children = stack[stack.length - 1].children;
        const last = children.length - 1;
        if (typeof children[last] === 'string') children[last] += text;
        else children.push(text);
      },
    },
    { lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  return root;
}

function cssDeclarations(style: string | undefined): Map<string, string> {
  // Hand-written: only `name: value;` pairs of one style attribute are read, no selectors.
  const out = new Map<string, string>();
  for (const decl of (style ?? '').split(';')) {
    const at = decl.indexOf(':');
    if (at > 0)
      out.set(
        decl.slice(0, at).trim().toLowerCase(),
        decl
          .slice(at + 1)
          .trim()
          .toLowerCase(),
      );
  }
  return out;
}

/** A CSS colour as RRGGBB, or undefined when it is not one we read (ignored, as browsers do). */
function cssColor(v: string | undefined): string | undefined {
  if (!v) return undefined;
  if (NAMED_COLORS[v]) return NAMED_COLORS[v];
  let m = /^#([0-9a-f]{6})$/.exec(v);
  if (m) return m[1].toUpperCase();
  m = /^#([0-9a-f])([0-9a-f])([0-9a-f])$/.exec(v);
  if (m) return (m[1] + m[1] + m[2] + m[2] + m[3] + m[3]).toUpperCase();
  m = /^rgba?\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*(,[^)]*)?\)$/.exec(v);
  if (m)
    return [m[1], m[2], m[3]]
      .map((x) => Math.min(255, Number(x)).toString(16).padStart(2, '0'))
      .join('')
      .toUpperCase();
  return undefined;
}

function cssProps(el: Element, props: RunProps): RunProps {
  const css = cssDeclarations(el.attrs.style);
  if (!css.size && !el.attrs.color) return props;
  const out = { ...props };
  const color = cssColor(css.get('color') ?? el.attrs.color?.toLowerCase());
  if (color) out.color = checkColor(color, 'color');
  const bg = cssColor(css.get('background-color') ?? css.get('background'));
  if (bg) out.shading = bg;
  const weight = css.get('font-weight');
  if (weight) out.bold = weight === 'bold' || weight === 'bolder' || Number(weight) >= 600;
  const fontStyle = css.get('font-style');
  if (fontStyle) out.italic = fontStyle === 'italic' || fontStyle === 'oblique';
  const decoration = css.get('text-decoration') ?? css.get('text-decoration-line');
  if (decoration?.includes('underline')) out.underline = 'single';
  if (decoration?.includes('line-through')) out.strike = true;
  const size = /^(\d+(?:\.\d+)?)(pt|px)$/.exec(css.get('font-size') ?? '');
  if (size) {
    const pt = Number(size[1]) * (size[2] === 'px' ? 0.75 : 1);
    if (pt >= 1 && pt <= 1638) out.halfPoints = Math.round(pt * 2);
  }
  const family = css.get('font-family')?.split(',')[0].replace(/["']/g, '').trim();
  if (
    family &&
    family.length <= 100 &&
    /^[\w .-]+$/.test(family) &&
    !/^(serif|sans-serif|monospace)$/.test(family)
  )
    out.font = family.replace(/\b\w/g, (c) => c.toUpperCase());
  return out;
}

function alignOf(el: Element): Align | undefined {
  const a = cssDeclarations(el.attrs.style).get('text-align') ?? el.attrs.align?.toLowerCase();
  return a === 'center' || a === 'right' || a === 'left' ? a : a === 'justify' ? 'both' : undefined;
}

interface Scope {
  props: RunProps;
  /** The list item being written; `numbered` once its first paragraph took the number. */
  list?: { info: ListInfo; level: number; numbered: { done: boolean } };
  indent: number;
  pre: boolean;
  align?: Align;
  style?: string;
  styleFallback?: RunProps;
}

/** Walks the tree with a current paragraph; block elements close it (a hand-written layout step). */
class Converter {
  private readonly blocks: Block[] = [];
  private current: ParagraphBlock | null = null;
  private imageCount = 0;

  constructor(
    private readonly limits: RichLimits,
    private readonly imageLimits: ImageLimits,
    private readonly images: { count: number },
  ) {}

  run(root: Element): Block[] {
    this.children(root, { props: {}, indent: 0, pre: false });
    this.flush();
    return this.blocks;
  }

  private paragraph(scope: Scope): ParagraphBlock {
    if (!this.current) {
      this.current = { kind: 'paragraph', inlines: [] };
      if (scope.style) this.current.style = scope.style;
      if (scope.styleFallback) this.current.styleFallback = scope.styleFallback;
      if (scope.align) this.current.align = scope.align;
      if (scope.indent) this.current.indent = scope.indent;
      if (scope.list && !scope.list.numbered.done) {
        this.current.list = { list: scope.list.info, level: scope.list.level };
        scope.list.numbered.done = true;
      } else if (scope.list) this.current.indent = 720 * (scope.list.level + 1) + scope.indent;
    }
    return this.current;
  }

  private flush(): void {
    const p = this.current;
    this.current = null;
    if (!p) return;
    // Trim the collapsed whitespace at the paragraph's edges, as a browser does.
    const first = p.inlines[0];
    if (first?.kind === 'text') first.text = first.text.replace(/^ +/, '');
    const last = p.inlines[p.inlines.length - 1];
    if (last?.kind === 'text') last.text = last.text.replace(/ +$/, '');
    p.inlines = p.inlines.filter((i) => i.kind !== 'text' || i.text !== '');
    if (p.inlines.length || p.list) this.blocks.push(p);
  }

  private text(raw: string, scope: Scope): void {
    // Control characters are not text (and \a, \f mean paragraph and page breaks in runs).
    // eslint-disable-next-line no-control-regex
    let text = raw.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
    if (!scope.pre) {
      text = text.replace(/[ \t\r\n]+/g, ' ');
      if (!this.current && text.trim() === '') return;
    }
    this.paragraph(scope).inlines.push({ kind: 'text', text, props: scope.props });
  }

  private children(el: Element, scope: Scope): void {
    for (const child of el.children) {
      if (typeof child === 'string') this.text(child, scope);
      else this.element(child, scope);
    }
  }

  private element(el: Element, outer: Scope): void {
    const scope: Scope = { ...outer, props: cssProps(el, outer.props) };
    const tag = el.tag;
    const props = scope.props;
    switch (tag) {
      case 'b':
      case 'strong':
        scope.props = { ...props, bold: true };
        break;
      case 'i':
      case 'em':
      case 'cite':
      case 'var':
        scope.props = { ...props, italic: true };
        break;
      case 'u':
      case 'ins':
        scope.props = { ...props, underline: 'single' };
        break;
      case 's':
      case 'del':
      case 'strike':
        scope.props = { ...props, strike: true };
        break;
      case 'sup':
        scope.props = { ...props, vertAlign: 'superscript' };
        break;
      case 'sub':
        scope.props = { ...props, vertAlign: 'subscript' };
        break;
      case 'mark':
        scope.props = { ...props, highlight: 'yellow' };
        break;
      case 'code':
      case 'kbd':
      case 'samp':
      case 'tt':
        scope.props = { ...props, font: MONOSPACE };
        break;
      case 'a':
        if (el.attrs.href !== undefined) scope.props = { ...props, url: checkUrl(el.attrs.href, 'a href') };
        break;
      case 'br':
        this.paragraph(scope).inlines.push({ kind: 'text', text: '\n', props });
        return;
      case 'img':
        this.image(el, scope);
        return;
    }
    if (!BLOCKS.has(tag)) {
      this.children(el, scope);
      return;
    }
    this.flush();
    const align = alignOf(el);
    if (align) scope.align = align;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      const n = Number(heading[1]);
      scope.style = `Heading ${n}`;
      scope.styleFallback = { bold: true, halfPoints: HEADING_HALF_POINTS[n - 1] };
    } else if (tag === 'blockquote') {
      scope.indent = outer.indent + 720;
      scope.style = 'Quote';
      scope.styleFallback = { italic: true };
    } else if (tag === 'pre') {
      scope.pre = true;
      scope.props = { ...scope.props, font: MONOSPACE };
      const first = el.children[0];
      if (typeof first === 'string') el.children[0] = first.replace(/^\r?\n/, '');
    } else if (tag === 'ul' || tag === 'ol') {
      const kind = tag === 'ol' ? 'decimal' : 'bullet';
      const parent = outer.list;
      // Word has nine list levels; deeper lists stay on the last one.
      const level = parent ? Math.min(parent.level + 1, 8) : 0;
      const info: ListInfo = parent ? parent.info : { levels: [] };
      info.levels[level] ??= kind;
      if (!parent && tag === 'ol' && /^\d{1,6}$/.test(el.attrs.start ?? ''))
        info.start = Number(el.attrs.start);
      for (const child of el.children) {
        if (typeof child === 'string') continue; // whitespace between items
        const itemScope: Scope = { ...scope, list: { info, level, numbered: { done: false } } };
        if (child.tag === 'li') {
          this.children(child, { ...itemScope, props: cssProps(child, scope.props) });
          this.flush();
        } else this.element(child, itemScope);
      }
      return;
    } else if (tag === 'table') {
      this.blocks.push({ kind: 'table', rows: this.tableRows(el, scope) });
      return;
    } else if (tag === 'hr') return;
    this.children(el, scope);
    this.flush();
  }

  private tableRows(table: Element, scope: Scope): TableCell[][] {
    const rows: Element[] = [];
    const collect = (el: Element) => {
      for (const c of el.children) {
        if (typeof c === 'string') continue;
        if (c.tag === 'tr') rows.push(c);
        else if (c.tag === 'thead' || c.tag === 'tbody' || c.tag === 'tfoot') collect(c);
      }
    };
    collect(table);
    let cells = 0;
    const out = rows.map((tr) =>
      tr.children
        .filter((c): c is Element => typeof c !== 'string' && (c.tag === 'td' || c.tag === 'th'))
        .map((td): TableCell => {
          const span = (v: string | undefined, max: number) =>
            Math.min(max, Math.max(1, Number.parseInt(v ?? '1', 10) || 1));
          const colspan = span(td.attrs.colspan, this.limits.maxTableColumns + 1); // one over: still refused below
          const rowspan = span(td.attrs.rowspan, rows.length);
          cells += colspan;
          if (cells > this.limits.maxTableCells) throw tableTooLarge(rows.length, colspan, this.limits);
          const header = td.tag === 'th';
          const inner = new Converter(this.limits, this.imageLimits, this.images);
          const cellScope: Scope = {
            props: header ? { ...scope.props, bold: true } : scope.props,
            indent: 0,
            pre: false,
          };
          const align = alignOf(td);
          if (align) cellScope.align = align;
          inner.children(td, cellScope);
          inner.flush();
          return { blocks: inner.blocks, colspan, rowspan, header };
        }),
    );
    const columns = Math.max(0, ...out.map((r) => r.reduce((n, c) => n + c.colspan, 0)));
    if (columns > this.limits.maxTableColumns || columns * out.length > this.limits.maxTableCells)
      throw tableTooLarge(out.length, columns, this.limits);
    return out;
  }

  private image(el: Element, scope: Scope): void {
    const src = el.attrs.src ?? '';
    if (!/^data:image\/png;base64,/i.test(src)) return; // only inline PNG: nothing is fetched
    if (++this.images.count > this.imageLimits.maxImages)
      throw new PayloadTooLargeError(
        `The rich content holds more than ${this.imageLimits.maxImages} images`,
        {
          reason: 'too_many_images',
          limit: this.imageLimits.maxImages,
        },
      );
    const size: Record<string, number> = {};
    for (const dim of ['width', 'height'] as const) {
      const px = Number.parseFloat(el.attrs[dim] ?? cssDeclarations(el.attrs.style).get(dim) ?? '');
      if (px > 0) size[`${dim}_px`] = px;
    }
    const name = `html image ${++this.imageCount}`;
    const image = prepareImage(name, { data: src, ...size }, this.imageLimits);
    const inline: Inline = { kind: 'image', image };
    this.paragraph(scope).inlines.push(inline);
  }
}

/** HTML as blocks. Checked against the limits before and while parsing. */
export function htmlToBlocks(
  html: string,
  limits: RichLimits,
  imageLimits: ImageLimits,
  images: { count: number },
  kind = 'HTML',
): Block[] {
  if (html.length > limits.maxMarkupChars) throw markupTooLong(kind, html.length, limits.maxMarkupChars);
  const tree = parseTree(html, limits.maxNestingDepth, kind);
  return new Converter(limits, imageLimits, images).run(tree);
}
