import { InvalidRequestError, OUTPUT_FORMAT_NAMES, httpStatusOf } from '@app/contracts';
import { CELL_BUDGET, LIBREOFFICE_PREPARE } from '@app/converters';
import {
  checkOutputForFormat,
  OUTPUT_FORMATS,
  outputFormatOf,
  PDF_FINISH,
  SIGNATURE_STEP,
  sourceRowOf,
  type OutputFormatRow,
  type ProduceContext,
} from './output-formats';

describe('the output formats table', () => {
  it('has one row per output a request may ask for, each named as its key', () => {
    expect(Object.keys(OUTPUT_FORMATS)).toEqual(OUTPUT_FORMAT_NAMES);
    for (const [name, row] of Object.entries(OUTPUT_FORMATS)) expect(row.output).toBe(name);
  });

  it("gives pdf its media type, extension, the converter, LibreOffice's preparation and the finishing step", () => {
    const pdf = outputFormatOf('pdf');
    expect(pdf).toMatchObject({
      contentType: 'application/pdf',
      extension: 'pdf',
      needsConverter: true,
      fillCompression: 'STORE',
    });
    expect(pdf.prepare).toBe(LIBREOFFICE_PREPARE);
    expect(pdf.prepare[0]).toBe(CELL_BUDGET);
    expect(pdf.finish.map((s) => s.name)).toEqual([
      'signature_places',
      'pdf_finish',
      'signature',
      'empty_signature_fields',
    ]);
    expect(pdf.from).toBeUndefined();
  });

  it('gives docx its media type and extension, no converter, no preparation, no finishing, deflated', () => {
    expect(outputFormatOf('docx')).toMatchObject({
      contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      extension: 'docx',
      needsConverter: false,
      fillCompression: 'DEFLATE',
      prepare: [],
      finish: [],
    });
  });

  it('refuses an output it has no row for with the typed request error naming options.output', () => {
    for (const output of ['webp', 'PDF', '', 'toString', '__proto__', undefined, 3]) {
      let error: unknown;
      try {
        outputFormatOf(output);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect((error as InvalidRequestError).details).toEqual({ field: 'options.output' });
      expect((error as InvalidRequestError).message).toBe(
        'options.output: must be one of the following values: pdf, docx, odt, html, txt, png, jpeg, xlsx, ods, pptx, odp',
      );
      expect(httpStatusOf((error as InvalidRequestError).errorType)).toBe(400);
    }
  });

  it('runs the PDF finishing step only when options.pdf asks for one of its fields', () => {
    const ctx = (pdf: ProduceContext['pdf']) => ({ pdf }) as ProduceContext;
    expect(PDF_FINISH.applies(ctx({}))).toBe(false);
    expect(PDF_FINISH.applies(ctx({ pdfa: 'PDF/A-2b' }))).toBe(false);
    expect(PDF_FINISH.applies(ctx({ watermark: { text: 'DRAFT' } }))).toBe(true);
    // Signing is its own step, after this one: it starts no finishing process.
    expect(PDF_FINISH.applies(ctx({ signature: { profile: 'company' } }))).toBe(false);
    expect(SIGNATURE_STEP.applies(ctx({ signature: { profile: 'company' } }))).toBe(true);
    expect(SIGNATURE_STEP.applies(ctx({ watermark: { text: 'DRAFT' } }))).toBe(false);
  });

  it('without a signer bound, a request with a signature is 400 signing_not_configured', async () => {
    const ctx = { pdf: { signature: { profile: 'company' } } } as ProduceContext;
    const error = await SIGNATURE_STEP.run(Buffer.from('%PDF-1.7'), ctx).catch((e: unknown) => e);
    expect((error as InvalidRequestError).errorType).toBe('signing_not_configured');
    expect(httpStatusOf((error as InvalidRequestError).errorType)).toBe(400);
  });

  it("finds a derived row's source: a row made from the pdf row's result starts from the pdf row's fill", () => {
    const png = { ...OUTPUT_FORMATS.pdf, from: 'pdf', prepare: [] } as unknown as OutputFormatRow;
    expect(sourceRowOf(png)).toBe(OUTPUT_FORMATS.pdf);
    expect(sourceRowOf(OUTPUT_FORMATS.docx)).toBe(OUTPUT_FORMATS.docx);
  });
});

describe('outputs by template format', () => {
  const statusOf = (fn: () => void): { status: number; message: string; details: unknown } => {
    try {
      fn();
    } catch (e) {
      const err = e as InvalidRequestError;
      return { status: httpStatusOf(err.errorType), message: err.message, details: err.details };
    }
    throw new Error('expected a refusal');
  };

  it('makes a spreadsheet into pdf, png, jpeg, xlsx and ods, and a Word template into none of xlsx and ods', () => {
    for (const output of ['pdf', 'png', 'jpeg', 'xlsx', 'ods'] as const)
      expect(() => checkOutputForFormat(OUTPUT_FORMATS[output], 'xlsx')).not.toThrow();
    for (const output of ['docx', 'odt', 'html', 'txt'] as const)
      expect(statusOf(() => checkOutputForFormat(OUTPUT_FORMATS[output], 'xlsx'))).toMatchObject({
        status: 400,
        details: { field: 'options.output', output, template_format: 'xlsx' },
      });
    for (const output of ['xlsx', 'ods'] as const)
      expect(statusOf(() => checkOutputForFormat(OUTPUT_FORMATS[output], 'docx')).status).toBe(400);
  });

  it('makes a deck into pdf, png, jpeg, pptx and odp, and nothing else into pptx or odp', () => {
    for (const output of ['pdf', 'png', 'jpeg', 'pptx', 'odp'] as const)
      expect(() => checkOutputForFormat(OUTPUT_FORMATS[output], 'pptx')).not.toThrow();
    for (const output of ['docx', 'odt', 'html', 'txt', 'xlsx', 'ods'] as const)
      expect(statusOf(() => checkOutputForFormat(OUTPUT_FORMATS[output], 'pptx'))).toMatchObject({
        status: 400,
        message: expect.stringContaining('a slide deck (.pptx)'),
        details: { field: 'options.output', output, template_format: 'pptx' },
      });
    for (const format of ['docx', 'xlsx'] as const)
      for (const output of ['pptx', 'odp'] as const)
        expect(statusOf(() => checkOutputForFormat(OUTPUT_FORMATS[output], format)).status).toBe(400);
    expect(statusOf(() => checkOutputForFormat(OUTPUT_FORMATS.jpeg, 'pptx', { pdfua: true }))).toMatchObject({
      status: 400,
      details: { field: 'options.pdf.pdfua', template_format: 'pptx' },
    });
  });

  it('refuses a Word-only PDF option on a spreadsheet with a 400 naming it, for the PDF and the images made from it', () => {
    for (const output of ['pdf', 'png'] as const)
      expect(
        statusOf(() => checkOutputForFormat(OUTPUT_FORMATS[output], 'xlsx', { pdfua: true })),
      ).toMatchObject({
        status: 400,
        message: expect.stringContaining('options.pdf.pdfua'),
        details: { field: 'options.pdf.pdfua' },
      });
    expect(
      statusOf(() => checkOutputForFormat(OUTPUT_FORMATS.pdf, 'xlsx', { update_indexes: false })).details,
    ).toEqual({
      field: 'options.pdf.update_indexes',
      template_format: 'xlsx',
    });
    // What Calc's PDF filter and the finishing step honour stays allowed.
    expect(() =>
      checkOutputForFormat(OUTPUT_FORMATS.pdf, 'xlsx', { pdfa: 'PDF/A-2b', watermark: { text: 'DRAFT' } }),
    ).not.toThrow();
    expect(() => checkOutputForFormat(OUTPUT_FORMATS.pdf, 'docx', { pdfua: true })).not.toThrow();
  });
});
