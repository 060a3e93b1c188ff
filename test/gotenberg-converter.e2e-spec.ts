import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { PdfOptions } from '@app/contracts';
import { ConversionFailedError, createConverter, GotenbergConverter, LibreOfficePool } from '@app/converters';
import { makeInvoiceDocx, pdfToText, SAMPLE_INVOICE } from './support/converter-fixtures';
import { readGotenbergPdfFields } from './support/gotenberg-form';
import { pdfInfo, pdfXmp } from './support/pdf-inspect';

/** Gotenberg 8's LibreOffice route, as its documentation gives it. */
const GOTENBERG_CONVERT_ROUTE = '/forms/libreoffice/convert';

/**
 * A stand-in for Gotenberg 8 on 127.0.0.1: it checks each request the way Gotenberg documents
 * its LibreOffice route (POST /forms/libreoffice/convert, multipart, the document in field
 * `files` with an Office extension, optional Gotenberg-Trace header) and answers what the test
 * scripted; `ok` answers with a real PDF from the embedded LibreOffice pool.
 */
type Answer = 'ok' | '503' | '400' | 'silence' | 'reset';

interface SeenRequest {
  method?: string;
  url?: string;
  trace?: string;
  fields: Array<{ name: string; filename?: string; type?: string; bytes?: Buffer }>;
  /** The text fields (Gotenberg's PDF options) in the order sent, and what they mean to Gotenberg. */
  sent: Array<[string, string]>;
  pdf: PdfOptions;
  problems: string[];
}

const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

class GotenbergDouble {
  readonly seen: SeenRequest[] = [];
  script: Answer[] = [];
  private server?: Server;

  constructor(private readonly pool: LibreOfficePool) {}

  async listen(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections(); // the "silent" requests hold their sockets open
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'up', details: { libreoffice: { status: 'up' } } }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const seen = await this.inspect(req, Buffer.concat(chunks));
    this.seen.push(seen);

    const answer = this.script.shift() ?? 'ok';
    if (answer === 'silence') return; // never answer
    if (answer === 'reset') {
      req.socket.destroy();
      return;
    }
    if (answer === '503') {
      res.writeHead(503, { 'content-type': 'text/plain; charset=UTF-8' }).end('Service Unavailable');
      return;
    }
    if (answer === '400' || seen.problems.length > 0) {
      // Gotenberg's answer to a form it cannot use: 400 with a plain-text reason.
      const text =
        seen.problems.join('; ') || 'Invalid form data: no form file found for extensions: [.docx .doc]';
      res.writeHead(400, { 'content-type': 'text/plain; charset=UTF-8' }).end(text);
      return;
    }
    const docx = seen.fields.find((f) => f.name === 'files')!.bytes!;
    const pdf = await this.pool.convert(docx, { jobId: seen.trace, pdf: seen.pdf });
    res.writeHead(200, {
      'content-type': 'application/pdf',
      'content-disposition': 'attachment; filename="document.pdf"',
      'gotenberg-trace': seen.trace ?? '',
    });
    res.end(pdf);
  }

  private async inspect(req: IncomingMessage, body: Buffer): Promise<SeenRequest> {
    const seen: SeenRequest = {
      method: req.method,
      url: req.url,
      trace: req.headers['gotenberg-trace'] as string | undefined,
      fields: [],
      sent: [],
      pdf: {},
      problems: [],
    };
    if (req.method !== 'POST') seen.problems.push(`method ${req.method}, expected POST`);
    if (req.url !== GOTENBERG_CONVERT_ROUTE) seen.problems.push(`route ${req.url}`);
    const contentType = req.headers['content-type'] ?? '';
    if (!contentType.startsWith('multipart/form-data; boundary=')) {
      seen.problems.push(`content-type ${contentType}`);
      return seen;
    }
    // undici's own multipart parser (the one behind fetch's Response.formData()).
    const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
    const pdfFields = readGotenbergPdfFields(form);
    seen.sent = pdfFields.sent;
    seen.pdf = pdfFields.options;
    seen.problems.push(...pdfFields.problems);
    for (const [name, value] of form.entries()) {
      if (typeof value !== 'string') {
        seen.fields.push({
          name,
          filename: value.name,
          type: value.type,
          bytes: Buffer.from(await value.arrayBuffer()),
        });
      }
    }
    const files = seen.fields.filter((f) => f.name === 'files' && f.bytes);
    if (files.length !== 1)
      seen.problems.push(
        `expected one file in field "files", got ${JSON.stringify(seen.fields.map((f) => f.name))}`,
      );
    else if (!/\.docx$/.test(files[0].filename ?? '')) seen.problems.push(`filename ${files[0].filename}`);
    if (!seen.trace) seen.problems.push('no Gotenberg-Trace header');
    return seen;
  }
}

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
    double = new GotenbergDouble(pool);
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

  it('sends a trace id of its own when the caller gives none', async () => {
    await client().convert(invoice);
    expect(double.seen[0].trace).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('retries after a 503 and succeeds, with the same trace id', async () => {
    double.script = ['503'];
    const logs: string[] = [];
    const pdf = await client({ log: (m) => logs.push(m) }).convert(invoice, { jobId: 'retry-me' });

    expect(pdfToText(pdf)).toContain(SAMPLE_INVOICE.number);
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
