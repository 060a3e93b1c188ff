/**
 * HTTP helpers for the hostile-input and fault tests: raw requests (bodies the harness's
 * FormData would never build), the JSON error body check, and a recorder that writes what each
 * request got to .tmp/reliability/ so docs/reliability.md can quote the figures of a run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RENDER_PATH } from '../service-harness';

export interface ErrorBody {
  status: string;
  error_type: string;
  message: string;
  details: Record<string, unknown>;
}

export interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON error body, when the answer is JSON. */
  error?: ErrorBody;
  /** The raw body otherwise (PDF or .docx). */
  bytes?: Buffer;
  ms: number;
}

/** Reads a response whole; JSON bodies are parsed (and must parse). */
export async function answer(res: Promise<Response>): Promise<Answer> {
  const t0 = performance.now();
  const r = await res;
  const bytes = Buffer.from(await r.arrayBuffer());
  const ms = Math.round(performance.now() - t0);
  if ((r.headers.get('content-type') ?? '').startsWith('application/json')) {
    return {
      status: r.status,
      headers: r.headers,
      error: JSON.parse(bytes.toString('utf8')) as ErrorBody,
      ms,
    };
  }
  return { status: r.status, headers: r.headers, bytes, ms };
}

/** A POST to the render route with any body and content type. */
export function rawPost(baseUrl: string, body: Buffer | string, contentType?: string): Promise<Response> {
  return fetch(`${baseUrl}${RENDER_PATH}`, {
    method: 'POST',
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    body,
  });
}

/** A multipart body written by hand: parts as given, in order, with any header text. */
export function multipart(
  parts: Array<{ disposition: string; type?: string; body: Buffer | string }>,
  boundary = 'hostile-boundary-7MA4YWxk',
): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: ${part.disposition}\r\n`;
    if (part.type) head += `Content-Type: ${part.type}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`, 'latin1'), Buffer.from(part.body), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The error body of the interface: JSON with exactly status, error_type, message, details. */
export function expectErrorBody(a: Answer): ErrorBody {
  expect(a.headers.get('content-type')).toMatch(/^application\/json/);
  expect(a.error).toEqual({
    status: 'error',
    error_type: expect.any(String),
    message: expect.any(String),
    details: expect.any(Object),
  });
  return a.error!;
}

export interface Row {
  request: string;
  expected: string;
  got: string;
  ms: number;
}

/** Collects one row per request and writes them as a Markdown table. */
export class Recorder {
  readonly rows: Row[] = [];
  readonly notes: string[] = [];

  add(
    request: string,
    expected: string,
    a: Answer | { status: number; error?: ErrorBody; ms: number },
  ): void {
    this.rows.push({
      request,
      expected,
      got: `${a.status}${a.error ? ` ${a.error.error_type}` : ''}`,
      ms: a.ms,
    });
  }

  note(line: string): void {
    this.notes.push(line);
  }

  write(file: string, title: string): string {
    const dir = join(__dirname, '..', '..', '.tmp', 'reliability');
    mkdirSync(dir, { recursive: true });
    const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
    const lines = [
      `# ${title}`,
      '',
      `Run ${new Date().toISOString()}`,
      '',
      '| # | Request | Expected | Got | ms |',
      '| - | ------- | -------- | --- | -- |',
      ...this.rows.map(
        (r, i) => `| ${i + 1} | ${esc(r.request)} | ${esc(r.expected)} | ${esc(r.got)} | ${r.ms} |`,
      ),
      '',
      ...this.notes.map((n) => `- ${n}`),
      '',
    ];
    const path = join(dir, file);
    writeFileSync(path, lines.join('\n'));
    return path;
  }
}
