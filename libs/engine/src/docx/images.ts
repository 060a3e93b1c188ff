/**
 * Images of an enhanced request (interface spec, "ImageData"): strict checks before anything is
 * rendered, and the size each image takes in the document.
 *
 * Every image is checked whole: strict base64, PNG signature, IHDR, every chunk's CRC and a full
 * decode (pngjs); the pixel count is capped from IHDR *before* decoding, so a small file that
 * claims 100k×100k pixels is refused without inflating it.
 */
import type { ImageData } from '@app/contracts';
import type { RecentDigests } from './recent-digests';
import { PNG } from 'pngjs';
import { crc32, inflateSync } from 'node:zlib';
import { ImageProcessingError, PayloadTooLargeError } from '../errors';

/** One image of a request: defined once, as ImageDataSchema in @app/contracts. */
export type { ImageData };

export interface ImageLimits {
  maxImages: number;
  /** Decoded PNG bytes per image. */
  maxImageBytes: number;
  /** Pixels (width × height) per image. */
  maxImagePixels: number;
}

/** The same as the service's defaults (MAX_IMAGES, MAX_IMAGE_BYTES, MAX_IMAGE_PIXELS): libs/config checks it. */
export const DEFAULT_IMAGE_LIMITS: ImageLimits = {
  maxImages: 20,
  maxImageBytes: 5 * 1024 * 1024,
  maxImagePixels: 25_000_000,
};

export interface PreparedImage {
  name: string;
  png: Buffer;
  widthPx: number;
  heightPx: number;
  /** Size in the document, in English Metric Units (914400 per inch, 36000 per mm). */
  widthEmu: number;
  heightEmu: number;
  /** ImageData.alt: the picture's description (wp:docPr descr), the PDF figure's /Alt. */
  alt?: string;
  /** ImageData.decorative: Word's decorative mark, an artifact in a tagged PDF. */
  decorative?: boolean;
}

const EMU_PER_MM = 36000;
const MM_PER_INCH = 25.4;
const DEFAULT_DPI = 96;
/** Larger than any page: a typo (5000 instead of 50) is an error, not a 5-metre image. */
const MAX_SIDE_MM = 2000;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const DATA_URL_PNG = /^data:image\/png;base64,/i;
// A flat character class: a grouped quantifier here overflowed the regex stack at ~4.8M characters.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
type SizeField = 'width_mm' | 'height_mm' | 'width_px' | 'height_px';

function fail(name: string, cause: string, errorClass: string, suggestion: string): never {
  throw new ImageProcessingError(name, cause, errorClass, suggestion);
}

interface PngInfo {
  width: number;
  height: number;
  bitDepth: number;
  colourType: number;
  interlaced: boolean;
  /** The IDAT chunks' data, concatenated: one zlib stream. */
  idat: Buffer[];
  /** Dots per inch from pHYs when its unit is the metre. */
  dpiX?: number;
  dpiY?: number;
}

/** Walks the chunk list (pngjs does not expose pHYs, and we want IHDR before any inflating). */
function readPngChunks(name: string, png: Buffer): PngInfo {
  if (png.length < 8 || !png.subarray(0, 8).equals(PNG_SIGNATURE))
    fail(
      name,
      'the data is not a PNG image (PNG signature missing)',
      'InvalidPngSignature',
      'Send PNG images only; convert JPEG, GIF or SVG to PNG first.',
    );
  let pos = 8;
  let info: PngInfo | undefined;
  let sawEnd = false;
  while (pos + 12 <= png.length) {
    const len = png.readUInt32BE(pos);
    const type = png.toString('latin1', pos + 4, pos + 8);
    const dataStart = pos + 8;
    const dataEnd = dataStart + len;
    if (dataEnd + 4 > png.length)
      fail(
        name,
        `the PNG is truncated (chunk ${type} runs past the end of the data)`,
        'TruncatedPng',
        'The base64 text was probably cut off; send the whole file.',
      );
    if (crc32(png.subarray(pos + 4, dataEnd)) >>> 0 !== png.readUInt32BE(dataEnd))
      fail(
        name,
        `the PNG is corrupt (CRC mismatch in chunk ${type})`,
        'PngCrcError',
        'Re-export the image; the file was damaged in transit or storage.',
      );
    if (!info && type !== 'IHDR')
      fail(
        name,
        'the PNG is corrupt (IHDR is not the first chunk)',
        'InvalidPngHeader',
        'Re-export the image with a standard tool.',
      );
    if (type === 'IHDR') {
      if (len !== 13)
        fail(
          name,
          'the PNG header (IHDR) has the wrong length',
          'InvalidPngHeader',
          'Re-export the image with a standard tool.',
        );
      info = {
        width: png.readUInt32BE(dataStart),
        height: png.readUInt32BE(dataStart + 4),
        bitDepth: png[dataStart + 8],
        colourType: png[dataStart + 9],
        interlaced: png[dataStart + 12] === 1,
        idat: [],
      };
      if (!info.width || !info.height)
        fail(
          name,
          'the PNG header declares a zero width or height',
          'InvalidPngHeader',
          'Re-export the image with a standard tool.',
        );
    } else if (type === 'pHYs' && len === 9 && info) {
      if (png[dataStart + 8] === 1) {
        const ppmX = png.readUInt32BE(dataStart);
        const ppmY = png.readUInt32BE(dataStart + 4);
        if (ppmX > 0 && ppmY > 0) {
          info.dpiX = (ppmX * MM_PER_INCH) / 1000;
          info.dpiY = (ppmY * MM_PER_INCH) / 1000;
        }
      }
    } else if (type === 'IDAT' && info) {
      info.idat.push(png.subarray(dataStart, dataEnd));
    } else if (type === 'IEND') {
      sawEnd = true;
      break;
    }
    pos = dataEnd + 4;
  }
  if (!info)
    fail(
      name,
      'the PNG has no header (IHDR)',
      'InvalidPngHeader',
      'Re-export the image with a standard tool.',
    );
  if (!sawEnd)
    fail(
      name,
      'the PNG is truncated (no IEND chunk)',
      'TruncatedPng',
      'The base64 text was probably cut off; send the whole file.',
    );
  return info;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * Inflates the image data with node:zlib, which checks the stream and its Adler-32: pngjs's
 * synchronous decoder ignores zlib errors on Node 20 and decodes whatever memory it got. The
 * output is bounded by the size IHDR implies, so this also cannot balloon.
 */
function inflateImageData(name: string, info: PngInfo): void {
  const channels = CHANNELS[info.colourType];
  if (!channels || ![1, 2, 4, 8, 16].includes(info.bitDepth))
    fail(
      name,
      `the PNG header declares an invalid colour type ${info.colourType} / bit depth ${info.bitDepth}`,
      'InvalidPngHeader',
      'Re-export the image with a standard tool.',
    );
  const rowBytes = Math.ceil((info.width * channels * info.bitDepth) / 8);
  const expected = info.height * (rowBytes + 1);
  // Adam7 adds a filter byte per row of each of its seven passes: a few rows more at most.
  const bound = info.interlaced ? expected + 7 * (info.height + 8) : expected;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(info.idat), { maxOutputLength: Math.max(bound, 1) });
  } catch (e) {
    return fail(
      name,
      `the PNG image data is corrupt (${(e as Error).message})`,
      'PngDecodeError',
      'Re-export the image; the file was damaged in transit or storage.',
    );
  }
  if (!info.interlaced && raw.length !== expected)
    fail(
      name,
      `the PNG image data holds ${raw.length} bytes where its header implies ${expected}`,
      'PngDecodeError',
      'Re-export the image; the file was damaged in transit or storage.',
    );
}

function decodeBase64(name: string, raw: unknown, maxBytes: number): Buffer {
  if (typeof raw !== 'string' || raw.length === 0)
    fail(
      name,
      "the image has no 'data' text",
      'MissingImageData',
      "Put the base64-encoded PNG in the image's 'data' field.",
    );
  let text = raw;
  if (text.startsWith('data:')) {
    if (!DATA_URL_PNG.test(text))
      fail(
        name,
        `unsupported data URL '${text.slice(0, 40).split(',')[0]}': only PNG is accepted`,
        'UnsupportedDataUrl',
        'Send plain base64 PNG data without a data: prefix.',
      );
    text = text.replace(DATA_URL_PNG, '');
  }
  // Line breaks as MIME encoders write them are fine; any other character is not base64.
  text = text.replace(/[\r\n]/g, '');
  if (text.length % 4 !== 0 || !BASE64.test(text))
    fail(
      name,
      'the data is not valid base64 (characters outside the base64 alphabet, or wrong padding)',
      'Base64DecodeError',
      'Encode the PNG file with standard base64 (RFC 4648) and send the text unchanged.',
    );
  const decodedSize = (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0);
  if (decodedSize > maxBytes)
    throw new PayloadTooLargeError(
      `Image '${name}' is ${decodedSize} bytes; the limit is ${maxBytes} bytes`,
      {
        image_name: name,
        size: decodedSize,
        limit: maxBytes,
      },
    );
  return Buffer.from(text, 'base64');
}

function sizeField(name: string, img: Record<string, unknown>, field: SizeField): number | undefined {
  const v = img[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
    fail(
      name,
      `${field} must be a positive number`,
      'InvalidImageSize',
      `Give ${field} as a number greater than 0, or leave it out.`,
    );
  return v;
}

/**
 * The image's size in the document: millimetres win over pixels (96 px = 25.4 mm); one dimension
 * keeps the aspect ratio; none gives the PNG's own size at its pHYs DPI, else at 96 DPI.
 */
export function imageSizeMm(
  name: string,
  img: Record<string, unknown>,
  info: PngInfo,
): { widthMm: number; heightMm: number } {
  const wMm = sizeField(name, img, 'width_mm');
  const hMm = sizeField(name, img, 'height_mm');
  const wPx = sizeField(name, img, 'width_px');
  const hPx = sizeField(name, img, 'height_px');
  const pxToMm = (px: number) => (px * MM_PER_INCH) / DEFAULT_DPI;
  let w: number | undefined;
  let h: number | undefined;
  if (wMm !== undefined || hMm !== undefined) {
    w = wMm;
    h = hMm;
  } else if (wPx !== undefined || hPx !== undefined) {
    w = wPx !== undefined ? pxToMm(wPx) : undefined;
    h = hPx !== undefined ? pxToMm(hPx) : undefined;
  }
  const ratio = info.height / info.width;
  if (w === undefined && h === undefined) {
    w = (info.width * MM_PER_INCH) / (info.dpiX ?? DEFAULT_DPI);
    h = (info.height * MM_PER_INCH) / (info.dpiY ?? DEFAULT_DPI);
  } else if (w === undefined) w = h! / ratio;
  else if (h === undefined) h = w * ratio;
  if (w! > MAX_SIDE_MM || h! > MAX_SIDE_MM)
    fail(
      name,
      `the image would be ${Math.round(w!)} × ${Math.round(h!)} mm, larger than ${MAX_SIDE_MM} mm`,
      'InvalidImageSize',
      'Give width_mm or height_mm to size the image for the page.',
    );
  return { widthMm: w!, heightMm: h! };
}

export interface PrepareOptions {
  /**
   * The pixels were already decoded by whoever queued the request (the API does, before
   * queueing): skip the zlib and pngjs decode, the costliest part (~60 ms for a 3.6 MB PNG).
   * Base64, chunk CRCs, IHDR and the pixel cap are still checked; sizes need them anyway.
   */
  pixelsVerified?: boolean;
  /** PNGs whose pixels decoded before in this process (the API keeps one): not decoded again. */
  decodedBefore?: RecentDigests;
}

export function prepareImage(
  name: string,
  img: unknown,
  limits: ImageLimits = DEFAULT_IMAGE_LIMITS,
  options: PrepareOptions = {},
): PreparedImage {
  if (img === null || typeof img !== 'object' || Array.isArray(img))
    fail(
      name,
      'the image must be an object with a data field',
      'InvalidImageData',
      'Send {"data": "<base64 PNG>", "width_mm": 40} for each image.',
    );
  const record = img as Record<string, unknown>;
  const png = decodeBase64(name, record.data, limits.maxImageBytes);
  const info = readPngChunks(name, png);
  if (info.width * info.height > limits.maxImagePixels)
    fail(
      name,
      `the PNG declares ${info.width} × ${info.height} pixels, more than the limit of ${limits.maxImagePixels}`,
      'ImageTooLarge',
      'Scale the image down before sending it; print needs about 300 pixels per inch at most.',
    );
  if (!options.pixelsVerified) {
    const decode = () => {
      inflateImageData(name, info);
      try {
        PNG.sync.read(png, { checkCRC: true });
      } catch (e) {
        fail(
          name,
          `the PNG cannot be decoded: ${(e as Error).message}`,
          'PngDecodeError',
          'Re-export the image with a standard tool.',
        );
      }
    };
    if (options.decodedBefore) options.decodedBefore.ensure(png, decode);
    else decode();
  }
  const { widthMm, heightMm } = imageSizeMm(name, record, info);
  return {
    name,
    png,
    widthPx: info.width,
    heightPx: info.height,
    widthEmu: Math.round(widthMm * EMU_PER_MM),
    heightEmu: Math.round(heightMm * EMU_PER_MM),
    ...(typeof record.alt === 'string' ? { alt: record.alt } : {}),
    ...(record.decorative === true ? { decorative: true } : {}),
  };
}

/** Checks every image of a request; the first failure is thrown, naming its image. */
export function prepareImages(
  images: Record<string, unknown> | undefined | null,
  limits: Partial<ImageLimits> = {},
  options: PrepareOptions = {},
): Map<string, PreparedImage> {
  const l = { ...DEFAULT_IMAGE_LIMITS, ...limits };
  const out = new Map<string, PreparedImage>();
  if (images === undefined || images === null) return out;
  const names = Object.keys(images);
  if (names.length > l.maxImages)
    throw new PayloadTooLargeError(`The request has ${names.length} images; the limit is ${l.maxImages}`, {
      images: names.length,
      limit: l.maxImages,
    });
  for (const name of names) {
    // Own-property read: an image named `__proto__` is an image, not the object's prototype.
    const value = Object.getOwnPropertyDescriptor(images, name)?.value;
    out.set(name, prepareImage(name, value, l, options));
  }
  return out;
}
