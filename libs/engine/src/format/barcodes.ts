/**
 * Barcodes and QR codes drawn from template data (`qrcode`, `barcode`, `epc_qr` filters): bwip-js
 * (BWIPP in plain JavaScript) encodes and draws; we pick the scale so the PNG has at least 300
 * dots per inch at the size it takes in the document, and write the PNG ourselves from its pixels
 * so a filter stays synchronous (bwip-js's own PNG writer deflates through a stream).
 */
import bwipjs from 'bwip-js';
import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { FormatValueError } from './errors';

/** The symbologies the `barcode` filter draws: our names → bwip-js's encoder ids. */
export const BARCODE_TYPES: Readonly<Record<string, { bcid: string; twoD: boolean; maxChars: number }>> = {
  qrcode: { bcid: 'qrcode', twoD: true, maxChars: 2000 },
  code128: { bcid: 'code128', twoD: false, maxChars: 80 },
  'gs1-128': { bcid: 'gs1-128', twoD: false, maxChars: 80 },
  ean13: { bcid: 'ean13', twoD: false, maxChars: 13 },
  ean8: { bcid: 'ean8', twoD: false, maxChars: 8 },
  upca: { bcid: 'upca', twoD: false, maxChars: 12 },
  code39: { bcid: 'code39', twoD: false, maxChars: 43 },
  itf14: { bcid: 'itf14', twoD: false, maxChars: 14 },
  datamatrix: { bcid: 'datamatrix', twoD: true, maxChars: 2000 },
  pdf417: { bcid: 'pdf417', twoD: true, maxChars: 1000 },
};

/** Sides of a drawn code, in millimetres: smaller cannot be scanned, larger is not a label. */
export const MIN_SIDE_MM = 5;
export const MAX_SIDE_MM = 200;
/** Codes one document may draw (each distinct payload and size once; repeats reuse the image). */
export const MAX_BARCODES_PER_DOCUMENT = 500;
/**
 * Pixels all codes of one document may take together (each code is drawn at ≥ 300 dpi): about
 * 16 codes of 200 × 200 mm, or 700 of 30 mm. Bounds the drawing time of a document (~0.3 s per
 * 200 mm QR code) well inside a job's budget.
 */
export const MAX_BARCODE_PIXELS_PER_DOCUMENT = 100_000_000;
/** The resolution every code is drawn at, at least. */
export const MIN_DPI = 300;

const EMU_PER_MM = 36000;
const PT_PER_MM = 72 / 25.4;

export interface BarcodeImage {
  name: string;
  png: Buffer;
  widthPx: number;
  heightPx: number;
  widthEmu: number;
  heightEmu: number;
  /** What the code says, for the picture's description (alt text). */
  descr: string;
}

interface Raster {
  w: number;
  h: number;
  rgba: Buffer; // PNG scanlines: a filter byte, then RGBA, per row
}

type BwipOptions = Parameters<typeof bwipjs.render>[0];

function raster(opts: BwipOptions): Raster {
  // bwip-js's PNG drawing, with its pixel buffer ours and its asynchronous end replaced.
  const d = bwipjs.drawingZlibPng(() => undefined) as unknown as {
    image: (w: number, h: number) => { buffer: Buffer; ispng: boolean };
    end: () => unknown;
  };
  let out: Raster | undefined;
  d.image = (w: number, h: number) => {
    const rgba = Buffer.alloc(w * h * 4 + h, 0xff);
    for (let y = 0; y < h; y++) rgba[y * (w * 4 + 1)] = 0;
    out = { w, h, rgba };
    return { buffer: rgba, ispng: true };
  };
  d.end = () => out;
  bwipjs.render(opts, d as never);
  if (!out) throw new Error('bwip-js drew nothing');
  return out;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** One byte per pixel, row after row: 0 black, 255 white. */
interface Grey {
  w: number;
  h: number;
  px: Buffer;
}

function greyOf(r: Raster): Grey {
  const px = Buffer.alloc(r.w * r.h);
  for (let y = 0; y < r.h; y++) {
    const src = y * (r.w * 4 + 1) + 1;
    for (let x = 0; x < r.w; x++) px[y * r.w + x] = r.rgba[src + x * 4];
  }
  return { w: r.w, h: r.h, px };
}

/** An 8-bit greyscale PNG (bars black on white), with its DPI in pHYs. */
function encodePng(g: Grey, dpi: number): Buffer {
  const row = g.w + 1;
  const data = Buffer.alloc(row * g.h); // filter byte 0 (None) before each row
  for (let y = 0; y < g.h; y++) g.px.copy(data, y * row + 1, y * g.w, (y + 1) * g.w);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(g.w, 0);
  ihdr.writeUInt32BE(g.h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const phys = Buffer.alloc(9);
  const ppm = Math.round(dpi / 0.0254);
  phys.writeUInt32BE(ppm, 0);
  phys.writeUInt32BE(ppm, 4);
  phys[8] = 1;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('pHYs', phys),
    chunk('IDAT', deflateSync(data)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Quiet zone, in modules, round the square-module 2D codes (ISO/IEC 18004: 4; ISO/IEC 16022: 1, we give 2). */
const MATRIX_QUIET: Record<string, number> = { qrcode: 4, datamatrix: 2 };

/**
 * QR and Data Matrix: encoded once by bwip-js (`raw`, its modules) and drawn here, module by
 * module, at the whole number of pixels per module that reaches 300 dpi. Rendering through
 * bwip-js's drawing would encode twice (a probe for the size, then the drawing): BWIPP's QR
 * encoder is most of a code's cost.
 */
function drawMatrix(bcid: string, text: string, opts: Record<string, unknown>, widthMm: number): Grey {
  const [sym] = bwipjs.raw(bcid, text, opts as never) as unknown as {
    pixs: number[];
    pixx: number;
    pixy: number;
  }[];
  const quiet = MATRIX_QUIET[bcid];
  const cols = sym.pixx + 2 * quiet;
  const rows = sym.pixy + 2 * quiet;
  const m = Math.max(1, Math.ceil(((widthMm / 25.4) * MIN_DPI) / cols));
  const g: Grey = { w: cols * m, h: rows * m, px: Buffer.alloc(cols * m * rows * m, 0xff) };
  for (let y = 0; y < sym.pixy; y++)
    for (let x = 0; x < sym.pixx; x++) {
      if (!sym.pixs[y * sym.pixx + x]) continue;
      for (let dy = 0; dy < m; dy++) {
        const start = ((y + quiet) * m + dy) * g.w + (x + quiet) * m;
        g.px.fill(0, start, start + m);
      }
    }
  return g;
}

export function sideArg(filter: string, value: unknown, name: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < MIN_SIDE_MM || v > MAX_SIDE_MM)
    throw new FormatValueError(
      filter,
      value,
      `${name} must be a number from ${MIN_SIDE_MM} to ${MAX_SIDE_MM} (millimetres)`,
    );
  return v;
}

/** bwip-js's error `bwipp.ean13badCharacter#6872: EAN-13 must contain only digits` → its reason. */
function bwipReason(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/^bwipp\.\w+(#\d+)?:\s*/, '').replace(/^bwip-js:\s*/, '');
}

export interface DrawRequest {
  filter: string;
  type: string;
  text: string;
  widthMm: number;
  /** Linear codes: the whole image's height. 2D codes keep their own aspect (a QR code stays square). */
  heightMm?: number;
  humanText?: boolean;
  eclevel?: string;
  /** The value as the template gave it, for error messages. */
  value: unknown;
  /** false: no ECI designator even for non-ASCII text (EPC QR codes declare UTF-8 in their payload). */
  eci?: boolean;
}

/** Draws a code as a PNG at ≥ 300 dpi for its size in the document; a 422-type error when the symbology refuses the data. */
export function drawBarcode(req: DrawRequest): BarcodeImage {
  const spec = BARCODE_TYPES[req.type];
  if (!spec)
    throw new FormatValueError(
      req.filter,
      req.value,
      `unknown barcode type ${JSON.stringify(req.type)} (one of ${Object.keys(BARCODE_TYPES).join(', ')})`,
    );
  if (!req.text) throw new FormatValueError(req.filter, req.value, 'nothing to encode (empty value)');
  if ([...req.text].length > spec.maxChars)
    throw new FormatValueError(
      req.filter,
      req.value,
      `too long for ${req.type}: ${[...req.text].length} characters, at most ${spec.maxChars}`,
    );
  // Text beyond ASCII in a 2D code is UTF-8 with ECI 26 saying so (ISO/IEC 18004's default is
  // Latin-1, and decoders guess otherwise). `^` is escaped so that parsefnc reads only our ECI.
  // An EPC payload names its charset on its third line and goes without (eci: false).
  const eci = spec.twoD && req.eci !== false && /[^\x20-\x7e]/.test(req.text);
  const base: BwipOptions = {
    bcid: spec.bcid,
    text: eci ? `^ECI000026${req.text.replace(/\^/g, '^094')}` : req.text,
    ...(eci ? { parsefnc: true } : {}),
    // Quiet zones, in points at scale 1: 4 modules round a QR code, ~10 beside linear bars.
    paddingwidth: spec.twoD ? 8 : 10,
    paddingheight: spec.twoD ? 8 : 2,
    backgroundcolor: 'FFFFFF',
    ...(spec.twoD ? {} : { includetext: req.humanText !== false, textxalign: 'center', height: 10 }),
    ...(req.eclevel ? { eclevel: req.eclevel } : {}),
  };
  try {
    let r: Grey;
    let heightMm: number;
    if (MATRIX_QUIET[spec.bcid] !== undefined) {
      const { bcid, text, ...opts } = base;
      delete opts.paddingwidth;
      delete opts.paddingheight;
      delete opts.backgroundcolor;
      r = drawMatrix(bcid, text, opts, req.widthMm);
      heightMm = (req.widthMm * r.h) / r.w;
    } else {
      // First at scale 1 (72 dpi, cheap): the symbol's size, then the scale that gives ≥ 300 dpi.
      const probe = raster({ ...base, scale: 1 }); // bwip-js's default scale is 2
      const targetPx = (req.widthMm / 25.4) * MIN_DPI;
      const scale = Math.max(1, Math.ceil(targetPx / probe.w));
      let opts: BwipOptions = { ...base, scale };
      if (spec.twoD || req.heightMm === undefined) {
        heightMm = (req.widthMm * probe.h) / probe.w;
      } else {
        // Bars high enough that bars + text + quiet zone fill width × height exactly.
        heightMm = req.heightMm;
        const extraPt = probe.h - 10 * PT_PER_MM;
        const barsPt = (probe.w * heightMm) / req.widthMm - extraPt;
        if (barsPt < 3 * PT_PER_MM)
          throw new FormatValueError(
            req.filter,
            req.value,
            `height_mm ${heightMm} leaves bars under 3 mm high at width_mm ${req.widthMm}; give more height or less width`,
          );
        opts = { ...opts, height: barsPt / PT_PER_MM };
      }
      r = greyOf(raster(opts));
    }
    if (heightMm > MAX_SIDE_MM)
      throw new FormatValueError(
        req.filter,
        req.value,
        `the code would be ${Math.round(heightMm)} mm high, more than ${MAX_SIDE_MM}`,
      );
    const dpi = (r.w * 25.4) / req.widthMm;
    const png = encodePng(r, dpi);
    const widthEmu = Math.round(req.widthMm * EMU_PER_MM);
    const heightEmu = Math.round(heightMm * EMU_PER_MM);
    const digest = createHash('sha256')
      .update(png)
      .update(`${widthEmu}x${heightEmu}`)
      .digest('hex')
      .slice(0, 16);
    return {
      name: `${req.type}-${digest}`,
      png,
      widthPx: r.w,
      heightPx: r.h,
      widthEmu,
      heightEmu,
      descr: `${req.type}: ${req.text.slice(0, 200).replace(/\s+/g, ' ')}`,
    };
  } catch (e) {
    if (e instanceof FormatValueError) throw e;
    throw new FormatValueError(req.filter, req.value, `cannot be encoded as ${req.type}: ${bwipReason(e)}`);
  }
}

// --- EPC069-12 "GiroCode" payloads (SEPA credit transfer) -------------------------------------

/** IBAN lengths of the SEPA scheme's countries (ISO 13616 registry): EPC QR codes are SEPA-only. */
const IBAN_LENGTHS: Record<string, number> = {
  AD: 24,
  AT: 20,
  BE: 16,
  BG: 22,
  CH: 21,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  EE: 20,
  ES: 24,
  FI: 18,
  FR: 27,
  GB: 22,
  GI: 23,
  GR: 27,
  HR: 21,
  HU: 28,
  IE: 22,
  IS: 26,
  IT: 27,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MT: 31,
  NL: 18,
  NO: 15,
  PL: 28,
  PT: 25,
  RO: 24,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  VA: 22,
  AL: 28,
  MD: 24,
  ME: 22,
  MK: 19,
};

/** The IBAN without spaces, upper case, when its country, length and ISO 7064 mod-97 checksum hold; else why not. */
export function checkIban(raw: string): { iban?: string; reason?: string } {
  const iban = raw.replace(/\s+/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban))
    return { reason: 'not an IBAN (country code, check digits, account)' };
  const len = IBAN_LENGTHS[iban.slice(0, 2)];
  if (len === undefined) return { reason: `country ${iban.slice(0, 2)} is not in the SEPA scheme` };
  if (iban.length !== len)
    return { reason: `a ${iban.slice(0, 2)} IBAN has ${len} characters, not ${iban.length}` };
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (const c of moved) {
    const v = c >= 'A' ? String(c.charCodeAt(0) - 55) : c;
    for (const d of v) rem = (rem * 10 + Number(d)) % 97;
  }
  return rem === 1 ? { iban } : { reason: 'the IBAN checksum is wrong (a digit is mistyped)' };
}

export interface EpcPayment {
  name: string;
  iban: string;
  bic?: string;
  amount?: number | string;
  currency?: string;
  /** Unstructured remittance text (≤ 140). */
  remittance?: string;
  /** Structured creditor reference, ISO 11649 `RF…` (≤ 35); instead of remittance. */
  reference?: string;
  /** Purpose code, 4 letters (e.g. `GDDS`). */
  purpose?: string;
  /** Beneficiary-to-originator information (≤ 70). */
  information?: string;
}

/** The EPC069-12 version 002 payload (UTF-8, SCT); throws a 422-type error naming the field that is wrong. */
export function epcPayload(value: unknown): string {
  const filter = 'epc_qr';
  const bad = (why: string) => new FormatValueError(filter, value, why);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw bad('must be a mapping {name, iban, bic?, amount, currency?, remittance?}');
  const rec = value as Record<string, unknown>;
  const own = (k: string): unknown => (Object.prototype.hasOwnProperty.call(rec, k) ? rec[k] : undefined);
  const textField = (k: string, max: number, required: boolean): string => {
    const v = own(k);
    if (v === undefined || v === null || v === '') {
      if (required) throw bad(`has no ${k}`);
      return '';
    }
    if (typeof v !== 'string') throw bad(`${k} must be text`);
    const t = v.trim();
    if (/[\r\n]/.test(t)) throw bad(`${k} must be one line`);
    if ([...t].length > max) throw bad(`${k} has ${[...t].length} characters, at most ${max}`);
    return t;
  };
  const name = textField('name', 70, true);
  const ibanRaw = textField('iban', 42, true);
  const { iban, reason } = checkIban(ibanRaw);
  if (!iban) throw bad(`iban ${JSON.stringify(ibanRaw)}: ${reason}`);
  const bic = textField('bic', 11, false).toUpperCase();
  if (bic && !/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(bic))
    throw bad(`bic ${JSON.stringify(bic)} is not a BIC (8 or 11 characters)`);
  const currency = (textField('currency', 3, false) || 'EUR').toUpperCase();
  if (currency !== 'EUR') throw bad(`currency ${currency}: EPC QR codes carry euro amounts only`);
  let amount = '';
  const a = own('amount');
  if (a !== undefined && a !== null && a !== '') {
    const s = typeof a === 'number' ? String(a) : typeof a === 'string' ? a.trim() : '';
    if (!/^\d{1,9}(\.\d{1,2})?$/.test(s) || Number(s) < 0.01)
      throw bad(`amount ${JSON.stringify(a)} must be from 0.01 to 999999999.99 with at most 2 decimals`);
    amount = `EUR${Number(s).toFixed(2)}`;
  }
  const purpose = textField('purpose', 4, false).toUpperCase();
  if (purpose && !/^[A-Z0-9]{4}$/.test(purpose)) throw bad('purpose must be a 4-character code');
  const reference = textField('reference', 35, false);
  const remittance = textField('remittance', 140, false);
  if (reference && remittance) throw bad('give reference or remittance, not both');
  const information = textField('information', 70, false);
  const lines = [
    'BCD',
    '002',
    '1',
    'SCT',
    bic,
    name,
    iban,
    amount,
    purpose,
    reference,
    remittance,
    information,
  ];
  while (lines[lines.length - 1] === '') lines.pop();
  const payload = lines.join('\n');
  if (Buffer.byteLength(payload, 'utf8') > 331)
    throw bad('the payment text is longer than EPC069-12 allows (331 bytes)');
  return payload;
}
