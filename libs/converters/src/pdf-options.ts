/**
 * `options.pdf` (see PdfOptions in @app/contracts): one validator for the API, the worker and the
 * CLI, the defaults, and what the options become for each converter: LibreOffice's PDF export
 * filter data (writer_pdf_Export) and Gotenberg 8's form fields on its LibreOffice route.
 *
 * Checked by hand over Object.keys of the parsed JSON, like the API's DTO does for `options`:
 * class-validator would need a class instance, and an own `__proto__` key must be seen and refused.
 */
import {
  MAX_IMAGE_RESOLUTIONS,
  PDF_METADATA_FIELDS,
  PDF_OPTION_FIELDS,
  PDFA_LEVELS,
  type PdfMetadata,
  type PdfOptions,
} from '@app/contracts';

import { InvalidPdfOptionsError } from './errors';

export interface FieldProblem {
  field: string;
  problems: string[];
}

const MAX_METADATA_LENGTH = 2000;
const MAX_PAGE_RANGES_LENGTH = 200;
const MAX_PAGE = 100_000;
/** "1-3,5": numbers and ranges separated by commas (LibreOffice's and Gotenberg's syntax). */
const PAGE_RANGES = /^\s*\d+\s*(-\s*\d+\s*)?(,\s*\d+\s*(-\s*\d+\s*)?)*$/;
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function has(o: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

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

function metadataProblems(value: unknown, path: string): FieldProblem[] {
  if (!isPlainObject(value)) return [{ field: path, problems: ['must be an object'] }];
  const out: FieldProblem[] = [];
  for (const key of Object.keys(value)) {
    const field = `${path}.${key}`;
    const v = value[key];
    if (!(PDF_METADATA_FIELDS as readonly string[]).includes(key))
      out.push({ field, problems: [`is not a metadata field (${PDF_METADATA_FIELDS.join(', ')})`] });
    else if (typeof v !== 'string') out.push({ field, problems: ['must be a string'] });
    else if (v.length > MAX_METADATA_LENGTH)
      out.push({ field, problems: [`must be at most ${MAX_METADATA_LENGTH} characters`] });
    else if (CONTROL_CHARS.test(v)) out.push({ field, problems: ['must not contain control characters'] });
  }
  return out;
}

/** Every problem of `value` as `options.pdf`, [] when it is fine. */
export function pdfOptionProblems(value: unknown, path = 'options.pdf'): FieldProblem[] {
  if (!isPlainObject(value)) return [{ field: path, problems: ['must be an object'] }];
  const out: FieldProblem[] = [];
  const bad = (key: string, problem: string) => out.push({ field: `${path}.${key}`, problems: [problem] });
  for (const key of Object.keys(value)) {
    if (!(PDF_OPTION_FIELDS as readonly string[]).includes(key))
      bad(key, `is not a PDF option (${PDF_OPTION_FIELDS.join(', ')})`);
  }
  const v = value;
  if (has(v, 'pdfa') && !(PDFA_LEVELS as readonly unknown[]).includes(v.pdfa))
    bad('pdfa', `must be one of ${PDFA_LEVELS.map((l) => `"${l}"`).join(', ')}`);
  for (const key of ['pdfua', 'lossless_images', 'reduce_image_resolution', 'update_indexes']) {
    if (has(v, key) && typeof v[key] !== 'boolean') bad(key, 'must be true or false');
  }
  if (has(v, 'quality')) {
    if (typeof v.quality !== 'number' || !Number.isInteger(v.quality) || v.quality < 1 || v.quality > 100)
      bad('quality', 'must be an integer from 1 to 100');
    // Quality is the JPEG quality: with lossless images it would silently do nothing.
    else if (v.lossless_images !== false)
      bad('quality', 'applies to JPEG-compressed images only: set lossless_images to false as well');
  }
  if (has(v, 'max_image_resolution')) {
    if (!(MAX_IMAGE_RESOLUTIONS as readonly unknown[]).includes(v.max_image_resolution))
      bad('max_image_resolution', `must be one of ${MAX_IMAGE_RESOLUTIONS.join(', ')}`);
    else if (v.reduce_image_resolution !== true)
      bad('max_image_resolution', 'applies only with reduce_image_resolution set to true');
  }
  if (has(v, 'page_ranges')) {
    const problem =
      typeof v.page_ranges === 'string' ? pageRangeProblem(v.page_ranges) : 'must be a string like "1-3,5"';
    if (problem) bad('page_ranges', problem);
  }
  if (has(v, 'metadata')) out.push(...metadataProblems(v.metadata, `${path}.metadata`));
  return out;
}

/**
 * `value` as PdfOptions (a fresh object holding only the known fields), or InvalidPdfOptionsError
 * (400 invalid_request_structure) naming the first bad field. `undefined` and `null` mean "none".
 */
export function parsePdfOptions(value: unknown, path = 'options.pdf'): PdfOptions {
  if (value === undefined || value === null) return {};
  const problems = pdfOptionProblems(value, path);
  if (problems.length > 0) {
    const first = problems[0];
    throw new InvalidPdfOptionsError(`Invalid ${first.field}: ${first.problems.join(', ')}`, {
      field: first.field,
      errors: problems,
    });
  }
  const v = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of PDF_OPTION_FIELDS) {
    if (has(v, key)) out[key] = key === 'metadata' ? copyMetadata(v.metadata as PdfMetadata) : v[key];
  }
  return out as PdfOptions;
}

function copyMetadata(m: PdfMetadata): PdfMetadata {
  const out: PdfMetadata = {};
  for (const key of PDF_METADATA_FIELDS) if (has(m, key)) out[key] = m[key];
  return out;
}

/** Our defaults differ from LibreOffice's and Gotenberg's: lossless images, refreshed indexes. */
export const PDF_OPTION_DEFAULTS = { lossless_images: true, update_indexes: true } as const;

export type ResolvedPdfOptions = PdfOptions & { lossless_images: boolean; update_indexes: boolean };

export function withPdfDefaults(options: PdfOptions = {}): ResolvedPdfOptions {
  return {
    ...options,
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
}

const SELECT_PDF_VERSION: Record<string, number> = { 'PDF/A-1b': 1, 'PDF/A-2b': 2, 'PDF/A-3b': 3 };

export function libreOfficeExport(options: PdfOptions = {}): LibreOfficeExport {
  const o = withPdfDefaults(options);
  const filterData: LibreOfficeExport['filterData'] = { UseLosslessCompression: o.lossless_images };
  if (o.pdfa) filterData.SelectPdfVersion = SELECT_PDF_VERSION[o.pdfa];
  if (o.pdfua !== undefined) filterData.PDFUACompliance = o.pdfua;
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
