/**
 * The intermediate model every rich form maps onto (JSON runs and paragraphs, HTML, Markdown),
 * so one writer (wordml.ts) turns all of them into WordprocessingML. It holds only validated
 * values: nothing in it is XML yet.
 */
import type { PreparedImage } from '../docx/images';

export interface RunProps {
  bold?: boolean;
  italic?: boolean;
  /** A Word underline name (single, double, …). */
  underline?: string;
  strike?: boolean;
  /** RRGGBB, upper case. */
  color?: string;
  /** A Word highlight name. */
  highlight?: string;
  /** Background colour (RRGGBB) where no highlight name fits (HTML's background-color). */
  shading?: string;
  /** Half-points. */
  halfPoints?: number;
  font?: string;
  /** A character style as the caller named it; resolved against the template's styles. */
  style?: string;
  vertAlign?: 'superscript' | 'subscript';
  /** http, https or mailto only (checked where the model is built). */
  url?: string;
  rtl?: boolean;
  lang?: string;
}

export type Inline =
  /** Text may hold \n (line break), \t (tab), \a (new paragraph) and \f (page break). */
  { kind: 'text'; text: string; props: RunProps } | { kind: 'image'; image: PreparedImage };

export type Align = 'left' | 'center' | 'right' | 'both';

export interface ParagraphBlock {
  kind: 'paragraph';
  /** A paragraph style as named (e.g. "Heading 2"); resolved against the template's styles. */
  style?: string;
  /** Built-in mappings (HTML h1–h6, blockquote) fall back to direct formatting, never report. */
  styleFallback?: RunProps;
  align?: Align;
  /** Left indent in twips (blockquote). */
  indent?: number;
  list?: { list: ListInfo; level: number };
  inlines: Inline[];
}

export interface ListInfo {
  /** The list kind at each level, as first met; a level not seen is a bullet. */
  levels: ('bullet' | 'decimal')[];
  /** Start number of the first level (ol start=). */
  start?: number;
}

export interface TableCell {
  blocks: Block[];
  colspan: number;
  rowspan: number;
  header: boolean;
}

export interface TableBlock {
  kind: 'table';
  rows: TableCell[][];
}

export type Block = ParagraphBlock | TableBlock;
