/**
 * `request_data.options.pdf`: how the PDF is written. Its shape is defined once here, as
 * PdfOptionsSchema: the types (PdfOptions and its parts) and the OpenAPI schema come from it. It
 * is validated by @app/converters' pdfOptionProblems (for the API, the worker and the CLI), whose
 * field lists are this schema's; the defaults and the mapping onto LibreOffice's export filter,
 * Gotenberg's form fields and the finishing on the PDF (docs/pdf.md) live there too.
 */
import { type Static, Type } from '@sinclair/typebox';
import { fieldsOf, OneOf } from './payload/schema';

export const PDFA_LEVELS = ['PDF/A-1b', 'PDF/A-2b', 'PDF/A-3b'] as const;
export type PdfaLevel = (typeof PDFA_LEVELS)[number];

/** The resolutions LibreOffice's PDF export (and Gotenberg) offer, in DPI. */
export const MAX_IMAGE_RESOLUTIONS = [75, 150, 300, 600, 1200] as const;
export type MaxImageResolution = (typeof MAX_IMAGE_RESOLUTIONS)[number];

export const PDF_PRINT_LEVELS = ['none', 'low', 'high'] as const;
export type PdfPrintLevel = (typeof PDF_PRINT_LEVELS)[number];

export const ATTACHMENT_RELATIONSHIPS = [
  'Data',
  'Source',
  'Alternative',
  'Supplement',
  'Unspecified',
] as const;
export type AttachmentRelationship = (typeof ATTACHMENT_RELATIONSHIPS)[number];

export const FACTURX_PROFILES = [
  'MINIMUM',
  'BASIC WL',
  'BASIC',
  'EN 16931',
  'EXTENDED',
  'XRECHNUNG',
] as const;
export type FacturXProfile = (typeof FACTURX_PROFILES)[number];

const text = (options: object = {}) => Type.String(options);
const flag = (description?: string, defaultValue?: boolean) =>
  Type.Optional(
    Type.Boolean({
      ...(description ? { description } : {}),
      ...(defaultValue === undefined ? {} : { default: defaultValue }),
    }),
  );

export const PdfMetadataSchema = Type.Object(
  {
    title: Type.Optional(text({ maxLength: 2000 })),
    author: Type.Optional(text({ maxLength: 2000 })),
    subject: Type.Optional(text({ maxLength: 2000 })),
    keywords: Type.Optional(text({ maxLength: 2000, description: 'Comma-separated.' })),
    creator: Type.Optional(text({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type PdfMetadata = Static<typeof PdfMetadataSchema>;

/** Absent keys allow: `{"print": "none"}` forbids printing only. */
export const PdfPermissionsSchema = Type.Object(
  {
    print: Type.Optional(OneOf(PDF_PRINT_LEVELS, { default: 'high' })),
    copy: flag(undefined, true),
    modify: flag(undefined, true),
    annotate: flag(undefined, true),
    fill_forms: flag(undefined, true),
    accessibility: flag(undefined, true),
  },
  { additionalProperties: false },
);
export type PdfPermissions = Static<typeof PdfPermissionsSchema>;

export const PdfEncryptionSchema = Type.Object(
  {
    owner_password: text({ minLength: 1, description: 'At most 127 bytes in UTF-8.' }),
    /** Without it the document opens for anyone, under the permissions. */
    user_password: Type.Optional(text({ minLength: 1, description: 'At most 127 bytes in UTF-8.' })),
    permissions: Type.Optional(PdfPermissionsSchema),
  },
  {
    description:
      'AES-256 (R6). Without `user_password` the document opens for anyone, under the permissions; ' +
      'absent permissions are allowed. Forbidden with `pdfa` and `facturx` (PDF/A allows no encryption). ' +
      'Passwords appear in no log line, job record or error body (docs/pdf.md).',
    additionalProperties: false,
  },
);
export type PdfEncryption = Static<typeof PdfEncryptionSchema>;

export const PdfWatermarkSchema = Type.Object(
  {
    text: text({ minLength: 1, maxLength: 200 }),
    color: Type.Optional(text({ pattern: '^#[0-9A-Fa-f]{6}$', default: '#808080' })),
    opacity: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: 0.3 })),
    angle: Type.Optional(
      Type.Number({ minimum: -360, maximum: 360, default: 45, description: 'Degrees, counter-clockwise.' }),
    ),
    font_size: Type.Optional(
      Type.Number({
        minimum: 1,
        maximum: 500,
        description: 'Points; default: fitted to about 70 % of the page diagonal, at most 144.',
      }),
    ),
  },
  {
    description: 'Drawn on every page of the result, prepended and appended pages included.',
    additionalProperties: false,
  },
);
export type PdfWatermark = Static<typeof PdfWatermarkSchema>;

/** A PDF to prepend or append, base64. */
export const PdfExtraFileSchema = Type.Object(
  {
    data: text({ format: 'byte', description: 'The PDF, base64, at most MAX_PDF_EXTRA_BYTES decoded' }),
  },
  { additionalProperties: false },
);
export type PdfExtraFile = Static<typeof PdfExtraFileSchema>;

export const PdfFilesSchema = Type.Array(PdfExtraFileSchema, {
  $id: 'PdfFiles',
  maxItems: 20,
  description:
    'PDFs put before (`prepend`) or after (`append`) the converted document, in order. Not a PDF: 400; ' +
    'encrypted, unreadable or hostile (read under time and memory limits): 422 invalid_pdf_input naming it.',
});

export const PdfAttachmentSchema = Type.Object(
  {
    name: text({ maxLength: 255, description: 'A file name, without / or \\.' }),
    data: text({ format: 'byte', description: 'base64, at most MAX_PDF_EXTRA_BYTES decoded' }),
    mime_type: text({ example: 'application/json' }),
    description: Type.Optional(text({ maxLength: 1000 })),
    relationship: Type.Optional(OneOf(ATTACHMENT_RELATIONSHIPS, { default: 'Unspecified' })),
  },
  { additionalProperties: false },
);
export type PdfAttachment = Static<typeof PdfAttachmentSchema>;

export const PdfFacturXSchema = Type.Object(
  {
    xml: text({ format: 'byte', description: 'The CII XML, base64' }),
    profile: OneOf(FACTURX_PROFILES),
  },
  {
    description:
      'A Factur-X / ZUGFeRD e-invoice: PDF/A-3b with `factur-x.xml` embedded (relationship Data for MINIMUM ' +
      'and BASIC WL, Alternative for the others) and the Factur-X XMP extension schema. XML that is not ' +
      'well-formed or has no rsm:CrossIndustryInvoice root: 422 invalid_einvoice.',
    additionalProperties: false,
  },
);
export type PdfFacturX = Static<typeof PdfFacturXSchema>;

export const PdfOptionsSchema = Type.Object(
  {
    pdfa: Type.Optional(OneOf(PDFA_LEVELS, { description: 'Archival PDF/A.' })),
    pdfua: flag('Tagged, accessible PDF/UA.'),
    // Default true: we only take PNG images, and a caller who sends PNG expects PNG quality.
    lossless_images: flag('Images kept lossless (Flate); false: JPEG-compressed at `quality`.', true),
    quality: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        description: 'JPEG quality; only with `lossless_images: false`.',
      }),
    ),
    reduce_image_resolution: flag(undefined, false),
    max_image_resolution: Type.Optional(
      OneOf(MAX_IMAGE_RESOLUTIONS, { description: 'DPI; only with `reduce_image_resolution: true`.' }),
    ),
    metadata: Type.Optional(PdfMetadataSchema),
    page_ranges: Type.Optional(text({ example: '1-3,5', description: 'Pages to export.' })),
    // Default true: tables of contents, indexes and fields are refreshed before export.
    update_indexes: flag(
      'Refresh tables of contents, indexes and fields (PAGE, NUMPAGES, references) before export.',
      true,
    ),
    encryption: Type.Optional(PdfEncryptionSchema),
    watermark: Type.Optional(PdfWatermarkSchema),
    prepend: Type.Optional(PdfFilesSchema),
    append: Type.Optional(PdfFilesSchema),
    attachments: Type.Optional(
      Type.Array(PdfAttachmentSchema, {
        maxItems: 20,
        description:
          'Embedded as PDF/A-3 associated files (catalog /AF). With `pdfa` PDF/A-1b or PDF/A-2b: 400.',
      }),
    ),
    facturx: Type.Optional(PdfFacturXSchema),
  },
  {
    $id: 'PdfOptions',
    description:
      'How the PDF is written, on both converters (LibreOffice export filter, Gotenberg 8 form fields; ' +
      'encryption, watermark, prepend, append, attachments and facturx are done on the PDF afterwards, the same ' +
      'for both: docs/pdf.md). An unknown field or a bad value: 400 invalid_request_structure naming it.',
    additionalProperties: false,
  },
);
export type PdfOptions = Static<typeof PdfOptionsSchema>;

// The field lists the validator (@app/converters pdf-options.ts) walks: this schema's.
export const PDF_OPTION_FIELDS = fieldsOf(PdfOptionsSchema) as Array<keyof PdfOptions>;
export const PDF_METADATA_FIELDS = fieldsOf(PdfMetadataSchema) as Array<keyof PdfMetadata>;
export const PDF_PERMISSION_FIELDS = fieldsOf(PdfPermissionsSchema) as Array<keyof PdfPermissions>;
export const PDF_ENCRYPTION_FIELDS = fieldsOf(PdfEncryptionSchema) as Array<keyof PdfEncryption>;
export const PDF_WATERMARK_FIELDS = fieldsOf(PdfWatermarkSchema) as Array<keyof PdfWatermark>;
export const PDF_ATTACHMENT_FIELDS = fieldsOf(PdfAttachmentSchema) as Array<keyof PdfAttachment>;

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
