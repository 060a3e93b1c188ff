/**
 * Hostile and broken Word packages for the end-to-end tests, written byte by byte: a minimal zip
 * writer (local headers, central directory, end record) that can also lie about sizes, plus
 * builders for the classic attacks on a .docx upload: zip bombs (honest and lying), truncated and
 * corrupt archives, macro-enabled documents, malformed XML and entity bombs.
 *
 * Large contents are never held in memory: a bomb's deflate stream is produced chunk by chunk
 * (deflateRaw of zeros, flushed), so building a 400 MB bomb costs a few hundred KB and a second.
 */
import PizZip from 'pizzip';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDocx, p } from './docx-builder';

export interface ZipEntry {
  name: string;
  /** Stored bytes: deflate-raw data when `method` is 8, the content itself when 0. */
  data: Buffer;
  method: 0 | 8;
  crc: number;
  /** Size written into both headers (a lying bomb declares less than it inflates to). */
  uncompressedSize: number;
}

/** A deflated entry for `content`. */
export function deflated(name: string, content: Buffer | string): ZipEntry {
  const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return { name, data: deflateRawSync(buf), method: 8, crc: crc32(buf), uncompressedSize: buf.length };
}

/** The entries of an existing zip (e.g. a valid .docx), re-deflated. */
export function entriesOf(zipBytes: Buffer): ZipEntry[] {
  const zip = new PizZip(zipBytes);
  return Object.values(zip.files)
    .filter((f) => !f.dir)
    .map((f) => deflated(f.name, Buffer.from(f.asUint8Array())));
}

/** Writes a zip archive (no zip64, no data descriptors). */
export function writeZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(0, 10); // time, date
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.uncompressedSize, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(e.method, 10);
    central.writeUInt32LE(0, 12);
    central.writeUInt32LE(e.crc >>> 0, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.uncompressedSize, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    centrals.push(central, name);
    offset += local.length + name.length + e.data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/**
 * A deflate-raw stream of `bytes` bytes of `unit` repeated (zeros by default), with its CRC-32,
 * built without holding the content: one 1 MiB block compressed with a full flush (byte-aligned,
 * history reset, so copies of it can follow each other) repeated, then a final block for the
 * rest. Deflate tops out near 1:1030, so 400 MB take about 400 KB.
 */
function deflatedFill(bytes: number, unit: Buffer = Buffer.alloc(1)): { data: Buffer; crc: number } {
  const step = 1 << 20;
  const block = Buffer.alloc(step);
  for (let i = 0; i < step; i++) block[i] = unit[i % unit.length];
  const full = deflateRawSync(block, { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const blockCrc = (prev: number) => crc32(block, prev);
  const whole = Math.floor(bytes / step);
  const rest = block.subarray(0, bytes - whole * step);
  let crc = 0;
  for (let i = 0; i < whole; i++) crc = blockCrc(crc);
  crc = crc32(rest, crc);
  const data = Buffer.concat([
    ...Array.from({ length: whole }, () => full),
    deflateRawSync(rest, { level: 9 }),
  ]);
  return { data, crc };
}

const VALID = () => buildDocx({ body: [p('Hello {{ name }}')] });

/** A valid template with one more entry. */
function withEntry(entry: ZipEntry, base: Buffer = VALID()): Buffer {
  return writeZip([...entriesOf(base), entry]);
}

/** A valid template whose `part` is replaced by `content`. */
export function withPart(part: string, content: string | Buffer, base: Buffer = VALID()): Buffer {
  return writeZip(entriesOf(base).map((e) => (e.name === part ? deflated(part, content) : e)));
}

/** A small upload that honestly declares `bytes` of uncompressed content (in a media file). */
export function zipBomb(bytes: number, base?: Buffer, name = 'word/media/filler.bin'): Buffer {
  const { data, crc } = deflatedFill(bytes);
  return withEntry({ name, data, method: 8, crc, uncompressedSize: bytes }, base);
}

/**
 * A bomb that lies: `part` declares `declared` bytes in both headers but inflates to `actual`
 * bytes of `unit` repeated. A reader that trusts the declared size and inflates anyway takes
 * `actual` bytes of memory.
 */
export function lyingZipBomb(part: string, actual: number, declared = 1024, unit = Buffer.from(' ')): Buffer {
  const { data, crc } = deflatedFill(actual, unit);
  const entries = entriesOf(VALID()).filter((e) => e.name !== part);
  return writeZip([...entries, { name: part, data, method: 8, crc, uncompressedSize: declared }]);
}

/** The main part's content type declared macro-enabled (.docm), with a vbaProject.bin. */
export function docm(): Buffer {
  const entries = entriesOf(VALID()).map((e) => {
    if (e.name !== '[Content_Types].xml') return e;
    const text = new PizZip(VALID())
      .file('[Content_Types].xml')!
      .asText()
      .replace(
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
        'application/vnd.ms-word.document.macroEnabled.main+xml',
      )
      .replace(
        '</Types>',
        '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/></Types>',
      );
    return deflated(e.name, text);
  });
  return writeZip([...entries, deflated('word/vbaProject.bin', Buffer.from('Attribute VB_Name = "x"'))]);
}

/** A plain .docx carrying a vbaProject.bin (macros smuggled into a .docx content type). */
export function docxWithVbaProject(): Buffer {
  return withEntry(deflated('word/vbaProject.bin', Buffer.from('Attribute VB_Name = "AutoOpen"')));
}

const DOCUMENT_HEAD =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">';

/** A document.xml that is not well-formed (an element never closed). */
export function malformedDocumentXml(): Buffer {
  return withPart('word/document.xml', `${DOCUMENT_HEAD}<w:body><w:p><w:r><w:t>Hello {{ name }}</w:t></w:r>`);
}

/** Billion laughs: ten levels of ten references each, in the main part's DOCTYPE. */
export function entityBomb(part = 'word/document.xml'): Buffer {
  let dtd = '<!ENTITY lol0 "lol">';
  for (let i = 1; i <= 10; i++) dtd += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`;
  const xml =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    `<!DOCTYPE w:document [${dtd}]>` +
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
    '<w:body><w:p><w:r><w:t>&lol10;</w:t></w:r></w:p></w:body></w:document>';
  return withPart(part, xml);
}

/** The archive cut off at `fraction` of its length (no central directory left). */
export function truncated(zip: Buffer, fraction = 0.5): Buffer {
  return zip.subarray(0, Math.floor(zip.length * fraction));
}

/** The compressed bytes of `part` overwritten with noise (headers intact). */
export function corruptPart(zip: Buffer, part: string): Buffer {
  const entries = entriesOf(zip).map((e) => {
    if (e.name !== part) return e;
    const noise = Buffer.alloc(e.data.length);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919 + 13) & 0xff;
    return { ...e, data: noise };
  });
  return writeZip(entries);
}

/**
 * A template whose document.xml honestly declares about `bytes` of XML: `unit` (eight bytes,
 * an empty paragraph by default) repeated inside a valid body. Well under the library's 200 MiB
 * cap on declared size, a 75 KB upload for 48 MiB, but each empty paragraph is a node for the
 * template engine to lex and keep.
 */
export function xmlVolumeBomb(bytes: number, unit = '<w:p/>  '): Buffer {
  const step = 1 << 20;
  if (step % unit.length !== 0) throw new Error('unit length must divide 1 MiB');
  const head = Buffer.from(`${DOCUMENT_HEAD}<w:body>`);
  const tail = Buffer.from('</w:body></w:document>');
  const block = Buffer.alloc(step, unit);
  const blocks = Math.max(1, Math.round(bytes / step));
  const flush = { level: 9, finishFlush: constants.Z_FULL_FLUSH };
  const full = deflateRawSync(block, flush);
  let crc = crc32(head);
  for (let i = 0; i < blocks; i++) crc = crc32(block, crc);
  crc = crc32(tail, crc);
  const data = Buffer.concat([
    deflateRawSync(head, flush),
    ...Array.from({ length: blocks }, () => full),
    deflateRawSync(tail, { level: 9 }),
  ]);
  const size = head.length + blocks * step + tail.length;
  const entries = entriesOf(VALID()).filter((e) => e.name !== 'word/document.xml');
  return writeZip([...entries, { name: 'word/document.xml', data, method: 8, crc, uncompressedSize: size }]);
}

/**
 * The Calc-saved price list (test/fixtures/spreadsheets) declared macro-enabled (.xlsm), with a
 * vbaProject.bin: refused unless the operator allows macros, and never run.
 */
export function xlsm(): Buffer {
  const book = new PizZip(
    readFileSync(join(__dirname, '..', 'fixtures', 'spreadsheets', 'price-list.calc.xlsx')),
  );
  book.file(
    '[Content_Types].xml',
    book
      .file('[Content_Types].xml')!
      .asText()
      .replace(
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
        'application/vnd.ms-excel.sheet.macroEnabled.main+xml',
      )
      .replace(
        '</Types>',
        '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/></Types>',
      ),
  );
  book.file('xl/vbaProject.bin', Buffer.from('Attribute VB_Name = "Workbook_Open"'));
  return book.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}
