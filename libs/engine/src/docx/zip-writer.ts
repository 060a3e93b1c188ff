/**
 * Writes a zip archive from entries that are either already compressed (copied byte for byte from
 * the template) or new bytes (deflated with node:zlib, or stored).
 *
 * Hand-written because pizzip, the zip library docxtemplater works on, cannot copy an entry's
 * compressed bytes into a new archive once it has been read, and re-deflates in JavaScript (pako)
 * with a JavaScript CRC-32; no maintained package in our dependencies writes raw entries. The
 * format is the plain one of APPNOTE.TXT 4.3: local headers with sizes and CRC known up front (no
 * data descriptors), a central directory, the end record. No ZIP64: a .docx under our limits is
 * far below 4 GiB and 65,535 entries, and crossing either is refused with a RangeError.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export const METHOD_STORE = 0;
export const METHOD_DEFLATE = 8;

/** An entry whose compressed bytes are kept as they were read. */
export interface RawZipEntry {
  name: string;
  method: number;
  compressed: Uint8Array;
  crc32: number;
  uncompressedSize: number;
  date?: Date;
}

/** An entry whose bytes are compressed (or stored) by the writer. */
export interface NewZipEntry {
  name: string;
  content: Uint8Array;
  /** STORE for bytes that are compressed already (PNG, JPEG) or for a reader that prefers speed. */
  method: typeof METHOD_STORE | typeof METHOD_DEFLATE;
  date?: Date;
}

export interface DirectoryZipEntry {
  name: string;
  directory: true;
  date?: Date;
}

export type ZipEntry = RawZipEntry | NewZipEntry | DirectoryZipEntry;

const UINT32_LIMIT = 0xffffffff;
const UINT16_LIMIT = 0xffff;
const FLAG_UTF8_NAME = 0x0800;
const VERSION_NEEDED = 20; // 2.0: deflate and directories
const DOS_DIRECTORY = 0x10;
/** 1980-01-01 00:00, the earliest DOS date, for entries without one. */
const DOS_EPOCH = { time: 0, date: (0 << 9) | (1 << 5) | 1 };

function dosDateTime(date: Date | undefined): { time: number; date: number } {
  if (!date || Number.isNaN(date.getTime()) || date.getFullYear() < 1980 || date.getFullYear() > 2107)
    return DOS_EPOCH;
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
    date: ((date.getFullYear() - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

interface Prepared {
  name: Buffer;
  flags: number;
  method: number;
  crc32: number;
  compressed: Uint8Array;
  uncompressedSize: number;
  dos: { time: number; date: number };
  external: number;
}

function prepare(entry: ZipEntry): Prepared {
  const name = Buffer.from(entry.name, 'utf8');
  // Bit 11: the name is UTF-8. Without it readers assume CP437, so set it only when it matters.
  const flags = name.length !== entry.name.length ? FLAG_UTF8_NAME : 0;
  const dos = dosDateTime(entry.date);
  if ('directory' in entry)
    return {
      name,
      flags,
      method: METHOD_STORE,
      crc32: 0,
      compressed: new Uint8Array(0),
      uncompressedSize: 0,
      dos,
      external: DOS_DIRECTORY,
    };
  if ('compressed' in entry)
    return {
      name,
      flags,
      method: entry.method,
      crc32: entry.crc32 >>> 0,
      compressed: entry.compressed,
      uncompressedSize: entry.uncompressedSize,
      dos,
      external: 0,
    };
  const compressed =
    entry.method === METHOD_DEFLATE && entry.content.length > 0
      ? deflateRawSync(entry.content)
      : entry.content;
  return {
    name,
    flags,
    method: compressed === entry.content ? METHOD_STORE : METHOD_DEFLATE,
    crc32: crc32(entry.content) >>> 0,
    compressed,
    uncompressedSize: entry.content.length,
    dos,
    external: 0,
  };
}

/** The archive's bytes: every entry in the given order. */
export function writeZip(entries: readonly ZipEntry[]): Buffer {
  if (entries.length > UINT16_LIMIT) throw new RangeError(`a zip without ZIP64 holds at most 65535 entries`);
  const prepared = entries.map(prepare);
  const chunks: Uint8Array[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const p of prepared) {
    if (p.compressed.length > UINT32_LIMIT || p.uncompressedSize > UINT32_LIMIT || offset > UINT32_LIMIT)
      throw new RangeError('the package would need ZIP64 (an entry or the archive over 4 GiB)');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION_NEEDED, 4);
    local.writeUInt16LE(p.flags, 6);
    local.writeUInt16LE(p.method, 8);
    local.writeUInt16LE(p.dos.time, 10);
    local.writeUInt16LE(p.dos.date, 12);
    local.writeUInt32LE(p.crc32, 14);
    local.writeUInt32LE(p.compressed.length, 18);
    local.writeUInt32LE(p.uncompressedSize, 22);
    local.writeUInt16LE(p.name.length, 26);
    local.writeUInt16LE(0, 28); // no extra field
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(VERSION_NEEDED, 4); // made by: MS-DOS, 2.0
    header.writeUInt16LE(VERSION_NEEDED, 6);
    header.writeUInt16LE(p.flags, 8);
    header.writeUInt16LE(p.method, 10);
    header.writeUInt16LE(p.dos.time, 12);
    header.writeUInt16LE(p.dos.date, 14);
    header.writeUInt32LE(p.crc32, 16);
    header.writeUInt32LE(p.compressed.length, 20);
    header.writeUInt32LE(p.uncompressedSize, 24);
    header.writeUInt16LE(p.name.length, 28);
    // extra field length, comment length, disk number, internal attributes: all 0
    header.writeUInt32LE(p.external, 38);
    header.writeUInt32LE(offset, 42);
    chunks.push(local, p.name, p.compressed);
    central.push(header, p.name);
    offset += local.length + p.name.length + p.compressed.length;
  }
  const centralSize = central.reduce((n, b) => n + b.length, 0);
  if (offset + centralSize > UINT32_LIMIT)
    throw new RangeError('the package would need ZIP64 (an entry or the archive over 4 GiB)');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  // disk numbers: 0
  end.writeUInt16LE(prepared.length, 8);
  end.writeUInt16LE(prepared.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  // comment length: 0
  return Buffer.concat([...chunks, ...central, end]);
}
