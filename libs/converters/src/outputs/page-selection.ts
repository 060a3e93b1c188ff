/**
 * Pure parts of the page-image output (page-images.ts): which pages `options.image.pages` names,
 * how many pixels a request would make, and the page size a .docx declares. No process, no file:
 * unit-tested beside (page-selection.spec.ts).
 */
import PizZip from 'pizzip';

import { TypedError, type ErrorDetails } from '@app/contracts';

/** `options.image.pages` names a page the document does not have (422, `details.pageCount`). */
export class PageOutOfRangeError extends TypedError {
  readonly errorType = 'page_out_of_range';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** `options.image.pages` is not `all`, a page, a range or a list of them (400). */
export class InvalidPageSelectionError extends TypedError {
  readonly errorType = 'invalid_request_structure';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** More pixels than MAX_IMAGE_OUTPUT_PIXELS would be drawn (413 `payload_too_large`). */
export class ImageOutputTooLargeError extends TypedError {
  readonly errorType = 'payload_too_large';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, { reason: 'image_output_pixels', ...details });
  }
}

export const PAGES_FIELD = 'options.image.pages';

/** A parsed selection: `all`, or page numbers (1-based, ascending, each once). */
export type PageSelection = { all: true } | { all: false; pages: number[] };

/** Longest list a selection may name (a range of 10,000 pages is no thumbnail). */
export const MAX_SELECTED_PAGES = 10_000;

/**
 * `"1"`, `"2-4"`, `"1,3"`, `"1-2, 5"`, `"all"`; undefined is `"1"`. Hand-written: the grammar is
 * five lines, and LibreOffice's PageRange syntax (which pdf.page_ranges passes on) allows more
 * (open ranges, reversed order) than an image list should.
 */
export function parsePageSelection(spec: string | undefined): PageSelection {
  const text = (spec ?? '1').trim();
  if (text.toLowerCase() === 'all') return { all: true };
  const pages = new Set<number>();
  for (const item of text.split(',')) {
    const m = /^\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?$/.exec(item);
    if (!m) {
      throw new InvalidPageSelectionError(
        `Invalid ${PAGES_FIELD}: "${spec}" is not "all", a page ("2"), a range ("2-4") or a list ("1,3")`,
        { field: PAGES_FIELD, value: spec },
      );
    }
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (from < 1 || to < from) {
      throw new InvalidPageSelectionError(
        `Invalid ${PAGES_FIELD}: "${item.trim()}" (pages count from 1, a range goes upwards)`,
        { field: PAGES_FIELD, value: spec },
      );
    }
    if (to - from + 1 + pages.size > MAX_SELECTED_PAGES) {
      throw new InvalidPageSelectionError(`Invalid ${PAGES_FIELD}: more than ${MAX_SELECTED_PAGES} pages`, {
        field: PAGES_FIELD,
        value: spec,
      });
    }
    for (let p = from; p <= to; p++) pages.add(p);
  }
  return { all: false, pages: [...pages].sort((a, b) => a - b) };
}

/** The selection's pages in a document of `pageCount` pages, or a 422 naming the page count. */
export function selectedPages(selection: PageSelection, pageCount: number): number[] {
  if (selection.all) return Array.from({ length: pageCount }, (_, i) => i + 1);
  const beyond = selection.pages.filter((p) => p > pageCount);
  if (beyond.length > 0) {
    throw new PageOutOfRangeError(
      `${PAGES_FIELD} names page ${beyond[0]}, but the document has ${pageCount} page${pageCount === 1 ? '' : 's'}`,
      { field: PAGES_FIELD, pageCount, pages: beyond },
    );
  }
  return selection.pages;
}

/** Width and height of a page in PostScript points (1/72 in). */
export interface PageSizePt {
  width: number;
  height: number;
}

/** How the picture of a page is sized: a resolution, or a width and/or height in pixels. */
export interface ImageSizing {
  dpi?: number;
  width_px?: number;
  height_px?: number;
}

export const DEFAULT_IMAGE_DPI = 96;

/**
 * The pixel size pdftoppm draws a page at, as page-images.ts calls it: `-scale-to-x/-y` when a
 * pixel size is given (the other side follows the page's aspect), else the page at `dpi`.
 * pdftoppm rounds up (ceil of points × dpi / 72), so does this.
 */
export function pagePixels(page: PageSizePt, sizing: ImageSizing): { width: number; height: number } {
  const { width_px: w, height_px: h } = sizing;
  if (w !== undefined && h !== undefined) return { width: w, height: h };
  if (w !== undefined) return { width: w, height: Math.ceil((w * page.height) / page.width) };
  if (h !== undefined) return { width: Math.ceil((h * page.width) / page.height), height: h };
  const dpi = sizing.dpi ?? DEFAULT_IMAGE_DPI;
  return { width: Math.ceil((page.width * dpi) / 72), height: Math.ceil((page.height * dpi) / 72) };
}

/**
 * Device pixels per point on each axis that `pagePixels` implies, as pdftoppm computes its
 * resolution (`-scale-to-x W` is 72·W/width dpi; the side not given follows the other).
 */
export function pageScale(page: PageSizePt, sizing: ImageSizing): { x: number; y: number } {
  const { width_px: w, height_px: h } = sizing;
  if (w === undefined && h === undefined) {
    const dpi = sizing.dpi ?? DEFAULT_IMAGE_DPI;
    return { x: dpi / 72, y: dpi / 72 };
  }
  const x = w === undefined ? undefined : w / page.width;
  const y = h === undefined ? undefined : h / page.height;
  return { x: x ?? y!, y: y ?? x! };
}

/** Pixels (width × height, summed) the pages would be drawn with. */
export function estimatePixels(pages: readonly PageSizePt[], sizing: ImageSizing): number {
  let total = 0;
  for (const page of pages) {
    const { width, height } = pagePixels(page, sizing);
    total += width * height;
  }
  return total;
}

/**
 * Refuses (413) when drawing `pages` at `sizing` would make more than `maxPixels` pixels. Called
 * twice: before any work, with the .docx's page size times the pages named (docxPageSizes), and
 * with the PDF's real page boxes before pdftoppm runs (`all` is only countable then).
 */
export function checkImagePixels(pages: readonly PageSizePt[], sizing: ImageSizing, maxPixels: number): void {
  const pixels = estimatePixels(pages, sizing);
  if (pixels > maxPixels) {
    throw new ImageOutputTooLargeError(
      `The images asked for would have ${pixels} pixels (${pages.length} page${pages.length === 1 ? '' : 's'}); ` +
        `the limit is ${maxPixels} (MAX_IMAGE_OUTPUT_PIXELS): ask for fewer pages or a lower resolution`,
      { field: 'options.image', pixels, maxPixels, pages: pages.length },
    );
  }
}

/** Twentieths of a point (w:pgSz's unit) to points. */
const TWIPS_PER_POINT = 20;

/**
 * The page sizes a .docx's sections declare (w:sectPr/w:pgSz, the body's last sectPr and any in
 * paragraph properties), largest area first; A4 when none is given (Word's default is Letter,
 * LibreOffice's import of a pgSz-less section is A4 on this service's locale). Read before the
 * fill: the template's sections are the document's sections.
 */
export function docxPageSizes(docx: Buffer): PageSizePt[] {
  const xml = new PizZip(docx).file('word/document.xml')?.asText() ?? '';
  const sizes: PageSizePt[] = [];
  for (const m of xml.matchAll(/<w:pgSz\b([^>]*)\/?>/g)) {
    const w = /\bw:w="(\d+)"/.exec(m[1]);
    const h = /\bw:h="(\d+)"/.exec(m[1]);
    if (w && h) sizes.push({ width: Number(w[1]) / TWIPS_PER_POINT, height: Number(h[1]) / TWIPS_PER_POINT });
  }
  if (sizes.length === 0) sizes.push({ width: 595.3, height: 841.9 });
  return sizes.sort((a, b) => b.width * b.height - a.width * a.height);
}

/**
 * The up-front check, before the fill and the conversion: the pages named (at least one for
 * `all`, whose count only the PDF tells), each as large as the template's largest section.
 */
export function checkImagePixelsUpFront(
  template: Buffer,
  selection: PageSelection,
  sizing: ImageSizing,
  maxPixels: number,
): void {
  const largest = docxPageSizes(template)[0];
  const count = selection.all ? 1 : selection.pages.length;
  checkImagePixels(
    Array.from({ length: count }, () => largest),
    sizing,
    maxPixels,
  );
}
