/**
 * One model of a package's styles part (word/styles.xml), for every step that reads it: the part
 * read once with its digest (the cache key of the table-style resolver and the style pruner), and
 * its `w:style` entries (rich content finds the author's styles by name or id in them; a
 * sub-document's are merged into the template's).
 */
import { createHash } from 'node:crypto';
import { Parser } from 'htmlparser2';

export const STYLES_PART = 'word/styles.xml';

export interface StylesPart {
  xml: string;
  /** SHA-256 of the part's UTF-8 bytes, base64 (as the engine's digestOf). */
  digest: string;
}

/** The styles part as text with its digest, or undefined when the package has none. */
export function readStylesPart(zip: {
  file(name: string): { asText(): string } | null;
}): StylesPart | undefined {
  const xml = zip.file(STYLES_PART)?.asText();
  return xml === undefined
    ? undefined
    : { xml, digest: createHash('sha256').update(Buffer.from(xml)).digest('base64') };
}

export type StyleType = 'paragraph' | 'character' | 'table' | 'numbering';

export interface StyleEntry {
  id: string;
  type: StyleType;
  name: string;
  isDefault: boolean;
  /** The `<w:style>` element as written. */
  xml: string;
}

/** Every `w:style` of a styles part, read with a real XML tokenizer. */
export function readStyles(xml: string | undefined): StyleEntry[] {
  const out: StyleEntry[] = [];
  if (!xml) return out;
  let current: (StyleEntry & { start: number }) | null = null;
  const parser = new Parser(
    {
      onopentag(tag, attrs) {
        if (tag === 'w:style') {
          current = {
            id: attrs['w:styleid'] ?? '',
            type: (attrs['w:type'] ?? 'paragraph') as StyleType,
            name: '',
            isDefault: attrs['w:default'] === '1' || attrs['w:default'] === 'true',
            xml: '',
            start: parser.startIndex,
          };
        } else if (tag === 'w:name' && current) current.name = attrs['w:val'] ?? '';
      },
      onclosetag(tag) {
        if (tag === 'w:style' && current) {
          const { start, ...entry } = current;
          entry.xml = xml.slice(start, parser.endIndex + 1);
          out.push(entry);
          current = null;
        }
      },
    },
    { xmlMode: true, lowerCaseAttributeNames: true },
  );
  parser.write(xml);
  parser.end();
  return out;
}
