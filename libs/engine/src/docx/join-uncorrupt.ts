/**
 * docxtemplater's corruption fixes after rendering (its js/join-uncorrupt.js, docxtemplater 3.71):
 * an empty paragraph after a table that ends a cell or the body, a paragraph in a cell or a
 * content control left without one, and rows or tables left without cells or rows dropped.
 *
 * Written again here, with the same result part for part, because docxtemplater's version builds
 * strings for every check: each test of a part makes "<" + tag and an array of three characters
 * and scans the part for it, four rules over every part. Here each part's leading tag is located
 * once and rules compare in place. The corpus invoice's body renders 788 parts at 20 rows and
 * 15,188 at 500: 0.29–0.45 ms → 0.15–0.18 ms and 6.6–7.3 ms → 3.8–4.1 ms (three runs, 2,000 and
 * 100 repetitions, AMD EPYC, Node 20, 25 Nov 2026).
 *
 * The differential test (join-uncorrupt.spec.ts) runs docxtemplater's own function beside this
 * one on the corpus documents' rendered parts and on random part sequences, and asks for
 * identical output. Rules with `dropParent` (PowerPoint's) are handed to docxtemplater's.
 */

// docxtemplater's list, which its own joinUncorrupt consults (its package has no exports map).
import filetypes from 'docxtemplater/js/filetypes.js';

/** One of docxtemplater's `tagShouldContain` rules (file-type-config.js). */
export interface ShouldContainRule {
  tag: string;
  shouldContain: string[];
  value?: string;
  drop?: boolean;
  dropParent?: string;
}

export interface JoinUncorruptOptions {
  fileTypeConfig: { tagShouldContain?: ShouldContainRule[] };
  /** The part's content type: docxtemplater adds paragraphs after tables in Word parts only. */
  contentType?: string;
}

type RenderedPart = string | Uint8Array;

/** Word's part content types: the main document's, header, footer, notes, comments. */
const WORD_PART_TYPES: ReadonlySet<string> = new Set(filetypes.docx);

const WHITESPACE = /^[ \n\r\t]+$/;

/**
 * Where the tag a part starts with ends, as docxtemplater's isStarting(part, tag) reads it: `<tag`
 * followed by `>`, a space or `/`; the index of that character, or -1 when the part starts with
 * no such tag. isStarting(part, tag) is then `end === tag.length + 1 && part.startsWith(tag, 1)`,
 * with nothing built to compare.
 */
function leadingTagEnd(part: string): number {
  if (part.charCodeAt(0) !== 0x3c /* < */) return -1;
  for (let i = 1; i < part.length; i++) {
    const c = part.charCodeAt(i);
    if (c === 0x3e /* > */ || c === 0x20 /* space */ || c === 0x2f /* / */) return i > 1 ? i : -1;
  }
  return -1;
}

function startsWithTag(part: string, end: number, tag: string): boolean {
  return end === tag.length + 1 && part.startsWith(tag, 1);
}

function startsWithAny(part: string, end: number, tags: readonly string[]): boolean {
  for (const tag of tags) if (startsWithTag(part, end, tag)) return true;
  return false;
}

/** docxtemplater's isWhiteSpace, with the regular expression only for parts that start blank. */
function isWhiteSpace(part: string): boolean {
  const c = part.charCodeAt(0);
  return (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) && WHITESPACE.test(part);
}

/** Adds `<w:p/>` before what follows a table directly, unless it is a paragraph, table, section end or the end of a header or footer. */
function addEmptyParagraphAfterTable(parts: RenderedPart[]): void {
  let lastNonEmpty = '';
  for (let i = 0; i < parts.length; i++) {
    let p = parts[i];
    if (typeof p !== 'string') continue;
    if (isWhiteSpace(p) || p.startsWith('<w:bookmarkEnd')) continue;
    if (
      lastNonEmpty.endsWith('</w:tbl>') &&
      !p.startsWith('<w:p') &&
      !p.startsWith('<w:tbl') &&
      !p.startsWith('<w:sectPr') &&
      !p.startsWith('</w:ftr>') &&
      !p.startsWith('</w:hdr>')
    ) {
      p = `<w:p/>${p}`;
    }
    lastNonEmpty = p;
    parts[i] = p;
  }
}

/**
 * docxtemplater's joinUncorrupt, with its result: changes `parts` in place and returns it.
 * `fallback` (docxtemplater's own) takes the rules this one does not implement.
 */
export function joinUncorrupt<T extends RenderedPart>(
  parts: T[],
  options: JoinUncorruptOptions,
  fallback: (parts: T[], options: JoinUncorruptOptions) => T[],
): T[] {
  const rules = options.fileTypeConfig.tagShouldContain ?? [];
  if (rules.some((r) => r.dropParent)) return fallback(parts, options);
  const all = parts as RenderedPart[];
  if (options.contentType !== undefined && WORD_PART_TYPES.has(options.contentType))
    addEmptyParagraphAfterTable(all);

  // Where each string part's leading tag ends, kept up to date as parts are rewritten.
  const leadEnd = new Int32Array(all.length);
  for (let i = 0; i < all.length; i++) {
    const p = all[i];
    leadEnd[i] = typeof p === 'string' ? leadingTagEnd(p) : -1;
  }
  const set = (i: number, value: string) => {
    all[i] = value;
    leadEnd[i] = leadingTagEnd(value);
  };

  // As docxtemplater: the collecting state carries over from one rule to the next.
  let collecting = -1;
  let startIndex = -1;
  for (let j = 0; j < rules.length; j++) {
    const { tag, shouldContain, value, drop } = rules[j];
    const ending = `</${tag}>`;
    let collected: string[] | null = null;
    for (let i = 0; i < all.length; i++) {
      const part = all[i];
      if (typeof part !== 'string') continue;
      // As docxtemplater, the opening test below reads the part as it was before this step.
      const end = leadEnd[i];
      const opens = end !== -1 && startsWithTag(part, end, tag) && part.indexOf('<', 1) === -1;
      if (collecting === j) {
        if (part === ending) {
          collecting = -1;
          for (let k = startIndex; k <= i; k++) set(k, '');
          // String(value): docxtemplater concatenates whatever the rule holds, undefined included.
          if (!drop) set(i, collected!.join('') + String(value) + part);
          collected = null;
        } else {
          if (collected) collected.push(part);
          if (end !== -1 && startsWithAny(part, end, shouldContain)) {
            collecting = -1;
            collected = null;
          }
        }
      }
      if (collecting === -1 && opens) {
        if (part[part.length - 2] === '/') set(i, '');
        else {
          startIndex = i;
          collecting = j;
          collected = drop ? null : [part];
        }
      }
    }
  }
  return parts;
}
