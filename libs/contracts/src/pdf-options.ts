/**
 * `request_data.options.pdf`: how the PDF is written. Its shape is defined once here, as
 * PdfOptionsSchema: the types (PdfOptions and its parts), the OpenAPI schema and the validation
 * (@app/converters' pdfOptionProblems, for the API, the worker and the CLI) come from it. Its
 * `problem` keywords are what a caller reads (see payload/schema.ts). The defaults, the few
 * checks a schema cannot say, and the mapping onto LibreOffice's export filter,
 * Gotenberg's form fields and the finishing on the PDF (docs/pdf.md) live there too.
 */
import { type Static, type TProperties, Type } from '@sinclair/typebox';
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

/** Limits of options.pdf; MAX_PDF_EXTRA_BYTES is the service's configuration (checked beside the schema). */
export const MAX_METADATA_LENGTH = 2000;
export const MAX_PAGE_RANGES_LENGTH = 200;
/** Files per list (prepend, append, attachments): each is read by a tool with its own limits. */
export const MAX_PDF_EXTRA_FILES = 20;
export const MAX_WATERMARK_TEXT = 200;
/** The PDF 2.0 limit for AES-256 passwords (UTF-8 bytes; checked beside the schema). */
export const MAX_PASSWORD_BYTES = 127;
const MAX_ATTACHMENT_NAME = 255;
const MAX_DESCRIPTION = 1000;

// Control characters (tab, line feed and carriage return allowed) go nowhere near a PDF.
const PLAIN = '[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]';
const NO_CONTROL = { pattern: `^${PLAIN}*$`, patternProblem: 'must not contain control characters' };
/** Something visible, no control characters. */
const VISIBLE = {
  pattern: `^${PLAIN}*[^\\s\\u0000-\\u001f\\u007f]${PLAIN}*$`,
  patternProblem: 'must not be blank nor contain control characters',
};

const text = (options: object = {}) => Type.String(options);
const keys = (what: string, properties: object) => `is not ${what} (${Object.keys(properties).join(', ')})`;
/** An object refusing other keys, telling which it knows. */
const strict = <P extends TProperties>(what: string, properties: P, options: object = {}) =>
  Type.Object(properties, {
    additionalProperties: false,
    unknownProblem: keys(what, properties),
    ...options,
  });
/** A base64 file; its decoded size (MAX_PDF_EXTRA_BYTES) is checked beside the schema. */
const file = (description: string) =>
  text({
    minLength: 1,
    format: 'byte',
    description,
    problem: 'must be a base64 string',
    patternProblem: 'is not valid base64 (padded, without line breaks)',
  });
const flag = (description?: string, defaultValue?: boolean) =>
  Type.Optional(
    Type.Boolean({
      ...(description ? { description } : {}),
      ...(defaultValue === undefined ? {} : { default: defaultValue }),
    }),
  );
const metadataText = (options: object = {}) =>
  Type.Optional(text({ maxLength: MAX_METADATA_LENGTH, ...NO_CONTROL, ...options }));

export const PdfMetadataSchema = strict(
  'a metadata field',
  {
    title: metadataText(),
    author: metadataText(),
    subject: metadataText(),
    keywords: metadataText({ description: 'Comma-separated.' }),
    creator: metadataText(),
  },
  { problem: 'must be an object' },
);
export type PdfMetadata = Static<typeof PdfMetadataSchema>;

/** Absent keys allow: `{"print": "none"}` forbids printing only. */
export const PdfPermissionsSchema = strict('a permission', {
  print: Type.Optional(OneOf(PDF_PRINT_LEVELS, { default: 'high' })),
  copy: flag(undefined, true),
  modify: flag(undefined, true),
  annotate: flag(undefined, true),
  fill_forms: flag(undefined, true),
  accessibility: flag(undefined, true),
});
export type PdfPermissions = Static<typeof PdfPermissionsSchema>;

// Said without the value: passwords never reach an error body or a log line.
const password = () =>
  text({ minLength: 1, ...NO_CONTROL, description: `At most ${MAX_PASSWORD_BYTES} bytes in UTF-8.` });

export const PdfEncryptionSchema = strict(
  'an encryption field',
  {
    owner_password: password(),
    /** Without it the document opens for anyone, under the permissions. */
    user_password: Type.Optional(password()),
    permissions: Type.Optional(PdfPermissionsSchema),
  },
  {
    description:
      'AES-256 (R6). Without `user_password` the document opens for anyone, under the permissions; ' +
      'absent permissions are allowed. Forbidden with `pdfa` and `facturx` (PDF/A allows no encryption). ' +
      'Passwords appear in no log line, job record or error body (docs/pdf.md).',
  },
);
export type PdfEncryption = Static<typeof PdfEncryptionSchema>;

export const PdfWatermarkSchema = strict(
  'a watermark field',
  {
    text: text({ minLength: 1, maxLength: MAX_WATERMARK_TEXT, ...VISIBLE }),
    color: Type.Optional(
      text({ pattern: '^#[0-9A-Fa-f]{6}$', default: '#808080', problem: 'must be a colour like "#C00000"' }),
    ),
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
  },
);
export type PdfWatermark = Static<typeof PdfWatermarkSchema>;

/** A PDF to prepend or append, base64. */
export const PdfExtraFileSchema = strict('a field of a PDF to add', {
  data: file('The PDF, base64, at most MAX_PDF_EXTRA_BYTES decoded'),
});
export type PdfExtraFile = Static<typeof PdfExtraFileSchema>;

export const PdfFilesSchema = Type.Array(PdfExtraFileSchema, {
  $id: 'PdfFiles',
  maxItems: MAX_PDF_EXTRA_FILES,
  tooMany: `must hold at most ${MAX_PDF_EXTRA_FILES} files`,
  description:
    'PDFs put before (`prepend`) or after (`append`) the converted document, in order. Not a PDF: 400; ' +
    'encrypted, unreadable or hostile (read under time and memory limits): 422 invalid_pdf_input naming it.',
});

export const PdfAttachmentSchema = strict('an attachment field', {
  name: text({
    minLength: 1,
    maxLength: MAX_ATTACHMENT_NAME,
    // VISIBLE, and neither / nor \\.
    pattern: `^${PLAIN.replace('[^', '[^/\\\\')}*[^\\s/\\\\\\u0000-\\u001f\\u007f]${PLAIN.replace('[^', '[^/\\\\')}*$`,
    patternProblem: 'must be a file name, without / or \\, not blank, without control characters',
    description: 'A file name, without / or \\.',
  }),
  data: file('base64, at most MAX_PDF_EXTRA_BYTES decoded'),
  mime_type: text({
    pattern: '^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]{0,126}/[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]{0,126}$',
    example: 'application/json',
    problem: 'must be a media type like "application/json"',
  }),
  description: Type.Optional(text({ maxLength: MAX_DESCRIPTION, ...NO_CONTROL })),
  relationship: Type.Optional(OneOf(ATTACHMENT_RELATIONSHIPS, { default: 'Unspecified' })),
});
export type PdfAttachment = Static<typeof PdfAttachmentSchema>;

export const PdfFacturXSchema = strict(
  'a Factur-X field',
  {
    xml: file('The CII XML, base64'),
    profile: OneOf(FACTURX_PROFILES),
  },
  {
    description:
      'A Factur-X / ZUGFeRD e-invoice: PDF/A-3b with `factur-x.xml` embedded (relationship Data for MINIMUM ' +
      'and BASIC WL, Alternative for the others) and the Factur-X XMP extension schema. XML that is not ' +
      'well-formed or has no rsm:CrossIndustryInvoice root: 422 invalid_einvoice.',
  },
);
export type PdfFacturX = Static<typeof PdfFacturXSchema>;

export const SIGNATURE_LEVELS = ['B-B', 'B-T', 'B-LT', 'B-LTA'] as const;
export type SignatureLevel = (typeof SIGNATURE_LEVELS)[number];
/** A signature field's name: the engine's signature_field() names (letters, digits, _ and -). */
export const SIGNATURE_FIELD_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const MAX_SIGNATURE_TEXT = 200;
const signatureText = (description: string) =>
  Type.Optional(text({ minLength: 1, maxLength: MAX_SIGNATURE_TEXT, ...NO_CONTROL, description }));

export const PdfSignatureAppearanceSchema = strict(
  'an appearance field',
  {
    image: file(
      'A PNG, base64 (a handwritten signature or a seal), drawn in the field beside the signer, date and reason',
    ),
  },
  { problem: 'must be an object' },
);

export const PdfSignatureSchema = strict(
  'a signature field',
  {
    profile: text({
      minLength: 1,
      maxLength: 100,
      ...VISIBLE,
      description:
        "The operator's signing profile (docs/configuration.md); keys never travel in requests. Unknown: 400.",
    }),
    level: Type.Optional(
      OneOf(SIGNATURE_LEVELS, {
        description:
          'PAdES baseline level; default B-T when the profile has a time-stamping authority, else B-B.',
      }),
    ),
    reason: signatureText('Why the document is signed (/Reason).'),
    location: signatureText('Where it is signed (/Location).'),
    contact_info: signatureText("The signer's contact (/ContactInfo)."),
    field: Type.Optional(
      text({
        pattern: SIGNATURE_FIELD_PATTERN,
        patternProblem: 'must be a signature_field name: 1 to 64 letters, digits, _ or -',
        description:
          "The template's {{ signature_field('name') }} signed with a visible appearance; without it the " +
          'signature is invisible. A name the document does not hold: 422 signature_field_not_found.',
      }),
    ),
    appearance: Type.Optional(PdfSignatureAppearanceSchema),
  },
  {
    description:
      "A PAdES signature with the operator's profile, applied last (after watermark, prepend/append, " +
      'attachments and Factur-X). Every signature_field of the template not signed stays an empty ' +
      'signature field. Not with `encryption`, and only for a PDF output: 400 (docs/pdf.md).',
  },
);
export type PdfSignature = Static<typeof PdfSignatureSchema>;

const PDF_OPTION_PROPERTIES = {
  pdfa: Type.Optional(OneOf(PDFA_LEVELS, { description: 'Archival PDF/A.' })),
  pdfua: flag('Tagged, accessible PDF/UA.'),
  // Default true: we only take PNG images, and a caller who sends PNG expects PNG quality.
  lossless_images: flag('Images kept lossless (Flate); false: JPEG-compressed at `quality`.', true),
  quality: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      description: 'JPEG quality; only with `lossless_images: false`.',
      problem: 'must be an integer from 1 to 100',
    }),
  ),
  reduce_image_resolution: flag(undefined, false),
  max_image_resolution: Type.Optional(
    OneOf(MAX_IMAGE_RESOLUTIONS, { description: 'DPI; only with `reduce_image_resolution: true`.' }),
  ),
  metadata: Type.Optional(PdfMetadataSchema),
  page_ranges: Type.Optional(
    text({
      maxLength: MAX_PAGE_RANGES_LENGTH,
      // Numbers and ranges separated by commas (LibreOffice's and Gotenberg's syntax).
      pattern: '^\\s*\\d+\\s*(-\\s*\\d+\\s*)?(,\\s*\\d+\\s*(-\\s*\\d+\\s*)?)*$',
      example: '1-3,5',
      description: 'Pages to export, from 1, ranges running forwards.',
      problem: 'must be a string like "1-3,5"',
      patternProblem: 'must list pages and ranges like "1-3,5"',
    }),
  ),
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
      maxItems: MAX_PDF_EXTRA_FILES,
      tooMany: `must hold at most ${MAX_PDF_EXTRA_FILES} files`,
      description:
        'Embedded as PDF/A-3 associated files (catalog /AF). With `pdfa` PDF/A-1b or PDF/A-2b: 400.',
    }),
  ),
  facturx: Type.Optional(PdfFacturXSchema),
  signature: Type.Optional(PdfSignatureSchema),
};

export const PdfOptionsSchema = strict('a PDF option', PDF_OPTION_PROPERTIES, {
  $id: 'PdfOptions',
  description:
    'How the PDF is written, on both converters (LibreOffice export filter, Gotenberg 8 form fields; ' +
    'encryption, watermark, prepend, append, attachments, facturx and signature are done on the PDF afterwards, the same ' +
    'for both: docs/pdf.md). An unknown field or a bad value: 400 invalid_request_structure naming it.',
  problem: 'must be an object',
});
export type PdfOptions = Static<typeof PdfOptionsSchema>;

// The field lists parsePdfOptions copies and the converters map: this schema's.
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
  // The profile's name and the appearance image: no key, but the caller's, like the others.
  'signature',
] as const;
export type PdfFinishOptions = Pick<PdfOptions, (typeof PDF_FINISH_FIELDS)[number]>;

/**
 * Where the finishing options travel: beside the template data in the request payload (a Redis key
 * with a TTL, deleted once the API has answered), not in the job data BullMQ keeps for a day
 * after a failure and Bull Board shows. The payload's typed field `pdf_finish` (RenderPayload in
 * render-payload.ts): the API writes it with renderPayload(), the worker reads it with openRenderPayload().
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
