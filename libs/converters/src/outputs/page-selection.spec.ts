import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import PizZip from 'pizzip';

import {
  checkImagePixels,
  checkImagePixelsUpFront,
  docxPageSizes,
  estimatePixels,
  ImageOutputTooLargeError,
  InvalidPageSelectionError,
  pagePixels,
  pageScale,
  PageOutOfRangeError,
  parsePageSelection,
  selectedPages,
} from './page-selection';

const A4 = { width: 595.304, height: 841.89 };
const FIXTURES = join(__dirname, '../../../../bench/fixtures');

describe('parsePageSelection', () => {
  it('reads the default, a page, a range, a list and all', () => {
    expect(parsePageSelection(undefined)).toEqual({ all: false, pages: [1] });
    expect(parsePageSelection('3')).toEqual({ all: false, pages: [3] });
    expect(parsePageSelection('2-4')).toEqual({ all: false, pages: [2, 3, 4] });
    expect(parsePageSelection(' 5, 1-2 ,2')).toEqual({ all: false, pages: [1, 2, 5] });
    expect(parsePageSelection('ALL')).toEqual({ all: true });
  });

  it.each(['', '0', '4-2', 'a', '1;2', '-3', '2-', '1,,2', '1-1000000'])(
    'refuses %j naming the field',
    (spec) => {
      const e = (() => {
        try {
          parsePageSelection(spec);
        } catch (err) {
          return err;
        }
      })();
      expect(e).toBeInstanceOf(InvalidPageSelectionError);
      expect((e as InvalidPageSelectionError).errorType).toBe('invalid_request_structure');
      expect((e as InvalidPageSelectionError).details.field).toBe('options.image.pages');
    },
  );
});

describe('selectedPages', () => {
  it('expands all and keeps pages within the document', () => {
    expect(selectedPages({ all: true }, 3)).toEqual([1, 2, 3]);
    expect(selectedPages(parsePageSelection('1,3'), 3)).toEqual([1, 3]);
  });

  it('refuses a page beyond the document with a 422 naming the page count', () => {
    try {
      selectedPages(parsePageSelection('2-4'), 3);
      throw new Error('not refused');
    } catch (e) {
      expect(e).toBeInstanceOf(PageOutOfRangeError);
      const err = e as PageOutOfRangeError;
      expect(err.errorType).toBe('page_out_of_range');
      expect(err.details).toMatchObject({ field: 'options.image.pages', pageCount: 3, pages: [4] });
      expect(err.message).toMatch(/has 3 pages/);
    }
  });
});

describe('pixel estimate', () => {
  it('gives the size pdftoppm draws an A4 page at (measured: 794 x 1123 at 96 dpi, 300 x 425 at width 300)', () => {
    expect(pagePixels(A4, {})).toEqual({ width: 794, height: 1123 });
    expect(pagePixels(A4, { dpi: 150 })).toEqual({ width: 1241, height: 1754 });
    expect(pagePixels(A4, { width_px: 300 })).toEqual({ width: 300, height: 425 });
    expect(pagePixels(A4, { height_px: 425 })).toEqual({ width: 301, height: 425 });
    expect(pagePixels(A4, { width_px: 100, height_px: 100 })).toEqual({ width: 100, height: 100 });
  });

  it('gives the pixels per point pdftoppm draws at: dpi/72, or the side given over the page', () => {
    expect(pageScale(A4, {})).toEqual({ x: 96 / 72, y: 96 / 72 });
    expect(pageScale(A4, { dpi: 300 })).toEqual({ x: 300 / 72, y: 300 / 72 });
    expect(pageScale(A4, { width_px: 300 })).toEqual({ x: 300 / A4.width, y: 300 / A4.width });
    expect(pageScale(A4, { height_px: 425 })).toEqual({ x: 425 / A4.height, y: 425 / A4.height });
    expect(pageScale(A4, { width_px: 100, height_px: 100 })).toEqual({
      x: 100 / A4.width,
      y: 100 / A4.height,
    });
  });

  it('sums the pages and refuses beyond the limit with a 413', () => {
    expect(estimatePixels([A4, A4], {})).toBe(2 * 794 * 1123);
    expect(() => checkImagePixels([A4, A4], {}, 2 * 794 * 1123)).not.toThrow();
    try {
      checkImagePixels([A4, A4], {}, 2 * 794 * 1123 - 1);
      throw new Error('not refused');
    } catch (e) {
      expect(e).toBeInstanceOf(ImageOutputTooLargeError);
      expect((e as ImageOutputTooLargeError).errorType).toBe('payload_too_large');
      expect((e as ImageOutputTooLargeError).details).toMatchObject({
        reason: 'image_output_pixels',
        pixels: 2 * 794 * 1123,
      });
    }
  });

  it("reads the template's section page size (the corpus invoice is A4) for the up-front check", () => {
    const invoice = readFileSync(join(FIXTURES, 'invoice.docx'));
    const [size] = docxPageSizes(invoice);
    expect(size.width).toBeCloseTo(595.3, 0);
    expect(size.height).toBeCloseTo(841.9, 0);
    // 10 pages at 300 dpi: 10 x 2481 x 3508 = 87 M pixels.
    expect(() =>
      checkImagePixelsUpFront(invoice, parsePageSelection('1-10'), { dpi: 300 }, 80_000_000),
    ).toThrow(ImageOutputTooLargeError);
    expect(() =>
      checkImagePixelsUpFront(invoice, parsePageSelection('1-10'), { dpi: 300 }, 90_000_000),
    ).not.toThrow();
  });

  it('takes the largest of several sections (a landscape A3 section)', () => {
    const zip = new PizZip();
    zip.file(
      'word/document.xml',
      '<w:document><w:body><w:p><w:pPr><w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:pPr></w:p>' +
        '<w:sectPr><w:pgSz w:w="23811" w:h="16838" w:orient="landscape"/></w:sectPr></w:body></w:document>',
    );
    const sizes = docxPageSizes(zip.generate({ type: 'nodebuffer' }));
    expect(sizes[0]).toEqual({ width: 23811 / 20, height: 16838 / 20 });
    expect(sizes).toHaveLength(2);
  });
});
