/**
 * Hostile and broken PNG images for the end-to-end tests, written chunk by chunk with node:zlib:
 * headers that claim huge sizes (with a valid CRC, so only a pixel cap stops them), bad CRCs,
 * truncated files and decompression bombs.
 */
import { randomBytes } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

export function ihdr(width: number, height: number, bitDepth = 8, colourType = 2): Buffer {
  const data = Buffer.alloc(13);
  data.writeUInt32BE(width, 0);
  data.writeUInt32BE(height, 4);
  data.set([bitDepth, colourType, 0, 0, 0], 8);
  return pngChunk('IHDR', data);
}

export function png(chunks: Buffer[]): Buffer {
  return Buffer.concat([SIGNATURE, ...chunks]);
}

/** A valid RGB PNG of one colour. */
export function solid(width: number, height: number): Buffer {
  const raw = Buffer.alloc((1 + width * 3) * height, 0x80);
  for (let y = 0; y < height; y++) raw[y * (1 + width * 3)] = 0; // filter byte
  return png([ihdr(width, height), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

/**
 * A small file whose IHDR claims `width` × `height` pixels, CRC correct; its IDAT holds a few
 * bytes only. A decoder that trusts the header allocates width × height × 3 bytes.
 */
export function claimsPixels(width: number, height: number): Buffer {
  return png([
    ihdr(width, height),
    pngChunk('IDAT', deflateSync(Buffer.alloc(64))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A valid PNG with one CRC byte flipped in its IDAT chunk. */
export function badCrc(): Buffer {
  const file = solid(8, 8);
  const idat = file.indexOf('IDAT', 8, 'latin1');
  const len = file.readUInt32BE(idat - 4);
  const out = Buffer.from(file);
  out[idat + 4 + len] ^= 0xff; // first byte of the CRC after the data
  return out;
}

/** A valid PNG cut in the middle of its IDAT chunk. */
export function truncatedPng(): Buffer {
  const file = solid(32, 32);
  return file.subarray(0, file.indexOf('IDAT', 8, 'latin1') + 10);
}

/** IHDR declares 4 × 4 pixels, CRC correct, but the IDAT data is not a zlib stream. */
export function garbageIdat(): Buffer {
  return png([
    ihdr(4, 4),
    pngChunk('IDAT', Buffer.from('definitely not zlib')),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export const b64 = (b: Buffer): string => b.toString('base64');

/**
 * A 4 × 4 PNG whose IDAT holds a complete zlib stream with a wrong Adler-32 checksum, chunk
 * CRCs correct: every decoder that checks the stream refuses it ("incorrect data check").
 */
export function badZlibChecksum(): Buffer {
  const raw = Buffer.alloc((1 + 4 * 3) * 4, 0x80);
  for (let y = 0; y < 4; y++) raw[y * 13] = 0;
  const z = Buffer.from(deflateSync(raw));
  z[z.length - 1] ^= 0xff;
  return png([ihdr(4, 4), pngChunk('IDAT', z), pngChunk('IEND', Buffer.alloc(0))]);
}

/** A valid RGB PNG of random pixels, stored without compression: about width × height × 3 bytes. */
export function noise(width: number, height: number): Buffer {
  const raw = randomBytes((1 + width * 3) * height);
  for (let y = 0; y < height; y++) raw[y * (1 + width * 3)] = 0; // filter byte: none
  return png([
    ihdr(width, height),
    pngChunk('IDAT', deflateSync(raw, { level: 0 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
