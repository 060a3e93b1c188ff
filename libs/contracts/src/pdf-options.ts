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
  /** AES-256 (R6); docs/pdf.md. Never logged, never in job data (see pdfPayloadOf). */
  encryption?: PdfEncryption;
  /** Drawn on every page of the result (after prepend/append). */
  watermark?: PdfWatermark;
  /** PDFs put before / after the converted document, in order. */
  prepend?: PdfExtraFile[];
  append?: PdfExtraFile[];
  /** Embedded files, associated with the document (PDF/A-3 /AF). */
  attachments?: PdfAttachment[];
  /** A Factur-X / ZUGFeRD e-invoice: PDF/A-3b with the CII XML embedded. */
  facturx?: PdfFacturX;
}

export const PDF_PRINT_LEVELS = ['none', 'low', 'high'] as const;
export type PdfPrintLevel = (typeof PDF_PRINT_LEVELS)[number];

/** Absent keys allow: `{"print": "none"}` forbids printing only. */
export interface PdfPermissions {
  print?: PdfPrintLevel;
  copy?: boolean;
  modify?: boolean;
  annotate?: boolean;
  fill_forms?: boolean;
  accessibility?: boolean;
}
export const PDF_PERMISSION_FIELDS = [
  'print',
  'copy',
  'modify',
  'annotate',
  'fill_forms',
  'accessibility',
] as const;

export interface PdfEncryption {
  owner_password: string;
  /** Without it the document opens for anyone, under the permissions. */
  user_password?: string;
  permissions?: PdfPermissions;
}
export const PDF_ENCRYPTION_FIELDS = ['owner_password', 'user_password', 'permissions'] as const;

export interface PdfWatermark {
  text: string;
  /** "#RRGGBB", default "#808080". */
  color?: string;
  /** 0–1, default 0.3. */
  opacity?: number;
  /** Degrees counter-clockwise, default 45. */
  angle?: number;
  /** Points; default: fitted to the page (at most 144). */
  font_size?: number;
}
export const PDF_WATERMARK_FIELDS = ['text', 'color', 'opacity', 'angle', 'font_size'] as const;

/** A PDF to prepend or append, base64. */
export interface PdfExtraFile {
  data: string;
}

export const ATTACHMENT_RELATIONSHIPS = [
  'Data',
  'Source',
  'Alternative',
  'Supplement',
  'Unspecified',
] as const;
export type AttachmentRelationship = (typeof ATTACHMENT_RELATIONSHIPS)[number];

export interface PdfAttachment {
  name: string;
  /** base64 */
  data: string;
  mime_type: string;
  description?: string;
  /** Default "Unspecified". */
  relationship?: AttachmentRelationship;
}
export const PDF_ATTACHMENT_FIELDS = ['name', 'data', 'mime_type', 'description', 'relationship'] as const;

export const FACTURX_PROFILES = [
  'MINIMUM',
  'BASIC WL',
  'BASIC',
  'EN 16931',
  'EXTENDED',
  'XRECHNUNG',
] as const;
export type FacturXProfile = (typeof FACTURX_PROFILES)[number];

export interface PdfFacturX {
  /** base64 of the CII XML (rsm:CrossIndustryInvoice). */
  xml: string;
  profile: FacturXProfile;
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
  'encryption',
  'watermark',
  'prepend',
  'append',
  'attachments',
  'facturx',
] as const;

/**
 * The options done after conversion, on the PDF (libs/converters pdf-finish.ts). They hold
 * passwords and files, so they travel in the request payload (deleted after the job), not in the
 * job data BullMQ keeps and Bull Board shows.
 */
export const PDF_FINISH_FIELDS = [
  'encryption',
  'watermark',
  'prepend',
  'append',
  'attachments',
  'facturx',
] as const;
export type PdfFinishOptions = Pick<PdfOptions, (typeof PDF_FINISH_FIELDS)[number]>;

/**
 * Where the finishing options travel: beside the template data in the request payload (a Redis key
 * with a TTL, deleted once the API has answered), not in the job data BullMQ keeps for a day
 * after a failure and Bull Board shows. The API splits them off, the worker puts them back.
 */
export const PDF_FINISH_KEY = 'pdf_finish';

/** options.pdf as [what the job data may carry, what goes in the request payload]. */
export function splitPdfOptions(
  pdf: PdfOptions | undefined,
): [PdfOptions | undefined, PdfFinishOptions | undefined] {
  if (!pdf) return [undefined, undefined];
  const shape: Record<string, unknown> = {};
  const finish: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(pdf))
    ((PDF_FINISH_FIELDS as readonly string[]).includes(key) ? finish : shape)[key] = value;
  return [
    Object.keys(shape).length > 0 || Object.keys(finish).length === 0 ? (shape as PdfOptions) : undefined,
    Object.keys(finish).length > 0 ? (finish as PdfFinishOptions) : undefined,
  ];
}
