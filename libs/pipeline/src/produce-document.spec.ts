import { PayloadTooLargeError } from '@app/contracts';
import type { ConvertOptions, PdfConverter } from '@app/converters';
import { UndefinedVariableError, type RenderRequest } from '@app/engine';
import PizZip from 'pizzip';
import { corpusRequest, corpusTemplate } from '../../../bench/corpus';
import { buildDocx, p } from '../../../test/support/docx-builder';
import { fillDocument, produceDocument, type FillJob, type OffLoopFill } from './produce-document';

/** A converter that converts nothing: it keeps what it was handed and answers a fixed PDF. */
function fakeConverter() {
  const handed: { docx: Buffer; options?: ConvertOptions }[] = [];
  const converter: PdfConverter = {
    name: 'fake',
    capacity: 1,
    convert: (docx, options) => (handed.push({ docx, options }), Promise.resolve(Buffer.from('%PDF-fake'))),
    health: () => Promise.resolve({ healthy: true, instances: 1, ready: 1 }),
    stats: () => ({ conversions: 0, failures: 0, restarts: 0, queueLength: 0, busy: 0, instances: 1 }),
    close: () => Promise.resolve(),
  };
  return { converter, handed };
}

const template = corpusTemplate('invoice');
const request = corpusRequest('invoice', { rows: 3 }) as RenderRequest;
const documentXml = (docx: Buffer) => new PizZip(docx).file('word/document.xml')!.asText();
/** The first entry's compression method in its local header: 0 stored, 8 deflated. */
const compressionOf = (docx: Buffer) => docx.readUInt16LE(8);
const PREPARE = { resolveTableStyles: true, pruneUnusedStyles: true, maxTableCells: 10_000 };

describe('produceDocument', () => {
  it('makes a PDF: fills, prepares for LibreOffice, hands the converter a stored .docx, answers with the row', async () => {
    const { converter, handed } = fakeConverter();
    const asked: string[] = [];
    const out = await produceDocument(
      template,
      { output: 'pdf', request, pdf: { pdfa: 'PDF/A-2b' } },
      { prepare: PREPARE },
      {
        converter,
        jobId: 'req-1',
        timeoutMs: () => (asked.push('timeout'), 1234),
        onFilled: (ms) => asked.push(`filled ${ms >= 0}`),
      },
    );
    expect(out.body.toString()).toBe('%PDF-fake');
    expect(out).toMatchObject({ contentType: 'application/pdf', extension: 'pdf' });
    expect(out.timings.fillMs).toBeGreaterThan(0);
    expect(out.timings.convertMs).toBeGreaterThanOrEqual(0);
    expect(handed).toHaveLength(1);
    expect(handed[0].options).toEqual({ jobId: 'req-1', timeoutMs: 1234, pdf: { pdfa: 'PDF/A-2b' } });
    // The fill told before the conversion asked its time limit.
    expect(asked).toEqual(['filled true', 'timeout']);
    const docx = handed[0].docx;
    expect(compressionOf(docx)).toBe(0);
    expect(documentXml(docx)).toContain('INV-2024-0042');
    // The pdf row's preparation: the table style as direct formatting, Word's unused styles gone.
    expect(documentXml(docx)).not.toContain('<w:tblStyle ');
    expect(
      new PizZip(docx)
        .file('word/styles.xml')!
        .asText()
        .match(/<w:style\b/g)!.length,
    ).toBeLessThan(40);
  });

  it('makes a .docx without the converter, deflated, its styles as the template has them whatever the settings', async () => {
    const out = await produceDocument(
      template,
      { output: 'docx', request },
      { prepare: { ...PREPARE, maxTableCells: 1 } },
      {
        converter: () => {
          throw new Error('no converter for a .docx');
        },
      },
    );
    expect(out).toMatchObject({
      contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      extension: 'docx',
    });
    expect(compressionOf(out.body)).toBe(8);
    expect(documentXml(out.body)).toContain('<w:tblStyle ');
  });

  it('refuses past the cell budget, typed, before the converter is made or called', async () => {
    const { converter, handed } = fakeConverter();
    let made = 0;
    const failure = await produceDocument(
      template,
      { output: 'pdf', request },
      { prepare: { maxTableCells: 5 } },
      { converter: () => (made++, converter) },
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PayloadTooLargeError);
    expect((failure as PayloadTooLargeError).details).toMatchObject({
      reason: 'conversion_budget',
      limit: 5,
    });
    expect(made).toBe(0);
    expect(handed).toHaveLength(0);
  });

  it("passes the engine's typed errors through, and lets the request's fill options win over the settings'", async () => {
    const hello = buildDocx({ body: [p('Hello {{ name }}')] });
    const { converter } = fakeConverter();
    const strict = produceDocument(
      hello,
      { output: 'pdf', request: { template_data: {} }, fill: { undefined: 'strict' } },
      { fill: { undefined: 'empty' } },
      { converter },
    );
    await expect(strict).rejects.toBeInstanceOf(UndefinedVariableError);
    const lenient = await produceDocument(
      hello,
      { output: 'docx', request: { template_data: {} } },
      { fill: { undefined: 'debug' } },
    );
    expect(documentXml(lenient.body)).toContain('[Missing variable: name]');
  });

  it("wraps each conversion in the caller's runConversion (the worker's wait for LibreOffice) and marks a background item", async () => {
    const { converter, handed } = fakeConverter();
    let wrapped = 0;
    await produceDocument(
      template,
      { output: 'pdf', request },
      {},
      {
        converter,
        background: true,
        runConversion: (convert) => (wrapped++, convert()),
      },
    );
    expect(wrapped).toBe(1);
    expect(handed[0].options).toMatchObject({ background: true });
  });

  it('hands a request left as JSON to the off-loop filler, with the output, the merged options and the preparation', async () => {
    const { converter, handed } = fakeConverter();
    const jobs: FillJob[] = [];
    // The filler under the worker's FillPool: here on the loop, through the same fillDocument.
    const offLoop: OffLoopFill = {
      fill: (t, json, job) => (jobs.push(job), Promise.resolve(fillDocument(t, JSON.parse(json), job))),
    };
    await produceDocument(
      template,
      { output: 'pdf', requestJson: JSON.stringify(request), fill: { undefined: 'strict', locale: 'de_DE' } },
      { fill: { maxLoopIterations: 5000, locale: 'en_US' }, prepare: { resolveTableStyles: true } },
      { converter, offLoop },
    );
    expect(jobs).toEqual([
      {
        output: 'pdf',
        options: { maxLoopIterations: 5000, locale: 'de_DE', undefined: 'strict' },
        prepare: { resolveTableStyles: true },
      },
    ]);
    expect(documentXml(handed[0].docx)).not.toContain('<w:tblStyle ');
  });

  it('refuses an unknown output before filling, typed', async () => {
    await expect(
      produceDocument(
        template,
        { output: 'webp' as never, request },
        {},
        { converter: fakeConverter().converter },
      ),
    ).rejects.toMatchObject({ errorType: 'invalid_request_structure', details: { field: 'options.output' } });
  });

  it("pdfua: the request's own locale becomes the document language LibreOffice writes as /Lang", async () => {
    const { converter, handed } = fakeConverter();
    const described = corpusRequest('invoice', { rows: 3 }) as RenderRequest;
    for (const image of Object.values(
      (described as { images?: Record<string, { alt?: string }> }).images ?? {},
    ))
      image.alt = 'Company logo';
    await produceDocument(
      template,
      { output: 'pdf', request: described, pdf: { pdfua: true }, documentLocale: 'de_DE' },
      {},
      { converter },
    );
    const styles = new PizZip(handed[0].docx).file('word/styles.xml')!.asText();
    expect(styles).toMatch(/<w:rPrDefault>[\s\S]*<w:lang\b[^>]*w:val="de-DE"/);
    // Without pdfua the template's language stays.
    const plain = fakeConverter();
    await produceDocument(
      template,
      { output: 'pdf', request, documentLocale: 'de_DE' },
      {},
      { converter: plain.converter },
    );
    expect(new PizZip(plain.handed[0].docx).file('word/styles.xml')!.asText()).not.toContain('w:val="de-DE"');
  });

  it("pdfua: a picture without alternative text is the fill's typed 422 naming it, before any conversion", async () => {
    const { converter, handed } = fakeConverter();
    const withLogo = corpusRequest('invoice', { rows: 3 }) as RenderRequest;
    const images = (withLogo as { images?: Record<string, { alt?: string }> }).images ?? {};
    expect(Object.keys(images).length).toBeGreaterThan(0);
    for (const image of Object.values(images)) delete image.alt;
    await expect(
      produceDocument(
        template,
        { output: 'pdf', request: withLogo, pdf: { pdfua: true } },
        {},
        { converter },
      ),
    ).rejects.toMatchObject({ errorType: 'missing_alt_text' });
    expect(handed).toHaveLength(0);
  });

  it('odt, html and txt on a converter that writes PDF only: the typed 400 naming the route', async () => {
    const { converter, handed } = fakeConverter();
    for (const output of ['odt', 'html', 'txt'] as const) {
      await expect(produceDocument(template, { output, request }, {}, { converter })).rejects.toMatchObject({
        errorType: 'unsupported_output',
        details: { field: 'options.output', output, route: 'fake' },
      });
    }
    expect(handed).toHaveLength(0);
  });
});
