import { httpStatusOf, type PdfOptions } from '@app/contracts';

import { InvalidPdfOptionsError } from './errors';
import { gotenbergFormFields, libreOfficeExport, parsePdfOptions, pdfOptionProblems } from './pdf-options';

function refusal(value: unknown): InvalidPdfOptionsError {
  try {
    parsePdfOptions(value);
  } catch (e) {
    return e as InvalidPdfOptionsError;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

const EVERY_OPTION: PdfOptions = {
  pdfa: 'PDF/A-3b',
  pdfua: true,
  lossless_images: false,
  quality: 55,
  reduce_image_resolution: true,
  max_image_resolution: 300,
  metadata: { title: 'T', author: 'A', subject: 'S', keywords: 'k1, k2', creator: 'C' },
  page_ranges: '2-3, 5',
  update_indexes: false,
};

describe('parsePdfOptions', () => {
  it('accepts every option with a good value and copies only known fields', () => {
    expect(parsePdfOptions(EVERY_OPTION)).toEqual(EVERY_OPTION);
    expect(parsePdfOptions(undefined)).toEqual({});
    expect(parsePdfOptions(null)).toEqual({});
    for (const level of ['PDF/A-1b', 'PDF/A-2b', 'PDF/A-3b'])
      expect(parsePdfOptions({ pdfa: level })).toEqual({ pdfa: level });
    for (const dpi of [75, 150, 300, 600, 1200])
      expect(parsePdfOptions({ reduce_image_resolution: true, max_image_resolution: dpi })).toMatchObject({
        max_image_resolution: dpi,
      });
  });

  // Each case: the value, and the field the refusal must name.
  const cases: Array<[string, unknown, string]> = [
    ['not an object', 'PDF/A-2b', 'options.pdf'],
    ['an array', [], 'options.pdf'],
    ['an unknown option', { pdfx: true }, 'options.pdf.pdfx'],
    ['an own __proto__ key', JSON.parse('{"__proto__":{"pdfua":true}}'), 'options.pdf.__proto__'],
    ['pdfa level a', { pdfa: 'PDF/A-2a' }, 'options.pdf.pdfa'],
    ['pdfa lower case', { pdfa: 'pdf/a-2b' }, 'options.pdf.pdfa'],
    ['pdfa true', { pdfa: true }, 'options.pdf.pdfa'],
    ['pdfua as a string', { pdfua: 'true' }, 'options.pdf.pdfua'],
    ['lossless_images as 1', { lossless_images: 1 }, 'options.pdf.lossless_images'],
    [
      'reduce_image_resolution null',
      { reduce_image_resolution: null },
      'options.pdf.reduce_image_resolution',
    ],
    ['update_indexes as "no"', { update_indexes: 'no' }, 'options.pdf.update_indexes'],
    ['quality 0', { lossless_images: false, quality: 0 }, 'options.pdf.quality'],
    ['quality 101', { lossless_images: false, quality: 101 }, 'options.pdf.quality'],
    ['quality 50.5', { lossless_images: false, quality: 50.5 }, 'options.pdf.quality'],
    ['quality "90"', { lossless_images: false, quality: '90' }, 'options.pdf.quality'],
    ['quality with lossless images', { quality: 80 }, 'options.pdf.quality'],
    [
      'max_image_resolution 200',
      { reduce_image_resolution: true, max_image_resolution: 200 },
      'options.pdf.max_image_resolution',
    ],
    [
      'max_image_resolution without reduce',
      { max_image_resolution: 150 },
      'options.pdf.max_image_resolution',
    ],
    ['page_ranges as a number', { page_ranges: 3 }, 'options.pdf.page_ranges'],
    ['page_ranges with letters', { page_ranges: '1-a' }, 'options.pdf.page_ranges'],
    ['page_ranges empty', { page_ranges: '' }, 'options.pdf.page_ranges'],
    ['page_ranges page 0', { page_ranges: '0-2' }, 'options.pdf.page_ranges'],
    ['page_ranges backwards', { page_ranges: '5-2' }, 'options.pdf.page_ranges'],
    ['page_ranges too long', { page_ranges: '1,'.repeat(150) + '1' }, 'options.pdf.page_ranges'],
    ['metadata as a string', { metadata: 'title' }, 'options.pdf.metadata'],
    ['an unknown metadata field', { metadata: { producer: 'x' } }, 'options.pdf.metadata.producer'],
    ['a metadata number', { metadata: { title: 7 } }, 'options.pdf.metadata.title'],
    ['keywords as a list', { metadata: { keywords: ['a'] } }, 'options.pdf.metadata.keywords'],
    ['a control character', { metadata: { author: 'A\u0000B' } }, 'options.pdf.metadata.author'],
    ['an overlong title', { metadata: { title: 'x'.repeat(2001) } }, 'options.pdf.metadata.title'],
  ];

  it.each(cases)('refuses %s with invalid_request_structure naming the field', (_, value, field) => {
    const e = refusal(value);
    expect(e).toBeInstanceOf(InvalidPdfOptionsError);
    expect(e.errorType).toBe('invalid_request_structure');
    expect(httpStatusOf(e.errorType)).toBe(400);
    expect(e.details.field).toBe(field);
    expect(e.message).toContain(field);
  });

  it('lists every problem, not only the first', () => {
    const fields = pdfOptionProblems({ pdfa: 'x', pdfua: 1, colour: 'red' }).map((p) => p.field);
    expect(fields.sort()).toEqual(['options.pdf.colour', 'options.pdf.pdfa', 'options.pdf.pdfua']);
  });
});

describe('what the options become for each converter', () => {
  it('defaults to lossless images and refreshed indexes on both', () => {
    expect(libreOfficeExport()).toEqual({
      updateIndexes: true,
      metadata: {},
      filterData: { UseLosslessCompression: true },
    });
    expect(gotenbergFormFields()).toEqual([
      ['losslessImageCompression', 'true'],
      ['updateIndexes', 'true'],
    ]);
  });

  it("maps every option onto LibreOffice's PDF export filter", () => {
    expect(libreOfficeExport(EVERY_OPTION)).toEqual({
      updateIndexes: false,
      metadata: EVERY_OPTION.metadata,
      filterData: {
        SelectPdfVersion: 3,
        PDFUACompliance: true,
        UseLosslessCompression: false,
        Quality: 55,
        ReduceImageResolution: true,
        MaxImageResolution: 300,
        PageRange: '2-3,5',
      },
    });
    expect(libreOfficeExport({ pdfa: 'PDF/A-1b' }).filterData.SelectPdfVersion).toBe(1);
    expect(libreOfficeExport({ pdfa: 'PDF/A-2b' }).filterData.SelectPdfVersion).toBe(2);
  });
});
