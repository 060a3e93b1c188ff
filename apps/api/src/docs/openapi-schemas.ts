/**
 * OpenAPI schemas and examples of the render endpoint, written by hand from the code they
 * describe (render-request.dto.ts, libs/engine/src/errors.ts, libs/contracts): the form
 * fields are JSON text, which decorators on DTO classes cannot express. The e2e test
 * (test/operators.e2e-spec.ts) checks this document against the error types the code has.
 */
import type { ExampleObject, SchemaObject } from '@nestjs/swagger';
import { ERROR_CATALOGUE, type ErrorType } from '@app/contracts';
import { UNDEFINED_BEHAVIOR_SCHEMA, V16_FORM_PROPERTIES } from './compat-schemas';
import { LOCALE_FORM_PROPERTIES, LOCALE_OPTION_PROPERTIES } from './locale-schemas';

/** Every error_type the API answers with, by HTTP status (docs/service.md, "Errors"). */
/** status → error types, from the one catalogue (@app/contracts). */
export const ERROR_TYPES_BY_STATUS: Record<number, ErrorType[]> = {};
for (const [type, status] of Object.entries(ERROR_CATALOGUE) as [ErrorType, number][])
  (ERROR_TYPES_BY_STATUS[status] ??= []).push(type);

export const ERROR_TYPES = Object.values(ERROR_TYPES_BY_STATUS).flat();

export const SCHEMAS: Record<string, SchemaObject> = {
  ErrorBody: {
    type: 'object',
    description: 'Every error answer (application/json). Stack traces are never included.',
    properties: {
      status: { type: 'string', enum: ['error'] },
      error_type: { type: 'string', enum: [...ERROR_TYPES] },
      message: { type: 'string', description: 'Human-readable description' },
      details: {
        type: 'object',
        additionalProperties: true,
        description: 'Further information; keys depend on error_type (see the examples)',
      },
    },
    required: ['status', 'error_type', 'message', 'details'],
  },
  ImageData: {
    type: 'object',
    description:
      'One image. Millimetres take precedence over pixels (96 px = 25.4 mm); with one dimension the aspect ratio ' +
      'is kept; with none the image keeps its own size. Other fields are refused (400 invalid_request_structure).',
    properties: {
      data: {
        type: 'string',
        description:
          'Base64 PNG. A `data:image/png;base64,` prefix is tolerated; any other data URL is refused with image_processing_error.',
        example:
          'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
      },
      width_mm: { type: 'number', exclusiveMinimum: true, minimum: 0 },
      height_mm: { type: 'number', exclusiveMinimum: true, minimum: 0 },
      width_px: { type: 'number', exclusiveMinimum: true, minimum: 0 },
      height_px: { type: 'number', exclusiveMinimum: true, minimum: 0 },
    },
    required: ['data'],
    additionalProperties: false,
  },
  RenderOptions: {
    type: 'object',
    description:
      'Extras of this implementation (not in the interface specification). Other fields are refused.',
    properties: {
      undefined: {
        type: 'string',
        enum: ['empty', 'strict', 'debug', 'property_missing'],
        description:
          '`empty` (default, see DEFAULT_UNDEFINED): an undefined variable renders as nothing. `strict`: 422 undefined_variable listing them all. ' +
          '`debug`: `[Missing variable: name]`. `property_missing`: `<property missing in json>`.',
      },
      output: {
        type: 'string',
        enum: ['pdf', 'docx'],
        description: '`pdf` (default), or `docx`: the filled Word document without conversion.',
      },
      pdf: { $ref: '#/components/schemas/PdfOptions' },
      ...LOCALE_OPTION_PROPERTIES,
    },
    additionalProperties: false,
  },
  PdfOptions: {
    type: 'object',
    description:
      'How the PDF is written, on both converters (LibreOffice export filter, Gotenberg 8 form fields; ' +
      'encryption, watermark, prepend, append, attachments and facturx are done on the PDF afterwards, the same ' +
      'for both: docs/pdf.md). An unknown field or a bad value: 400 invalid_request_structure naming it.',
    properties: {
      pdfa: { type: 'string', enum: ['PDF/A-1b', 'PDF/A-2b', 'PDF/A-3b'], description: 'Archival PDF/A.' },
      pdfua: { type: 'boolean', description: 'Tagged, accessible PDF/UA.' },
      lossless_images: {
        type: 'boolean',
        default: true,
        description: 'Images kept lossless (Flate); false: JPEG-compressed at `quality`.',
      },
      quality: {
        type: 'integer',
        minimum: 1,
        maximum: 100,
        description: 'JPEG quality; only with `lossless_images: false`.',
      },
      reduce_image_resolution: { type: 'boolean', default: false },
      max_image_resolution: {
        type: 'integer',
        enum: [75, 150, 300, 600, 1200],
        description: 'DPI; only with `reduce_image_resolution: true`.',
      },
      metadata: {
        type: 'object',
        properties: {
          title: { type: 'string', maxLength: 2000 },
          author: { type: 'string', maxLength: 2000 },
          subject: { type: 'string', maxLength: 2000 },
          keywords: { type: 'string', maxLength: 2000, description: 'Comma-separated.' },
          creator: { type: 'string', maxLength: 2000 },
        },
        additionalProperties: false,
      },
      page_ranges: { type: 'string', example: '1-3,5', description: 'Pages to export.' },
      update_indexes: {
        type: 'boolean',
        default: true,
        description:
          'Refresh tables of contents, indexes and fields (PAGE, NUMPAGES, references) before export.',
      },
      encryption: {
        type: 'object',
        description:
          'AES-256 (R6). Without `user_password` the document opens for anyone, under the permissions; ' +
          'absent permissions are allowed. Forbidden with `pdfa` and `facturx` (PDF/A allows no encryption). ' +
          'Passwords appear in no log line, job record or error body (docs/pdf.md).',
        required: ['owner_password'],
        additionalProperties: false,
        properties: {
          owner_password: { type: 'string', minLength: 1, description: 'At most 127 bytes in UTF-8.' },
          user_password: { type: 'string', minLength: 1, description: 'At most 127 bytes in UTF-8.' },
          permissions: {
            type: 'object',
            additionalProperties: false,
            properties: {
              print: { type: 'string', enum: ['none', 'low', 'high'], default: 'high' },
              copy: { type: 'boolean', default: true },
              modify: { type: 'boolean', default: true },
              annotate: { type: 'boolean', default: true },
              fill_forms: { type: 'boolean', default: true },
              accessibility: { type: 'boolean', default: true },
            },
          },
        },
      },
      watermark: {
        type: 'object',
        description: 'Drawn on every page of the result, prepended and appended pages included.',
        required: ['text'],
        additionalProperties: false,
        properties: {
          text: { type: 'string', minLength: 1, maxLength: 200 },
          color: { type: 'string', pattern: '^#[0-9A-Fa-f]{6}$', default: '#808080' },
          opacity: { type: 'number', minimum: 0, maximum: 1, default: 0.3 },
          angle: {
            type: 'number',
            minimum: -360,
            maximum: 360,
            default: 45,
            description: 'Degrees, counter-clockwise.',
          },
          font_size: {
            type: 'number',
            minimum: 1,
            maximum: 500,
            description: 'Points; default: fitted to about 70 % of the page diagonal, at most 144.',
          },
        },
      },
      prepend: { $ref: '#/components/schemas/PdfFiles' },
      append: { $ref: '#/components/schemas/PdfFiles' },
      attachments: {
        type: 'array',
        maxItems: 20,
        description:
          'Embedded as PDF/A-3 associated files (catalog /AF). With `pdfa` PDF/A-1b or PDF/A-2b: 400.',
        items: {
          type: 'object',
          required: ['name', 'data', 'mime_type'],
          additionalProperties: false,
          properties: {
            name: { type: 'string', maxLength: 255, description: 'A file name, without / or \\.' },
            data: {
              type: 'string',
              format: 'byte',
              description: 'base64, at most MAX_PDF_EXTRA_BYTES decoded',
            },
            mime_type: { type: 'string', example: 'application/json' },
            description: { type: 'string', maxLength: 1000 },
            relationship: {
              type: 'string',
              enum: ['Data', 'Source', 'Alternative', 'Supplement', 'Unspecified'],
              default: 'Unspecified',
            },
          },
        },
      },
      facturx: {
        type: 'object',
        description:
          'A Factur-X / ZUGFeRD e-invoice: PDF/A-3b with `factur-x.xml` embedded (relationship Data for MINIMUM ' +
          'and BASIC WL, Alternative for the others) and the Factur-X XMP extension schema. XML that is not ' +
          'well-formed or has no rsm:CrossIndustryInvoice root: 422 invalid_einvoice.',
        required: ['xml', 'profile'],
        additionalProperties: false,
        properties: {
          xml: { type: 'string', format: 'byte', description: 'The CII XML, base64' },
          profile: {
            type: 'string',
            enum: ['MINIMUM', 'BASIC WL', 'BASIC', 'EN 16931', 'EXTENDED', 'XRECHNUNG'],
          },
        },
      },
    },
    additionalProperties: false,
  },
  PdfFiles: {
    type: 'array',
    maxItems: 20,
    description:
      'PDFs put before (`prepend`) or after (`append`) the converted document, in order. Not a PDF: 400; ' +
      'encrypted, unreadable or hostile (read under time and memory limits): 422 invalid_pdf_input naming it.',
    items: {
      type: 'object',
      required: ['data'],
      additionalProperties: false,
      properties: {
        data: {
          type: 'string',
          format: 'byte',
          description: 'The PDF, base64, at most MAX_PDF_EXTRA_BYTES decoded',
        },
      },
    },
  },
  SubDocument: {
    type: 'object',
    required: ['data'],
    additionalProperties: false,
    properties: {
      data: { type: 'string', description: 'The .docx, base64 (at most MAX_TEMPLATE_BYTES decoded)' },
    },
  },
  EnhancedRequest: {
    type: 'object',
    description: 'The JSON object sent as text in the `request_data` form field. Unknown fields are refused.',
    properties: {
      template_data: {
        type: 'object',
        additionalProperties: true,
        description:
          'Template variables, any JSON values nested at will. Absent or not an object: 400 missing_template_data.',
      },
      images: {
        type: 'object',
        additionalProperties: { $ref: '#/components/schemas/ImageData' },
        description:
          'Image name (the `{{ name }}` placeholder, case-sensitive) → ImageData. At most MAX_IMAGES.',
      },
      documents: {
        type: 'object',
        additionalProperties: { $ref: '#/components/schemas/SubDocument' },
        description:
          'Sub-documents placed with `{{p name }}` (docs/rich-content.md): name → {"data": base64 .docx}. At most MAX_SUBDOCUMENTS; each passes the template checks (a bad one: 400 naming it).',
      },
      options: { $ref: '#/components/schemas/RenderOptions' },
      undefined_behavior: {
        ...UNDEFINED_BEHAVIOR_SCHEMA,
        description: `As the v1.6 form field; not together with a different options.undefined. ${UNDEFINED_BEHAVIOR_SCHEMA.description}`,
      },
      linter_options: { $ref: '#/components/schemas/LinterOptions' },
    },
    required: ['template_data'],
    additionalProperties: false,
  },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const ENHANCED_EXAMPLE = {
  template_data: { customer: { name: 'Ada' }, items: [{ label: 'Widget' }], logo: 'logo' },
  images: {
    logo: {
      data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
      width_mm: 40,
    },
  },
  options: { undefined: 'strict', output: 'pdf' },
};

/** The multipart body: `file` and one of `data` (legacy) or `request_data` (enhanced). */
export const RENDER_BODY_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['file'],
  properties: {
    file: {
      type: 'string',
      format: 'binary',
      description: 'The .docx template (at most MAX_TEMPLATE_BYTES)',
    },
    data: {
      type: 'string',
      description:
        'Legacy mode: a JSON object of template variables, as text. No images. Give either `data` or `request_data`, not both ' +
        '(no example here on purpose: Swagger UI would send both fields and get a 400).',
    },
    request_data: {
      type: 'string',
      description:
        'Enhanced mode: the JSON text of an EnhancedRequest (`template_data`, optional `images` of ImageData, optional `options`). ' +
        'At most MAX_REQUEST_BYTES. Schema: #/components/schemas/EnhancedRequest.',
      example: JSON.stringify(ENHANCED_EXAMPLE),
    },
    ...V16_FORM_PROPERTIES,
    ...LOCALE_FORM_PROPERTIES,
  },
};

export const RENDER_BODY_EXAMPLES: Record<string, ExampleObject> = {
  legacy: {
    summary: 'Legacy mode (data)',
    value: { file: '(binary .docx)', data: '{"name": "Ada", "items": [{"label": "Widget"}]}' },
  },
  enhanced: {
    summary: 'Enhanced mode (request_data) with an image and options',
    value: { file: '(binary .docx)', request_data: JSON.stringify(ENHANCED_EXAMPLE) },
  },
  v16: {
    summary: 'v1.6+ form: data, images, undefined_behavior and linter_options as form fields',
    value: {
      file: '(binary .docx)',
      data: '{"customer": {"name": "Ada"}}',
      images: JSON.stringify({ logo: ENHANCED_EXAMPLE.images.logo }),
      undefined_behavior: 'debug',
      linter_options: '{"enabled": true, "response_format": "json"}',
    },
  },
};

/** One example body per error_type, shaped like what the code sends. */
const ERROR_EXAMPLES: Record<ErrorType, { message: string; details: Record<string, unknown> }> = {
  invalid_request_structure: {
    message: "Send either 'data' (legacy mode) or 'request_data' (enhanced mode), not both",
    details: { fields: ['data', 'request_data'] },
  },
  missing_template_data: { message: 'request_data must contain a template_data object', details: {} },
  missing_file: { message: "The form field 'file' (the .docx template) is missing", details: {} },
  invalid_template: {
    message: 'The file is not a Word document (.docx): it is not a zip package',
    details: {},
  },
  image_processing_error: {
    message: "Image 'logo' could not be processed: the data is not a PNG image (PNG signature missing)",
    details: {
      image_name: 'logo',
      error: 'the data is not a PNG image (PNG signature missing)',
      error_class: 'InvalidPngSignature',
      suggestion: 'Send PNG images only; convert JPEG, GIF or SVG to PNG first.',
    },
  },
  invalid_webhook_url: {
    message: 'webhook_url resolves to a private address, which the service does not call',
    details: {
      reason: 'address_not_allowed',
      host: 'intranet.example',
      address: '10.0.0.7',
      range: 'private',
    },
  },
  not_found: { message: 'Cannot GET /api/v1/unknown', details: {} },
  job_not_found: { message: 'No job has this id, or its result has expired', details: {} },
  job_not_finished: {
    message: 'The job is not finished yet',
    details: { status: 'active', progress: { done: 3, total: 20 } },
  },
  method_not_allowed: {
    message: 'GET is not allowed on /api/v1/process-template-document; use POST',
    details: { allow: ['POST'] },
  },
  payload_too_large: {
    message: 'The template file is too large',
    details: { field: 'file', code: 'LIMIT_FILE_SIZE', limit: 10485760, max_bytes: 10485760 },
  },
  template_syntax_error: {
    message: 'The template has 1 syntax error',
    details: {
      errors: [
        { message: "unexpected '}'", tag: '{{ name }', context: 'Dear {{ name }', part: 'word/document.xml' },
      ],
    },
  },
  undefined_variable: {
    message: 'Undefined variable in template: customer',
    details: { variables: ['customer'] },
  },
  template_runtime_error: { message: "'total' is not a number", details: { tag: '{{ total + 1 }}' } },
  invalid_pdf_input: {
    message: 'options.pdf.append[0].data is encrypted: send it without a password',
    details: { field: 'options.pdf.append[0].data' },
  },
  invalid_einvoice: {
    message:
      'options.pdf.facturx.xml must have the root rsm:CrossIndustryInvoice in urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
    details: { field: 'options.pdf.facturx.xml' },
  },
  internal_error: { message: 'Internal server error', details: {} },
  conversion_failed: {
    message: 'The PDF converter is unreachable',
    details: { retryable: true },
  },
  service_unavailable: { message: 'No worker is running', details: { live_workers: 0 } },
  processing_timeout: {
    message: 'The document was not processed within 60000 ms',
    details: { timeout_ms: 60000 },
  },
};

export function errorExamples(status: keyof typeof ERROR_TYPES_BY_STATUS): Record<string, ExampleObject> {
  return Object.fromEntries(
    ERROR_TYPES_BY_STATUS[status].map((t) => [
      t,
      { summary: t, value: { status: 'error', error_type: t, ...ERROR_EXAMPLES[t] } },
    ]),
  );
}

export const ERROR_BODY_REF = ref('ErrorBody');
