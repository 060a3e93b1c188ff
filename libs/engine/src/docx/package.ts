/**
 * The safety checks on an uploaded Word package: it is a zip of sane size, its main part is a
 * Word document without macros, and its XML is UTF-8, well formed and declares no DTD.
 */
import { CONTENT_TYPES_PART as CONTENT_TYPES, ContentTypes } from '@app/ooxml';
import PizZip from 'pizzip';
import { crc32, inflateRawSync } from 'node:zlib';
import { InvalidTemplateError, PayloadTooLargeError } from '../errors';
import { WORD, WORD_PARTS } from '../package/formats';
import { METHOD_DEFLATE, METHOD_STORE, writeZip, type RawZipEntry, type ZipEntry } from './zip-writer';

export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024;

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
const XML_PART = /\.(xml|rels)$/i;
/** Parts whose bytes are compressed already: deflating them again gains nothing. */
const COMPRESSED_MEDIA = /\.(png|jpe?g|gif|tiff?|emf\.gz|wdp|mp4|zip)$/i;

/** What pizzip keeps of an entry it has not read yet (its CompressedObject). */
interface CompressedData {
  compressionMethod: string;
  compressedSize: number;
  uncompressedSize: number;
  crc32: number;
  getCompressedContent(): Uint8Array;
  getContent(): Uint8Array;
}

type ZipObject = PizZip['files'][string];

/** An entry as the template had it: enough to copy it out unread, and its bytes once read. */
interface TemplateEntry {
  object: ZipObject;
  method: number;
  compressed: Uint8Array;
  crc32: number;
  uncompressedSize: number;
  /** The inflated bytes (without a UTF-8 byte-order mark), once something has read them. */
  content?: Buffer;
}

export interface OpenOptions {
  limits?: Partial<TemplateLimits>;
  /**
   * The caller checked this template already (the API does before queueing): the XML parts are
   * not all inflated and scanned again. Sizes, content type and macros are still checked, and
   * every part that is read is still inflated within its declared size.
   */
  checked?: boolean;
  /**
   * Keep each part's inflated bytes once read (default), for the fill that follows. The check
   * alone (the API's) keeps none: its buffers are dropped as soon as each part is scanned, as
   * small ones are slices of Node's shared pool and would hold whole slabs until a GC.
   */
  keepContent?: boolean;
}

/** A template opened for filling: the zip docxtemplater works on, and the entries as they came. */
export class DocxPackage {
  private readonly entries = new Map<string, TemplateEntry>();

  constructor(
    readonly zip: PizZip,
    private readonly keepContent = true,
  ) {
    indexLookups(zip);
    for (const [name, object] of Object.entries(zip.files)) {
      const data = (object as unknown as { _data?: unknown })._data as CompressedData | undefined;
      if (object.dir || !data || typeof data.getCompressedContent !== 'function') continue;
      const entry: TemplateEntry = {
        object,
        method: data.compressionMethod === DEFLATE ? 8 : data.compressionMethod === STORE ? 0 : -1,
        compressed: data.getCompressedContent(),
        crc32: data.crc32,
        uncompressedSize: data.uncompressedSize,
      };
      this.entries.set(name, entry);
      // Whoever reads the part (docxtemplater through pizzip, or the checks) goes through the
      // bounded native inflate below, once; pizzip's own would inflate without bound, in JS.
      data.getContent = () => this.read(name);
    }
  }

  /** Uncompressed sizes as the central directory declares them (nothing is inflated). */
  declaredSizes(): Array<[string, number]> {
    return [...this.entries].map(([name, e]) => [name, e.uncompressedSize]);
  }

  /**
   * A part's bytes, with its declared size as a hard bound: inflating stops there, so an entry
   * that lies about its size (a zip bomb declaring 1 KB) costs no more than it declared. XML
   * parts must be UTF-8 (a UTF-16 part would slip past the text checks); their byte-order mark
   * is dropped.
   */
  read(name: string): Buffer {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`no part ${name} in the template`);
    if (entry.content) return entry.content;
    const declared = entry.uncompressedSize;
    const damaged = (why: string): never => {
      throw new InvalidTemplateError(`The .docx is damaged: ${name} ${why}`, {
        reason: 'corrupt_zip',
        part: name,
      });
    };
    const compressed = Buffer.from(
      entry.compressed.buffer,
      entry.compressed.byteOffset,
      entry.compressed.length,
    );
    let raw: Buffer;
    if (entry.method === 8) {
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
    } else if (entry.method === 0) raw = compressed;
    else raw = damaged('uses an unsupported compression method');
    if (raw.length !== declared) damaged(`holds ${raw.length} bytes but declares ${declared}`);
    // Unread parts are copied out with their CRC as it is; a part we read must match its own.
    if (crc32(raw) >>> 0 !== entry.crc32 >>> 0) damaged('fails its CRC check');
    if (XML_PART.test(name)) {
      if ((raw[0] === 0xfe && raw[1] === 0xff) || (raw[0] === 0xff && raw[1] === 0xfe) || raw.includes(0))
        throw new InvalidTemplateError(
          `The template's ${name} is not UTF-8 XML (UTF-16 parts are not accepted)`,
          {
            reason: 'not_utf8',
            part: name,
          },
        );
      if (raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) raw = raw.subarray(3);
    }
    if (this.keepContent) entry.content = raw;
    return raw;
  }

  /**
   * What a part held, to tell whether rendering changed it: its bytes if something read them,
   * else (a template rendered from its kept compile, whose parts nobody read) inflated now when
   * the size says it may be unchanged. Undefined when it cannot be the same.
   */
  private originalOf(entry: TemplateEntry, name: string, length: number): Buffer | undefined {
    if (entry.content) return entry.content;
    // A byte-order mark (3 bytes) is dropped on reading.
    if (length !== entry.uncompressedSize && length !== entry.uncompressedSize - 3) return undefined;
    try {
      return this.read(name);
    } catch {
      return undefined;
    }
  }

  readText(name: string): string {
    return this.read(name).toString('utf8');
  }

  /**
   * The filled package. A part nobody changed goes out with the template's compressed bytes; so
   * does a part rewritten to the same bytes (docxtemplater writes back every part it parsed).
   * Changed parts are deflated, or stored for a reader that prefers speed to size (LibreOffice
   * on the same machine); media that is compressed already is always stored.
   */
  toBuffer(compression: 'DEFLATE' | 'STORE'): Buffer {
    const names = Object.keys(this.zip.files);
    // [Content_Types].xml first, where Word puts it (docxtemplater re-adds it at the end).
    const ordered = names.includes(CONTENT_TYPES)
      ? [CONTENT_TYPES, ...names.filter((n) => n !== CONTENT_TYPES)]
      : names;
    const out: ZipEntry[] = ordered.map((name): ZipEntry => {
      const file = this.zip.files[name];
      const date = file.date instanceof Date ? file.date : undefined;
      if (file.dir) return { name, directory: true, date };
      const entry = this.entries.get(name);
      const copy = (e: TemplateEntry): RawZipEntry => ({
        name,
        method: e.method,
        compressed: e.compressed,
        crc32: e.crc32,
        uncompressedSize: e.uncompressedSize,
        date,
      });
      if (entry && entry.method >= 0 && file === entry.object) return copy(entry);
      const content = file.asNodeBuffer();
      const original = entry && entry.method >= 0 ? this.originalOf(entry, name, content.length) : undefined;
      if (entry && original && content.equals(original)) return copy(entry);
      return {
        name,
        content,
        method: compression === 'STORE' || COMPRESSED_MEDIA.test(name) ? METHOD_STORE : METHOD_DEFLATE,
        date,
      };
    });
    return writeZip(out);
  }
}

/** pizzip's folder prefix of lookups ('' unless `zip.folder()` made one); not in its types. */
type RootedZip = PizZip & { root: string };
type FileLookup = (this: RootedZip, name: string | RegExp, data?: unknown, options?: unknown) => unknown;
const pizzipFile = PizZip.prototype.file as unknown as FileLookup;
const pizzipFilter = PizZip.prototype.filter;

/**
 * Makes `zip.file(name)` a lookup by key. pizzip answers it with `filter`, which clones every
 * entry of the package to find one (a ZipObject and a copy of its options each): docxtemplater
 * and the engine look parts up dozens of times per fill, and docxtemplater does so once per
 * content-type override, so a package of n parts cost O(n²) clones per render. The answer is
 * the clone pizzip's own `filter` makes of that one entry, so callers get what they got before.
 */
function indexLookups(zip: PizZip): void {
  const lookup: FileLookup = function (this: RootedZip, name, ...rest) {
    if (rest.length > 0 || typeof name !== 'string') return pizzipFile.call(this, name, ...rest);
    const key = this.root + name;
    const entry = Object.hasOwn(this.files, key) ? this.files[key] : undefined;
    if (!entry || entry.dir) return null;
    const one = { files: { [key]: entry }, root: this.root } as unknown as PizZip;
    return pizzipFilter.call(one, () => true)[0] ?? null;
  };
  (zip as unknown as { file: FileLookup }).file = lookup;
}

/** Byte-level search for a DTD (`<!DOCTYPE`, `<!ENTITY`, any case), without decoding the part. */
export function declaresDtd(xml: Buffer): boolean {
  for (let i = xml.indexOf('<!'); i >= 0; i = xml.indexOf('<!', i + 2)) {
    const word = xml.toString('latin1', i + 2, i + 9).toUpperCase();
    if (word.startsWith('DOCTYPE') || word.startsWith('ENTITY')) return true;
  }
  return false;
}

/**
 * Opens the upload as a Word package and checks it is one we fill: a zip, of sane uncompressed
 * size, whose main part is a Word document without macros, and whose XML is UTF-8, well formed
 * and declares no DTD (entity expansion). Judged by content, never by file name.
 */
export function openDocxPackage(template: Buffer, options: OpenOptions = {}): DocxPackage {
  const { maxUncompressedBytes, maxWordXmlBytes } = { ...DEFAULT_TEMPLATE_LIMITS, ...options.limits };
  if (template.length < 4 || template.readUInt32LE(0) !== 0x04034b50)
    throw new InvalidTemplateError('The file is not a Word document (.docx): it is not a zip package', {
      reason: 'not_a_zip',
    });
  let pkg: DocxPackage;
  try {
    pkg = new DocxPackage(new PizZip(template), options.keepContent !== false);
  } catch (e) {
    throw new InvalidTemplateError('The file is not a readable .docx: the zip package is damaged', {
      reason: 'corrupt_zip',
      cause: (e as Error).message,
    });
  }
  const zip = pkg.zip;
  let total = 0;
  const sizes = pkg.declaredSizes();
  for (const [, size] of sizes) total += size;
  if (total > maxUncompressedBytes)
    throw new PayloadTooLargeError(
      `The template unpacks to ${total} bytes; the limit is ${maxUncompressedBytes} bytes`,
      {
        uncompressed_bytes: total,
        limit: maxUncompressedBytes,
      },
    );
  // Read once the whole package is known to unpack within bounds.
  const contentTypes = zip.file(CONTENT_TYPES) ? new ContentTypes(pkg.readText(CONTENT_TYPES)) : undefined;
  const isWordXml = (name: string) =>
    contentTypes !== undefined && WORD_PARTS.isRead(contentTypes.typeOf(name));
  let wordXml = 0;
  for (const [name, size] of sizes) if (isWordXml(name)) wordXml += size;
  if (wordXml > maxWordXmlBytes)
    throw new PayloadTooLargeError(
      `The template's Word XML is ${wordXml} bytes; the limit is ${maxWordXmlBytes} bytes`,
      { word_xml_bytes: wordXml, limit: maxWordXmlBytes },
    );
  if (!zip.file(CONTENT_TYPES))
    throw new InvalidTemplateError('The file is not a .docx: it has no [Content_Types].xml', {
      reason: 'not_ooxml',
    });
  const xmlParts = Object.keys(zip.files).filter((name) => XML_PART.test(name) && !zip.files[name].dir);
  if (!options.checked)
    for (const name of xmlParts)
      if (declaresDtd(pkg.read(name)))
        throw new InvalidTemplateError(
          `The template's ${name} declares a DTD, which Word never writes; it is refused`,
          {
            reason: 'dtd',
            part: name,
          },
        );
  const mainType = contentTypes!
    .overrideTypes()
    .find((t) => Object.prototype.hasOwnProperty.call(WORD.mainTypes, t));
  const kind = mainType ? WORD.mainTypes[mainType] : undefined;
  if (!kind)
    throw new InvalidTemplateError(
      'The file is not a Word document (.docx): its main part is not a Word document',
      {
        reason: 'not_word',
        content_type: mainType ?? null,
      },
    );
  if (WORD.macroVariants.includes(kind) || zip.file(/vbaProject\.bin$/i).length)
    throw new InvalidTemplateError(
      'Macro-enabled Word documents (.docm) are not accepted; save the template as .docx',
      {
        reason: 'macros',
      },
    );
  if (!options.checked)
    for (const name of xmlParts) {
      const fault = isWordXml(name) ? findXmlFault(pkg.readText(name)) : null;
      if (fault)
        throw new InvalidTemplateError(`The .docx is damaged: ${name} is not well-formed XML (${fault})`, {
          reason: 'malformed_xml',
          part: name,
        });
    }
  if (mainType !== WORD.filledMainType) {
    const types = pkg.readText(CONTENT_TYPES);
    zip.file(CONTENT_TYPES, types.replace(mainType!, WORD.filledMainType));
  }
  return pkg;
}

/** The check alone (the API runs it before queueing); returns the opened zip. */
export function checkDocxTemplate(template: Buffer, limits: Partial<TemplateLimits> = {}): PizZip {
  return openDocxPackage(template, { limits, keepContent: false }).zip;
}

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
    // Only markup and white space may stand outside the root (Excel asks to repair text there).
    if (!stack.length && /\S/.test(xml.slice(last, m.index)))
      return `text outside the root element at offset ${last}`;
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
  if (/\S/.test(xml.slice(last))) return 'text after the root element';
  if (stack.length) return `<${stack[stack.length - 1]}> is never closed`;
  if (roots !== 1) return roots ? 'more than one root element' : 'no root element';
  return null;
}
