/**
 * word/styles.xml as text, with its digest: read once per fill and handed to each step that keys
 * a cache on it (the table-style resolver's sheets, the style pruner's graphs). Word's default
 * template carries a 349 KB styles.xml; decoding and hashing it once per step cost each PDF fill
 * the same work twice.
 */
import { digestOf } from './recent-digests';

export const STYLES_PART = 'word/styles.xml';

export interface StylesPart {
  xml: string;
  digest: string;
}

export function readStylesPart(zip: {
  file(name: string): { asText(): string } | null;
}): StylesPart | undefined {
  const xml = zip.file(STYLES_PART)?.asText();
  return xml === undefined ? undefined : { xml, digest: digestOf(Buffer.from(xml)) };
}
