/**
 * `options.pdf` (see PdfOptions in @app/contracts): one validator for the API, the worker and the
 * CLI, the defaults, and what the options become for each converter: LibreOffice's PDF export
 * filter data (writer_pdf_Export) and Gotenberg 8's form fields on its LibreOffice route.
 *
 * Checked by hand over Object.keys of the parsed JSON, like the API's DTO does for `options`:
 * class-validator would need a class instance, and an own `__proto__` key must be seen and refused.
 */
import {
  ATTACHMENT_RELATIONSHIPS,
  FACTURX_PROFILES,
  MAX_IMAGE_RESOLUTIONS,
  PDF_ATTACHMENT_FIELDS,
  PDF_ENCRYPTION_FIELDS,
  PDF_METADATA_FIELDS,
  PDF_OPTION_FIELDS,
  PDF_PERMISSION_FIELDS,
  PDF_PRINT_LEVELS,
  PDF_WATERMARK_FIELDS,
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

/** Limits of options.pdf's files; the service sets them from its configuration. */
export interface PdfOptionLimits {
  /** Largest decoded prepend/append PDF, attachment or Factur-X XML (MAX_PDF_EXTRA_BYTES). */
  maxExtraBytes?: number;
}

export const DEFAULT_MAX_PDF_EXTRA_BYTES = 10 * 1024 * 1024;
/** Files per list (prepend, append, attachments): each is read by a tool with its own limits. */
export const MAX_PDF_EXTRA_FILES = 20;
export const MAX_WATERMARK_TEXT = 200;
/** The PDF 2.0 limit for AES-256 passwords (UTF-8 bytes). */
export const MAX_PASSWORD_BYTES = 127;
const MAX_ATTACHMENT_NAME = 255;
const MAX_DESCRIPTION = 1000;
const MIME_TYPE = /^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]{0,126}\/[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]{0,126}$/;
const COLOR = /^#[0-9a-fA-F]{6}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decoded size of strict base64 (no whitespace, padded), or undefined when it is not base64. */
export function base64Size(text: string): number | undefined {
  if (text.length === 0 || text.length % 4 !== 0 || !BASE64.test(text)) return undefined;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - pad;
}

/** A file field: strict base64, not empty, not over the limit. `check` sees its first bytes. */
function fileProblem(
  v: unknown,
  maxBytes: number,
  check?: (head: Buffer) => string | undefined,
): string | undefined {
  if (typeof v !== 'string') return 'must be a base64 string';
  if (v.length === 0) return 'must not be empty';
  const size = base64Size(v);
  if (size === undefined) return 'is not valid base64 (padded, without line breaks)';
  if (size === 0) return 'must not be empty';
  if (size > maxBytes) return `is ${size} bytes decoded, over the limit of ${maxBytes} (MAX_PDF_EXTRA_BYTES)`;
  return check?.(Buffer.from(v.slice(0, 1400), 'base64'));
}

/** PDF readers accept the header within the first 1024 bytes. */
function pdfHeadProblem(head: Buffer): string | undefined {
  const at = head.subarray(0, 1024).indexOf('%PDF-');
  return at < 0 ? 'is not a PDF (no %PDF- header)' : undefined;
}

function textProblem(v: unknown, max: number, required = true): string | undefined {
  if (typeof v !== 'string') return 'must be a string';
  if (required && v.trim().length === 0) return 'must not be empty';
  if (v.length > max) return `must be at most ${max} characters`;
  if (CONTROL_CHARS.test(v)) return 'must not contain control characters';
  return undefined;
}

function unknownKeys(
  o: Record<string, unknown>,
  known: readonly string[],
  path: string,
  what: string,
  out: FieldProblem[],
): void {
  for (const key of Object.keys(o))
    if (!known.includes(key))
      out.push({ field: `${path}.${key}`, problems: [`is not ${what} (${known.join(', ')})`] });
}

function numberProblem(v: unknown, min: number, max: number): string | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
    return `must be a number from ${min} to ${max}`;
  return undefined;
}

function passwordProblem(v: unknown): string | undefined {
  if (typeof v !== 'string') return 'must be a string';
  if (v.length === 0) return 'must not be empty';
  // Said without the value: passwords never reach an error body or a log line.
  if (Buffer.byteLength(v) > MAX_PASSWORD_BYTES)
    return `must be at most ${MAX_PASSWORD_BYTES} bytes in UTF-8`;
  if (CONTROL_CHARS.test(v)) return 'must not contain control characters';
  return undefined;
}

function encryptionProblems(value: unknown, path: string): FieldProblem[] {
  if (!isPlainObject(value)) return [{ field: path, problems: ['must be an object'] }];
  const out: FieldProblem[] = [];
  const bad = (key: string, problem: string | undefined) => {
    if (problem) out.push({ field: `${path}.${key}`, problems: [problem] });
  };
  unknownKeys(value, PDF_ENCRYPTION_FIELDS, path, 'an encryption field', out);
  if (!has(value, 'owner_password')) bad('owner_password', 'is required');
  else bad('owner_password', passwordProblem(value.owner_password));
  if (has(value, 'user_password')) bad('user_password', passwordProblem(value.user_password));
  if (has(value, 'permissions')) {
    const p = value.permissions;
    const ppath = `${path}.permissions`;
    if (!isPlainObject(p)) out.push({ field: ppath, problems: ['must be an object'] });
    else {
      unknownKeys(p, PDF_PERMISSION_FIELDS, ppath, 'a permission', out);
      if (has(p, 'print') && !(PDF_PRINT_LEVELS as readonly unknown[]).includes(p.print))
        bad('permissions.print', `must be one of ${PDF_PRINT_LEVELS.map((l) => `"${l}"`).join(', ')}`);
      for (const key of PDF_PERMISSION_FIELDS.filter((k) => k !== 'print'))
        if (has(p, key) && typeof p[key] !== 'boolean') bad(`permissions.${key}`, 'must be true or false');
    }
  }
  return out;
}

function watermarkProblems(value: unknown, path: string): FieldProblem[] {
  if (!isPlainObject(value)) return [{ field: path, problems: ['must be an object'] }];
  const out: FieldProblem[] = [];
  const bad = (key: string, problem: string | undefined) => {
    if (problem) out.push({ field: `${path}.${key}`, problems: [problem] });
  };
  unknownKeys(value, PDF_WATERMARK_FIELDS, path, 'a watermark field', out);
  if (!has(value, 'text')) bad('text', 'is required');
  else bad('text', textProblem(value.text, MAX_WATERMARK_TEXT));
  if (has(value, 'color') && (typeof value.color !== 'string' || !COLOR.test(value.color)))
    bad('color', 'must be a colour like "#C00000"');
  if (has(value, 'opacity')) bad('opacity', numberProblem(value.opacity, 0, 1));
  if (has(value, 'angle')) bad('angle', numberProblem(value.angle, -360, 360));
  if (has(value, 'font_size')) bad('font_size', numberProblem(value.font_size, 1, 500));
  return out;
}

function listProblems(
  value: unknown,
  path: string,
  item: (v: Record<string, unknown>, itemPath: string) => FieldProblem[],
): FieldProblem[] {
  if (!Array.isArray(value)) return [{ field: path, problems: ['must be an array'] }];
  if (value.length > MAX_PDF_EXTRA_FILES)
    return [{ field: path, problems: [`must hold at most ${MAX_PDF_EXTRA_FILES} files`] }];
  const out: FieldProblem[] = [];
  value.forEach((v, i) => {
    const itemPath = `${path}[${i}]`;
    if (!isPlainObject(v)) out.push({ field: itemPath, problems: ['must be an object'] });
    else out.push(...item(v, itemPath));
  });
  return out;
}

function extraPdfProblems(maxBytes: number) {
  return (v: Record<string, unknown>, path: string): FieldProblem[] => {
    const out: FieldProblem[] = [];
    unknownKeys(v, ['data'], path, 'a field of a PDF to add', out);
    const problem = has(v, 'data') ? fileProblem(v.data, maxBytes, pdfHeadProblem) : 'is required';
    if (problem) out.push({ field: `${path}.data`, problems: [problem] });
    return out;
  };
}

function attachmentProblems(maxBytes: number) {
  return (v: Record<string, unknown>, path: string): FieldProblem[] => {
    const out: FieldProblem[] = [];
    const bad = (key: string, problem: string | undefined) => {
      if (problem) out.push({ field: `${path}.${key}`, problems: [problem] });
    };
    unknownKeys(v, PDF_ATTACHMENT_FIELDS, path, 'an attachment field', out);
    if (!has(v, 'name')) bad('name', 'is required');
    else {
      const problem = textProblem(v.name, MAX_ATTACHMENT_NAME);
      bad(
        'name',
        problem ?? (/[/\\]/.test(v.name as string) ? 'must be a file name, without / or \\' : undefined),
      );
    }
    bad('data', has(v, 'data') ? fileProblem(v.data, maxBytes) : 'is required');
    if (!has(v, 'mime_type')) bad('mime_type', 'is required');
    else if (typeof v.mime_type !== 'string' || !MIME_TYPE.test(v.mime_type))
      bad('mime_type', 'must be a media type like "application/json"');
    if (has(v, 'description')) bad('description', textProblem(v.description, MAX_DESCRIPTION, false));
    if (has(v, 'relationship') && !(ATTACHMENT_RELATIONSHIPS as readonly unknown[]).includes(v.relationship))
      bad('relationship', `must be one of ${ATTACHMENT_RELATIONSHIPS.map((r) => `"${r}"`).join(', ')}`);
    return out;
  };
}

function facturxProblems(value: unknown, path: string, maxBytes: number): FieldProblem[] {
  if (!isPlainObject(value)) return [{ field: path, problems: ['must be an object'] }];
  const out: FieldProblem[] = [];
  unknownKeys(value, ['xml', 'profile'], path, 'a Factur-X field', out);
  const xml = has(value, 'xml') ? fileProblem(value.xml, maxBytes) : 'is required';
  if (xml) out.push({ field: `${path}.xml`, problems: [xml] });
  if (!(FACTURX_PROFILES as readonly unknown[]).includes(value.profile))
    out.push({
      field: `${path}.profile`,
      problems: [`must be one of ${FACTURX_PROFILES.map((p) => `"${p}"`).join(', ')}`],
    });
  return out;
}

/** What PDF/A forbids, said before any work is done. */
function conformanceProblems(v: Record<string, unknown>, path: string): FieldProblem[] {
  const out: FieldProblem[] = [];
  const pdfa = v.pdfa;
  if (has(v, 'facturx') && pdfa !== undefined && pdfa !== 'PDF/A-3b')
    out.push({ field: `${path}.facturx`, problems: ['is PDF/A-3b: leave pdfa out or set it to "PDF/A-3b"'] });
  if (has(v, 'attachments') && (pdfa === 'PDF/A-1b' || pdfa === 'PDF/A-2b'))
    out.push({
      field: `${path}.attachments`,
      problems: [`${pdfa} forbids embedded files: use "PDF/A-3b" or no pdfa`],
    });
  if (has(v, 'encryption') && (pdfa !== undefined || has(v, 'facturx')))
    out.push({ field: `${path}.encryption`, problems: ['PDF/A (and so Factur-X) forbids encryption'] });
  const w = v.watermark;
  if (pdfa === 'PDF/A-1b' && isPlainObject(w) && w.opacity !== undefined && w.opacity !== 1)
    out.push({
      field: `${path}.watermark.opacity`,
      problems: ['PDF/A-1b forbids transparency: use 1 or PDF/A-2b'],
    });
  if (has(v, 'facturx') && Array.isArray(v.attachments)) {
    v.attachments.forEach((a, i) => {
      if (isPlainObject(a) && typeof a.name === 'string' && a.name.toLowerCase() === 'factur-x.xml')
        out.push({
          field: `${path}.attachments[${i}].name`,
          problems: ['factur-x.xml is the Factur-X invoice itself'],
        });
    });
  }
  if (Array.isArray(v.attachments)) {
    const seen = new Set<string>();
    v.attachments.forEach((a, i) => {
      if (!isPlainObject(a) || typeof a.name !== 'string') return;
      if (seen.has(a.name))
        out.push({ field: `${path}.attachments[${i}].name`, problems: ['is used twice'] });
      seen.add(a.name);
    });
  }
  return out;
}

/** Every problem of `value` as `options.pdf`, [] when it is fine. */
export function pdfOptionProblems(
  value: unknown,
  path = 'options.pdf',
  limits: PdfOptionLimits = {},
): FieldProblem[] {
  const maxBytes = limits.maxExtraBytes ?? DEFAULT_MAX_PDF_EXTRA_BYTES;
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
  if (has(v, 'encryption')) out.push(...encryptionProblems(v.encryption, `${path}.encryption`));
  if (has(v, 'watermark')) out.push(...watermarkProblems(v.watermark, `${path}.watermark`));
  for (const key of ['prepend', 'append'])
    if (has(v, key)) out.push(...listProblems(v[key], `${path}.${key}`, extraPdfProblems(maxBytes)));
  if (has(v, 'attachments'))
    out.push(...listProblems(v.attachments, `${path}.attachments`, attachmentProblems(maxBytes)));
  if (has(v, 'facturx')) out.push(...facturxProblems(v.facturx, `${path}.facturx`, maxBytes));
  if (out.length === 0) out.push(...conformanceProblems(v, path));
  return out;
}

/**
 * `value` as PdfOptions (a fresh object holding only the known fields), or InvalidPdfOptionsError
 * (400 invalid_request_structure) naming the first bad field. `undefined` and `null` mean "none".
 */
export function parsePdfOptions(
  value: unknown,
  path = 'options.pdf',
  limits: PdfOptionLimits = {},
): PdfOptions {
  if (value === undefined || value === null) return {};
  const problems = pdfOptionProblems(value, path, limits);
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
    // Validated JSON data: a deep copy keeps only own, plain values (no shared references).
    if (has(v, key))
      out[key] = key === 'metadata' ? copyMetadata(v.metadata as PdfMetadata) : structuredClone(v[key]);
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
