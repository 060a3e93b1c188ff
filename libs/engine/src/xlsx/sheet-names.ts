/**
 * Sheet names that hold tags: filled, made a name Excel accepts, and every reference to the
 * template's name moved to the filled one (formulas in every sheet, defined names and print
 * areas, charts' series, docProps/app.xml's titles).
 */
import { parseA1Ref, stringifyA1Ref, tokenize, type ReferenceA1 } from '@borgar/fx';
import { escapeText } from './sheet-xml';

/** Excel's limit on a sheet name's length. */
export const MAX_SHEET_NAME = 31;

/**
 * `wanted` as a sheet name Excel accepts: no `[]:*?/\`, not starting or ending with `'`, at most
 * 31 characters, not empty and not `History` (reserved), unique among `taken` (lower-cased, as Excel
 * compares names); a clash is numbered (`Sales (2)`). Adds the name to `taken`.
 */
export function legalSheetName(wanted: string, taken: Set<string>, fallback: string): string {
  let base = wanted
    // eslint-disable-next-line no-control-regex -- control characters are not allowed either
    .replace(/[[\]:*?/\\\u0000-\u001f]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  base = base.replace(/^'+|'+$/g, '').trim();
  if (!base || base.toLowerCase() === 'history') base = fallback;
  base = [...base].slice(0, MAX_SHEET_NAME).join('');
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) {
    const suffix = ` (${n})`;
    name =
      [...base]
        .slice(0, MAX_SHEET_NAME - suffix.length)
        .join('')
        .trimEnd() + suffix;
  }
  taken.add(name.toLowerCase());
  return name;
}

/** A formula (as stored, without `=`) with its references to renamed sheets renamed. */
export function renameSheetsInFormula(formula: string, renames: ReadonlyMap<string, string>): string {
  const lower = formula.toLowerCase();
  if (![...renames.keys()].some((old) => lower.includes(old))) return formula;
  let changed = false;
  const out = tokenize(formula, { mergeRefs: true }).map((t) => {
    if (t.type !== 'range' && t.type !== 'range_beam' && t.type !== 'range_named') return t.value;
    const ref = parseA1Ref(t.value, { allowNamed: true, allowTernary: false }) as
      (ReferenceA1 & { context?: string[] }) | undefined;
    const context = ref?.context;
    if (!ref || !context?.length) return t.value;
    const renamed = context.map((c) => renames.get(c.toLowerCase()) ?? c);
    if (renamed.every((c, i) => c === context[i])) return t.value;
    changed = true;
    return stringifyA1Ref({ ...ref, context: renamed } as ReferenceA1);
  });
  return changed ? out.join('') : formula;
}

function decodeEntities(s: string): string {
  return s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

/** A part's formula elements (`<f>`, `<formula>`, `<definedName>`, charts' `<c:f>`) renamed. */
export function renameSheetsInPart(xml: string, renames: ReadonlyMap<string, string>): string {
  return xml.replace(
    /<((?:c:)?f|formula[12]?|definedName)\b([^>]*)>([\s\S]*?)<\/\1>/g,
    (m, tag: string, attrs: string, text: string) => {
      const renamed = renameSheetsInFormula(decodeEntities(text), renames);
      return renamed === decodeEntities(text) ? m : `<${tag}${attrs}>${escapeText(renamed)}</${tag}>`;
    },
  );
}

/** docProps/app.xml's titles of parts: the sheets' names as Excel lists them. */
export function renameSheetsInAppXml(xml: string, renames: ReadonlyMap<string, string>): string {
  return xml.replace(/<vt:lpstr>([^<]*)<\/vt:lpstr>/g, (m, text: string) => {
    const renamed = renames.get(decodeEntities(text).toLowerCase());
    return renamed === undefined ? m : `<vt:lpstr>${escapeText(renamed)}</vt:lpstr>`;
  });
}
