/**
 * Compile pass, first of all: `{% raw %}…{% endraw %}` turns the tags between into the text they
 * are written as (before they are parsed, so they need not be valid Jinja).
 */
import { escapeText } from '../run-text';
import { decodeXmlText } from '../../syntax/tag-scanner';
import { isJinja, type JinjaPart, type Part, type Report } from '../parts';

const RAW = /^[-+]?\s*raw\s*[-+]?%$/;
const ENDRAW = /^[-+]?\s*endraw\s*[-+]?%$/;
const SIGIL = { expr: '{', block: '%', comment: '#' } as const;

export function applyRaw(parsed: Part[], report: Report): Part[] {
  if (!parsed.some((p) => isJinja(p) && p.kind === 'block' && RAW.test(decodeXmlText(p.value))))
    return parsed;
  const out: Part[] = [];
  let openedBy: JinjaPart | undefined;
  for (const p of parsed) {
    if (!isJinja(p)) {
      out.push(p);
      continue;
    }
    const raw = decodeXmlText(p.value);
    if (!openedBy) {
      if (p.kind === 'block' && RAW.test(raw)) openedBy = p;
      else out.push(p);
      continue;
    }
    if (p.kind === 'block' && ENDRAW.test(raw)) {
      openedBy = undefined;
      continue;
    }
    out.push({ type: 'content', position: 'insidetag', value: escapeText(`{${SIGIL[p.kind]}${raw}}`) });
  }
  if (openedBy) {
    openedBy.source = `{%${decodeXmlText(openedBy.value)}}`;
    openedBy.context = openedBy.source;
    report(openedBy, "'raw' has no 'endraw'");
  }
  return out;
}
