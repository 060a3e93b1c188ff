import { httpStatusOf, PDF_OPTION_FIELDS, type PdfOptions, PdfOptionsSchema } from '@app/contracts';
import { Value } from '@sinclair/typebox/value';

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

  it('says what is wrong in words taken from PdfOptionsSchema, one problem per field', () => {
    const said = (value: unknown) =>
      Object.fromEntries(pdfOptionProblems(value).map((p) => [p.field.slice(12), p.problems]));
    expect(
      said({ pdfa: 'x', max_image_resolution: 200, pdfx: 1, lossless_images: false, quality: 0.5 }),
    ).toEqual({
      pdfa: ['must be one of "PDF/A-1b", "PDF/A-2b", "PDF/A-3b"'],
      max_image_resolution: ['must be one of 75, 150, 300, 600, 1200'],
      pdfx: [`is not a PDF option (${PDF_OPTION_FIELDS.join(', ')})`],
      quality: ['must be an integer from 1 to 100'],
    });
    expect(said({ metadata: { title: 7, author: 'A\u0007', producer: 'x' }, page_ranges: '1-a' })).toEqual({
      'metadata.title': ['must be a string'],
      'metadata.author': ['must not contain control characters'],
      'metadata.producer': ['is not a metadata field (title, author, subject, keywords, creator)'],
      page_ranges: ['must list pages and ranges like "1-3,5"'],
    });
    expect(said({ watermark: { color: 'red', opacity: 2 }, append: [{ data: 'a b' }, 3] })).toEqual({
      'watermark.text': ['is required'],
      'watermark.color': ['must be a colour like "#C00000"'],
      'watermark.opacity': ['must be a number from 0 to 1'],
      'append[0].data': ['is not valid base64 (padded, without line breaks)'],
      'append[1]': ['must be an object'],
    });
    // Every value the validator takes, the schema (and so the OpenAPI document) describes.
    expect(Value.Check(PdfOptionsSchema, EVERY_OPTION)).toBe(true);
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
        DisplayPDFDocumentTitle: true,
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

describe('the finishing options (docs/pdf.md)', () => {
  const PDF = Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n').toString('base64');
  const JSON_FILE = Buffer.from('{"order":"PO-2026-1193"}').toString('base64');
  const XML = Buffer.from('<rsm:CrossIndustryInvoice/>').toString('base64');
  const FINISHING: PdfOptions = {
    encryption: {
      owner_password: 'Ownér-sécret',
      user_password: 'открыть',
      permissions: {
        print: 'low',
        copy: false,
        modify: false,
        annotate: true,
        fill_forms: true,
        accessibility: true,
      },
    },
    watermark: { text: 'BROUILLON', color: '#C00000', opacity: 0.25, angle: 30, font_size: 64 },
    prepend: [{ data: PDF }],
    append: [{ data: PDF }, { data: PDF }],
    attachments: [
      {
        name: 'order.json',
        data: JSON_FILE,
        mime_type: 'application/json',
        description: 'The order',
        relationship: 'Source',
      },
    ],
  };

  it('accepts every finishing option and copies them deeply', () => {
    const parsed = parsePdfOptions(FINISHING);
    expect(parsed).toEqual(FINISHING);
    expect(parsed.append).not.toBe(FINISHING.append);
    expect(parsePdfOptions({ facturx: { xml: XML, profile: 'BASIC WL' } })).toEqual({
      facturx: { xml: XML, profile: 'BASIC WL' },
    });
    expect(parsePdfOptions({ pdfa: 'PDF/A-3b', attachments: FINISHING.attachments })).toMatchObject({
      pdfa: 'PDF/A-3b',
    });
    // The owner password alone: the document opens, under the permissions.
    expect(parsePdfOptions({ encryption: { owner_password: 'x', permissions: { print: 'none' } } })).toEqual({
      encryption: { owner_password: 'x', permissions: { print: 'none' } },
    });
  });

  it('makes a Factur-X invoice PDF/A-3b on both converters', () => {
    const facturx = { xml: XML, profile: 'EN 16931' as const };
    expect(libreOfficeExport({ facturx }).filterData.SelectPdfVersion).toBe(3);
    expect(gotenbergFormFields({ facturx })).toContainEqual(['pdfa', 'PDF/A-3b']);
    // Nothing of the finishing options reaches the converters: they are done on the PDF after.
    expect(gotenbergFormFields(FINISHING).map(([name]) => name)).toEqual([
      'losslessImageCompression',
      'updateIndexes',
    ]);
    expect(libreOfficeExport(FINISHING).filterData).toEqual({ UseLosslessCompression: true });
  });

  const over = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');
  const cases: Array<[string, unknown, string]> = [
    [
      'encryption without owner_password',
      { encryption: { user_password: 'u' } },
      'options.pdf.encryption.owner_password',
    ],
    [
      'an empty owner_password',
      { encryption: { owner_password: '' } },
      'options.pdf.encryption.owner_password',
    ],
    [
      'a password of 128 bytes',
      { encryption: { owner_password: 'o', user_password: 'é'.repeat(64) } },
      'options.pdf.encryption.user_password',
    ],
    [
      'an unknown encryption field',
      { encryption: { owner_password: 'o', algorithm: 'rc4' } },
      'options.pdf.encryption.algorithm',
    ],
    [
      'print "full"',
      { encryption: { owner_password: 'o', permissions: { print: 'full' } } },
      'options.pdf.encryption.permissions.print',
    ],
    [
      'copy as "no"',
      { encryption: { owner_password: 'o', permissions: { copy: 'no' } } },
      'options.pdf.encryption.permissions.copy',
    ],
    [
      'an unknown permission',
      { encryption: { owner_password: 'o', permissions: { sign: false } } },
      'options.pdf.encryption.permissions.sign',
    ],
    ['a watermark without text', { watermark: { color: '#000000' } }, 'options.pdf.watermark.text'],
    [
      'a watermark text of 201 characters',
      { watermark: { text: 'x'.repeat(201) } },
      'options.pdf.watermark.text',
    ],
    ['a blank watermark text', { watermark: { text: '   ' } }, 'options.pdf.watermark.text'],
    ['a colour name', { watermark: { text: 'DRAFT', color: 'red' } }, 'options.pdf.watermark.color'],
    ['opacity 1.5', { watermark: { text: 'DRAFT', opacity: 1.5 } }, 'options.pdf.watermark.opacity'],
    ['font_size 0', { watermark: { text: 'DRAFT', font_size: 0 } }, 'options.pdf.watermark.font_size'],
    ['angle as a string', { watermark: { text: 'DRAFT', angle: '45' } }, 'options.pdf.watermark.angle'],
    ['append as an object', { append: { data: PDF } }, 'options.pdf.append'],
    [
      'an append that is not base64',
      { append: [{ data: '%PDF-1.7 not base64!' }] },
      'options.pdf.append[0].data',
    ],
    [
      'base64 with line breaks',
      { prepend: [{ data: `${PDF.slice(0, 8)}\n${PDF.slice(8)}` }] },
      'options.pdf.prepend[0].data',
    ],
    ['an append that is not a PDF', { append: [{ data: JSON_FILE }] }, 'options.pdf.append[0].data'],
    ['an empty append', { append: [{ data: '' }] }, 'options.pdf.append[0].data'],
    ['21 appends', { append: Array.from({ length: 21 }, () => ({ data: PDF })) }, 'options.pdf.append'],
    [
      'an attachment without mime_type',
      { attachments: [{ name: 'a.json', data: JSON_FILE }] },
      'options.pdf.attachments[0].mime_type',
    ],
    [
      'an attachment named with a path',
      { attachments: [{ name: '../a.json', data: JSON_FILE, mime_type: 'application/json' }] },
      'options.pdf.attachments[0].name',
    ],
    [
      'an unknown relationship',
      { attachments: [{ name: 'a', data: JSON_FILE, mime_type: 'text/plain', relationship: 'Parent' }] },
      'options.pdf.attachments[0].relationship',
    ],
    [
      'an attachment that is not base64',
      { attachments: [{ name: 'a', data: 'a b', mime_type: 'text/plain' }] },
      'options.pdf.attachments[0].data',
    ],
    [
      'two attachments of one name',
      {
        attachments: [
          { name: 'a', data: JSON_FILE, mime_type: 'text/plain' },
          { name: 'a', data: JSON_FILE, mime_type: 'text/plain' },
        ],
      },
      'options.pdf.attachments[1].name',
    ],
    [
      'attachments with PDF/A-1b',
      { pdfa: 'PDF/A-1b', attachments: [{ name: 'a', data: JSON_FILE, mime_type: 'text/plain' }] },
      'options.pdf.attachments',
    ],
    [
      'attachments with PDF/A-2b',
      { pdfa: 'PDF/A-2b', attachments: [{ name: 'a', data: JSON_FILE, mime_type: 'text/plain' }] },
      'options.pdf.attachments',
    ],
    [
      'an unknown Factur-X profile',
      { facturx: { xml: XML, profile: 'COMFORT' } },
      'options.pdf.facturx.profile',
    ],
    [
      'Factur-X XML that is not base64',
      { facturx: { xml: '<rsm:CrossIndustryInvoice/>', profile: 'BASIC' } },
      'options.pdf.facturx.xml',
    ],
    [
      'Factur-X with PDF/A-2b',
      { pdfa: 'PDF/A-2b', facturx: { xml: XML, profile: 'BASIC' } },
      'options.pdf.facturx',
    ],
    [
      'Factur-X with encryption',
      { facturx: { xml: XML, profile: 'BASIC' }, encryption: { owner_password: 'o' } },
      'options.pdf.encryption',
    ],
    [
      'PDF/A with encryption',
      { pdfa: 'PDF/A-3b', encryption: { owner_password: 'o' } },
      'options.pdf.encryption',
    ],
    [
      'an attachment named factur-x.xml beside Factur-X',
      {
        facturx: { xml: XML, profile: 'BASIC' },
        attachments: [{ name: 'factur-x.xml', data: XML, mime_type: 'text/xml' }],
      },
      'options.pdf.attachments[0].name',
    ],
    [
      'a transparent watermark on PDF/A-1b',
      { pdfa: 'PDF/A-1b', watermark: { text: 'DRAFT', opacity: 0.3 } },
      'options.pdf.watermark.opacity',
    ],
  ];

  it.each(cases)('refuses %s with a 400 naming the field', (_, value, field) => {
    const e = refusal(value);
    expect(e.errorType).toBe('invalid_request_structure');
    expect(httpStatusOf(e.errorType)).toBe(400);
    expect(e.details.field).toBe(field);
    expect(e.message).toContain(field);
  });

  it('refuses a file over MAX_PDF_EXTRA_BYTES, and takes one at the limit', () => {
    const limits = { maxExtraBytes: 2048 };
    const pdfOf = (bytes: number) =>
      Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(bytes - 9, 32)]).toString('base64');
    expect(() => parsePdfOptions({ append: [{ data: pdfOf(2048) }] }, 'options.pdf', limits)).not.toThrow();
    for (const [value, field] of [
      [{ append: [{ data: pdfOf(2049) }] }, 'options.pdf.append[0].data'],
      [{ prepend: [{ data: pdfOf(4096) }] }, 'options.pdf.prepend[0].data'],
      [
        { attachments: [{ name: 'a.bin', data: over(2049), mime_type: 'application/octet-stream' }] },
        'options.pdf.attachments[0].data',
      ],
      [{ facturx: { xml: over(3000), profile: 'BASIC' } }, 'options.pdf.facturx.xml'],
    ] as const) {
      const problems = pdfOptionProblems(value, 'options.pdf', limits);
      expect(problems).toEqual([{ field, problems: [expect.stringContaining('MAX_PDF_EXTRA_BYTES')] }]);
    }
    // The default limit is 10 MiB.
    expect(
      pdfOptionProblems({ attachments: [{ name: 'a', data: over(10 * 1024 * 1024 + 1), mime_type: 'a/b' }] }),
    ).toHaveLength(1);
  });

  it('never puts a password in an error', () => {
    const secret = 'Ownér-sécret-'.repeat(10); // 140+ bytes
    const e = refusal({ encryption: { owner_password: secret, user_password: 7 } });
    expect(JSON.stringify(e.toBody())).not.toContain('Ownér');
    expect(e.details.errors).toHaveLength(2);
  });
});
