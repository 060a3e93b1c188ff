/**
 * Finds the Jinja tags (`{{ … }}`, `{% … %}`, `{# … #}`) in the text of an XML part (Word's by
 * default; the elements come from the format's package description),
 * however Word split them across runs (or paragraphs: see scanText), and marks each with a private delimiter pair so that
 * docxtemplater's lexer (which supports a single delimiter pair) finds exactly these tags and
 * nothing else: a lone `{` or `}` in the document stays text.
 *
 * Only the first character of the opener and the last of the closer change (`{{ x }}` becomes
 * `␐{ x }␑`), so the tag text docxtemplater hands to the module still says what kind of tag it is.
 * Hand-written because no library knows Jinja's tag boundaries inside OOXML runs.
 */

import { WORD, type FormatElements } from '../package/formats';

/** Unicode noncharacters: never in text a person typed, legal in XML 1.0. */
export const TAG_START = '\uFDD0';
export const TAG_END = '\uFDD1';

export interface UnclosedTag {
  /** The text from the opener to the end of its paragraph (no closer follows it). */
  tag: string;
  context: string;
}

/** A tag Word split across paragraphs, joined as docxtpl joins it (into the first paragraph). */
export interface JoinedTag {
  tag: string;
  /** The first paragraph's text from around the opener. */
  context: string;
  /** How many paragraphs became one. */
  paragraphs: number;
}

/** A tag split across paragraphs whose join docxtpl would turn into a broken or different document. */
export interface UnjoinableTag {
  tag: string;
  /** Its first half: from the opener to the end of the paragraph it opens in. */
  opening: string;
  context: string;
  /** What lies between its halves: table cells (docxtpl drops a cell), or another boundary. */
  across: 'table cells' | 'other';
}

export interface ScanResult {
  xml: string;
  tagCount: number;
  unclosed: UnclosedTag[];
  joined: JoinedTag[];
  unjoinable: UnjoinableTag[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeXmlText(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e] ?? m;
  });
}

/** An element name as a regular expression's source (`w:t` has nothing to escape; another format might). */
const re = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What the scanner matches, built from a format's element names (the package description's
 * `elements`): text nodes and paragraph boundaries, and the shapes of XML a split tag may be cut
 * across. Built once per format.
 */
interface ScanElements {
  tokens: RegExp;
  paragraphStart: RegExp;
  cellEnd: RegExp;
  runJoin: readonly string[];
  paragraphJoin: string;
}

const scanElementsCache = new WeakMap<FormatElements, ScanElements>();

function scanElementsOf(e: FormatElements): ScanElements {
  let built = scanElementsCache.get(e);
  if (!built) {
    const [t, r, p] = [e.text, e.run, e.paragraph];
    built = {
      tokens: new RegExp(`<${re(t)}(?:\\s[^>]*)?>([^<]*)</${re(t)}>|<${re(p)}[\\s>/]|</${re(p)}>`, 'g'),
      paragraphStart: new RegExp(`<${re(p)}[\\s>/]`, 'g'),
      cellEnd: new RegExp(`</${re(e.cell)}>`),
      runJoin: [`/${t} /${r} ${r} ${t}`, `/${t} ${t}`],
      paragraphJoin: `/${t} /${r} /${p} ${p} ${r} ${t}`,
    };
    scanElementsCache.set(e, built);
  }
  return built;
}

/**
 * How many paragraph boundaries a tag may run across before its opener counts as unclosed.
 * docxtpl sets none; ours bounds the closer search, and a tag (or comment) spanning more
 * paragraphs than this is a mistake, not Word's doing.
 */
export const MAX_SPLIT_PARAGRAPHS = 50;

const DOUBLE_QUOTES = '"\u201c\u201d\u201e';
const SINGLE_QUOTES = "'\u2018\u2019\u201a";

const EXTRA_BRACE = /^\{[%#](?:tr|tc|p) /;

interface Piece {
  /** Offset of the text in the XML. */
  xmlStart: number;
  text: string;
  /** Which paragraph of the part holds it (a count of paragraph boundaries). */
  paragraph: number;
}

interface Scan {
  tags: [number, number][];
  /** Openers without a closer: where each is and where its paragraph ends. */
  unclosed: { at: number; paragraphEnd: number }[];
}

/** The first index of sorted `xs` whose value is greater than `x`. */
function firstAbove(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Scans a part's text (the raw, still-escaped text of its w:t nodes joined; `breaks` are the
 * offsets where a new paragraph starts) and returns the [opener, closerEnd) offsets of each
 * complete tag, plus unclosed openers.
 *
 * A tag's closer may sit in a later paragraph, as docxtpl joins such tags (Word leaves them after
 * an Enter typed and deleted inside a tag). An expression or statement that reaches another
 * paragraph stops at the next opener there: `{{ name }` and a later `{{ x }}` is a lost brace,
 * reported where it is, not one tag swallowing the text between. A comment runs to its `#}`.
 */
function scanText(full: string, breaks: readonly number[]): Scan {
  const tags: [number, number][] = [];
  const unclosed: Scan['unclosed'] = [];
  // Characters read past an opener's paragraph, for all openers together: twice the text, so that
  // a part of many unclosed openers costs linear time; real templates use a fraction of it.
  let crossBudget = 2 * full.length + 10_000;
  let i = 0;
  while (i < full.length - 1) {
    if (full[i] !== '{' || !'{%#'.includes(full[i + 1])) {
      i++;
      continue;
    }
    // docxtpl's leniency: `{{%tr for … %}}` is read as `{%tr for … %}` (its row pattern finds
    // `{%tr` inside and swallows the extra braces with the row). Same for `{%tc` and `{%p`, whose
    // element goes too; for `{{%r` the braces would stay as text: left an expression, which the compile refuses with the fix.
    if (full[i + 1] === '{' && EXTRA_BRACE.test(full.slice(i + 1, i + 6))) i++;
    const kind = full[i + 1];
    const closer = kind === '{' ? '}}' : kind === '%' ? '%}' : '#}';
    let nextBreak = firstAbove(breaks, i);
    const paragraphEnd = breaks[nextBreak] ?? full.length;
    let crossed = 0;
    let j = i + 2;
    let quote: '"' | "'" | '' = '';
    let end = -1;
    while (j < full.length) {
      while (nextBreak < breaks.length && breaks[nextBreak] <= j) {
        nextBreak++;
        crossed++;
      }
      if (crossed > MAX_SPLIT_PARAGRAPHS || (crossed && --crossBudget < 0)) break;
      const ch = full[j];
      if (crossed && kind !== '#' && ch === '{' && '{%#'.includes(full[j + 1] ?? '')) break;
      if (quote) {
        // Straight, typographic or entity-escaped quotes of the same family close the string.
        const family = quote === '"' ? DOUBLE_QUOTES : SINGLE_QUOTES;
        const entity = quote === '"' ? '&quot;' : '&apos;';
        if (ch === '\\') j += 2;
        else if (family.includes(ch)) {
          quote = '';
          j++;
        } else if (full.startsWith(entity, j)) {
          quote = '';
          j += entity.length;
        } else j++;
        continue;
      }
      if (kind !== '#') {
        if (DOUBLE_QUOTES.includes(ch) || full.startsWith('&quot;', j)) quote = '"';
        else if (SINGLE_QUOTES.includes(ch) || full.startsWith('&apos;', j)) quote = "'";
        if (quote) {
          j += ch === '&' ? 6 : 1;
          continue;
        }
      }
      if (full.startsWith(closer, j)) {
        end = j + 2;
        break;
      }
      j++;
    }
    if (end < 0) {
      // A `{` ending one paragraph and a `{` starting the next are a tag only when it closes
      // (docxtpl joins `{` / `{ x }}` too); otherwise they are two braces of text.
      if (paragraphEnd === i + 1) i++;
      else {
        unclosed.push({ at: i, paragraphEnd });
        i += 2;
      }
      continue;
    }
    tags.push([i, end]);
    i = end;
  }
  return { tags, unclosed };
}

/**
 * The elements the XML between two texts of a split tag ends and starts, with whole elements in
 * between left out: `/w:t /w:r w:r w:t` from one run to the next. Null when elements interleave.
 */
function gapShape(gap: string): string | null {
  const open: string[] = [];
  const unmatched: string[] = [];
  for (const m of gap.matchAll(/<(\/?)([\w:]+)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = m;
    if (selfClosing) continue;
    if (!closing) open.push(name);
    else if (open.length && open[open.length - 1] === name) open.pop();
    else if (open.length) return null;
    else unmatched.push(`/${name}`);
  }
  return [...unmatched, ...open].join(' ');
}

/**
 * Whether the XML between two texts of a split tag can go, leaving well-formed XML: it ends the
 * text (and its run) and starts another, with only whole elements between (formatting, proofing
 * marks, bookmarks). A hyperlink, field or tracked change boundary keeps the tag as Word split it.
 */
function joinable(gap: string, e: ScanElements): boolean {
  const shape = gapShape(gap);
  return shape !== null && e.runJoin.includes(shape);
}

/**
 * The same across paragraphs: the gap ends a run and its paragraph and starts another paragraph
 * and run, whole elements between (runs without text, empty paragraphs, bookmarks). Cutting it
 * is docxtpl's join: the first paragraph keeps its properties, the later one's go.
 */
function paragraphJoinable(gap: string, e: ScanElements): boolean {
  return gapShape(gap) === e.paragraphJoin;
}

function contextAround(text: string, from: number, to: number): string {
  const before = text.slice(Math.max(0, from - 30), from);
  const after = text.slice(to, to + 30);
  return `${from > 30 ? '…' : ''}${before}${text.slice(from, to)}${after}${to + 30 < text.length ? '…' : ''}`;
}

/**
 * Marks the tags of one part. `elements`: the part's format's element names (the package
 * description); Word's by default.
 */
export function markJinjaTags(xml: string, elements: FormatElements = WORD.elements): ScanResult {
  const e = scanElementsOf(elements);
  const edits: number[] = []; // XML offsets whose character becomes TAG_START / TAG_END (alternating)
  const cuts: [number, number][] = []; // XML ranges that go (between the pieces of a split tag)
  const unclosed: UnclosedTag[] = [];
  const joined: JoinedTag[] = [];
  const unjoinable: UnjoinableTag[] = [];
  let tagCount = 0;

  // The part's text, piece by piece, and where its paragraphs start.
  const pieces: Piece[] = [];
  const starts: number[] = [];
  const breaks: number[] = [];
  let full = '';
  let paragraph = 0;
  e.tokens.lastIndex = 0;
  for (let m = e.tokens.exec(xml); m; m = e.tokens.exec(xml)) {
    if (m[1] === undefined) {
      paragraph++;
      continue;
    }
    if (!m[1].length) continue;
    const last = pieces[pieces.length - 1];
    if (last && last.paragraph !== paragraph) breaks.push(full.length);
    pieces.push({ xmlStart: m.index + m[0].indexOf('>') + 1, text: m[1], paragraph });
    starts.push(full.length);
    full += m[1];
  }
  if (!pieces.length) return { xml, tagCount, unclosed, joined, unjoinable };

  const pieceOf = (k: number): number => firstAbove(starts, k) - 1;
  const toXml = (k: number): number => {
    const idx = pieceOf(k);
    return pieces[idx].xmlStart + (k - starts[idx]);
  };
  /** The decoded text of the paragraph holding offset `k`, and where `k` is in it. */
  const paragraphOf = (k: number) => {
    const b = firstAbove(breaks, k);
    const from = breaks[b - 1] ?? 0;
    const text = decodeXmlText(full.slice(from, breaks[b] ?? full.length));
    return { text, at: decodeXmlText(full.slice(from, k)).length };
  };

  const { tags, unclosed: open } = scanText(full, breaks);
  for (const [a, b] of tags) {
    // As docxtpl: a tag Word split joins the run it starts in, and the text after it in its
    // last run comes along (with the first run's formatting), the runs between going.
    const [first, lastPiece] = [pieceOf(a), pieceOf(b - 1)];
    const gaps: [number, number][] = [];
    for (let k = first; k < lastPiece; k++)
      gaps.push([pieces[k].xmlStart + pieces[k].text.length, pieces[k + 1].xmlStart]);
    if (pieces[first].paragraph === pieces[lastPiece].paragraph) {
      edits.push(toXml(a), toXml(b - 1));
      tagCount++;
      if (gaps.every(([from, to]) => joinable(xml.slice(from, to), e))) cuts.push(...gaps);
      continue;
    }
    // Across paragraphs, as docxtpl's patch_xml: the paragraphs become the first one. Where the
    // XML between is more than paragraphs (a table cell, a hyperlink, a text box), docxtpl's cut
    // would drop a cell or break the XML: refused.
    const tag = decodeXmlText(full.slice(a, b));
    const { text, at } = paragraphOf(a);
    const context = contextAround(text, at, text.length);
    const blocked = gaps.find(([from, to], k) =>
      pieces[first + k].paragraph === pieces[first + k + 1].paragraph
        ? !joinable(xml.slice(from, to), e)
        : !paragraphJoinable(xml.slice(from, to), e),
    );
    if (blocked) {
      const gap = xml.slice(blocked[0], blocked[1]);
      unjoinable.push({
        tag,
        opening: text.slice(at),
        context,
        across: e.cellEnd.test(gap) ? 'table cells' : 'other',
      });
      continue;
    }
    edits.push(toXml(a), toXml(b - 1));
    tagCount++;
    cuts.push(...gaps);
    const paragraphs =
      1 + gaps.reduce((n, [from, to]) => n + (xml.slice(from, to).match(e.paragraphStart)?.length ?? 0), 0);
    joined.push({ tag, context, paragraphs });
  }
  for (const { at, paragraphEnd } of open) {
    const { text, at: decodedStart } = paragraphOf(at);
    const decodedEnd = decodedStart + decodeXmlText(full.slice(at, paragraphEnd)).length;
    unclosed.push({
      tag: text.slice(decodedStart, decodedEnd),
      context: contextAround(text, decodedStart, decodedEnd),
    });
  }

  if (!edits.length) return { xml, tagCount, unclosed, joined, unjoinable };
  // Marks and cuts never overlap (marks are in text, cuts between texts): apply them in order.
  const events: [number, number, string][] = edits.map((pos, k) => [
    pos,
    pos + 1,
    k % 2 === 0 ? TAG_START : TAG_END,
  ]);
  for (const [from, to] of cuts) events.push([from, to, '']);
  events.sort((x, y) => x[0] - y[0]);
  let out = '';
  let last = 0;
  for (const [from, to, put] of events) {
    out += xml.slice(last, from) + put;
    last = to;
  }
  out += xml.slice(last);
  return { xml: out, tagCount, unclosed, joined, unjoinable };
}
