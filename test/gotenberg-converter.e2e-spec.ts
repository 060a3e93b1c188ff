/**
 * The Gotenberg 8 client against a double of Gotenberg (test/support/gotenberg-double.ts) that
 * converts with the real LibreOffice pool, as Gotenberg does: the PDF comes back whole, and every
 * PDF option has its effect in it. The client's HTTP alone (retries, timeouts, errors, health):
 * libs/converters/src/gotenberg-converter.spec.ts.
 */
import type { PdfOptions } from '@app/contracts';
import { GotenbergConverter, LibreOfficePool } from '@app/converters';
import { makeInvoiceDocx, pdfToText, SAMPLE_INVOICE } from './support/converter-fixtures';
import { GotenbergDouble } from './support/gotenberg-double';
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

  it('returns the PDF of the document it sent', async () => {
    const converter = client();
    const pdf = await converter.convert(invoice, { jobId: 'job-42' });

    // The request's form, field by field: the unit spec (libs/converters/src/gotenberg-converter.spec.ts).
    expect(double.seen).toHaveLength(1);
    expect(double.seen[0].problems).toEqual([]);

    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdfToText(pdf);
    expect(text).toContain(SAMPLE_INVOICE.number);
    expect(text).toContain(SAMPLE_INVOICE.customer);
    expect(converter.stats()).toMatchObject({ conversions: 1, failures: 0, busy: 0, queueLength: 0 });
  });

  it('every PDF option, sent as its Gotenberg 8 form field, has its effect in the PDF', async () => {
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

    // The form fields sent: the unit spec. Here, their effect in the PDF LibreOffice makes.
    const [req] = double.seen;
    expect(req.problems).toEqual([]);
    // Read back as Gotenberg reads them, they are the caller's options.
    expect(req.pdf).toEqual({ ...pdfOptions, page_ranges: '1-2,1' });
    expect(pdfXmp(pdf)).toMatch(/pdfaid:part(="|>)2/);
    expect(pdfInfo(pdf).Title).toBe('Contract 7');
  });
});
