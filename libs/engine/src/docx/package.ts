/**
 * The safety checks on an uploaded Word package: it is a zip of sane size, its main part is a
 * Word document without macros, and its XML is UTF-8, well formed and declares no DTD.
 */
import PizZip from 'pizzip';
import { inflateRawSync } from 'node:zlib';
import { InvalidTemplateError, PayloadTooLargeError } from '../errors';

export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024;

const MAIN_TYPES: Record<string, string> = {
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml': 'docx',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml': 'dotx',
  'application/vnd.ms-word.document.macroEnabled.main+xml': 'docm',
  'application/vnd.ms-word.template.macroEnabledTemplate.main+xml': 'dotm',
};
const DOCX_MAIN = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';

export interface TemplateLimits {
  /** Sum of the uncompressed sizes of the template's files (zip bombs). */
  maxUncompressedBytes: number;
  /**
   * Sum of the Word XML parts the engine parses (document, headers, footers, notes). Parsing
   * costs about 300 bytes of memory per byte of XML in the worst case (empty paragraphs), so
   * this keeps one render within about a gigabyte; 4 MiB is hundreds of pages of text.
   */
  maxWordXmlBytes: number;
}

export const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = {
  maxUncompressedBytes: DEFAULT_MAX_UNCOMPRESSED_BYTES,
  maxWordXmlBytes: 4 * 1024 * 1024,
};

const DEFLATE = '\x08\x00';
const STORE = '\x00\x00';

interface ZipEntryData {
  compressionMethod?: string;
  uncompressedSize?: number;
  getCompressedContent?: () => Uint8Array | string;
}

function entryData(zip: PizZip, name: string): ZipEntryData | undefined {
  const data = (zip.files[name] as unknown as { _data?: unknown })._data;
  return data !== null && typeof data === 'object' ? (data as ZipEntryData) : undefined;
}

/**
 * Reads an XML part with its declared size as a hard bound: inflating stops there, so an entry
 * that lies about its size (a zip bomb declaring 1 KB) costs no more than it declared. The text
 * goes back into the package, so nothing inflates it a second time.
 */
function readXmlPart(zip: PizZip, name: string): string {
  const data = entryData(zip, name);
  if (!data?.getCompressedContent) return readText(zip, name);
  const declared = data.uncompressedSize ?? 0;
  const damaged = (why: string): never => {
    throw new InvalidTemplateError(`The .docx is damaged: ${name} ${why}`, {
      reason: 'corrupt_zip',
      part: name,
    });
  };
  const compressed = Buffer.from(data.getCompressedContent() as Uint8Array);
  let raw: Buffer;
  if (data.compressionMethod === DEFLATE) {
    try {
      raw = inflateRawSync(compressed, { maxOutputLength: Math.max(declared, 1) });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      raw = damaged(
        code === 'ERR_BUFFER_TOO_LARGE'
          ? `holds more than the ${declared} bytes it declares`
          : 'cannot be inflated',
      );
    }
  } else if (data.compressionMethod === STORE) raw = compressed;
  else raw = damaged('uses an unsupported compression method');
  if (raw.length !== declared) damaged(`holds ${raw.length} bytes but declares ${declared}`);
  // OOXML parts are UTF-8; a UTF-16 part would also slip past the text checks below.
  if ((raw[0] === 0xfe && raw[1] === 0xff) || (raw[0] === 0xff && raw[1] === 0xfe) || raw.includes(0))
    throw new InvalidTemplateError(
      `The template's ${name} is not UTF-8 XML (UTF-16 parts are not accepted)`,
      {
        reason: 'not_utf8',
        part: name,
      },
    );
  const text = raw.toString('utf8').replace(/^\uFEFF/, '');
  zip.file(name, text);
  return text;
}

/**
 * Opens the upload as a Word package and checks it is one we fill: a zip, of sane uncompressed
 * size, whose main part is a Word document without macros, and whose XML is UTF-8, well formed
 * and declares no DTD (entity expansion). Judged by content, never by file name.
 */
export function checkDocxTemplate(template: Buffer, limits: Partial<TemplateLimits> = {}): PizZip {
  const { maxUncompressedBytes, maxWordXmlBytes } = { ...DEFAULT_TEMPLATE_LIMITS, ...limits };
  if (template.length < 4 || template.readUInt32LE(0) !== 0x04034b50)
    throw new InvalidTemplateError('The file is not a Word document (.docx): it is not a zip package', {
      reason: 'not_a_zip',
    });
  let zip: PizZip;
  try {
    zip = new PizZip(template);
  } catch (e) {
    throw new InvalidTemplateError('The file is not a readable .docx: the zip package is damaged', {
      reason: 'corrupt_zip',
      cause: (e as Error).message,
    });
  }
  let total = 0;
  let wordXml = 0;
  for (const name of Object.keys(zip.files)) {
    const size = entryData(zip, name)?.uncompressedSize ?? 0;
    total += size;
    if (WORD_PART.test(name)) wordXml += size;
  }
  if (total > maxUncompressedBytes)
    throw new PayloadTooLargeError(
      `The template unpacks to ${total} bytes; the limit is ${maxUncompressedBytes} bytes`,
      {
        uncompressed_bytes: total,
        limit: maxUncompressedBytes,
      },
    );
  if (wordXml > maxWordXmlBytes)
    throw new PayloadTooLargeError(
      `The template's Word XML is ${wordXml} bytes; the limit is ${maxWordXmlBytes} bytes`,
      { word_xml_bytes: wordXml, limit: maxWordXmlBytes },
    );
  if (!zip.file('[Content_Types].xml'))
    throw new InvalidTemplateError('The file is not a .docx: it has no [Content_Types].xml', {
      reason: 'not_ooxml',
    });
  const texts = new Map<string, string>();
  for (const name of Object.keys(zip.files)) {
    if (!/\.(xml|rels)$/i.test(name) || zip.files[name].dir) continue;
    const text = readXmlPart(zip, name);
    texts.set(name, text);
    if (/<!DOCTYPE|<!ENTITY/i.test(text))
      throw new InvalidTemplateError(
        `The template's ${name} declares a DTD, which Word never writes; it is refused`,
        {
          reason: 'dtd',
          part: name,
        },
      );
  }
  const types = texts.get('[Content_Types].xml') ?? '';
  const mainType = (types.match(/<Override\b[^>]*>/g) ?? [])
    .map((o) => /ContentType="([^"]*)"/.exec(o)?.[1] ?? '')
    .find((t) => Object.prototype.hasOwnProperty.call(MAIN_TYPES, t));
  const kind = mainType ? MAIN_TYPES[mainType] : undefined;
  if (!kind)
    throw new InvalidTemplateError(
      'The file is not a Word document (.docx): its main part is not a Word document',
      {
        reason: 'not_word',
        content_type: mainType ?? null,
      },
    );
  if (kind === 'docm' || kind === 'dotm' || zip.file(/vbaProject\.bin$/i).length)
    throw new InvalidTemplateError(
      'Macro-enabled Word documents (.docm) are not accepted; save the template as .docx',
      {
        reason: 'macros',
      },
    );
  for (const [name, text] of texts) {
    const fault = WORD_PART.test(name) ? findXmlFault(text) : null;
    if (fault)
      throw new InvalidTemplateError(`The .docx is damaged: ${name} is not well-formed XML (${fault})`, {
        reason: 'malformed_xml',
        part: name,
      });
  }
  if (kind === 'dotx') zip.file('[Content_Types].xml', types.replace(mainType!, DOCX_MAIN));
  return zip;
}

const WORD_PART = /^word\/(document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml$/;
const XML_TAG =
  /<(\/?)([A-Za-z_][\w.:-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[[\s\S]*?\]\]>/g;

/**
 * A linear check that every element of a Word part is closed in order (docxtemplater's lexer
 * only notices broken text runs; LibreOffice would fail later with a less useful error).
 * Returns a description of the first fault, or null.
 */
export function findXmlFault(xml: string): string | null {
  const stack: string[] = [];
  let roots = 0;
  XML_TAG.lastIndex = 0;
  let last = 0;
  for (let m = XML_TAG.exec(xml); m; m = XML_TAG.exec(xml)) {
    if (xml.slice(last, m.index).includes('<'))
      return `stray '<' at offset ${last + xml.slice(last, m.index).indexOf('<')}`;
    last = m.index + m[0].length;
    if (!m[2]) continue; // comment, processing instruction, CDATA
    if (m[1]) {
      const open = stack.pop();
      if (open !== m[2]) return `</${m[2]}> closes ${open ? `<${open}>` : 'nothing'} at offset ${m.index}`;
    } else if (!m[4]) {
      if (!stack.length) roots++;
      stack.push(m[2]);
    } else if (!stack.length) roots++;
  }
  if (xml.slice(last).includes('<')) return "stray '<' near the end";
  if (stack.length) return `<${stack[stack.length - 1]}> is never closed`;
  if (roots !== 1) return roots ? 'more than one root element' : 'no root element';
  return null;
}

function readText(zip: PizZip, name: string): string {
  try {
    return zip.file(name)!.asText();
  } catch (e) {
    throw new InvalidTemplateError(`The .docx is damaged: ${name} cannot be read`, {
      reason: 'corrupt_zip',
      part: name,
      cause: (e as Error).message,
    });
  }
}
