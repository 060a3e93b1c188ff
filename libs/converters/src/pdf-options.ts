/**
 * `options.pdf` (see PdfOptions in @app/contracts): one validator for the API, the worker and the
 * CLI, the defaults, and what the options become for each converter: LibreOffice's PDF export
 * filter data (writer_pdf_Export) and Gotenberg 8's form fields on its LibreOffice route.
 *
 * The validation is PdfOptionsSchema's (types, limits, patterns, unknown keys, an own `__proto__`
 * included). Beside it stay the checks JSON Schema cannot say: the service's MAX_PDF_EXTRA_BYTES,
 * decoded sizes and PDF headers, UTF-8 byte lengths of passwords, page numbers and ranges, and
 * options that depend on each other (quality and lossless_images, PDF/A and Factur-X, names used
 * twice).
 */
import { type FieldProblem, PDF_METADATA_FIELDS, type PdfMetadata, type PdfOptions } from '@app/contracts';

// The validator lives in @app/contracts (request/pdf-options-check.ts), beside the request parser.
export {
  base64Size,
  DEFAULT_MAX_PDF_EXTRA_BYTES,
  parsePdfOptions,
  pdfOptionProblems,
  type PdfOptionLimits,
} from '@app/contracts';

export type { FieldProblem };

/** Our defaults differ from LibreOffice's and Gotenberg's: lossless images, refreshed indexes. */
export const PDF_OPTION_DEFAULTS = { lossless_images: true, update_indexes: true } as const;

export type ResolvedPdfOptions = PdfOptions & { lossless_images: boolean; update_indexes: boolean };

export function withPdfDefaults(options: PdfOptions = {}): ResolvedPdfOptions {
  return {
    ...options,
    // Factur-X is PDF/A-3b: the converter writes it, the finishing step embeds the invoice.
    ...(options.facturx && !options.pdfa ? { pdfa: 'PDF/A-3b' as const } : {}),
    lossless_images: options.lossless_images ?? PDF_OPTION_DEFAULTS.lossless_images,
    update_indexes: options.update_indexes ?? PDF_OPTION_DEFAULTS.update_indexes,
  };
}

/** What uno_bridge.py does with a document: refresh or not, properties, export filter data. */
export interface LibreOfficeExport {
  updateIndexes: boolean;
  /** DocumentProperties set before export (LibreOffice writes them to the PDF's Info and XMP). */
  metadata: PdfMetadata;
  /** writer_pdf_Export's FilterData (names of LibreOffice's PDF export options). */
  filterData: Record<string, string | number | boolean>;
  /** Another export filter than PDF (outputs/document-formats.ts); filterData is then unused. */
  target?: ExportTarget;
}

/** A LibreOffice export filter by name, with its options string (the `--convert-to` suffix). */
export interface ExportTarget {
  filter: string;
  options?: string;
  /**
   * The import filter the input is loaded with: Word's ("MS Word 2007 XML") unless named, e.g.
   * "Calc MS Excel 2007 XML" for a filled spreadsheet.
   */
  importFilter?: string;
  /** The export filter's FilterData is passed too (a PDF filter of another application: calc_pdf_Export). */
  withFilterData?: boolean;
}

const SELECT_PDF_VERSION: Record<string, number> = { 'PDF/A-1b': 1, 'PDF/A-2b': 2, 'PDF/A-3b': 3 };

export function libreOfficeExport(options: PdfOptions = {}): LibreOfficeExport {
  const o = withPdfDefaults(options);
  const filterData: LibreOfficeExport['filterData'] = { UseLosslessCompression: o.lossless_images };
  if (o.pdfa) filterData.SelectPdfVersion = SELECT_PDF_VERSION[o.pdfa];
  if (o.pdfua !== undefined) filterData.PDFUACompliance = o.pdfua;
  // PDF/UA wants the title shown as the window title; LibreOffice 25.2 sets it with
  // PDFUACompliance already, named here so the request does not depend on that (docs/outputs.md).
  if (o.pdfua) filterData.DisplayPDFDocumentTitle = true;
  if (o.quality !== undefined) filterData.Quality = o.quality;
  if (o.reduce_image_resolution !== undefined) filterData.ReduceImageResolution = o.reduce_image_resolution;
  if (o.max_image_resolution !== undefined) filterData.MaxImageResolution = o.max_image_resolution;
  if (o.page_ranges !== undefined) filterData.PageRange = o.page_ranges.replace(/\s+/g, '');
  return { updateIndexes: o.update_indexes, metadata: o.metadata ?? {}, filterData };
}

const GOTENBERG_METADATA_KEYS: Record<keyof PdfMetadata, string> = {
  title: 'Title',
  author: 'Author',
  subject: 'Subject',
  keywords: 'Keywords',
  creator: 'Creator',
};

/**
 * Gotenberg 8's form fields on /forms/libreoffice/convert for these options, in a fixed order.
 * losslessImageCompression and updateIndexes are always sent: our defaults (true, true) must
 * not depend on Gotenberg's (false before 8.18 for updateIndexes, false for lossless).
 */
export function gotenbergFormFields(options: PdfOptions = {}): Array<[string, string]> {
  const o = withPdfDefaults(options);
  const fields: Array<[string, string]> = [
    ['losslessImageCompression', String(o.lossless_images)],
    ['updateIndexes', String(o.update_indexes)],
  ];
  if (o.pdfa) fields.push(['pdfa', o.pdfa]);
  if (o.pdfua !== undefined) fields.push(['pdfua', String(o.pdfua)]);
  if (o.quality !== undefined) fields.push(['quality', String(o.quality)]);
  if (o.reduce_image_resolution !== undefined)
    fields.push(['reduceImageResolution', String(o.reduce_image_resolution)]);
  if (o.max_image_resolution !== undefined)
    fields.push(['maxImageResolution', String(o.max_image_resolution)]);
  if (o.page_ranges !== undefined) fields.push(['nativePageRanges', o.page_ranges.replace(/\s+/g, '')]);
  const metadata = o.metadata ?? {};
  const keys = PDF_METADATA_FIELDS.filter((k) => metadata[k] !== undefined);
  if (keys.length > 0) {
    fields.push([
      'metadata',
      JSON.stringify(Object.fromEntries(keys.map((k) => [GOTENBERG_METADATA_KEYS[k], metadata[k]]))),
    ]);
  }
  return fields;
}
