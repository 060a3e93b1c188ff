/**
 * Which format a template is, told by its package's content types (the main part's type), never
 * by its file name; and the fill and the check for it. Word is the default: anything that is not
 * a workbook goes to the Word path, whose checks name what is wrong with it.
 */
import { CONTENT_TYPES_PART, ContentTypes } from '@app/ooxml';
import type PizZip from 'pizzip';
import { inflateRawSync } from 'node:zlib';
import { checkDocxTemplate, type TemplateLimits } from './docx/package';
import { formatOfMainType, PRESENTATION, SPREADSHEET } from './package/formats';
import { renderPptx, type PptxRenderOptions } from './pptx/render-pptx';
import { openPresentationPackage } from './pptx/pptx-package';
import { renderDocx, type RenderOptions, type RenderRequest } from './render';
import { renderXlsx, spreadsheetWarnings, type XlsxRenderOptions } from './xlsx/render-xlsx';
import { openSpreadsheetPackage } from './xlsx/xlsx-package';

export type TemplateFormat = 'docx' | 'xlsx' | 'pptx';

/** [Content_Types].xml is a few KB; one declaring more is not read to tell the format. */
const MAX_CONTENT_TYPES_BYTES = 1024 * 1024;

/**
 * The bytes of [Content_Types].xml, found through the zip's central directory and inflated
 * within its declared size; undefined when it cannot be read. Hand-written rather than pizzip:
 * pizzip reads every entry of the package into objects (2.7 ms for a 38 KB invoice, on every
 * request), and telling the format needs one entry.
 */
function contentTypesBytes(zip: Buffer): Buffer | undefined {
  // End of central directory: 22 bytes plus a comment of up to 65,535.
  const floor = Math.max(0, zip.length - 22 - 0xffff);
  let eocd = -1;
  for (let i = zip.length - 22; i >= floor; i--)
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd < 0) return undefined;
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let n = 0; n < count && at + 46 <= zip.length; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) return undefined;
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    if (zip.toString('latin1', at + 46, at + 46 + nameLength) === CONTENT_TYPES_PART) {
      if (size > MAX_CONTENT_TYPES_BYTES || local + 30 > zip.length) return undefined;
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + compressed);
      if (method === 0) return data;
      if (method !== 8) return undefined;
      return inflateRawSync(data, { maxOutputLength: Math.max(size, 1) });
    }
    at += 46 + skip;
  }
  return undefined;
}

export function templateFormatOf(template: Buffer): TemplateFormat {
  if (template.length < 4 || template.readUInt32LE(0) !== 0x04034b50) return 'docx';
  try {
    const bytes = contentTypesBytes(template);
    if (!bytes) return 'docx';
    const types = new ContentTypes(bytes.toString('utf8'));
    for (const t of types.overrideTypes()) {
      const format = formatOfMainType(t);
      if (format === SPREADSHEET) return 'xlsx';
      if (format === PRESENTATION) return 'pptx';
    }
  } catch {
    // A damaged package: the Word path reports it, typed.
  }
  return 'docx';
}

export type TemplateRenderOptions = RenderOptions &
  Pick<XlsxRenderOptions, 'maxCellsPerSheet' | 'allowMacros' | 'onWarning'> &
  Pick<PptxRenderOptions, 'maxSlidesPerDeck'>;

/** Fills a template of any format the engine knows; returns the filled package in its own format. */
export function renderTemplate(
  template: Buffer,
  request: RenderRequest,
  options: TemplateRenderOptions = {},
  format: TemplateFormat = templateFormatOf(template),
): Buffer {
  if (format === 'xlsx') return renderXlsx(template, request, options);
  if (format === 'pptx') return renderPptx(template, request, options);
  return renderDocx(template, request, options);
}

/** The API's check before queueing, for any format the engine fills. */
export function checkTemplate(
  template: Buffer,
  limits: Partial<TemplateLimits> = {},
  options: { allowMacros?: boolean } = {},
): PizZip {
  const format = templateFormatOf(template);
  if (format === 'pptx')
    return openPresentationPackage(template, {
      limits,
      keepContent: false,
      allowMacros: options.allowMacros === true,
    }).zip;
  if (format === 'xlsx')
    return openSpreadsheetPackage(template, {
      limits,
      keepContent: false,
      allowMacros: options.allowMacros === true,
    }).zip;
  return checkDocxTemplate(template, limits);
}

/**
 * What the fill will drop from the template and the answer names in its Warning header (a
 * workbook's external links and data connections: never fetched); [] when nothing.
 */
export function templateWarnings(template: Buffer): string[] {
  return templateFormatOf(template) === 'xlsx' ? spreadsheetWarnings(template) : [];
}

/** The Warning header's value for `warnings` (RFC 7234's 299, a persistent warning), or undefined. */
export function warningHeader(warnings: readonly string[]): string | undefined {
  if (!warnings.length) return undefined;
  return warnings.map((w) => `299 - "${w.replace(/["\\]/g, '')}"`).join(', ');
}
