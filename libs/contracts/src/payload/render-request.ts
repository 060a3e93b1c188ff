/**
 * The payloads of the render and lint endpoints, each defined once (see schema.ts): the render
 * request in its three forms (legacy `data`; enhanced `request_data`; the v1.6 form fields),
 * ImageData, the sub-documents, the render options (with PdfOptions), the seed system's
 * undefined_behavior and linter_options, and the lint endpoint's options. The API validates with
 * these (request/render-fields.ts, the one parser of the API and the CLI) and documents them in its
 * OpenAPI.
 */
import { type Static, Type } from '@sinclair/typebox';
import { PdfFilesSchema, PdfOptionsSchema } from '../pdf-options';
import { OUTPUT_FORMAT_NAMES, UNDEFINED_MODES } from '../render-job';
import { OneOf } from './schema';

const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

/** The formatting filters' request defaults (docs/formatting.md); checked by request/locale-fields.ts. */
const LOCALE = {
  example: 'de_DE',
  description:
    "Default locale of format_date, format_currency and the other formatting filters: Babel's `de_DE` or BCP 47's `de-DE` " +
    '(default: DEFAULT_LOCALE, `en_US`). An unknown locale: 400 invalid_request_structure naming the field.',
};
const TIMEZONE = {
  example: 'Europe/Berlin',
  description:
    'IANA time zone format_datetime and format_time show times in (default: DEFAULT_TIMEZONE, `UTC`). ' +
    'An unknown zone: 400 invalid_request_structure naming the field.',
};

const size = () => Type.Optional(Type.Number({ exclusiveMinimum: 0, problem: 'must be a positive number' }));

export const ImageDataSchema = Type.Object(
  {
    data: Type.String({
      minLength: 1,
      description:
        'Base64 PNG. A `data:image/png;base64,` prefix is tolerated; any other data URL is refused with image_processing_error.',
      example: PIXEL_PNG,
      problem: 'must be a non-empty string',
    }),
    width_mm: size(),
    height_mm: size(),
    width_px: size(),
    height_px: size(),
    alt: Type.Optional(
      Type.String({
        maxLength: 2000,
        description:
          "Alternative text: the picture's description in the document (wp:docPr descr), and the PDF figure's /Alt. " +
          'With options.pdf.pdfua an image needs it unless `decorative` (422 missing_alt_text naming the image).',
        example: 'Müller & Söhne logo',
        problem: 'must be a string of at most 2000 characters',
      }),
    ),
    decorative: Type.Optional(
      Type.Boolean({
        description:
          "A decorative picture: written with Word's decorative mark (adec:decorative), an artifact in an accessible PDF, no alt text needed.",
        problem: 'must be a boolean',
      }),
    ),
  },
  {
    $id: 'ImageData',
    description:
      'One image. Millimetres take precedence over pixels (96 px = 25.4 mm); with one dimension the aspect ratio ' +
      'is kept; with none the image keeps its own size. Other fields are refused (400 invalid_request_structure).',
    additionalProperties: false,
    problem: "must be an object with 'data'",
  },
);
export type ImageData = Static<typeof ImageDataSchema>;

/** `"1"`, `"2-4"`, `"1,3"`, `"1-2, 5"`, `"all"`: converters' parsePageSelection reads it. */
const PAGES_PATTERN =
  '^\\s*([Aa][Ll][Ll]|\\d{1,6}(\\s*-\\s*\\d{1,6})?(\\s*,\\s*\\d{1,6}(\\s*-\\s*\\d{1,6})?)*)\\s*$';

const pixels = (description: string) =>
  Type.Optional(
    Type.Integer({ minimum: 1, maximum: 20000, description, problem: 'must be an integer from 1 to 20000' }),
  );

export const ImageOutputOptionsSchema = Type.Object(
  {
    dpi: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1200,
        default: 96,
        description: 'Resolution of the page images (default 96). Not with width_px / height_px.',
        problem: 'must be an integer from 1 to 1200',
      }),
    ),
    width_px: pixels("Width of each page image; with only this, the page's aspect gives the height."),
    height_px: pixels("Height of each page image; with only this, the page's aspect gives the width."),
    pages: Type.Optional(
      Type.String({
        pattern: PAGES_PATTERN,
        default: '1',
        description:
          '`"1"` (default), `"2-4"`, `"1,3"`, `"all"`. One page answers the image, several a ZIP of page-1.png, page-2.png, … ' +
          'A page beyond the document: 422 page_out_of_range naming the page count.',
        problem: 'must be "all", a page ("2"), a range ("2-4") or a list ("1,3")',
      }),
    ),
    quality: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: 85,
        description: 'JPEG quality (default 85); jpeg only.',
        problem: 'must be an integer from 1 to 100',
      }),
    ),
  },
  {
    $id: 'ImageOutputOptions',
    description:
      'For options.output png and jpeg only. MAX_IMAGE_OUTPUT_PIXELS bounds the pixels of one request (413 before any work).',
    additionalProperties: false,
    problem: 'must be an object',
  },
);

export const SubDocumentSchema = Type.Object(
  {
    data: Type.String({
      minLength: 1,
      description: 'The .docx, base64 (at most MAX_TEMPLATE_BYTES decoded)',
      problem: 'must be a non-empty string',
    }),
  },
  { $id: 'SubDocument', additionalProperties: false, problem: 'must be an object with only a data string' },
);

export const RenderOptionsSchema = Type.Object(
  {
    undefined: Type.Optional(
      OneOf(UNDEFINED_MODES, {
        description:
          '`empty` (default, see DEFAULT_UNDEFINED): an undefined variable renders as nothing. `strict`: 422 undefined_variable listing them all. ' +
          '`debug`: `[Missing variable: name]`. `property_missing`: `<property missing in json>`.',
        problem: `must be one of the following values: ${UNDEFINED_MODES.join(', ')}`,
      }),
    ),
    output: Type.Optional(
      OneOf(OUTPUT_FORMAT_NAMES, {
        description:
          '`pdf` (default); `docx`: the filled Word document without conversion; `odt`; `html` (one self-contained file, ' +
          'pictures as data: URIs); `txt` (UTF-8, paragraphs separated by blank lines); `png` / `jpeg`: pages of the PDF ' +
          'the same request gives (options.image). odt, html and txt need the embedded LibreOffice pool: on a ' +
          'Gotenberg-only worker they are 400 unsupported_output (docs/outputs.md). A spreadsheet template (.xlsx): ' +
          '`pdf`, `png`, `jpeg`, `xlsx` (the filled workbook) or `ods` (docs/spreadsheets-and-slides.md).',
        problem: `must be one of the following values: ${OUTPUT_FORMAT_NAMES.join(', ')}`,
      }),
    ),
    image: Type.Optional(ImageOutputOptionsSchema),
    pdf: Type.Optional(PdfOptionsSchema),
    locale: Type.Optional(Type.String(LOCALE)),
    timezone: Type.Optional(Type.String(TIMEZONE)),
  },
  {
    $id: 'RenderOptions',
    description:
      'Extras of this implementation (not in the interface specification). Other fields are refused.',
    additionalProperties: false,
    problem: 'must be an object',
  },
);
export type RenderOptionsPayload = Static<typeof RenderOptionsSchema>;

/** The seed system's names of the undefined modes (`silent` is our `empty`). */
export const UNDEFINED_BEHAVIORS = ['silent', 'property_missing', 'debug', 'strict'] as const;

const undefinedBehavior = (where: string) =>
  OneOf(UNDEFINED_BEHAVIORS, {
    description:
      `${where}What a variable missing from the data becomes: \`silent\` (default) nothing; \`property_missing\` the text ` +
      '`<property missing in json>`; `debug` `[Missing variable: customer.name]`; `strict` 422 undefined_variable naming every one.',
    problem: `must be one of ${UNDEFINED_BEHAVIORS.join(', ')}`,
  });
export const UndefinedBehaviorSchema = undefinedBehavior('');

const lintSwitch = (description?: string, defaultValue?: boolean) =>
  Type.Optional(
    Type.Boolean({
      problem: 'must be a boolean',
      ...(description ? { description } : {}),
      ...(defaultValue === undefined ? {} : { default: defaultValue }),
    }),
  );
/** The seed system's switches: three accepted and ignored (every check always runs), and max_line_length. */
const IGNORED_LINT_SWITCHES = {
  check_undefined_vars: lintSwitch(),
  check_tag_matching: lintSwitch(),
  check_nested_structure: lintSwitch(),
  max_line_length: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description: 'Paragraphs longer than this are long_line warnings.',
      problem: 'must be a positive number',
    }),
  ),
};

export const LinterOptionsSchema = Type.Object(
  {
    enabled: lintSwitch(undefined, true),
    response_format: Type.Optional(
      OneOf(['json', 'pdf'], { default: 'json', problem: 'must be "json" or "pdf"' }),
    ),
    verbose: lintSwitch(undefined, false),
    fail_on_warnings: lintSwitch(undefined, false),
    ...IGNORED_LINT_SWITCHES,
  },
  {
    $id: 'LinterOptions',
    description:
      'Lint the template before rendering. When it fails: 200 with TemplateValidationFailed (json) or the PDF report (pdf). ' +
      'max_line_length makes longer paragraphs long_line warnings. check_undefined_vars, check_tag_matching and ' +
      "check_nested_structure are accepted for the seed system's callers and ignored (every check runs). Other fields are refused.",
    additionalProperties: false,
    problem: 'must be a JSON object',
  },
);
export type LinterOptions = Static<typeof LinterOptionsSchema>;

/** The `options` form field of the lint endpoint (the seed system's LintOptions). */
export const LintOptionsSchema = Type.Object(
  {
    response_format: Type.Optional(
      OneOf(['pdf', 'json'], { default: 'pdf', problem: 'must be "pdf" or "json"' }),
    ),
    verbose: lintSwitch(undefined, false),
    fail_on_warnings: lintSwitch('Warnings fail the validation too.', false),
    ...IGNORED_LINT_SWITCHES,
  },
  {
    $id: 'LintOptions',
    description:
      "Options of the lint endpoint (JSON text in its `options` form field). The seed system's other switches are accepted and ignored.",
    additionalProperties: false,
    problem: 'must be a JSON object',
  },
);
export type LintOptions = Static<typeof LintOptionsSchema>;

export const EnhancedRequestSchema = Type.Object(
  {
    template_data: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Template variables, any JSON values nested at will. Absent or not an object: 400 missing_template_data.',
    }),
    images: Type.Optional(
      Type.Record(Type.String(), ImageDataSchema, {
        description:
          'Image name (the `{{ name }}` placeholder, case-sensitive) → ImageData. At most MAX_IMAGES.',
        problem: 'must be an object',
      }),
    ),
    documents: Type.Optional(
      Type.Record(Type.String(), SubDocumentSchema, {
        description:
          'Sub-documents placed with `{{p name }}` (docs/rich-content.md): name → {"data": base64 .docx}. At most MAX_SUBDOCUMENTS; each passes the template checks (a bad one: 400 naming it).',
        problem: 'must be an object of name → {"data": "<base64 .docx>"}',
      }),
    ),
    options: Type.Optional(RenderOptionsSchema),
    undefined_behavior: Type.Optional(
      undefinedBehavior('As the v1.6 form field; not together with a different options.undefined. '),
    ),
    linter_options: Type.Optional(LinterOptionsSchema),
  },
  {
    $id: 'EnhancedRequest',
    description: 'The JSON object sent as text in the `request_data` form field. Unknown fields are refused.',
    additionalProperties: false,
    problem: 'must be a JSON object',
  },
);
export type EnhancedRequest = Static<typeof EnhancedRequestSchema>;

/** A checked request, as the parser gives it to the engine (and the API queues it). */
export interface RenderRequest {
  template_data: Record<string, unknown>;
  images?: Record<string, ImageData>;
  /** Sub-documents placed with `{{p key }}`: key → {"data": "<base64 .docx>"}. */
  documents?: Record<string, { data: string }>;
}

export const ENHANCED_EXAMPLE: EnhancedRequest = {
  template_data: { customer: { name: 'Ada' }, items: [{ label: 'Widget' }], logo: 'logo' },
  images: { logo: { data: PIXEL_PNG, width_mm: 40 } },
  options: { undefined: 'strict', output: 'pdf' },
};

/** The form fields that make a request a v1.6+ one (beside `data`): RenderFormSchema's, and V16_FIELDS. */
export const V16_FORM_PROPERTIES = {
  images: Type.Optional(
    Type.String({
      description:
        'v1.6+ form (with `data`): JSON text of an object name → ImageData (#/components/schemas/ImageData).',
      example: '{"logo": {"data": "iVBORw0KGgo…", "width_mm": 40}}',
    }),
  ),
  undefined_behavior: Type.Optional(undefinedBehavior('v1.6+ form (with `data`). ')),
  linter_options: Type.Optional(
    Type.String({
      description:
        'v1.6+ form (with `data`): JSON text of LinterOptions (#/components/schemas/LinterOptions).',
      example: '{"enabled": true, "response_format": "json"}',
    }),
  ),
};

/** The form fields of the formatting defaults beside `data` (legacy and v1.6 forms): RenderFormSchema's, and LOCALE_FORM_FIELDS. */
export const LOCALE_FORM_PROPERTIES = {
  locale: Type.Optional(
    Type.String({ ...LOCALE, description: `Legacy and v1.6 forms (with \`data\`). ${LOCALE.description}` }),
  ),
  timezone: Type.Optional(
    Type.String({
      ...TIMEZONE,
      description: `Legacy and v1.6 forms (with \`data\`). ${TIMEZONE.description}`,
    }),
  ),
};

/**
 * The multipart form of POST /api/v1/process-template-document: `file` and one of `data`
 * (legacy) or `request_data` (enhanced), or `data` with the v1.6 fields. The JSON fields are text.
 */
/**
 * A stored template in place of the upload (docs/templates.md): exactly one of `file` and
 * `template_id` (`file` stays required here, as the interface specification has it).
 */
export const TEMPLATE_ID_FORM_PROPERTIES = {
  template_id: Type.Optional(
    Type.String({
      description:
        'A stored template (docs/templates.md) instead of the upload: give exactly one of the file and template_id. Needs an API key (Authorization: Bearer) of its namespace with the scope render.',
    }),
  ),
  template_version: Type.Optional(
    Type.String({
      description: 'With template_id: the version to use (default: the current one)',
      pattern: '^[1-9][0-9]*$',
    }),
  ),
};

export const RenderFormSchema = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'The .docx template (at most MAX_TEMPLATE_BYTES)' }),
    data: Type.Optional(
      Type.String({
        description:
          'Legacy mode: a JSON object of template variables, as text. No images. Give either `data` or `request_data`, not both ' +
          '(no example here on purpose: Swagger UI would send both fields and get a 400).',
      }),
    ),
    request_data: Type.Optional(
      Type.String({
        description:
          'Enhanced mode: the JSON text of an EnhancedRequest (`template_data`, optional `images` of ImageData, optional `options`). ' +
          'At most MAX_REQUEST_BYTES. Schema: #/components/schemas/EnhancedRequest.',
        example: JSON.stringify(ENHANCED_EXAMPLE),
      }),
    ),
    ...V16_FORM_PROPERTIES,
    ...LOCALE_FORM_PROPERTIES,
    ...TEMPLATE_ID_FORM_PROPERTIES,
  },
  { $id: 'RenderForm' },
);

/** The multipart form of POST /api/v1/lint-docx-template. */
export const LintFormSchema = Type.Object(
  {
    document: Type.String({ format: 'binary', description: 'The .docx template' }),
    options: Type.Optional(
      Type.String({
        description: 'JSON text of LintOptions (#/components/schemas/LintOptions).',
        example: '{"response_format": "json", "verbose": false}',
      }),
    ),
    ...TEMPLATE_ID_FORM_PROPERTIES,
  },
  { $id: 'LintForm' },
);

/** The multipart form of POST /api/v1/inspect-template. */
export const InspectFormSchema = Type.Object(
  {
    file: Type.String({ format: 'binary', description: 'The .docx template' }),
    ...TEMPLATE_ID_FORM_PROPERTIES,
  },
  { $id: 'InspectForm' },
);

/** The named request schemas, for the OpenAPI document's components. */
export const REQUEST_SCHEMAS = [
  ImageDataSchema,
  SubDocumentSchema,
  ImageOutputOptionsSchema,
  PdfOptionsSchema,
  PdfFilesSchema,
  RenderOptionsSchema,
  LinterOptionsSchema,
  LintOptionsSchema,
  EnhancedRequestSchema,
] as const;
