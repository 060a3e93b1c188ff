/**
 * Compile pass: docxtpl's placement prefixes (`{%p`, `{%tr`, `{%tc`, `{%r`) remove the element
 * around the tag. A plain `{% %}` tag alone in its paragraph leaves that paragraph, as in docxtpl.
 */
import { ELEMENT, enclosing, isJinja, PLACEMENT_WHAT, type Part, type Report } from '../parts';

export function applyPlacement(parsed: Part[], report: Report): Part[] {
  const remove = new Uint8Array(parsed.length);
  let any = false;
  parsed.forEach((p, i) => {
    // A plain block tag stays in its paragraph, even alone there: docxtpl leaves that paragraph
    // (empty) in the output, and authors space their documents with it.
    if (!isJinja(p) || !p.placement || p.synthetic) return;
    if (p.kind === 'expr' && p.placement !== 'p') return; // RICH HOOK: {{p x }}
    // docxtpl first moves a {%r %} tag into a run of its own, then drops that run: the text
    // beside the tag stays, so the tag acts inline (and here the run keeps its formatting).
    if (p.placement === 'r') return;
    const range = enclosing(parsed, i, ELEMENT[p.placement]);
    if (!range) {
      report(p, `a {%${p.placement} …%} tag must be inside ${PLACEMENT_WHAT[p.placement]}`);
      return;
    }
    any = true;
    for (let k = range[0]; k <= range[1]; k++) remove[k] = 1;
  });
  if (!any) return parsed;
  // The element goes; the block tags and comments in it stay, in order.
  return parsed.filter((p, i) => !remove[i] || (isJinja(p) && (p.kind !== 'expr' || p.placement === 'p')));
}
