/**
 * Finds the Jinja tags (`{{ … }}`, `{% … %}`, `{# … #}`) in the text of a WordprocessingML part,
 * however Word split them across runs, and marks each with a private delimiter pair so that
 * docxtemplater's lexer (which supports a single delimiter pair) finds exactly these tags and
 * nothing else: a lone `{` or `}` in the document stays text.
 *
 * Only the first character of the opener and the last of the closer change (`{{ x }}` becomes
 * `␐{ x }␑`), so the tag text docxtemplater hands to the module still says what kind of tag it is.
 * Hand-written because no library knows Jinja's tag boundaries inside OOXML runs.
 */

/** Unicode noncharacters: never in text a person typed, legal in XML 1.0. */
export const TAG_START = '\uFDD0';
export const TAG_END = '\uFDD1';

export interface UnclosedTag {
  /** The text from the opener to the end of its paragraph. */
  tag: string;
  context: string;
}

export interface ScanResult {
  xml: string;
  tagCount: number;
  unclosed: UnclosedTag[];
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

// Text nodes and paragraph boundaries; a tag never spans paragraphs.
const TOKENS = /<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>|<w:p[\s>/]|<\/w:p>/g;

const DOUBLE_QUOTES = '"\u201c\u201d\u201e';
const SINGLE_QUOTES = "'\u2018\u2019\u201a";

const EXTRA_BRACE = /^\{[%#](?:tr|tc|p) /;

interface Piece {
  /** Offset of the text in the XML. */
  xmlStart: number;
  text: string;
}

/**
 * Scans one paragraph's text (the raw, still-escaped text of its w:t nodes joined) and returns
 * the [opener, closerEnd) offsets of each complete tag, plus unclosed openers.
 */
function scanParagraph(full: string): { tags: [number, number][]; unclosed: number[] } {
  const tags: [number, number][] = [];
  const unclosed: number[] = [];
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
    let j = i + 2;
    let quote: '"' | "'" | '' = '';
    let end = -1;
    while (j < full.length) {
      const ch = full[j];
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
      unclosed.push(i);
      i += 2;
      continue;
    }
    tags.push([i, end]);
    i = end;
  }
  return { tags, unclosed };
}

/**
 * Whether the XML between two texts of a split tag can go, leaving well-formed XML: it ends the
 * text (and its run) and starts another, with only whole elements between (formatting, proofing
 * marks, bookmarks). A hyperlink, field or tracked change boundary keeps the tag as Word split it.
 */
function joinable(gap: string): boolean {
  const open: string[] = [];
  const unmatched: string[] = [];
  for (const m of gap.matchAll(/<(\/?)([\w:]+)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = m;
    if (selfClosing) continue;
    if (!closing) open.push(name);
    else if (open.length && open[open.length - 1] === name) open.pop();
    else if (open.length) return false;
    else unmatched.push(`/${name}`);
  }
  const shape = [...unmatched, ...open].join(' ');
  return shape === '/w:t /w:r w:r w:t' || shape === '/w:t w:t';
}

function contextAround(text: string, from: number, to: number): string {
  const before = text.slice(Math.max(0, from - 30), from);
  const after = text.slice(to, to + 30);
  return `${from > 30 ? '…' : ''}${before}${text.slice(from, to)}${after}${to + 30 < text.length ? '…' : ''}`;
}

export function markJinjaTags(xml: string): ScanResult {
  const edits: number[] = []; // XML offsets whose character becomes TAG_START / TAG_END (alternating)
  const cuts: [number, number][] = []; // XML ranges that go (between the pieces of a split tag)
  const unclosed: UnclosedTag[] = [];
  let tagCount = 0;
  let pieces: Piece[] = [];

  const flush = () => {
    if (!pieces.length) return;
    let full = '';
    const starts: number[] = [];
    for (const p of pieces) {
      starts.push(full.length);
      full += p.text;
    }
    const pieceOf = (k: number): number => {
      let idx = starts.length - 1;
      while (starts[idx] > k) idx--;
      return idx;
    };
    const toXml = (k: number): number => {
      const idx = pieceOf(k);
      return pieces[idx].xmlStart + (k - starts[idx]);
    };
    const { tags, unclosed: open } = scanParagraph(full);
    for (const [a, b] of tags) {
      edits.push(toXml(a), toXml(b - 1));
      tagCount++;
      // As docxtpl: a tag Word split joins the run it starts in, and the text after it in its
      // last run comes along (with the first run's formatting), the runs between going.
      const [first, lastPiece] = [pieceOf(a), pieceOf(b - 1)];
      const gaps: [number, number][] = [];
      for (let k = first; k < lastPiece; k++)
        gaps.push([pieces[k].xmlStart + pieces[k].text.length, pieces[k + 1].xmlStart]);
      if (gaps.every(([from, to]) => joinable(xml.slice(from, to)))) cuts.push(...gaps);
    }
    for (const a of open) {
      const text = decodeXmlText(full);
      const decodedStart = decodeXmlText(full.slice(0, a)).length;
      unclosed.push({
        tag: text.slice(decodedStart),
        context: contextAround(text, decodedStart, text.length),
      });
    }
    pieces = [];
  };

  TOKENS.lastIndex = 0;
  for (let m = TOKENS.exec(xml); m; m = TOKENS.exec(xml)) {
    if (m[1] === undefined) {
      flush();
      continue;
    }
    if (m[1].length) pieces.push({ xmlStart: m.index + m[0].indexOf('>') + 1, text: m[1] });
  }
  flush();

  if (!edits.length) return { xml, tagCount, unclosed };
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
  return { xml: out, tagCount, unclosed };
}
