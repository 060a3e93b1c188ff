import { degrees, PDFDocument, rgb } from 'pdf-lib';

import { openPdfium, type PdfiumDocument, PdfiumOpenError } from './pdfium-renderer';

/**
 * A 200 × 100 pt page with a red 50 × 25 pt square at its bottom-left corner, a blue one at its
 * top-right, and a second page the same but /Rotate 90.
 */
async function twoPages(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (const rotate of [0, 90]) {
    const page = doc.addPage([200, 100]);
    page.drawRectangle({ x: 0, y: 0, width: 50, height: 25, color: rgb(1, 0, 0) });
    page.drawRectangle({ x: 150, y: 75, width: 50, height: 25, color: rgb(0, 0, 1) });
    page.setRotation(degrees(rotate));
  }
  return doc.save();
}

/** Page `index` drawn whole as 8-bit RGB rows (its scanlines without their filter bytes). */
function renderRgb(
  doc: PdfiumDocument,
  index: number,
  width: number,
  height: number,
  sx: number,
  sy: number,
) {
  const page = doc.loadPage(index);
  try {
    const lines = page.scanlines(width, sx, sy, 0, height);
    expect(lines.length).toBe((width * 3 + 1) * height);
    const rgbRows = Buffer.alloc(width * 3 * height);
    for (let y = 0; y < height; y++) {
      expect(lines[y * (width * 3 + 1)]).toBe(0); // filter type None
      lines.copy(rgbRows, y * width * 3, y * (width * 3 + 1) + 1, (y + 1) * (width * 3 + 1));
    }
    return rgbRows;
  } finally {
    page.close();
  }
}

const pixel = (rgbRows: Buffer, width: number, x: number, y: number) => [
  ...rgbRows.subarray((y * width + x) * 3, (y * width + x) * 3 + 3),
];

describe('pdfium-renderer', () => {
  let pdf: Uint8Array;
  beforeAll(async () => {
    pdf = await twoPages();
  });

  it('counts pages and gives their displayed size in points (a page rotated 90° is tall)', async () => {
    const doc = await openPdfium(pdf);
    try {
      expect(doc.pageCount).toBe(2);
      expect(doc.pageSize(0)).toEqual({ width: 200, height: 100 });
      expect(doc.pageSize(1)).toEqual({ width: 100, height: 200 });
    } finally {
      doc.close();
    }
  });

  it('draws RGB rows, top row first, at the scale asked, on white', async () => {
    const doc = await openPdfium(pdf);
    try {
      const rows = renderRgb(doc, 0, 400, 200, 2, 2);
      expect(rows.length).toBe(400 * 200 * 3);
      expect(pixel(rows, 400, 10, 190)).toEqual([255, 0, 0]); // bottom-left: red
      expect(pixel(rows, 400, 390, 10)).toEqual([0, 0, 255]); // top-right: blue
      expect(pixel(rows, 400, 200, 100)).toEqual([255, 255, 255]);
      // The red square ends 50 pt × 2 = 100 px from the left edge, 25 pt × 2 up from the bottom.
      expect(pixel(rows, 400, 98, 190)).toEqual([255, 0, 0]);
      expect(pixel(rows, 400, 102, 190)).toEqual([255, 255, 255]);
      expect(pixel(rows, 400, 10, 148)).toEqual([255, 255, 255]);
      // Each axis its own scale (a width and a height both given).
      const stretched = renderRgb(doc, 0, 200, 50, 1, 0.5);
      expect(pixel(stretched, 200, 45, 45)).toEqual([255, 0, 0]);
      expect(pixel(stretched, 200, 45, 35)).toEqual([255, 255, 255]);
    } finally {
      doc.close();
    }
  });

  it('draws bands that are exactly the rows of the whole page, filter bytes included', async () => {
    const doc = await openPdfium(pdf);
    const page = doc.loadPage(0);
    try {
      const whole = page.scanlines(400, 2, 2, 0, 200);
      const stride = 400 * 3 + 1;
      // Bands cutting through both squares (the red one's top edge is row 150).
      const bands = [
        [0, 37],
        [37, 113],
        [150, 50],
      ].map(([top, rows]) => page.scanlines(400, 2, 2, top, rows));
      expect(Buffer.concat(bands).equals(whole)).toBe(true);
      expect(
        bands[2].subarray(stride * 10, stride * 11).equals(whole.subarray(stride * 160, stride * 161)),
      ).toBe(true);
    } finally {
      page.close();
      page.close(); // twice is harmless
      doc.close();
    }
  });

  it('draws a rotated page as displayed: /Rotate 90 turns it clockwise', async () => {
    const doc = await openPdfium(pdf);
    try {
      const rows = renderRgb(doc, 1, 100, 200, 1, 1);
      // Clockwise: the bottom-left corner goes to the top-left, the top-right to the bottom-right.
      expect(pixel(rows, 100, 5, 5)).toEqual([255, 0, 0]);
      expect(pixel(rows, 100, 95, 195)).toEqual([0, 0, 255]);
    } finally {
      doc.close();
    }
  });

  it('refuses bytes that are not a PDF with a reason, and keeps working after', async () => {
    await expect(openPdfium(Buffer.from('%PDF-1.7 not really'))).rejects.toThrow(PdfiumOpenError);
    await expect(openPdfium(Buffer.from('hello'))).rejects.toThrow('not a PDF or corrupted');
    const doc = await openPdfium(pdf);
    expect(doc.pageCount).toBe(2);
    doc.close();
    doc.close(); // twice is harmless
  });
});
