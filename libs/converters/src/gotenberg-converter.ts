/**
 * Gotenberg 8 backend: POST /forms/libreoffice/convert, the .docx as multipart field `files` and
 * `options.pdf` as Gotenberg's own form fields (gotenbergFormFields: pdfa, pdfua,
 * losslessImageCompression, quality, reduceImageResolution, maxImageResolution, metadata,
 * nativePageRanges, updateIndexes).
 *
 * Written on Node's own fetch + FormData + Blob rather than a client library: the request is
 * one multipart POST, and the clients on npm do not fit: gotenberg-js-client speaks the
 * Gotenberg 6 API (/convert/office), and chromiumly, which does speak Gotenberg 8, is a
 * wide builder for every route that configures itself from process-wide settings and has no
 * per-call timeout, retry or trace header of its own. What we need here (hard timeout, retry
 * with backoff on connection errors, 429 and 503, the trace header, Gotenberg's error text in our
 * error) is the code below either way.
 */
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';

import { OUTPUT_MEDIA } from '@app/contracts';
import { ConversionFailedError } from './errors';
import { gotenbergFormFields } from './pdf-options';
import { WaitQueue } from './wait-queue';
import {
  looksLikePdf,
  queueFullError,
  type ConvertOptions,
  type ConverterHealth,
  type ConverterStats,
  type PdfConverter,
} from './pdf-converter';

export interface GotenbergConverterOptions {
  /** Base address, e.g. http://gotenberg:3000 (no trailing route). */
  url: string;
  /** Requests in flight at once; more wait in the queue. Default os.availableParallelism(). */
  capacity?: number;
  /** Hard limit for one conversion, retries and backoff included. */
  timeoutMs?: number;
  /** Further attempts after a connection error, 429 or 503. */
  retries?: number;
  /** First backoff delay; doubled per attempt (with jitter), capped at 5 s. */
  retryBaseMs?: number;
  maxQueue?: number;
  /** Told about each retry (one line); default: silent. */
  log?: (message: string) => void;
}

export const GOTENBERG_DEFAULTS = {
  timeoutMs: 30_000,
  retries: 2,
  retryBaseMs: 250,
  maxQueue: 100,
  healthTimeoutMs: 5_000,
} as const;

export const GOTENBERG_CONVERT_ROUTE = '/forms/libreoffice/convert';
const DOCX_MIME = OUTPUT_MEDIA.docx.contentType;
/** 503: Gotenberg's own deadline ran out or it is not ready; 429: its queue is full. */
const RETRY_STATUSES = new Set([429, 503]);
const MAX_BACKOFF_MS = 5_000;
/** Gotenberg's error bodies are short texts; keep a bound in case a proxy answers with a page. */
const MAX_ERROR_TEXT = 2_000;

export class GotenbergConverter implements PdfConverter {
  readonly name = 'gotenberg';
  readonly capacity: number;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryBaseMs: number;
  private readonly maxQueue: number;
  private readonly closer = new AbortController();
  private readonly waiters: WaitQueue<void>;
  private busy = 0;
  private counters = { conversions: 0, failures: 0 };
  private readonly log: (message: string) => void;

  constructor(options: GotenbergConverterOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.capacity = options.capacity ?? availableParallelism();
    this.timeoutMs = options.timeoutMs ?? GOTENBERG_DEFAULTS.timeoutMs;
    this.retries = options.retries ?? GOTENBERG_DEFAULTS.retries;
    this.retryBaseMs = options.retryBaseMs ?? GOTENBERG_DEFAULTS.retryBaseMs;
    this.maxQueue = options.maxQueue ?? GOTENBERG_DEFAULTS.maxQueue;
    this.waiters = new WaitQueue<void>(this.maxQueue, (jobId?: string) =>
      queueFullError(this.name, this.maxQueue, jobId),
    );
    this.log = options.log ?? (() => undefined);
  }

  async convert(docx: Buffer, options: ConvertOptions = {}): Promise<Buffer> {
    try {
      await this.acquire(options.jobId);
      try {
        const pdf = await this.post(docx, options);
        this.counters.conversions++;
        return pdf;
      } finally {
        this.release();
      }
    } catch (e) {
      this.counters.failures++;
      throw e;
    }
  }

  /** Gotenberg's GET /health: healthy when it says `up`. */
  async health(): Promise<ConverterHealth> {
    const instances = this.capacity;
    try {
      const res = await fetch(`${this.url}/health`, {
        signal: AbortSignal.timeout(GOTENBERG_DEFAULTS.healthTimeoutMs),
      });
      const body = (await res.json().catch(() => ({}))) as { status?: string };
      const healthy = res.ok && body.status === 'up';
      return {
        healthy,
        instances,
        ready: healthy ? instances : 0,
        ...(healthy
          ? {}
          : { detail: `Gotenberg at ${this.url} answered ${res.status} ${JSON.stringify(body)}` }),
      };
    } catch (e) {
      return { healthy: false, instances, ready: 0, detail: `Gotenberg at ${this.url}: ${describe(e)}` };
    }
  }

  stats(): ConverterStats {
    return {
      ...this.counters,
      restarts: 0, // Gotenberg supervises its LibreOffice itself
      queueLength: this.waiters.length,
      busy: this.busy,
      instances: this.capacity,
    };
  }

  /** Aborts requests in flight and refuses new ones. */
  async close(): Promise<void> {
    this.closer.abort();
    this.waiters.rejectAll(this.closedError());
  }

  private async post(docx: Buffer, options: ConvertOptions): Promise<Buffer> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    // An explicit timer rather than AbortSignal.any([AbortSignal.timeout(…), …]): on Node 20 a
    // timeout signal held only through AbortSignal.any can be garbage-collected and never fire,
    // which left a request to a silent Gotenberg hanging.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
    const onClose = () => controller.abort(this.closer.signal.reason);
    if (this.closer.signal.aborted) onClose();
    else this.closer.signal.addEventListener('abort', onClose, { once: true });
    try {
      return await this.postUntil(docx, options, controller.signal, timeoutMs);
    } finally {
      clearTimeout(timer);
      this.closer.signal.removeEventListener('abort', onClose);
    }
  }

  private async postUntil(
    docx: Buffer,
    options: ConvertOptions,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<Buffer> {
    const trace = options.jobId ?? randomUUID();
    // Error details reach callers: they name the trace, never the internal URL (that goes to the log).
    const ctx = {
      backend: 'gotenberg',
      trace,
      ...(options.jobId ? { jobId: options.jobId } : {}),
    };

    for (let attempt = 1; ; attempt++) {
      const canRetry = attempt <= this.retries;
      let res: Response;
      try {
        const form = new FormData();
        form.append('files', new Blob([new Uint8Array(docx)], { type: DOCX_MIME }), 'document.docx');
        for (const [name, value] of gotenbergFormFields(options.pdf)) form.append(name, value);
        res = await fetch(`${this.url}${GOTENBERG_CONVERT_ROUTE}`, {
          method: 'POST',
          body: form,
          headers: { 'Gotenberg-Trace': trace },
          signal,
        });
        if (res.ok) {
          const pdf = Buffer.from(await res.arrayBuffer());
          if (!looksLikePdf(pdf)) {
            throw new ConversionFailedError('Gotenberg answered 200 but the body is not a PDF', {
              ...ctx,
              reason: 'no_output',
              contentType: res.headers.get('content-type'),
            });
          }
          return pdf;
        }
      } catch (e) {
        if (e instanceof ConversionFailedError) throw e;
        if (signal.aborted) throw this.abortError(timeoutMs, ctx, attempt);
        if (!canRetry) {
          this.log(`Gotenberg trace ${trace}: ${this.url} could not be reached: ${describe(e)}`);
          const code = (e as { cause?: { code?: unknown } } | undefined)?.cause?.code;
          throw new ConversionFailedError(
            `The PDF converter could not be reached${typeof code === 'string' ? ` (${code})` : ''}`,
            {
              ...ctx,
              reason: 'converter_unavailable',
              retryable: true,
              attempts: attempt,
            },
          );
        }
        this.log(`Gotenberg trace ${trace}: attempt ${attempt} failed (${describe(e)}), retrying`);
        await this.backoff(attempt, signal, timeoutMs, ctx);
        continue;
      }

      const text = (await res.text().catch(() => '')).trim().slice(0, MAX_ERROR_TEXT);
      if (RETRY_STATUSES.has(res.status) && canRetry) {
        this.log(`Gotenberg trace ${trace}: attempt ${attempt} answered ${res.status} (${text}), retrying`);
        await this.backoff(attempt, signal, timeoutMs, ctx);
        continue;
      }
      throw new ConversionFailedError(`Gotenberg could not convert the document (${res.status}): ${text}`, {
        ...ctx,
        reason: 'gotenberg_error',
        // Busy or timed out at Gotenberg's end says nothing about the document.
        retryable: RETRY_STATUSES.has(res.status),
        status: res.status,
        error: text,
        attempts: attempt,
      });
    }
  }

  private async backoff(attempt: number, signal: AbortSignal, timeoutMs: number, ctx: object): Promise<void> {
    const base = Math.min(MAX_BACKOFF_MS, this.retryBaseMs * 2 ** (attempt - 1));
    const delay = base / 2 + Math.random() * (base / 2); // jitter: replicas do not retry in step
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, delay);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    } catch {
      throw this.abortError(timeoutMs, ctx, attempt);
    }
  }

  private abortError(timeoutMs: number, ctx: object, attempts: number): ConversionFailedError {
    if (this.closer.signal.aborted) return this.closedError();
    return new ConversionFailedError(`Gotenberg did not answer within ${timeoutMs} ms`, {
      ...ctx,
      reason: 'timeout',
      timeoutMs,
      attempts,
    });
  }

  private acquire(jobId?: string): Promise<void> {
    if (this.closer.signal.aborted) return Promise.reject(this.closedError());
    if (this.busy < this.capacity) {
      this.busy++;
      return Promise.resolve();
    }
    return this.waiters.wait(jobId);
  }

  private release(): void {
    // The slot passes straight to the next waiter, if any.
    if (!this.waiters.handOver()) this.busy--;
  }

  private closedError(): ConversionFailedError {
    return new ConversionFailedError('The Gotenberg converter is closed', {
      backend: 'gotenberg',
      reason: 'converter_closed',
      retryable: true,
    });
  }
}

/** fetch's "fetch failed" hides the socket error in `cause`; that is the useful part. */
function describe(e: unknown): string {
  // Duck-typed: fetch's errors come from Node's own realm, so `instanceof Error` can fail (jest).
  const err = e as { message?: unknown; cause?: { message?: unknown; code?: unknown } } | undefined;
  if (typeof err?.message !== 'string') return String(e);
  const cause = err.cause;
  if (cause && typeof cause.message === 'string') {
    const code = typeof cause.code === 'string' ? `${cause.code}: ` : '';
    return `${err.message} (${code}${cause.message})`;
  }
  return err.message;
}
