/**
 * word/styles.xml as text, with its digest: read once per fill and handed to each step that keys
 * a cache on it (the table-style resolver's sheets, the style pruner's graphs). Word's default
 * template carries a 349 KB styles.xml; decoding and hashing it once per step cost each PDF fill
 * the same work twice. The model lives in libs/ooxml (shared with the converters' preparation);
 * this module keeps the engine's old import path for table-styles.ts and unused-styles.ts.
 */
export { readStylesPart, STYLES_PART, type StylesPart } from '@app/ooxml';
