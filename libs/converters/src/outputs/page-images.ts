/**
 * Page images (`options.output` png / jpeg): the PDF the same request would produce, drawn as a
 * picture (on either converter's route). One page answers the image; several a ZIP of
 * page-1.png, page-2.png, … (PizZip, as batch zips).
 *
 * PNG is drawn in process by PDFium (wasm, pdfium-renderer.ts), band by band, each band deflated
 * by Node's zlib while the next is drawn (drawPng): no second process, ~14 ms for the corpus
 * invoice's page at 96 dpi where pdfinfo + pdftoppm took ~65 ms (28 Nov 2026, this 2-core
 * machine; bench/README.md, issue 36). poppler (pdfinfo, pdftoppm)
 * stays the renderer of JPEG (pdftoppm's libjpeg; jpeg-js took ~150 ms a page), of a PDF larger
 * than PDFIUM_LIMITS.maxPdfBytes or a page beyond PDFIUM_LIMITS.maxPagePixels (kept out of the
 * worker's heap, in a process that a timeout can kill), and of a PDF PDFium cannot open (poppler
 * then says why, as before).
 *
 * pdftoppm and pdfinfo run with an argument array (never a shell) and a timeout, reading the PDF
 * on stdin and writing to stdout: no file is written, so there is nothing to clean up and no
 * directory to make (about 5 ms of a thumbnail's time on this machine).
 */
import { spawn } from 'node:child_process';
import { crc32, createDeflate, deflateSync } from 'node:zlib';

import { PDFDocument, StandardFonts } from 'pdf-lib';
import PizZip from 'pizzip';

import { ConversionFailedError } from '../errors';
import {
  checkImagePixels,
  DEFAULT_IMAGE_DPI,
  type ImageSizing,
  type PageSelection,
  type PageSizePt,
  pagePixels,
  pageScale,
  parsePageSelection,
  selectedPages,
} from './page-selection';
import { openPdfium, PDFIUM_LIMITS, type PdfiumDocument, PdfiumOpenError } from './pdfium-renderer';

export type ImageFormat = 'png' | 'jpeg';

export interface PageImageOptions extends ImageSizing {
  format: ImageFormat;
  /** `"1"` (default), `"2-4"`, `"1,3"`, `"all"`. */
  pages?: string;
  /** JPEG quality 1–100 (default 85). */
  quality?: number;
}

export interface PageImageLimits {
  /** MAX_IMAGE_OUTPUT_PIXELS: refused (413) before pdftoppm runs. */
  maxPixels?: number;
  /** Wall-clock limit of each poppler process (default 30 s). */
  timeoutMs?: number;
  /** Largest page PDFium draws in process; larger ones go to pdftoppm (default PDFIUM_LIMITS.maxPagePixels). */
  maxInProcessPagePixels?: number;
}

export interface PageImages {
  body: Buffer;
  contentType: 'image/png' | 'image/jpeg' | 'application/zip';
  extension: 'png' | 'jpg' | 'zip';
  /** The pages drawn, 1-based. */
  pages: number[];
}

export const DEFAULT_JPEG_QUALITY = 85;
/** maxPixels: about 225 A4 pages at 96 dpi, or 23 at 300 dpi. */
export const PAGE_IMAGE_DEFAULTS = { timeoutMs: 30_000, maxPixels: 200_000_000 } as const;

const EXTENSION: Record<ImageFormat, 'png' | 'jpg'> = { png: 'png', jpeg: 'jpg' };

/** stderr's tail is all a failure message needs. */
const MAX_STDERR = 4096;

/**
 * `cmd args` with `input` on stdin; its stdout, or a typed 502 (a timeout, an exit other than 0,
 * more output than `maxOutput`). `signal` kills it (a speculative page no longer wanted).
 */
function runPoppler(
  cmd: string,
  args: string[],
  input: Buffer,
  o: { timeoutMs: number; maxOutput: number; signal?: AbortSignal },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      signal: o.signal,
      killSignal: 'SIGKILL',
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    let why: string | undefined;
    const stop = (reason: string) => {
      why ??= reason;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(`did not finish within ${o.timeoutMs} ms`), o.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > o.maxOutput) return stop(`wrote more than ${o.maxOutput} bytes`);
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('latin1')).slice(-MAX_STDERR);
    });
    // A process that exits before reading all its input (a broken PDF) closes the pipe: not an error of ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error.name === 'AbortError' ? error : failure(cmd, error.message, 'poppler_error'));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (o.signal?.aborted) return; // 'error' has rejected with the AbortError
      if (code === 0 && why === undefined) return resolve(Buffer.concat(out));
      const detail = why ?? (stderr.trim().split('\n').pop() || `exit code ${code}`);
      reject(failure(cmd, detail, why?.startsWith('did not') ? 'timeout' : 'poppler_error'));
    });
  });
}

function failure(cmd: string, why: string, reason: string): ConversionFailedError {
  return new ConversionFailedError(`${cmd} could not read the PDF: ${why}`, { backend: 'poppler', reason });
}

/**
 * Every page's size in points, from `pdfinfo -f 1 -l <last>` ("Page    3 size: 595.28 x 841.89 pts",
 * "Page    3 rot:   90"); a page rotated by 90° or 270° draws wide, as pdftoppm draws it.
 */
export async function pdfPageSizes(pdf: Buffer, timeoutMs: number): Promise<PageSizePt[]> {
  // pdfinfo clamps -l to the page count.
  const info = (
    await runPoppler('pdfinfo', ['-f', '1', '-l', '1000000', '-'], pdf, {
      timeoutMs,
      maxOutput: 64 * 1024 * 1024,
    })
  ).toString('latin1');
  const rotations = new Map<number, number>();
  for (const m of info.matchAll(/^Page\s+(\d+)\s+rot:\s+(\d+)/gm)) rotations.set(Number(m[1]), Number(m[2]));
  const sizes: PageSizePt[] = [];
  for (const m of info.matchAll(/^Page\s+(\d+)\s+size:\s+([\d.]+)\s+x\s+([\d.]+)/gm)) {
    const [w, h] = [Number(m[2]), Number(m[3])];
    const turned = (rotations.get(Number(m[1])) ?? 0) % 180 === 90;
    sizes.push(turned ? { width: h, height: w } : { width: w, height: h });
  }
  if (sizes.length === 0) {
    throw new ConversionFailedError('pdfinfo found no pages in the PDF', {
      backend: 'poppler',
      reason: 'no_output',
    });
  }
  return sizes;
}

/** pdftoppm's arguments for one page of the PDF on stdin, written to stdout. */
function pdftoppmArgs(o: PageImageOptions, page: number): string[] {
  const args = ['-f', String(page), '-l', String(page), '-singlefile'];
  // PNG: pdftoppm's raw PPM, encoded here (ppmToPng): its own PNG writer took ~110 ms of a
  // 96-dpi A4 page's ~130 ms on this 2-core machine, pngjs ~10 ms.
  if (o.format === 'jpeg') args.push('-jpeg', '-jpegopt', `quality=${o.quality ?? DEFAULT_JPEG_QUALITY}`);
  if (o.width_px !== undefined || o.height_px !== undefined) {
    // -1 keeps the page's aspect on the side not given.
    args.push('-scale-to-x', String(o.width_px ?? -1), '-scale-to-y', String(o.height_px ?? -1));
  } else {
    const dpi = String(o.dpi ?? DEFAULT_IMAGE_DPI);
    args.push('-rx', dpi, '-ry', dpi);
  }
  args.push('-');
  return args;
}

/**
 * A binary PPM (P6, 8-bit RGB, as pdftoppm writes it) as a PNG. Hand-written header parse: the
 * netpbm header is four whitespace-separated fields; rgbToPng does the PNG. No row filter (0): a
 * document page is mostly flat colour, so the corpus invoice's page at 96 dpi is 112 KB in ~10 ms,
 * where Paeth (4) gave 102 KB in ~28 ms and pdftoppm's own PNG writer took ~110 ms
 * (28 Nov 2026, this 2-core machine, 10 runs each).
 */
export function ppmToPng(ppm: Buffer): Buffer {
  const header = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(ppm.subarray(0, 64).toString('latin1'));
  if (!header || header[3] !== '255') {
    throw new ConversionFailedError('pdftoppm wrote no 8-bit PPM', {
      backend: 'poppler',
      reason: 'no_output',
    });
  }
  const width = Number(header[1]);
  const height = Number(header[2]);
  return rgbToPng(ppm.subarray(header[0].length, header[0].length + width * height * 3), width, height);
}

const PNG_SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

/** One PNG chunk: length, type, data, CRC-32 of type and data. */
function pngChunk(type: string, data: Buffer): Buffer[] {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))) >>> 0, 0);
  return [head, data, crc];
}

/**
 * 8-bit RGB rows as a PNG: rows unfiltered (see ppmToPng for why), deflated at level 1.
 * Hand-written (IHDR, one IDAT, IEND; Node's zlib deflates and sums): pngjs made the same bytes
 * in ~30 ms for PDFium's corpus invoice page at 96 dpi, most of it its JavaScript row packing,
 * this ~14 ms. Level 1 with the default strategy, not pngjs's level 9 run-length: 220 KB instead
 * of 362 KB in the same time (the contract's first page 51 KB instead of 59 KB). 28 Nov 2026,
 * this 2-core machine, 20 runs each.
 */
export function rgbToPng(rgb: Buffer, width: number, height: number): Buffer {
  const stride = width * 3;
  const rows = Buffer.allocUnsafe((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    rows[y * (stride + 1)] = 0; // filter type 0 (None)
    rgb.copy(rows, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
  }
  return pngOf(width, height, deflateSync(rows, { level: 1 }));
}

/** An 8-bit RGB PNG of `width` × `height` from its zlib stream of scanlines. */
function pngOf(width: number, height: number, zlibStream: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type: RGB (compression, filter method, interlace: 0)
  return Buffer.concat([
    PNG_SIGNATURE,
    ...pngChunk('IHDR', header),
    ...pngChunk('IDAT', zlibStream),
    ...pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * The pages `options.pages` names of `pdf` as PNG or JPEG: one image, or a ZIP of
 * page-<n>.<ext> for several. Typed errors: 400 for a bad `pages`, 422 (`page_out_of_range`,
 * `details.pageCount`) for a page beyond the document, 413 beyond `maxPixels` (before anything
 * is drawn), 502 when poppler fails.
 */
export async function pdfToPageImages(
  pdf: Buffer,
  options: PageImageOptions,
  limits: PageImageLimits = {},
): Promise<PageImages> {
  const selection = parsePageSelection(options.pages);
  const maxPixels = limits.maxPixels ?? PAGE_IMAGE_DEFAULTS.maxPixels;
  const doc = options.format === 'png' ? await openInProcess(pdf) : undefined;
  if (doc) {
    try {
      const maxPagePixels = limits.maxInProcessPagePixels ?? PDFIUM_LIMITS.maxPagePixels;
      const drawn = drawInProcess(doc, selection, options, maxPixels, maxPagePixels);
      if (drawn) return packImages(await drawn, options.format);
    } catch (error) {
      // A page PDFium cannot load or find memory for: poppler draws the request, or says why not.
      if (!(error instanceof PdfiumOpenError)) throw error;
    } finally {
      doc.close();
    }
  }
  return packImages(await drawWithPoppler(pdf, selection, options, limits), options.format);
}

/** `pdf` opened by PDFium, or undefined where poppler draws it instead (see the file's comment). */
async function openInProcess(pdf: Buffer): Promise<PdfiumDocument | undefined> {
  if (pdf.length > PDFIUM_LIMITS.maxPdfBytes) return undefined;
  return openPdfium(pdf).catch(() => undefined);
}

interface DrawnPages {
  pages: number[];
  bodies: Buffer[];
}

/**
 * The selected pages drawn by PDFium as PNG, after the same checks as poppler's path (page
 * range, pixel limit); undefined when a page is larger than the in-process limit.
 */
function drawInProcess(
  doc: PdfiumDocument,
  selection: PageSelection,
  options: PageImageOptions,
  maxPixels: number,
  maxPagePixels: number,
): Promise<DrawnPages> | undefined {
  const sizes = Array.from({ length: doc.pageCount }, (_, i) => doc.pageSize(i));
  if (sizes.length === 0) {
    throw new ConversionFailedError('the PDF has no pages', { backend: 'pdfium', reason: 'no_output' });
  }
  const pages = selectedPages(selection, sizes.length);
  const selected = pages.map((p) => sizes[p - 1]);
  checkImagePixels(selected, options, maxPixels);
  const pixels = selected.map((size) => pagePixels(size, options));
  if (pixels.some(({ width, height }) => width * height > maxPagePixels)) return undefined;
  return (async () => {
    const bodies: Buffer[] = [];
    for (const [i, page] of pages.entries()) {
      bodies.push(await drawPng(doc, page - 1, pixels[i], pageScale(selected[i], options)));
    }
    return { pages, bodies };
  })();
}

/** Rows of a page drawn at a time (~2 ms each for a page of text at 96 dpi, this machine). */
const BAND_ROWS = 256;

/**
 * Page `index` as a PNG, drawn band by band: each band goes to zlib (level 1, as rgbToPng) on
 * libuv's thread pool while the next is drawn, and the event loop runs between bands. Against
 * drawing the page whole and deflating after, 16.3 → 13.7 ms for the corpus invoice's page at
 * 96 dpi (the same bytes; 30 runs, 28 Nov 2026, this 2-core machine). The stream's chunkSize
 * holds a band's output, so a band is one trip to the pool (at the default 16 KB each band took
 * several, each waiting for the event loop that the next band's drawing held, and nothing ran
 * side by side).
 */
async function drawPng(
  doc: PdfiumDocument,
  index: number,
  size: { width: number; height: number },
  scale: { x: number; y: number },
): Promise<Buffer> {
  const page = doc.loadPage(index);
  const deflate = createDeflate({ level: 1, chunkSize: 1 << 20 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const deflated = new Promise<void>((resolve, reject) => {
    deflate.on('end', resolve);
    deflate.on('error', reject);
  });
  deflated.catch(() => undefined); // awaited below; a failure before then is not unhandled
  try {
    for (let top = 0; top < size.height; top += BAND_ROWS) {
      const rows = Math.min(BAND_ROWS, size.height - top);
      deflate.write(page.scanlines(size.width, scale.x, scale.y, top, rows));
      await new Promise((resolve) => setImmediate(resolve));
    }
    deflate.end();
    await deflated;
  } catch (error) {
    deflate.destroy();
    throw error;
  } finally {
    page.close();
  }
  return pngOf(size.width, size.height, Buffer.concat(chunks));
}

/** The selected pages drawn by pdftoppm, each in its own process; pdfinfo gives the page sizes. */
async function drawWithPoppler(
  pdf: Buffer,
  selection: PageSelection,
  options: PageImageOptions,
  limits: PageImageLimits,
): Promise<DrawnPages> {
  const timeoutMs = limits.timeoutMs ?? PAGE_IMAGE_DEFAULTS.timeoutMs;
  const maxPixels = limits.maxPixels ?? PAGE_IMAGE_DEFAULTS.maxPixels;
  // Output beyond the pixels allowed (3 bytes each, and a JPEG is smaller) is a runaway process.
  const draw = (page: number, signal?: AbortSignal) =>
    runPoppler('pdftoppm', pdftoppmArgs(options, page), pdf, {
      timeoutMs,
      maxOutput: maxPixels * 3 + 1024,
      ...(signal ? { signal } : {}),
    }).then((out) => (options.format === 'png' ? ppmToPng(out) : out));

  // A thumbnail (the first page only, the default) is drawn while pdfinfo reads the page sizes,
  // and dropped if they refuse it: the worker has already refused (413) from the template's page
  // size before the fill, so this one is only the exact check. It saves a process's time (~20 ms).
  const firstOnly = !selection.all && selection.pages.length === 1 && selection.pages[0] === 1;
  const speculation = new AbortController();
  const first = firstOnly ? draw(1, speculation.signal) : undefined;
  first?.catch(() => undefined); // awaited below, unless the sizes refuse the request first
  let pages: number[];
  try {
    const sizes = await pdfPageSizes(pdf, timeoutMs);
    pages = selectedPages(selection, sizes.length);
    checkImagePixels(
      pages.map((p) => sizes[p - 1]),
      options,
      maxPixels,
    );
  } catch (error) {
    speculation.abort();
    throw error;
  }
  // One pdftoppm per page with -singlefile: its output is one image, and the pages of a list need
  // not be contiguous.
  const bodies: Buffer[] = [];
  for (const page of pages) bodies.push(await (first && page === 1 ? first : draw(page)));
  return { pages, bodies };
}

/** One page's image as the answer, or a ZIP of page-<n>.<ext> for several. */
function packImages({ pages, bodies }: DrawnPages, format: ImageFormat): PageImages {
  const ext = EXTENSION[format];
  if (pages.length === 1) {
    return {
      body: bodies[0],
      contentType: format === 'png' ? 'image/png' : 'image/jpeg',
      extension: ext,
      pages,
    };
  }
  const zip = new PizZip();
  pages.forEach((page, i) => zip.file(`page-${page}.${ext}`, bodies[i], { binary: true }));
  // Stored, not deflated: PNG and JPEG are compressed already.
  const body = zip.generate({ type: 'nodebuffer', compression: 'STORE' });
  return { body, contentType: 'application/zip', extension: 'zip', pages };
}

/**
 * Loads the in-process renderer and draws a page of text three times, so that a worker's first
 * page image does not pay for it: the first page a process drew took ~400 ms (the wasm compiled,
 * then its hot code optimised), later ones ~25–50 ms; after this warm-up (~350 ms) the first
 * was 64 ms (the Writer-saved corpus document, 28 Nov 2026, this 2-core machine). For a worker's
 * start, beside the converter's warm-up; a failure only means PNG is drawn by poppler.
 */
export async function warmPageRenderer(): Promise<void> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595.28, 841.89]);
  const fonts = [StandardFonts.Helvetica, StandardFonts.TimesRoman, StandardFonts.HelveticaBold];
  for (const [i, name] of fonts.entries()) {
    const font = await doc.embedFont(name);
    for (let line = 0; line < 15; line++) {
      page.drawText('The quick brown fox jumps over the lazy dog 0123456789', {
        x: 40,
        y: 800 - (i * 15 + line) * 16,
        size: 10 + (line % 3),
        font,
      });
    }
  }
  page.drawRectangle({ x: 40, y: 40, width: 500, height: 20, borderWidth: 1 });
  const pdf = Buffer.from(await doc.save());
  for (let round = 0; round < 3; round++) await pdfToPageImages(pdf, { format: 'png' });
}
