/**
 * Which parts of a filled Word package the preparation passes read, chosen by content type as
 * the engine's package description chooses what it fills (a header stored at any part name is
 * found), never by part-name patterns.
 */
import {
  WORD_COMMENTS_TYPE,
  WORD_ENDNOTES_TYPE,
  WORD_FOOTER_TYPE,
  WORD_FOOTNOTES_TYPE,
  WORD_HEADER_TYPE,
  WORD_MAIN_TYPE,
  WORD_NUMBERING_TYPE,
  WORD_TEMPLATE_MAIN_TYPE,
} from '@app/ooxml';

/** Parts whose tables LibreOffice lays out: the body, headers, footers, notes. */
export const LAID_OUT_PART_TYPES: ReadonlySet<string> = new Set([
  WORD_MAIN_TYPE,
  WORD_TEMPLATE_MAIN_TYPE,
  WORD_HEADER_TYPE,
  WORD_FOOTER_TYPE,
  WORD_FOOTNOTES_TYPE,
  WORD_ENDNOTES_TYPE,
]);

/** Parts that may name a style: the laid-out parts, comments and list definitions. */
export const STYLE_NAMING_PART_TYPES: ReadonlySet<string> = new Set([
  ...LAID_OUT_PART_TYPES,
  WORD_COMMENTS_TYPE,
  WORD_NUMBERING_TYPE,
]);
