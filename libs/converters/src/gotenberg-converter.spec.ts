/**
 * The Gotenberg 8 client's HTTP against a double of Gotenberg (test/support/gotenberg-double.ts)
 * that answers fixed bytes: the form it sends, trace ids, retries, timeouts, errors and health.
 * The same double converting with the real LibreOffice pool, and the PDF options' effect in the
 * PDF: test/gotenberg-converter.e2e-spec.ts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PdfOptions } from '@app/contracts';
import { buildDocx, p } from '../../../test/support/docx-builder';
import { DOCX_MIME, GotenbergDouble } from '../../../test/support/gotenberg-double';
import { ConversionFailedError } from './errors';
import { GOTENBERG_CONVERT_ROUTE, GotenbergConverter } from './gotenberg-converter';
import { createConverter } from './index';

/** What the double answers a conversion with: bytes of its own, told apart by the trace id. */
const answerFor = (jobId?: string) => Buffer.from(`%PDF-1.7\n% the double's answer to ${jobId}\n`);

describe('GotenbergConverter against a Gotenberg 8 double', () => {
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
    invoice = buildDocx({ body: [p('Invoice {{ number }}')] });
    double = new GotenbergDouble((_docx, { jobId }) => Promise.resolve(answerFor(jobId)));
    url = await double.listen();
  });

  afterAll(async () => {
    await Promise.all(converters.map((c) => c.close()));
    await double.close();
  });

  beforeEach(() => {
    double.seen.length = 0;
    double.script = [];
  });

  it('sends the request Gotenberg 8 documents and returns its answer', async () => {
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

    expect(pdf.equals(answerFor('job-42'))).toBe(true);
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
    await client().convert(invoice, { jobId: 'opts', pdf: pdfOptions });

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
    // Their effect in a real PDF: test/gotenberg-converter.e2e-spec.ts.
  });

  it('sends a trace id of its own when the caller gives none', async () => {
    await client().convert(invoice);
    expect(double.seen[0].trace).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('retries after a 503 and succeeds, with the same trace id', async () => {
    double.script = ['503'];
    const logs: string[] = [];
    const pdf = await client({ log: (m) => logs.push(m) }).convert(invoice, { jobId: 'retry-me' });

    expect(pdf.equals(answerFor('retry-me'))).toBe(true);
    expect(double.seen.map((r) => r.trace)).toEqual(['retry-me', 'retry-me']);
    expect(logs).toEqual([
      'Gotenberg trace retry-me: attempt 1 answered 503 (Service Unavailable), retrying',
    ]);
  });

  it('retries after a dropped connection and succeeds', async () => {
    double.script = ['reset'];
    const pdf = await client().convert(invoice);

    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(double.seen).toHaveLength(2);
  });

  it("passes Gotenberg's 400 error text on, without retrying", async () => {
    double.script = ['400'];
    const converter = client();
    const err = await converter.convert(invoice, { jobId: 'bad' }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ConversionFailedError);
    const failure = err as ConversionFailedError;
    expect(failure.message).toContain('Invalid form data: no form file found for extensions');
    expect(failure.details).toMatchObject({
      backend: 'gotenberg',
      reason: 'gotenberg_error',
      status: 400,
      retryable: false,
      trace: 'bad',
      error: 'Invalid form data: no form file found for extensions: [.docx .doc]',
    });
    expect(double.seen).toHaveLength(1);
    expect(converter.stats()).toMatchObject({ conversions: 0, failures: 1 });
  });

  it('gives up after the configured retries when Gotenberg stays unavailable', async () => {
    double.script = ['503', '503', '503', '503'];
    const err = await client({ retries: 2 })
      .convert(invoice)
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ConversionFailedError);
    expect((err as ConversionFailedError).details).toMatchObject({
      status: 503,
      retryable: true,
      attempts: 3,
    });
    expect(double.seen).toHaveLength(3);
  });

  it('times out when Gotenberg never answers', async () => {
    double.script = ['silence'];
    const started = Date.now();
    const err = await client({ timeoutMs: 1500 })
      .convert(invoice)
      .catch((e: unknown) => e);
    const elapsed = Date.now() - started;

    expect(err).toBeInstanceOf(ConversionFailedError);
    expect((err as ConversionFailedError).details).toMatchObject({ reason: 'timeout', timeoutMs: 1500 });
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(5000);
    expect(double.seen).toHaveLength(1); // a timeout is not retried
  });

  it('reports an address nobody listens on as unavailable after its retries', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((resolve) => probe.close(resolve));

    const converter = client({ url: deadUrl, retries: 1 });
    const err = await converter.convert(invoice).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ConversionFailedError);
    expect((err as ConversionFailedError).message).toMatch(/ECONNREFUSED/);
    // Callers see the error body: no internal host or port in it.
    expect(JSON.stringify((err as ConversionFailedError).toBody())).not.toContain(
      deadUrl.slice('http://'.length),
    );
    expect((err as ConversionFailedError).details).toMatchObject({
      reason: 'converter_unavailable',
      retryable: true,
      attempts: 2,
    });
    await expect(converter.health()).resolves.toMatchObject({ healthy: false, ready: 0 });
  });

  it("reads Gotenberg's /health", async () => {
    await expect(client({ capacity: 3 }).health()).resolves.toEqual({
      healthy: true,
      instances: 3,
      ready: 3,
    });
  });

  it('is what createConverter builds when gotenbergUrl is set', async () => {
    const converter = createConverter({ gotenbergUrl: url, instances: 3, gotenbergRetries: 0 });
    try {
      expect(converter).toBeInstanceOf(GotenbergConverter);
      expect(converter.name).toBe('gotenberg');
      expect(converter.capacity).toBe(3);
      double.script = ['503'];
      // gotenbergRetries: 0 reaches the client: the first 503 is final.
      await expect(converter.convert(invoice)).rejects.toMatchObject({ details: { status: 503 } });
      expect(double.seen).toHaveLength(1);
    } finally {
      await converter.close();
    }
  });
});
