/**
 * `request_data.options.pdf`: how the PDF is written. Defined once here, as a schema: the type
 * (PdfOptions), the validation (pdfOptionProblems, for the API, the worker and the CLI) and the
 * OpenAPI schema all come from PdfOptionsSchema. The defaults and the mapping onto LibreOffice's
 * export filter and Gotenberg's form fields live in @app/converters. A new option is one more
 * property here (and its mapping there).
 */
import { type Static, Type } from '@sinclair/typebox';
import { checkPayload, type FieldProblem, fieldsOf, OneOf } from './payload/schema';

export const PDFA_LEVELS = ['PDF/A-1b', 'PDF/A-2b', 'PDF/A-3b'] as const;
export type PdfaLevel = (typeof PDFA_LEVELS)[number];

/** The resolutions LibreOffice's PDF export (and Gotenberg) offer, in DPI. */
export const MAX_IMAGE_RESOLUTIONS = [75, 150, 300, 600, 1200] as const;
export type MaxImageResolution = (typeof MAX_IMAGE_RESOLUTIONS)[number];

const MAX_METADATA_LENGTH = 2000;
const MAX_PAGE_RANGES_LENGTH = 200;
const MAX_PAGE = 100_000;
/** "1-3,5": numbers and ranges separated by commas (LibreOffice's and Gotenberg's syntax). */
const PAGE_RANGES = /^\s*\d+\s*(-\s*\d+\s*)?(,\s*\d+\s*(-\s*\d+\s*)?)*$/;

const metadataText = (description?: string) =>
  Type.Optional(
    Type.String({
      maxLength: MAX_METADATA_LENGTH,
      // No control characters: they would end up in the PDF's Info dictionary and XMP.
      pattern: '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$',
      problem: `must be a string of at most ${MAX_METADATA_LENGTH} characters, without control characters`,
      ...(description ? { description } : {}),
    }),
  );

export const PdfMetadataSchema = Type.Object(
  {
    title: metadataText(),
    author: metadataText(),
    subject: metadataText(),
    keywords: metadataText('Comma-separated.'),
    creator: metadataText(),
  },
  {
    additionalProperties: false,
    problem: 'must be an object',
    unknownProblem: 'is not a metadata field (title, author, subject, keywords, creator)',
  },
);
export type PdfMetadata = Static<typeof PdfMetadataSchema>;
export const PDF_METADATA_FIELDS = fieldsOf(PdfMetadataSchema) as Array<keyof PdfMetadata>;

const flag = (description: string, defaultValue?: boolean) =>
  Type.Optional(
    Type.Boolean({
      description,
      problem: 'must be true or false',
      ...(defaultValue === undefined ? {} : { default: defaultValue }),
    }),
  );

export const PdfOptionsSchema = Type.Object(
  {
    pdfa: Type.Optional(
      OneOf(PDFA_LEVELS, {
        description: 'Archival PDF/A.',
        problem: `must be one of ${PDFA_LEVELS.map((l) => `"${l}"`).join(', ')}`,
      }),
    ),
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
    reduce_image_resolution: flag('Downsample images to `max_image_resolution`.', false),
    max_image_resolution: Type.Optional(
      OneOf(MAX_IMAGE_RESOLUTIONS, {
        description: 'DPI; only with `reduce_image_resolution: true`.',
        problem: `must be one of ${MAX_IMAGE_RESOLUTIONS.join(', ')}`,
      }),
    ),
    metadata: Type.Optional(PdfMetadataSchema),
    page_ranges: Type.Optional(
      Type.String({
        example: '1-3,5',
        description: 'Pages to export.',
        problem: 'must be a string like "1-3,5"',
      }),
    ),
    // Default true: tables of contents, indexes and fields are refreshed before export.
    update_indexes: flag(
      'Refresh tables of contents, indexes and fields (PAGE, NUMPAGES, references) before export.',
      true,
    ),
  },
  {
    $id: 'PdfOptions',
    description:
      'How the PDF is written, on both converters (LibreOffice export filter, Gotenberg 8 form fields). ' +
      'An unknown field or a bad value: 400 invalid_request_structure naming it.',
    additionalProperties: false,
    problem: 'must be an object',
    unknownProblem: '', // completed below, once the fields are known
  },
);
export type PdfOptions = Static<typeof PdfOptionsSchema>;
export const PDF_OPTION_FIELDS = fieldsOf(PdfOptionsSchema) as Array<keyof PdfOptions>;
(PdfOptionsSchema as { unknownProblem?: string }).unknownProblem =
  `is not a PDF option (${PDF_OPTION_FIELDS.join(', ')})`;

function pageRangeProblem(text: string): string | undefined {
  if (text.length > MAX_PAGE_RANGES_LENGTH) return `must be at most ${MAX_PAGE_RANGES_LENGTH} characters`;
  if (!PAGE_RANGES.test(text)) return 'must list pages and ranges like "1-3,5"';
  for (const part of text.split(',')) {
    const [from, to = from] = part.split('-').map((n) => Number(n.trim()));
    if (from < 1 || to < 1 || from > MAX_PAGE || to > MAX_PAGE)
      return `pages are numbered from 1 to ${MAX_PAGE}`;
    if (from > to) return `the range ${part.trim()} runs backwards`;
  }
  return undefined;
}

/**
 * Every problem of `value` as `options.pdf` ([] when it is fine): the schema's, then what a
 * schema cannot say (an option that applies only with another, page ranges that make sense).
 */
export function pdfOptionProblems(value: unknown, path = 'options.pdf'): FieldProblem[] {
  const problems = checkPayload(PdfOptionsSchema, value, path);
  if (problems.length > 0) return problems;
  const v = value as PdfOptions;
  const bad = (key: string, problem: string) =>
    problems.push({ field: `${path}.${key}`, problems: [`${key} ${problem}`] });
  // Quality is the JPEG quality: with lossless images it would silently do nothing.
  if (v.quality !== undefined && v.lossless_images !== false)
    bad('quality', 'applies to JPEG-compressed images only: set lossless_images to false as well');
  if (v.max_image_resolution !== undefined && v.reduce_image_resolution !== true)
    bad('max_image_resolution', 'applies only with reduce_image_resolution set to true');
  if (v.page_ranges !== undefined) {
    const problem = pageRangeProblem(v.page_ranges);
    if (problem) bad('page_ranges', problem);
  }
  return problems;
}
