import { InvalidRequestError, OUTPUT_FORMAT_NAMES, httpStatusOf } from '@app/contracts';
import { CELL_BUDGET, LIBREOFFICE_PREPARE } from '@app/converters';
import {
  OUTPUT_FORMATS,
  outputFormatOf,
  PDF_FINISH,
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
    expect(pdf.finish.map((s) => s.name)).toEqual(['pdf_finish']);
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
        'options.output: must be one of the following values: pdf, docx, odt, html, txt, png, jpeg, xlsx, ods',
      );
      expect(httpStatusOf((error as InvalidRequestError).errorType)).toBe(400);
    }
  });

  it('runs the PDF finishing step only when options.pdf asks for one of its fields', () => {
    const ctx = (pdf: ProduceContext['pdf']) => ({ pdf }) as ProduceContext;
    expect(PDF_FINISH.applies(ctx({}))).toBe(false);
    expect(PDF_FINISH.applies(ctx({ pdfa: 'PDF/A-2b' }))).toBe(false);
    expect(PDF_FINISH.applies(ctx({ watermark: { text: 'DRAFT' } }))).toBe(true);
  });

  it("finds a derived row's source: a row made from the pdf row's result starts from the pdf row's fill", () => {
    const png = { ...OUTPUT_FORMATS.pdf, from: 'pdf', prepare: [] } as unknown as OutputFormatRow;
    expect(sourceRowOf(png)).toBe(OUTPUT_FORMATS.pdf);
    expect(sourceRowOf(OUTPUT_FORMATS.docx)).toBe(OUTPUT_FORMATS.docx);
  });
});
