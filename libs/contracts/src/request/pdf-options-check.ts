/**
 * `options.pdf` (PdfOptionsSchema): the one validator for the request parser (API and CLI) and
 * the worker. The validation is PdfOptionsSchema's (types, limits, patterns, unknown keys, an own
 * `__proto__` included). Beside it stay the checks JSON Schema cannot say: the service's
 * MAX_PDF_EXTRA_BYTES, decoded sizes and PDF headers, UTF-8 byte lengths of passwords, page
 * numbers and ranges, and options that depend on each other (quality and lossless_images, PDF/A
 * and Factur-X, names used twice). Moved here from @app/converters, which re-exports it.
 */
import { isBase64, isPlainObject, type FieldProblem, schemaProblems } from '../payload/schema';
import {
  MAX_PASSWORD_BYTES,
  PDF_METADATA_FIELDS,
  PDF_OPTION_FIELDS,
  type PdfMetadata,
  type PdfOptions,
  PdfOptionsSchema,
} from '../pdf-options';
import { InvalidPdfOptionsError } from '../request-errors';

const MAX_PAGE = 100_000;

function has(o: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** Limits of options.pdf's files; the service sets them from its configuration. */
export interface PdfOptionLimits {
  /** Largest decoded prepend/append PDF, attachment or Factur-X XML (MAX_PDF_EXTRA_BYTES). */
  maxExtraBytes?: number;
}

export const DEFAULT_MAX_PDF_EXTRA_BYTES = 10 * 1024 * 1024;

/** Decoded size of strict base64 (no whitespace, padded), or undefined when it is not base64. */
export function base64Size(text: string): number | undefined {
  if (text.length === 0 || !isBase64(text)) return undefined;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - pad;
}

/** Pages within 1..MAX_PAGE and ranges running forwards (the schema checked the syntax). */
function pageRangeProblem(text: string): string | undefined {
  for (const part of text.split(',')) {
    const [from, to = from] = part.split('-').map((n) => Number(n.trim()));
    if (from < 1 || to < 1 || from > MAX_PAGE || to > MAX_PAGE)
      return `pages are numbered from 1 to ${MAX_PAGE}`;
    if (from > to) return `the range ${part.trim()} runs backwards`;
  }
  return undefined;
}

/** A base64 file the schema accepted: its decoded size, and for a PDF its header. */
function fileProblem(v: unknown, maxBytes: number, pdf = false): string | undefined {
  if (typeof v !== 'string') return undefined;
  const size = base64Size(v);
  if (size === undefined) return undefined;
  if (size > maxBytes) return `is ${size} bytes decoded, over the limit of ${maxBytes} (MAX_PDF_EXTRA_BYTES)`;
  // PDF readers accept the header within the first 1024 bytes.
  if (pdf && Buffer.from(v.slice(0, 1400), 'base64').subarray(0, 1024).indexOf('%PDF-') < 0)
    return 'is not a PDF (no %PDF- header)';
  return undefined;
}

/** A base64 PNG the schema accepted: its decoded size and its signature bytes. */
function pngProblem(v: unknown, maxBytes: number): string | undefined {
  const problem = fileProblem(v, maxBytes);
  if (problem || typeof v !== 'string' || base64Size(v) === undefined) return problem;
  if (!Buffer.from(v.slice(0, 12), 'base64').subarray(0, 8).equals(PNG_SIGNATURE)) return 'is not a PNG';
  return undefined;
}
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Items of a list that are objects, with their index. */
function objectsOf(list: unknown): Array<[Record<string, unknown>, number]> {
  return Array.isArray(list)
    ? list.flatMap((item, i): Array<[Record<string, unknown>, number]> =>
        isPlainObject(item) ? [[item, i]] : [],
      )
    : [];
}

/** What the schema cannot say of single fields: bytes, sizes, headers, page numbers. */
function valueProblems(v: Record<string, unknown>, maxBytes: number): Array<[string, string | undefined]> {
  const out: Array<[string, string | undefined]> = [];
  if (has(v, 'quality') && v.lossless_images !== false)
    // Quality is the JPEG quality: with lossless images it would silently do nothing.
    out.push(['quality', 'applies to JPEG-compressed images only: set lossless_images to false as well']);
  if (has(v, 'max_image_resolution') && v.reduce_image_resolution !== true)
    out.push(['max_image_resolution', 'applies only with reduce_image_resolution set to true']);
  if (typeof v.page_ranges === 'string') out.push(['page_ranges', pageRangeProblem(v.page_ranges)]);
  if (isPlainObject(v.encryption))
    for (const key of ['owner_password', 'user_password']) {
      const password = v.encryption[key];
      // Said without the value: passwords never reach an error body or a log line.
      if (typeof password === 'string' && Buffer.byteLength(password) > MAX_PASSWORD_BYTES)
        out.push([`encryption.${key}`, `must be at most ${MAX_PASSWORD_BYTES} bytes in UTF-8`]);
    }
  for (const key of ['prepend', 'append'])
    for (const [item, i] of objectsOf(v[key]))
      out.push([`${key}[${i}].data`, fileProblem(item.data, maxBytes, true)]);
  for (const [item, i] of objectsOf(v.attachments))
    out.push([`attachments[${i}].data`, fileProblem(item.data, maxBytes)]);
  if (isPlainObject(v.facturx)) out.push(['facturx.xml', fileProblem(v.facturx.xml, maxBytes)]);
  if (isPlainObject(v.signature) && isPlainObject(v.signature.appearance))
    out.push(['signature.appearance.image', pngProblem(v.signature.appearance.image, maxBytes)]);
  return out;
}

/** What PDF/A forbids and names used twice, said before any work is done. */
function conformanceProblems(v: Record<string, unknown>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const pdfa = v.pdfa;
  if (has(v, 'facturx') && pdfa !== undefined && pdfa !== 'PDF/A-3b')
    out.push(['facturx', 'is PDF/A-3b: leave pdfa out or set it to "PDF/A-3b"']);
  if (has(v, 'attachments') && (pdfa === 'PDF/A-1b' || pdfa === 'PDF/A-2b'))
    out.push(['attachments', `${pdfa} forbids embedded files: use "PDF/A-3b" or no pdfa`]);
  if (has(v, 'encryption') && (pdfa !== undefined || has(v, 'facturx')))
    out.push(['encryption', 'PDF/A (and so Factur-X) forbids encryption']);
  const sig = v.signature;
  if (isPlainObject(sig) && has(sig, 'appearance') && !has(sig, 'field'))
    out.push([
      'signature.appearance',
      'needs signature.field: an appearance is drawn in a signature field of the template',
    ]);
  if (isPlainObject(sig) && has(v, 'encryption'))
    // Encrypting after signing rewrites the signed bytes; signing after encrypting is not what
    // our signer does correctly (docs/pdf.md): the combination is refused rather than half-done.
    out.push(['signature', 'cannot be combined with options.pdf.encryption: sign or encrypt, not both']);
  const w = v.watermark;
  if (pdfa === 'PDF/A-1b' && isPlainObject(w) && w.opacity !== undefined && w.opacity !== 1)
    out.push(['watermark.opacity', 'PDF/A-1b forbids transparency: use 1 or PDF/A-2b']);
  const seen = new Set<string>();
  for (const [a, i] of objectsOf(v.attachments)) {
    if (typeof a.name !== 'string') continue;
    if (has(v, 'facturx') && a.name.toLowerCase() === 'factur-x.xml')
      out.push([`attachments[${i}].name`, 'factur-x.xml is the Factur-X invoice itself']);
    else if (seen.has(a.name)) out.push([`attachments[${i}].name`, 'is used twice']);
    seen.add(a.name);
  }
  return out;
}

/** Every problem of `value` as `options.pdf`, [] when it is fine: one per field. */
export function pdfOptionProblems(
  value: unknown,
  path = 'options.pdf',
  limits: PdfOptionLimits = {},
): FieldProblem[] {
  const maxBytes = limits.maxExtraBytes ?? DEFAULT_MAX_PDF_EXTRA_BYTES;
  const out = schemaProblems(PdfOptionsSchema, value, path);
  if (!isPlainObject(value)) return out;
  const named = new Set(out.map((p) => p.field));
  for (const [key, problem] of valueProblems(value, maxBytes)) {
    const field = `${path}.${key}`;
    if (problem && !named.has(field)) out.push({ field, problems: [problem] });
  }
  if (out.length === 0)
    for (const [key, problem] of conformanceProblems(value))
      out.push({ field: `${path}.${key}`, problems: [problem] });
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
