/**
 * Compile pass: docxtpl's placement prefixes (`{%p`, `{%tr`, `{%tc`, `{%r`) remove the element
 * around the tag; a block tag alone in its paragraph takes the paragraph with it.
 */
import {
  ELEMENT,
  enclosing,
  isJinja,
  isTextContent,
  PLACEMENT_WHAT,
  type JinjaPart,
  type Part,
  type Report,
} from '../parts';
import { BLOCK_END, OPENER_OF } from './block-tree';

// Elements that make a paragraph more than its text: never swallowed by the "alone" rule.
const VISIBLE_XML =
  /<w:(tab|sym|object|pict|fldChar|instrText|footnoteReference|endnoteReference|ptab)\b|<mc:AlternateContent/;

/** True when the paragraph holds nothing but block tags, comments and whitespace. */
function aloneInParagraph(parsed: Part[], [left, right]: [number, number]): boolean {
  for (let k = left + 1; k < right; k++) {
    const q = parsed[k];
    if (isJinja(q)) {
      if (q.kind === 'expr' || q.synthetic) return false;
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

/**
 * The tags of each block (opener, elif/else, end) by index. A block tag alone in its paragraph
 * takes the paragraph only when every tag of its block does (or has a prefix): a block opened
 * inside a paragraph's text and closed alone in a later paragraph keeps both paragraphs, so its
 * body stays well formed, as in docxtpl.
 */
function blockGroups(parsed: Part[]): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  const stack: number[][] = [];
  parsed.forEach((p, i) => {
    if (!isJinja(p) || p.kind !== 'block' || !p.statement || p.synthetic) return;
    const type = p.statement.type;
    let group: number[];
    if (BLOCK_END[type]) stack.push((group = [i]));
    else if (type === 'elif' || type === 'else' || OPENER_OF[type]) {
      group = stack[stack.length - 1] ?? [];
      group.push(i);
      if (OPENER_OF[type]) stack.pop();
    } else group = [i];
    groups.set(i, group);
  });
  return groups;
}

export function applyPlacement(parsed: Part[], report: Report): Part[] {
  const remove = new Uint8Array(parsed.length);
  let any = false;
  const groups = blockGroups(parsed);
  const alone = new Map<number, [number, number] | null>();
  const aloneRange = (i: number) => {
    if (!alone.has(i)) {
      const range = enclosing(parsed, i, 'w:p');
      alone.set(i, range && aloneInParagraph(parsed, range) ? range : null);
    }
    return alone.get(i)!;
  };
  parsed.forEach((p, i) => {
    if (!isJinja(p) || (p.kind === 'expr' && p.placement !== 'p') || p.synthetic) return; // RICH HOOK: {{p x }}
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
      range = aloneRange(i);
      if (!range) return;
      const group = groups.get(i) ?? [i];
      if (!group.every((k) => (parsed[k] as JinjaPart).placement || aloneRange(k))) return;
    }
    any = true;
    for (let k = range[0]; k <= range[1]; k++) remove[k] = 1;
  });
  if (!any) return parsed;
  // The element goes; the block tags and comments in it stay, in order.
  return parsed.filter((p, i) => !remove[i] || (isJinja(p) && (p.kind !== 'expr' || p.placement === 'p')));
}
