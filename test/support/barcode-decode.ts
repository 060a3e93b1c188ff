/**
 * Real decoders for the barcode tests: a PDF page rasterised by poppler's pdftoppm, then read by
 * zbarimg (Debian's zbar-tools 0.23: QR, Code 128 / GS1-128, EAN-13, EAN-8, UPC-A, Code 39,
 * ITF-14) and by ZXingReader (Debian's zxing-cpp-tools 1.4) for DataMatrix and PDF417, which
 * zbar 0.23 does not decode.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Decoded {
  decoder: 'zbarimg' | 'ZXingReader';
  /** The decoder's name for the symbology: zbar's `QR-Code`, `EAN-13`, …; ZXing's `DataMatrix`, `PDF417`. */
  type: string;
  text: string;
}

/** Every page of the PDF as a greyscale PNG at `dpi`, in page order. */
export function rasterise(pdf: Buffer, dir: string, dpi = 300): string[] {
  const input = join(dir, 'doc.pdf');
  writeFileSync(input, pdf);
  execFileSync('pdftoppm', ['-r', String(dpi), '-gray', '-png', input, join(dir, 'page')]);
  return readdirSync(dir)
    .filter((f) => /^page-\d+\.png$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}

const ZBAR_TYPES =
  /^(QR-Code|EAN-13|EAN-8|UPC-A|UPC-E|CODE-128|CODE-39|CODE-93|I2\/5|CODABAR|DataBar|DataBar-Exp|ISBN-10|ISBN-13|SQ-Code):/;

function runZbar(args: string[]): Buffer {
  const r = spawnSync('zbarimg', args, { maxBuffer: 1 << 24 });
  // Exit status 4: the image was read and holds no symbol.
  if (r.status !== 0 && r.status !== 4)
    throw new Error(`zbarimg failed (${r.status}): ${r.stderr.toString()}`);
  return r.stdout;
}

/**
 * zbarimg's codes: `TYPE:data` lines (a line without a type continues the data before it).
 * Its `--xml` output is not used: zbar 0.23 writes wrong bytes there for some UTF-8 payloads.
 * `binary`: the one code's data bytes as they are (-Sbinary), read as UTF-8: an EPC QR code
 * declares UTF-8 on its third line, without an ECI, and zbar would guess its charset.
 */
export function zbarimg(png: string, opts: { binary?: boolean } = {}): Decoded[] {
  // UPC-A as itself, not as an EAN-13 with a leading 0.
  const out: Decoded[] = [];
  for (const line of runZbar(['-q', '-Supca.enable', png]).toString('utf8').replace(/\n$/, '').split('\n')) {
    const m = ZBAR_TYPES.exec(line);
    if (m) out.push({ decoder: 'zbarimg', type: m[1], text: line.slice(m[0].length) });
    else if (out.length) out[out.length - 1].text += `\n${line}`;
  }
  if (opts.binary && out.length === 1)
    out[0].text = runZbar(['-q', '--raw', '-Sbinary', '-Supca.enable', png])
      .toString('utf8')
      .replace(/\n$/, '');
  return out;
}

/** ZXingReader, one code per run of `-format`: its `Text:` and `Format:` lines. */
function zxingReader(png: string, formats: string[]): Decoded[] {
  const r = spawnSync('ZXingReader', ['-format', formats.join(','), png], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.error) throw r.error;
  const out: Decoded[] = [];
  // One block per code: Text: "…" / Format: … (blocks separated by blank lines).
  for (const block of r.stdout.split(/\n\s*\n/)) {
    const text = /^Text:\s+"([\s\S]*?)"\s*$/m.exec(block);
    const format = /^Format:\s+(\S+)/m.exec(block);
    if (text && format) out.push({ decoder: 'ZXingReader', type: format[1], text: text[1] });
  }
  return out;
}

/**
 * The page cut to its ink and a 60-pixel margin: ZXingReader 1.4 finds a 25 mm DataMatrix in such
 * a cut, not on the whole A4 page.
 */
function cropToInk(png: string): string {
  const img = PNG.sync.read(readFileSync(png));
  let [x0, y0, x1, y1] = [img.width, img.height, -1, -1];
  for (let y = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++)
      if (img.data[(y * img.width + x) * 4] < 128) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
  if (x1 < 0) return png;
  const m = 60;
  const [cx, cy] = [Math.max(0, x0 - m), Math.max(0, y0 - m)];
  const out = new PNG({ width: Math.min(img.width, x1 + m) - cx, height: Math.min(img.height, y1 + m) - cy });
  PNG.bitblt(img, out, cx, cy, out.width, out.height, 0, 0);
  const path = png.replace(/\.png$/, '-ink.png');
  writeFileSync(path, PNG.sync.write(out));
  return path;
}

export interface DecodeOptions {
  /** zbar's raw bytes, read as UTF-8 (for EPC QR codes). */
  binary?: boolean;
  /** Cut each page to its ink first (one code per page). */
  crop?: boolean;
}

/** Every code on every page, by both decoders. */
export function decodePdf(pdf: Buffer, opts: DecodeOptions = {}): Decoded[][] {
  const dir = mkdtempSync(join(tmpdir(), 'barcodes-'));
  try {
    return rasterise(pdf, dir).map((page) => {
      const img = opts.crop ? cropToInk(page) : page;
      return [...zbarimg(img, opts), ...zxingReader(img, ['DataMatrix', 'PDF417'])];
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
