/**
 * Page images (`options.output` png / jpeg): the PDF the same request would produce, drawn by
 * poppler's pdftoppm, so an image shows exactly what the PDF shows (on either converter's route).
 * One page answers the image; several a ZIP of page-1.png, page-2.png, … (PizZip, as batch zips).
 *
 * pdftoppm and pdfinfo run with an argument array (never a shell), a timeout, and in a directory
 * of their own that is removed afterwards.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import PizZip from 'pizzip';
import { PNG } from 'pngjs';

import { defaultWorkDir } from '../work-dir';

import { ConversionFailedError } from '../errors';
import {
  checkImagePixels,
  DEFAULT_IMAGE_DPI,
  type ImageSizing,
  type PageSizePt,
  parsePageSelection,
  selectedPages,
} from './page-selection';

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
  /** Parent of the job's directory (default defaultWorkDir()). */
  tmpDir?: string;
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

function run(cmd: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024, encoding: 'latin1' },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const killed = (error as { killed?: boolean }).killed === true;
        const why = killed
          ? `did not finish within ${timeoutMs} ms`
          : String(stderr).trim().split('\n').pop() || error.message;
        reject(
          new ConversionFailedError(`${cmd} could not read the PDF: ${why}`, {
            backend: 'poppler',
            reason: killed ? 'timeout' : 'poppler_error',
          }),
        );
      },
    );
  });
}

/**
 * Every page's size in points, from `pdfinfo -f 1 -l <last>` ("Page    3 size: 595.28 x 841.89 pts",
 * "Page    3 rot:   90"); a page rotated by 90° or 270° draws wide, as pdftoppm draws it.
 */
export async function pdfPageSizes(pdfPath: string, timeoutMs: number): Promise<PageSizePt[]> {
  // pdfinfo clamps -l to the page count.
  const info = await run('pdfinfo', ['-f', '1', '-l', '1000000', pdfPath], timeoutMs);
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

function pdftoppmArgs(o: PageImageOptions, page: number, pdfPath: string, outPrefix: string): string[] {
  const args = ['-f', String(page), '-l', String(page), '-singlefile'];
  // PNG: pdftoppm's raw PPM, encoded here (ppmToPng): its own PNG writer took ~250 ms of a
  // 96-dpi A4 page's ~260 ms on this 2-core machine, pngjs with the Paeth filter ~30 ms.
  if (o.format === 'jpeg') args.push('-jpeg', '-jpegopt', `quality=${o.quality ?? DEFAULT_JPEG_QUALITY}`);
  if (o.width_px !== undefined || o.height_px !== undefined) {
    // -1 keeps the page's aspect on the side not given.
    args.push('-scale-to-x', String(o.width_px ?? -1), '-scale-to-y', String(o.height_px ?? -1));
  } else {
    const dpi = String(o.dpi ?? DEFAULT_IMAGE_DPI);
    args.push('-rx', dpi, '-ry', dpi);
  }
  args.push(pdfPath, outPrefix);
  return args;
}

/**
 * A binary PPM (P6, 8-bit RGB, as pdftoppm writes it) as a PNG. Hand-written header parse: the
 * netpbm header is four whitespace-separated fields; pngjs does the PNG. Filter Paeth (4): 251 KB
 * for the corpus invoice's page at 96 dpi (pdftoppm's own PNG: 185 KB), in ~30 ms instead of ~250.
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
  const png = new PNG({ width, height });
  png.data = ppm.subarray(header[0].length, header[0].length + width * height * 3);
  return PNG.sync.write(png, { colorType: 2, inputColorType: 2, inputHasAlpha: false, filterType: 4 });
}

/**
 * The pages `options.pages` names of `pdf` as PNG or JPEG: one image, or a ZIP of
 * page-<n>.<ext> for several. Typed errors: 400 for a bad `pages`, 422 (`page_out_of_range`,
 * `details.pageCount`) for a page beyond the document, 413 beyond `maxPixels` (before pdftoppm
 * runs), 502 when poppler fails.
 */
export async function pdfToPageImages(
  pdf: Buffer,
  options: PageImageOptions,
  limits: PageImageLimits = {},
): Promise<PageImages> {
  const selection = parsePageSelection(options.pages);
  const timeoutMs = limits.timeoutMs ?? PAGE_IMAGE_DEFAULTS.timeoutMs;
  const dir = await mkdtemp(join(limits.tmpDir ?? defaultWorkDir(), 'images-'));
  try {
    const pdfPath = join(dir, 'in.pdf');
    await writeFile(pdfPath, pdf);
    const sizes = await pdfPageSizes(pdfPath, timeoutMs);
    const pages = selectedPages(selection, sizes.length);
    checkImagePixels(
      pages.map((p) => sizes[p - 1]),
      options,
      limits.maxPixels ?? PAGE_IMAGE_DEFAULTS.maxPixels,
    );
    const ext = EXTENSION[options.format];
    // One pdftoppm per page with -singlefile: its file name is then known (a range's names are
    // zero-padded to the page count's digits), and the pages of a list need not be contiguous.
    const bodies: Buffer[] = [];
    for (const page of pages) {
      const prefix = join(dir, `page-${page}`);
      await run('pdftoppm', pdftoppmArgs(options, page, pdfPath, prefix), timeoutMs);
      bodies.push(
        options.format === 'png'
          ? ppmToPng(await readFile(`${prefix}.ppm`))
          : await readFile(`${prefix}.${ext}`),
      );
    }
    if (pages.length === 1) {
      return {
        body: bodies[0],
        contentType: options.format === 'png' ? 'image/png' : 'image/jpeg',
        extension: ext,
        pages,
      };
    }
    const zip = new PizZip();
    pages.forEach((page, i) => zip.file(`page-${page}.${ext}`, bodies[i], { binary: true }));
    // Stored, not deflated: PNG and JPEG are compressed already.
    const body = zip.generate({ type: 'nodebuffer', compression: 'STORE' });
    return { body, contentType: 'application/zip', extension: 'zip', pages };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
