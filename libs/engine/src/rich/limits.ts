/**
 * Bounds on rich content: markup length, nesting depth, table size and sub-documents. Each is
 * checked before the work it bounds, so hostile input costs little and ends in a typed error
 * (413 for sizes and counts, 422 for shapes the data should not have), never a crash or a hang.
 */
import { PayloadTooLargeError, TemplateRuntimeError } from '../errors';

export interface RichLimits {
  /** Characters of one HTML or Markdown value. */
  maxMarkupChars: number;
  /** Deepest nesting of elements (HTML), blocks (Markdown) or lists and tables. */
  maxNestingDepth: number;
  /** Cells (rows × columns) of one table. */
  maxTableCells: number;
  /** Columns of one table (Word itself stops at 63). */
  maxTableColumns: number;
  /** Sub-documents of one request. */
  maxDocuments: number;
  /** Bytes of one decoded sub-document. */
  maxDocumentBytes: number;
}

export const DEFAULT_RICH_LIMITS: RichLimits = {
  maxMarkupChars: 500_000,
  maxNestingDepth: 100,
  maxTableCells: 10_000,
  maxTableColumns: 63,
  maxDocuments: 10,
  maxDocumentBytes: 10 * 1024 * 1024,
};

export function markupTooLong(kind: string, length: number, limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(
    `The ${kind} value has ${length} characters; the limit is ${limit} characters`,
    { reason: 'markup_too_long', kind, characters: length, limit },
  );
}

export function nestingTooDeep(kind: string, limit: number): TemplateRuntimeError {
  return new TemplateRuntimeError(`The ${kind} value nests deeper than ${limit} levels`, {
    reason: 'nesting_too_deep',
    kind,
    limit,
  });
}

export function tableTooLarge(rows: number, columns: number, limits: RichLimits): TemplateRuntimeError {
  return new TemplateRuntimeError(
    `A table of ${rows} rows × ${columns} columns is larger than the limit (${limits.maxTableCells} cells, ${limits.maxTableColumns} columns)`,
    {
      reason: 'table_too_large',
      rows,
      columns,
      max_cells: limits.maxTableCells,
      max_columns: limits.maxTableColumns,
    },
  );
}
