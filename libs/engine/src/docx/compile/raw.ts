/**
 * Compile pass, first of all: `{% raw %}…{% endraw %}` turns the tags between into the text they
 * are written as (before they are parsed, so they need not be valid Jinja).
 */
import { decodeXmlText } from '../../syntax/tag-scanner';
import { isJinja, type Part } from '../parts';

const RAW = /^[-+]?\s*raw\s*[-+]?%$/;
const ENDRAW = /^[-+]?\s*endraw\s*[-+]?%$/;
const SIGIL = { expr: '{', block: '%', comment: '#' } as const;

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function applyRaw(parsed: Part[]): Part[] {
  if (!parsed.some((p) => isJinja(p) && p.kind === 'block' && RAW.test(decodeXmlText(p.value))))
    return parsed;
  const out: Part[] = [];
  let inRaw = false;
  for (const p of parsed) {
    if (!isJinja(p)) {
      out.push(p);
      continue;
    }
    const raw = decodeXmlText(p.value);
    if (!inRaw) {
      if (p.kind === 'block' && RAW.test(raw)) inRaw = true;
      else out.push(p);
      continue;
    }
    if (p.kind === 'block' && ENDRAW.test(raw)) {
      inRaw = false;
      continue;
    }
    out.push({ type: 'content', position: 'insidetag', value: escapeXml(`{${SIGIL[p.kind]}${raw}}`) });
  }
  return out;
}
