import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PdfOptions } from '@app/contracts';
import { readGotenbergPdfFields } from './gotenberg-form';

/** Gotenberg 8's LibreOffice route, as its documentation gives it. */
export const GOTENBERG_CONVERT_ROUTE = '/forms/libreoffice/convert';

/**
 * A stand-in for Gotenberg 8 on 127.0.0.1: it checks each request the way Gotenberg documents
 * its LibreOffice route (POST /forms/libreoffice/convert, multipart, the document in field
 * `files` with an Office extension, optional Gotenberg-Trace header) and answers what the test
 * scripted; `ok` answers with what `convert` makes of the document: the embedded LibreOffice
 * pool's real PDF in test/gotenberg-converter.e2e-spec.ts, fixed bytes in the unit spec
 * (libs/converters/src/gotenberg-converter.spec.ts), which tests the client's HTTP alone.
 */
export type Answer = 'ok' | '503' | '400' | 'silence' | 'reset';

export interface SeenRequest {
  method?: string;
  url?: string;
  trace?: string;
  fields: Array<{ name: string; filename?: string; type?: string; bytes?: Buffer }>;
  /** The text fields (Gotenberg's PDF options) in the order sent, and what they mean to Gotenberg. */
  sent: Array<[string, string]>;
  pdf: PdfOptions;
  problems: string[];
}

export const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

export class GotenbergDouble {
  readonly seen: SeenRequest[] = [];
  script: Answer[] = [];
  private server?: Server;

  constructor(
    private readonly convert: (docx: Buffer, options: { jobId?: string; pdf: PdfOptions }) => Promise<Buffer>,
  ) {}

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
    const pdf = await this.convert(docx, { jobId: seen.trace, pdf: seen.pdf });
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
