/**
 * The safety checks on an uploaded spreadsheet package, as openDocxPackage does for Word: a zip
 * of sane size, whose main part is a workbook, without macros unless the operator allows them,
 * and whose XML is UTF-8, well formed and declares no DTD. Judged by content, never by name.
 */
import { CONTENT_TYPES_PART, ContentTypes } from '@app/ooxml';
import PizZip from 'pizzip';
import {
  declaresDtd,
  DEFAULT_TEMPLATE_LIMITS,
  DocxPackage,
  findXmlFault,
  type TemplateLimits,
} from '../docx/package';
import { InvalidTemplateError, PayloadTooLargeError } from '../errors';
import { SPREADSHEET, SPREADSHEET_PARTS } from '../package/formats';

const XML_PART = /\.(xml|rels)$/i;

export interface SpreadsheetOpenOptions {
  limits?: Partial<TemplateLimits>;
  /** ALLOW_MACRO_TEMPLATES: a .xlsm is filled (its macros are kept, never run); else refused. */
  allowMacros?: boolean;
  checked?: boolean;
  keepContent?: boolean;
}

/** A worksheet's content type (a chartsheet or dialog sheet alone is no table to fill). */
const WORKSHEET_TYPES: ReadonlySet<string> = new Set([
  'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml',
]);

export function openSpreadsheetPackage(template: Buffer, options: SpreadsheetOpenOptions = {}): DocxPackage {
  const { maxUncompressedBytes, maxWordXmlBytes } = { ...DEFAULT_TEMPLATE_LIMITS, ...options.limits };
  let pkg: DocxPackage;
  try {
    pkg = new DocxPackage(new PizZip(template), options.keepContent !== false);
  } catch (e) {
    throw new InvalidTemplateError('The file is not a readable .xlsx: the zip package is damaged', {
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
    throw new InvalidTemplateError('The file is not an .xlsx: it has no [Content_Types].xml', {
      reason: 'not_ooxml',
    });
  const contentTypes = new ContentTypes(pkg.readText(CONTENT_TYPES_PART));
  const isRead = (name: string) => SPREADSHEET_PARTS.isRead(contentTypes.typeOf(name));
  // The same budget as Word's XML: the sheets and shared strings are what the fill parses (a
  // shared-string table of millions of entries is refused here, before it is read).
  let xmlBytes = 0;
  for (const [name, size] of sizes) if (isRead(name)) xmlBytes += size;
  if (xmlBytes > maxWordXmlBytes)
    throw new PayloadTooLargeError(
      `The template's spreadsheet XML is ${xmlBytes} bytes; the limit is ${maxWordXmlBytes} bytes`,
      { sheet_xml_bytes: xmlBytes, limit: maxWordXmlBytes },
    );
  const xmlParts = Object.keys(zip.files).filter((name) => XML_PART.test(name) && !zip.files[name].dir);
  if (!options.checked)
    for (const name of xmlParts)
      if (declaresDtd(pkg.read(name)))
        throw new InvalidTemplateError(
          `The template's ${name} declares a DTD, which Excel never writes; it is refused`,
          {
            reason: 'dtd',
            part: name,
          },
        );
  const mainType = contentTypes.overrideTypes().find((t) => Object.hasOwn(SPREADSHEET.mainTypes, t));
  const kind = mainType ? SPREADSHEET.mainTypes[mainType] : undefined;
  if (!kind)
    throw new InvalidTemplateError('The file is not a spreadsheet (.xlsx): its main part is not a workbook', {
      reason: 'not_spreadsheet',
      content_type: mainType ?? null,
    });
  // A workbook part with no sheet in the package has nothing to fill or print: Calc fails on it.
  const sheets = contentTypes.partsOfType(
    Object.keys(zip.files).filter((name) => !zip.files[name].dir),
    WORKSHEET_TYPES,
  );
  if (sheets.length === 0)
    throw new InvalidTemplateError('The workbook has no worksheet: there is nothing to fill or print', {
      reason: 'no_worksheet',
    });
  const macros = SPREADSHEET.macroVariants.includes(kind) || zip.file(/vbaProject\.bin$/i).length > 0;
  if (macros && !options.allowMacros)
    throw new InvalidTemplateError(
      'Macro-enabled workbooks (.xlsm) are not accepted here; save the template as .xlsx',
      { reason: 'macros' },
    );
  if (!options.checked)
    for (const name of xmlParts) {
      const fault = isRead(name) ? findXmlFault(pkg.readText(name)) : null;
      if (fault)
        throw new InvalidTemplateError(`The .xlsx is damaged: ${name} is not well-formed XML (${fault})`, {
          reason: 'malformed_xml',
          part: name,
        });
    }
  // A template (.xltx) is filled as a workbook; a macro workbook the operator allows stays one.
  if (!macros && mainType !== SPREADSHEET.filledMainType)
    zip.file(
      CONTENT_TYPES_PART,
      pkg.readText(CONTENT_TYPES_PART).replace(mainType!, SPREADSHEET.filledMainType),
    );
  return pkg;
}
