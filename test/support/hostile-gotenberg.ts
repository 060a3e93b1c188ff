/**
 * A Gotenberg 8 double for the fault tests, on 127.0.0.1 in the test process: it takes the
 * LibreOffice route (POST /forms/libreoffice/convert, the .docx in the multipart field `files`)
 * and converts with the converters library's own LibreOfficePool, so a worker pointed at it gets real
 * PDFs. Its behaviour is switched at run time, to play a Gotenberg that is down (connections
 * refused: the port is closed and later reopened), overloaded (503), slow (answers after a
 * delay) or dropping connections. Ideas taken from test/support/gotenberg-double.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { LibreOfficePool } from '@app/converters';
import { readGotenbergPdfFields } from './gotenberg-form';

export type GotenbergBehaviour =
  | { kind: 'ok' }
  /** Answers with this status and a short text (Gotenberg's 503 when busy, 429 queue full). */
  | { kind: 'status'; status: number }
  /** Waits `ms` before converting and answering (a slow or stuck Gotenberg). */
  | { kind: 'slow'; ms: number }
  /** Drops the connection without an answer. */
  | { kind: 'reset' };

export class GotenbergDouble {
  behaviour: GotenbergBehaviour = { kind: 'ok' };
  /** Behaviours for the next conversion requests, before `behaviour` applies again. */
  private readonly script: GotenbergBehaviour[] = [];
  /** Conversion requests received, and those answered with a PDF. */
  received = 0;
  converted = 0;
  /** The PDF option fields of the last conversion request, in the order sent. */
  lastFields: Array<[string, string]> = [];
  private server?: Server;
  private port = 0;
  private readonly sockets = new Set<Socket>();
  private readonly pool = new LibreOfficePool({ instances: 1 });

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts LibreOffice and listens (on a free port the first time, on the same port after down()). */
  async up(): Promise<string> {
    await this.pool.start();
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this.url;
  }

  /** Closes the port: new connections are refused, open ones are cut. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The next `n` conversion requests get `behaviour`; then the usual one again. */
  failNext(n: number, behaviour: GotenbergBehaviour): void {
    for (let i = 0; i < n; i++) this.script.push(behaviour);
  }

  async close(): Promise<void> {
    await this.down();
    await this.pool.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'up', details: { libreoffice: { status: 'up' } } }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/forms/libreoffice/convert') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      return;
    }
    this.received++;
    const behaviour = this.script.shift() ?? this.behaviour;
    if (behaviour.kind === 'reset') {
      req.socket.destroy();
      return;
    }
    if (behaviour.kind === 'status') {
      res
        .writeHead(behaviour.status, { 'content-type': 'text/plain; charset=UTF-8' })
        .end('Service Unavailable');
      return;
    }
    if (behaviour.kind === 'slow') {
      // Waits, unless the client gives up first (its timeout) or the double goes down.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, behaviour.ms);
        req.socket.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (req.socket.destroyed) return;
    }
    const form = await new Response(Buffer.concat(chunks), {
      headers: { 'content-type': req.headers['content-type'] ?? '' },
    }).formData();
    const file = form.get('files');
    if (!file || typeof file === 'string') {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('no form file found for extensions: [.docx]');
      return;
    }
    // Gotenberg's PDF form fields, checked as Gotenberg 8 would and applied to the conversion.
    const fields = readGotenbergPdfFields(form);
    this.lastFields = fields.sent;
    if (fields.problems.length > 0) {
      res
        .writeHead(400, { 'content-type': 'text/plain' })
        .end(`Invalid form data: ${fields.problems.join('; ')}`);
      return;
    }
    try {
      const pdf = await this.pool.convert(Buffer.from(await file.arrayBuffer()), { pdf: fields.options });
      this.converted++;
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(e));
    }
  }
}
