/**
 * `request_data.options.pdf`: how the PDF is written. The shape lives here because it travels in
 * the render job; its validation, defaults and the mapping onto LibreOffice's export filter and
 * Gotenberg's form fields live in @app/converters (parsePdfOptions), shared by API, worker and CLI.
 */
export const PDFA_LEVELS = ['PDF/A-1b', 'PDF/A-2b', 'PDF/A-3b'] as const;
export type PdfaLevel = (typeof PDFA_LEVELS)[number];

/** The resolutions LibreOffice's PDF export (and Gotenberg) offer, in DPI. */
export const MAX_IMAGE_RESOLUTIONS = [75, 150, 300, 600, 1200] as const;
export type MaxImageResolution = (typeof MAX_IMAGE_RESOLUTIONS)[number];

export const PDF_METADATA_FIELDS = ['title', 'author', 'subject', 'keywords', 'creator'] as const;
export type PdfMetadata = Partial<Record<(typeof PDF_METADATA_FIELDS)[number], string>>;

export interface PdfOptions {
  pdfa?: PdfaLevel;
  pdfua?: boolean;
  /** Default true: we only take PNG images, and a caller who sends PNG expects PNG quality. */
  lossless_images?: boolean;
  /** JPEG quality 1–100, only with lossless_images false. */
  quality?: number;
  reduce_image_resolution?: boolean;
  /** Only with reduce_image_resolution true. */
  max_image_resolution?: MaxImageResolution;
  metadata?: PdfMetadata;
  /** Pages to export, e.g. "1-3,5". */
  page_ranges?: string;
  /** Default true: tables of contents, indexes and fields are refreshed before export. */
  update_indexes?: boolean;
}

export const PDF_OPTION_FIELDS = [
  'pdfa',
  'pdfua',
  'lossless_images',
  'quality',
  'reduce_image_resolution',
  'max_image_resolution',
  'metadata',
  'page_ranges',
  'update_indexes',
] as const;
