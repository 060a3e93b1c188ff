/** Compile pass: whitespace control (`{%-` / `-%}`). */
import { isBalanced, isJinja, isTextContent, type Part } from '../parts';

/** `{%-` / `-%}`: strip the whitespace beside the tag; at the edge of its text, join the text beyond. */
export function applyWhitespaceControl(parsed: Part[]): Part[] {
  if (!parsed.some((p) => isJinja(p) && (p.trimLeft || p.trimRight))) return parsed;
  const drop = new Set<number>();
  const strip = (p: Part, side: 'start' | 'end') => {
    p.value = side === 'start' ? p.value.replace(/^\s+/, '') : p.value.replace(/\s+$/, '');
  };
  parsed.forEach((p, i) => {
    if (!isJinja(p)) return;
    for (const dir of [-1, 1] as const) {
      if (dir === -1 ? !p.trimLeft : !p.trimRight) continue;
      const side = dir === -1 ? 'end' : 'start';
      const neighbour = parsed[i + dir];
      if (neighbour && isTextContent(neighbour) && neighbour.value.trim() !== '') {
        strip(neighbour, side);
        continue;
      }
      // The tag is at the edge of its text: join with the nearest text beyond, as docxtpl does.
      let j = i + dir;
      while (j >= 0 && j < parsed.length && !isTextContent(parsed[j]) && !isJinja(parsed[j])) j += dir;
      if (j < 0 || j >= parsed.length) continue;
      if (isTextContent(parsed[j]) && parsed[j].value.trim() === '' && parsed[j] === neighbour) {
        strip(parsed[j], side);
        continue;
      }
      const [a, b] = dir === -1 ? [j + 1, i] : [i + 1, j];
      const between = parsed.slice(a, b);
      if (!isBalanced(between)) continue;
      for (let k = a; k < b; k++) drop.add(k);
      if (isTextContent(parsed[j])) strip(parsed[j], side);
    }
  });
  return drop.size ? parsed.filter((_p, i) => !drop.has(i)) : parsed;
}
