/**
 * Compile pass: whitespace control, as docxtpl does it.
 *
 * docxtpl rewrites `{%-` and `-%}` before Jinja sees them, into paragraph merges: `{%-` deletes
 * everything from the previous `</w:t>` up to the tag, `-%}` everything from the tag through the
 * next `<w:t>` (unless another `{{`/`{%` tag comes first); the text kept on either side keeps its
 * spaces. Where there is no such `</w:t>` / `<w:t>`, and for `{{-` / `-}}` / `{#-` / `-#}`, Jinja
 * itself strips the whitespace right beside the tag.
 */
import { isJinja, isTextContent, type JinjaPart, type Part } from '../parts';
import { WORD } from '../../package/formats';

/** Word's elements (the package description's). */
const ELEMENTS = WORD.elements;

const isTag = (p: Part | undefined, tag: string, position: string) =>
  p !== undefined && p.type === 'tag' && p.tag === tag && p.position === position;

/** Jinja's own `-`: strips the whitespace of the text right beside the tag, if any. */
function jinjaStrip(parts: Part[], i: number, dir: -1 | 1): void {
  const q = parts[i + dir];
  if (!q || !isTextContent(q)) return;
  q.value = dir === -1 ? q.value.replace(/\s+$/, '') : q.value.replace(/^\s+/, '');
}

const isBlock = (p: Part): p is JinjaPart => isJinja(p) && p.kind === 'block';

export function applyWhitespaceControl(parsed: Part[]): Part[] {
  if (!parsed.some((p) => isJinja(p) && (p.trimLeft || p.trimRight))) return parsed;
  const parts = [...parsed];
  // `{%-`: merge with the previous text. As docxtpl's regex substitution, a merge starts after
  // the end of the previous one.
  let lastMerge = -1;
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (!isBlock(p) || !p.trimLeft) continue;
    let j = i - 1;
    while (j > lastMerge && !isTag(parts[j], ELEMENTS.text, 'end')) j--;
    if (j <= lastMerge) {
      jinjaStrip(parts, i, -1);
      continue;
    }
    // What lies between goes, except other block tags: the block structure stays whole.
    const kept = parts.slice(j, i).filter(isBlock);
    parts.splice(j, i - j, ...kept);
    i = j + kept.length;
    lastMerge = i;
  }
  // `-%}`: merge with the next text.
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (!isBlock(p) || !p.trimRight) continue;
    // docxtpl first joins a tag Word split into the run it starts in: the runs that held the
    // rest of the tag (before its end, lIndex) are not "the next text" (the text after them is).
    const tagEnd = Number(p.lIndex ?? -1);
    const nextText = (q: Part) => isTag(q, ELEMENTS.text, 'start') && Number(q.lIndex ?? Infinity) > tagEnd;
    let j = i + 1;
    while (
      j < parts.length &&
      !nextText(parts[j]) &&
      !(isJinja(parts[j]) && (parts[j] as JinjaPart).kind !== 'comment') &&
      !(parts[j].type === 'tag' && /^w:t(c|r|bl)$/.test(parts[j].tag ?? ''))
    )
      j++;
    if (j >= parts.length || !nextText(parts[j])) {
      jinjaStrip(parts, i, 1);
      continue;
    }
    parts.splice(i + 1, j - i);
  }
  // `{{-`, `-}}`, `{#-`, `-#}`: Jinja's own stripping.
  parts.forEach((p, i) => {
    if (!isJinja(p) || p.kind === 'block') return;
    if (p.trimLeft) jinjaStrip(parts, i, -1);
    if (p.trimRight) jinjaStrip(parts, i, 1);
  });
  return parts;
}
