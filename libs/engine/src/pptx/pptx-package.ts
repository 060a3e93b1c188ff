/**
 * The safety checks on an uploaded slide deck, as openSpreadsheetPackage does for a workbook: a
 * zip of sane size whose main part is a presentation, without macros unless the operator allows
 * them, and whose XML is UTF-8, well formed and declares no DTD. Judged by content, never by name.
 */
import { CONTENT_TYPES_PART, ContentTypes, SLIDE_TYPE } from '@app/ooxml';
import PizZip from 'pizzip';
import {
  declaresDtd,
  DEFAULT_TEMPLATE_LIMITS,
  DocxPackage,
  findXmlFault,
  type TemplateLimits,
} from '../docx/package';
import { InvalidTemplateError, PayloadTooLargeError } from '../errors';
import { PRESENTATION, PRESENTATION_PARTS } from '../package/formats';

const XML_PART = /\.(xml|rels)$/i;

export interface PresentationOpenOptions {
  limits?: Partial<TemplateLimits>;
  /** ALLOW_MACRO_TEMPLATES: a .pptm is filled (its macros are kept, never run); else refused. */
  allowMacros?: boolean;
  checked?: boolean;
  keepContent?: boolean;
}

export function openPresentationPackage(
  template: Buffer,
  options: PresentationOpenOptions = {},
): DocxPackage {
  const { maxUncompressedBytes, maxWordXmlBytes } = { ...DEFAULT_TEMPLATE_LIMITS, ...options.limits };
  let pkg: DocxPackage;
  try {
    pkg = new DocxPackage(new PizZip(template), options.keepContent !== false);
  } catch (e) {
    throw new InvalidTemplateError('The file is not a readable .pptx: the zip package is damaged', {
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
    throw new InvalidTemplateError('The file is not a .pptx: it has no [Content_Types].xml', {
      reason: 'not_ooxml',
    });
  const contentTypes = new ContentTypes(pkg.readText(CONTENT_TYPES_PART));
  const isRead = (name: string) => PRESENTATION_PARTS.isRead(contentTypes.typeOf(name));
  // The same budget as Word's XML: slides, notes, layouts and masters are what the fill parses.
  let xmlBytes = 0;
  for (const [name, size] of sizes) if (isRead(name)) xmlBytes += size;
  if (xmlBytes > maxWordXmlBytes)
    throw new PayloadTooLargeError(
      `The template's slide XML is ${xmlBytes} bytes; the limit is ${maxWordXmlBytes} bytes`,
      { slide_xml_bytes: xmlBytes, limit: maxWordXmlBytes },
    );
  const xmlParts = Object.keys(zip.files).filter((name) => XML_PART.test(name) && !zip.files[name].dir);
  if (!options.checked)
    for (const name of xmlParts)
      if (declaresDtd(pkg.read(name)))
        throw new InvalidTemplateError(
          `The template's ${name} declares a DTD, which PowerPoint never writes; it is refused`,
          { reason: 'dtd', part: name },
        );
  const mainType = contentTypes.overrideTypes().find((t) => Object.hasOwn(PRESENTATION.mainTypes, t));
  const kind = mainType ? PRESENTATION.mainTypes[mainType] : undefined;
  if (!kind)
    throw new InvalidTemplateError(
      'The file is not a slide deck (.pptx): its main part is not a presentation',
      {
        reason: 'not_presentation',
        content_type: mainType ?? null,
      },
    );
  const slides = contentTypes.partsOfType(
    Object.keys(zip.files).filter((name) => !zip.files[name].dir),
    new Set([SLIDE_TYPE]),
  );
  // Impress makes no page of a deck without slides; the fill has nothing to fill either.
  if (slides.length === 0)
    throw new InvalidTemplateError('The deck has no slide: there is nothing to fill or print', {
      reason: 'no_slide',
    });
  const macros = PRESENTATION.macroVariants.includes(kind) || zip.file(/vbaProject\.bin$/i).length > 0;
  if (macros && !options.allowMacros)
    throw new InvalidTemplateError(
      'Macro-enabled decks (.pptm) are not accepted here; save the template as .pptx',
      { reason: 'macros' },
    );
  if (!options.checked)
    for (const name of xmlParts) {
      const fault = isRead(name) ? findXmlFault(pkg.readText(name)) : null;
      if (fault)
        throw new InvalidTemplateError(`The .pptx is damaged: ${name} is not well-formed XML (${fault})`, {
          reason: 'malformed_xml',
          part: name,
        });
    }
  // A template (.potx) or show (.ppsx) is filled as a presentation; a macro deck allowed stays one.
  if (!macros && mainType !== PRESENTATION.filledMainType)
    zip.file(
      CONTENT_TYPES_PART,
      pkg.readText(CONTENT_TYPES_PART).replace(mainType!, PRESENTATION.filledMainType),
    );
  return pkg;
}
