/**
 * The Gotenberg 8 client against a double of Gotenberg (test/support/gotenberg-double.ts) that
 * converts with the real LibreOffice pool, as Gotenberg does: the PDF comes back whole, and every
 * PDF option has its effect in it. The client's HTTP alone (retries, timeouts, errors, health):
 * libs/converters/src/gotenberg-converter.spec.ts.
 */
import type { PdfOptions } from '@app/contracts';
import { GotenbergConverter, LibreOfficePool } from '@app/converters';
import { makeInvoiceDocx, pdfToText, SAMPLE_INVOICE } from './support/converter-fixtures';
import { DOCX_MIME, GOTENBERG_CONVERT_ROUTE, GotenbergDouble } from './support/gotenberg-double';
import { pdfInfo, pdfXmp } from './support/pdf-inspect';

describe('GotenbergConverter against a Gotenberg 8 double', () => {
  let pool: LibreOfficePool;
  let double: GotenbergDouble;
  let url: string;
  let invoice: Buffer;
  const converters: GotenbergConverter[] = [];

  function client(options: Partial<ConstructorParameters<typeof GotenbergConverter>[0]> = {}) {
    const c = new GotenbergConverter({ url, retries: 2, retryBaseMs: 50, timeoutMs: 15_000, ...options });
    converters.push(c);
    return c;
  }

  beforeAll(async () => {
    invoice = makeInvoiceDocx();
    pool = new LibreOfficePool({ instances: 2 });
    double = new GotenbergDouble((docx, options) => pool.convert(docx, options));
    [url] = await Promise.all([double.listen(), pool.start()]);
  });

  afterAll(async () => {
    await Promise.all(converters.map((c) => c.close()));
    await double.close();
    await pool.close();
  });

  beforeEach(() => {
    double.seen.length = 0;
    double.script = [];
  });

  it('sends the request Gotenberg 8 documents and returns its PDF', async () => {
    const converter = client();
    const pdf = await converter.convert(invoice, { jobId: 'job-42' });

    expect(double.seen).toHaveLength(1);
    const [req] = double.seen;
    expect(req.problems).toEqual([]);
    expect(req).toMatchObject({ method: 'POST', url: GOTENBERG_CONVERT_ROUTE, trace: 'job-42' });
    expect(req.fields).toHaveLength(1);
    expect(req.fields[0]).toMatchObject({ name: 'files', filename: 'document.docx', type: DOCX_MIME });
    expect(req.fields[0].bytes!.equals(invoice)).toBe(true);
    // Our defaults, sent explicitly: Gotenberg's own are JPEG images and (before 8.18) no refresh.
    expect(req.sent).toEqual([
      ['losslessImageCompression', 'true'],
      ['updateIndexes', 'true'],
    ]);

    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdfToText(pdf);
    expect(text).toContain(SAMPLE_INVOICE.number);
    expect(text).toContain(SAMPLE_INVOICE.customer);
    expect(converter.stats()).toMatchObject({ conversions: 1, failures: 0, busy: 0, queueLength: 0 });
  });

  it('sends every PDF option as the Gotenberg 8 form field of the same meaning', async () => {
    const pdfOptions: PdfOptions = {
      pdfa: 'PDF/A-2b',
      pdfua: true,
      lossless_images: false,
      quality: 70,
      reduce_image_resolution: true,
      max_image_resolution: 150,
      metadata: { title: 'Contract 7', author: 'Ada', subject: 'Terms', keywords: 'a, b', creator: 'Us' },
      page_ranges: '1-2, 1',
      update_indexes: false,
    };
    const pdf = await client().convert(invoice, { jobId: 'opts', pdf: pdfOptions });

    const [req] = double.seen;
    expect(req.problems).toEqual([]);
    expect(req.sent).toEqual([
      ['losslessImageCompression', 'false'],
      ['updateIndexes', 'false'],
      ['pdfa', 'PDF/A-2b'],
      ['pdfua', 'true'],
      ['quality', '70'],
      ['reduceImageResolution', 'true'],
      ['maxImageResolution', '150'],
      ['nativePageRanges', '1-2,1'],
      [
        'metadata',
        JSON.stringify({
          Title: 'Contract 7',
          Author: 'Ada',
          Subject: 'Terms',
          Keywords: 'a, b',
          Creator: 'Us',
        }),
      ],
    ]);
    // Read back as Gotenberg reads them, they are the caller's options.
    expect(req.pdf).toEqual({ ...pdfOptions, page_ranges: '1-2,1' });
    expect(pdfXmp(pdf)).toMatch(/pdfaid:part(="|>)2/);
    expect(pdfInfo(pdf).Title).toBe('Contract 7');
  });
});
