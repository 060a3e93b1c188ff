/**
 * The safety checks on an uploaded workbook or deck, as openDocxPackage does for Word: a zip of
 * sane size whose main part is the format's, holding at least one part to fill, without macros
 * unless the operator allows them, and whose XML is UTF-8, well formed and declares no DTD. Judged
 * by content, never by name. What differs between formats is data (PackageChecks), not code. It
 * sits with DocxPackage, the OOXML package every format is read through.
 */
import { CONTENT_TYPES_PART, ContentTypes } from '@app/ooxml';
import PizZip from 'pizzip';
import {
  declaresDtd,
  DEFAULT_TEMPLATE_LIMITS,
  DocxPackage,
  findXmlFault,
  type TemplateLimits,
} from './package';
import { InvalidTemplateError, PayloadTooLargeError } from '../errors';
import type { FormatParts, PackageFormat } from '../package/formats';

const XML_PART = /\.(xml|rels)$/i;

/** One format's words and rules for the checks. */
export interface PackageChecks {
  readonly format: PackageFormat;
  readonly parts: FormatParts;
  /** `.xlsx`, `.pptx`: how messages name the file. */
  readonly extension: string;
  /** The application that never writes a DTD: `Excel`, `PowerPoint`. */
  readonly application: string;
  /** What the XML budget counts, for the 413: `spreadsheet XML` and its detail key `sheet_xml_bytes`. */
  readonly xmlLabel: string;
  readonly xmlDetail: string;
  /** The 400 when the main part is not the format's. */
  readonly notMain: { readonly message: string; readonly reason: string };
  /** The parts there must be at least one of (worksheets, slides), and the 400 when there is none. */
  readonly contentTypes: ReadonlySet<string>;
  readonly empty: { readonly message: string; readonly reason: string };
  /** The 400 for a macro-enabled package the operator does not allow. */
  readonly macrosRefused: string;
}

export interface PackageOpenOptions {
  limits?: Partial<TemplateLimits>;
  /** ALLOW_MACRO_TEMPLATES: a macro-enabled package is filled (its macros are kept, never run). */
  allowMacros?: boolean;
  checked?: boolean;
  keepContent?: boolean;
}

export function openFormatPackage(
  template: Buffer,
  checks: PackageChecks,
  options: PackageOpenOptions = {},
): DocxPackage {
  const { format, extension } = checks;
  const { maxUncompressedBytes, maxWordXmlBytes } = { ...DEFAULT_TEMPLATE_LIMITS, ...options.limits };
  let pkg: DocxPackage;
  try {
    pkg = new DocxPackage(new PizZip(template), options.keepContent !== false);
  } catch (e) {
    throw new InvalidTemplateError(`The file is not a readable ${extension}: the zip package is damaged`, {
      reason: 'corrupt_zip',
      cause: (e as Error).message,
    });
  }
  const zip = pkg.zip;
  const sizes = pkg.declaredSizes();
  let total = 0;
  for (const [, size] of sizes) total += size;
  if (total > maxUncompressedBytes)
    throw new PayloadTooLargeError(
      `The template unpacks to ${total} bytes; the limit is ${maxUncompressedBytes} bytes`,
      { uncompressed_bytes: total, limit: maxUncompressedBytes },
    );
  if (!zip.file(CONTENT_TYPES_PART))
    throw new InvalidTemplateError(
      `The file is not ${extension === '.xlsx' ? 'an' : 'a'} ${extension}: it has no [Content_Types].xml`,
      { reason: 'not_ooxml' },
    );
  const contentTypes = new ContentTypes(pkg.readText(CONTENT_TYPES_PART));
  const isRead = (name: string) => checks.parts.isRead(contentTypes.typeOf(name));
  // The same budget as Word's XML, over the parts the fill parses (a shared-string table of
  // millions of entries is refused here, before it is read).
  let xmlBytes = 0;
  for (const [name, size] of sizes) if (isRead(name)) xmlBytes += size;
  if (xmlBytes > maxWordXmlBytes)
    throw new PayloadTooLargeError(
      `The template's ${checks.xmlLabel} is ${xmlBytes} bytes; the limit is ${maxWordXmlBytes} bytes`,
      { [checks.xmlDetail]: xmlBytes, limit: maxWordXmlBytes },
    );
  const xmlParts = Object.keys(zip.files).filter((name) => XML_PART.test(name) && !zip.files[name].dir);
  if (!options.checked)
    for (const name of xmlParts)
      if (declaresDtd(pkg.read(name)))
        throw new InvalidTemplateError(
          `The template's ${name} declares a DTD, which ${checks.application} never writes; it is refused`,
          { reason: 'dtd', part: name },
        );
  const mainType = contentTypes.overrideTypes().find((t) => Object.hasOwn(format.mainTypes, t));
  const kind = mainType ? format.mainTypes[mainType] : undefined;
  if (!kind)
    throw new InvalidTemplateError(checks.notMain.message, {
      reason: checks.notMain.reason,
      content_type: mainType ?? null,
    });
  // Nothing to fill or print (Calc fails on a workbook without sheets, Impress makes no page).
  const content = contentTypes.partsOfType(
    Object.keys(zip.files).filter((name) => !zip.files[name].dir),
    checks.contentTypes,
  );
  if (content.length === 0)
    throw new InvalidTemplateError(checks.empty.message, { reason: checks.empty.reason });
  const macros = format.macroVariants.includes(kind) || zip.file(/vbaProject\.bin$/i).length > 0;
  if (macros && !options.allowMacros)
    throw new InvalidTemplateError(checks.macrosRefused, { reason: 'macros' });
  if (!options.checked)
    for (const name of xmlParts) {
      const fault = isRead(name) ? findXmlFault(pkg.readText(name)) : null;
      if (fault)
        throw new InvalidTemplateError(
          `The ${extension} is damaged: ${name} is not well-formed XML (${fault})`,
          { reason: 'malformed_xml', part: name },
        );
    }
  // A template variant (.xltx, .potx, .ppsx) is filled as the plain format; an allowed macro
  // package stays one.
  if (!macros && mainType !== format.filledMainType)
    zip.file(CONTENT_TYPES_PART, pkg.readText(CONTENT_TYPES_PART).replace(mainType!, format.filledMainType));
  return pkg;
}
