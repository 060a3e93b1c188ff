/**
 * Last compile pass: runs of static parts (XML tags and text between our tags) become one part.
 *
 * docxtemplater renders part by part: every part goes through each module's render, and the
 * output goes through joinUncorrupt (once per loop and once per document), which looks at each
 * part again. A table row is ~60 parts of which 4 are tags, so most of a long table's fill was
 * that bookkeeping. Merged, a row is ~10 parts.
 *
 * The output must stay byte for byte what docxtemplater makes of the unmerged parts, so a part
 * joins the one before it only where no step after the compile can tell the difference
 * (merge-static.spec.ts checks this against docxtemplater's own joinUncorrupt and space-preserve
 * postrender on generated part streams):
 * - joinUncorrupt (docxtemplater's join-uncorrupt.js) looks at whole parts: a lone opening
 *   `<w:sdtContent>`, `<w:tc>`, `<w:tr>` or `<w:tbl>`, their closing tags, parts that start with
 *   what those must contain (`<w:p`, `<w:r`, `<w:sdt`, `<w:tc`, `<w:tr`, `<w:commentRangeStart`),
 *   a part ending with `</w:tbl>` and what follows it, skipping blank parts and `<w:bookmarkEnd`.
 *   None of those is merged, nor merged into.
 * - space-preserve's postrender joins `<w:t xml:space="preserve">` with a following `</w:t>`
 *   part: a part starting with `</w:t>` stays apart.
 * Only static parts merge; our tags, whose output may be anything, stay parts of their own.
 */
import { isJinja, type JinjaPart, type Part } from '../parts';

const CONTAINERS = ['w:sdtContent', 'w:tc', 'w:tr', 'w:tbl'];
const CONTENTS = ['w:p', 'w:r', 'w:commentRangeStart', 'w:sdt', 'w:tc', 'w:tr'];
const CONTAINER_ENDS = new Set(CONTAINERS.map((t) => `</${t}>`));

/** docxtemplater's isStarting (doc-utils.js): `<element` then `>`, a space or `/`. */
function isStarting(value: string, element: string): boolean {
  if (!value.startsWith(`<${element}`)) return false;
  const next = value[element.length + 1];
  return next === '>' || next === ' ' || next === '/';
}

function isStatic(p: Part): boolean {
  return (p.type === 'content' || p.type === 'tag') && !p.module && typeof p.value === 'string';
}

/** May be appended to the part before it. */
function canJoin(p: Part): boolean {
  const v = p.value;
  if (v.length === 0 || CONTAINER_ENDS.has(v) || v.startsWith('</w:t>')) return false;
  return !CONTAINERS.some((t) => isStarting(v, t)) && !CONTENTS.some((t) => isStarting(v, t));
}

/** May take the part after it. */
function canTake(v: string): boolean {
  if (v.length === 0 || /^[ \n\r\t]+$/.test(v) || v.startsWith('<w:bookmarkEnd')) return false;
  // A part ending in </w:tbl> is </w:tbl> itself: no other part may end with it (text holds no
  // `<`, and </w:tbl> never joins), so the container ends cover joinUncorrupt's table check.
  if (CONTAINER_ENDS.has(v)) return false;
  return !CONTAINERS.some((t) => isStarting(v, t) && v.indexOf('<', 1) === -1);
}

/** The parts with static runs merged, in this body and every body nested in a block. */
export function mergeStaticParts(parts: Part[]): Part[] {
  const out: Part[] = [];
  for (const p of parts) {
    if (isJinja(p)) {
      nested(p);
      out.push(p);
      continue;
    }
    const last = out[out.length - 1];
    if (last && isStatic(last) && isStatic(p) && canTake(last.value) && canJoin(p)) {
      // A fresh part: docxtemplater's own parts are left as they were.
      out[out.length - 1] = { type: 'content', value: last.value + p.value };
    } else out.push(p);
  }
  return out;
}

function nested(p: JinjaPart): void {
  if (p.loopBody) p.loopBody = mergeStaticParts(p.loopBody);
  if (p.loopElse) p.loopElse = mergeStaticParts(p.loopElse);
  if (p.body) p.body = mergeStaticParts(p.body);
  for (const b of p.branches ?? []) b.body = mergeStaticParts(b.body);
}
