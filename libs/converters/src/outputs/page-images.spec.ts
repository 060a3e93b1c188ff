import { PDFDocument, rgb } from 'pdf-lib';
import PizZip from 'pizzip';
import { PNG } from 'pngjs';

import { pdfToPageImages, ppmToPng, rgbToPng } from './page-images';
import { ImageOutputTooLargeError, PageOutOfRangeError } from './page-selection';

/** Three A4 pages, each with a black square at its top-left corner, 72 pt (one inch) wide. */
async function threePages(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < 3; i++) {
    const page = doc.addPage([595.304, 841.89]);
    page.drawRectangle({ x: 0, y: 841.89 - 72, width: 72, height: 72, color: rgb(0, 0, 0) });
  }
  return Buffer.from(await doc.save());
}

const grey = (png: PNG, x: number, y: number) => png.data[(y * png.width + x) * 4];

describe('PNG writing', () => {
  it('rgbToPng: pngjs decodes the same pixels, and the header says 8-bit RGB', () => {
    const rows = Buffer.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    const body = rgbToPng(rows, 3, 2);
    const png = PNG.sync.read(body);
    expect([png.width, png.height]).toEqual([3, 2]);
    const rgbOf = (i: number) => [...png.data.subarray(i * 4, i * 4 + 3)];
    expect([0, 1, 2, 3, 4, 5].map(rgbOf)).toEqual([
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
      [10, 20, 30],
      [40, 50, 60],
      [70, 80, 90],
    ]);
    expect(body.subarray(24, 26)).toEqual(Buffer.from([8, 2])); // IHDR: bit depth, colour type
  });

  it('ppmToPng: a P6 PPM, header and all', () => {
    const ppm = Buffer.concat([Buffer.from('P6\n2 1\n255\n'), Buffer.from([1, 2, 3, 4, 5, 6])]);
    const png = PNG.sync.read(ppmToPng(ppm));
    expect([...png.data]).toEqual([1, 2, 3, 255, 4, 5, 6, 255]);
    expect(() => ppmToPng(Buffer.from('P5\n2 1\n255\n..'))).toThrow('pdftoppm wrote no 8-bit PPM');
  });
});

describe('pdfToPageImages, PNG drawn in process', () => {
  let pdf: Buffer;
  beforeAll(async () => {
    pdf = await threePages();
  });

  it('page 1 at 96 dpi: the size pdftoppm draws (794 × 1123), the one-inch square 96 px wide', async () => {
    const out = await pdfToPageImages(pdf, { format: 'png' });
    expect(out).toMatchObject({ contentType: 'image/png', extension: 'png', pages: [1] });
    const png = PNG.sync.read(out.body);
    expect([png.width, png.height]).toEqual([794, 1123]);
    expect(grey(png, 94, 94)).toBe(0);
    expect(grey(png, 98, 50)).toBe(255);
    expect(grey(png, 50, 98)).toBe(255);
  });

  it('width_px keeps the aspect (rounded up); several pages make a ZIP of page-<n>.png', async () => {
    const out = await pdfToPageImages(pdf, { format: 'png', width_px: 300, pages: '1,3' });
    expect(out).toMatchObject({ contentType: 'application/zip', extension: 'zip', pages: [1, 3] });
    const zip = new PizZip(out.body);
    expect(Object.keys(zip.files).sort()).toEqual(['page-1.png', 'page-3.png']);
    const png = PNG.sync.read(zip.file('page-3.png')!.asNodeBuffer());
    expect([png.width, png.height]).toEqual([300, 425]);
    // 72 pt of 595.304 pt at 300 px: 36.3 px.
    expect(grey(png, 34, 34)).toBe(0);
    expect(grey(png, 39, 20)).toBe(255);
  });

  it('a page beyond the document is a 422 naming the page count; too many pixels a 413, before drawing', async () => {
    const beyond = await pdfToPageImages(pdf, { format: 'png', pages: '2-4' }).catch((e: unknown) => e);
    expect(beyond).toBeInstanceOf(PageOutOfRangeError);
    expect((beyond as PageOutOfRangeError).details).toMatchObject({ pageCount: 3, pages: [4] });
    const big = await pdfToPageImages(
      pdf,
      { format: 'png', pages: 'all' },
      { maxPixels: 2 * 794 * 1123 },
    ).catch((e: unknown) => e);
    expect(big).toBeInstanceOf(ImageOutputTooLargeError);
    expect((big as ImageOutputTooLargeError).details).toMatchObject({ pixels: 3 * 794 * 1123 });
  });
});
