/**
 * Which format a template is, told by its package's content types (the main part's type), never
 * by its file name; and the fill and the check for it. Word is the default: anything that is not
 * a workbook goes to the Word path, whose checks name what is wrong with it.
 */
import { CONTENT_TYPES_PART, ContentTypes } from '@app/ooxml';
import PizZip from 'pizzip';
import { DocxPackage, checkDocxTemplate, type TemplateLimits } from './docx/package';
import { formatOfMainType, SPREADSHEET } from './package/formats';
import { renderDocx, type RenderOptions, type RenderRequest } from './render';
import { renderXlsx, spreadsheetWarnings, type XlsxRenderOptions } from './xlsx/render-xlsx';
import { openSpreadsheetPackage } from './xlsx/xlsx-package';

export type TemplateFormat = 'docx' | 'xlsx';

/** [Content_Types].xml is a few KB; one declaring more is not read to tell the format. */
const MAX_CONTENT_TYPES_BYTES = 1024 * 1024;

export function templateFormatOf(template: Buffer): TemplateFormat {
  if (template.length < 4 || template.readUInt32LE(0) !== 0x04034b50) return 'docx';
  try {
    const pkg = new DocxPackage(new PizZip(template), false);
    const size = pkg.declaredSizes().find(([name]) => name === CONTENT_TYPES_PART)?.[1];
    if (size === undefined || size > MAX_CONTENT_TYPES_BYTES) return 'docx';
    const types = new ContentTypes(pkg.readText(CONTENT_TYPES_PART));
    for (const t of types.overrideTypes()) if (formatOfMainType(t) === SPREADSHEET) return 'xlsx';
  } catch {
    // A damaged package: the Word path reports it, typed.
  }
  return 'docx';
}

export type TemplateRenderOptions = RenderOptions &
  Pick<XlsxRenderOptions, 'maxCellsPerSheet' | 'allowMacros' | 'onWarning'>;

/** Fills a template of any format the engine knows; returns the filled package in its own format. */
export function renderTemplate(
  template: Buffer,
  request: RenderRequest,
  options: TemplateRenderOptions = {},
  format: TemplateFormat = templateFormatOf(template),
): Buffer {
  if (format === 'xlsx') return renderXlsx(template, request, options);
  return renderDocx(template, request, options);
}

/** The API's check before queueing, for any format the engine fills. */
export function checkTemplate(
  template: Buffer,
  limits: Partial<TemplateLimits> = {},
  options: { allowMacros?: boolean } = {},
): PizZip {
  if (templateFormatOf(template) === 'xlsx')
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
