/**
 * Compile pass: docxtpl's placement prefixes (`{%p`, `{%tr`, `{%tc`, `{%r`) remove the element
 * around the tag; a block tag alone in its paragraph takes the paragraph with it.
 */
import { ELEMENT, enclosing, isJinja, isTextContent, PLACEMENT_WHAT, type Part, type Report } from '../parts';

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

export function applyPlacement(parsed: Part[], report: Report): Part[] {
  const remove = new Uint8Array(parsed.length);
  let any = false;
  parsed.forEach((p, i) => {
    if (!isJinja(p) || p.kind === 'expr' || p.synthetic) return;
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
      if (!range || !aloneInParagraph(parsed, range)) return;
    }
    any = true;
    for (let k = range[0]; k <= range[1]; k++) remove[k] = 1;
  });
  if (!any) return parsed;
  // The element goes; the block tags and comments in it stay, in order.
  return parsed.filter((p, i) => !remove[i] || (isJinja(p) && p.kind !== 'expr'));
}
