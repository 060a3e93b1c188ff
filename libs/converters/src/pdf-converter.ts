import type { PdfOptions } from '@app/contracts';

import { ConversionFailedError } from './errors';

/** Per-call options. `timeoutMs` overrides the converter's default conversion timeout. */
export interface ConvertOptions {
  /** Carried into logs, error details and (Gotenberg) the `Gotenberg-Trace` header. */
  jobId?: string;
  timeoutMs?: number;
  /** How the PDF is written (`request_data.options.pdf`, validated by parsePdfOptions). */
  pdf?: PdfOptions;
  /** An asynchronous job's item (no caller waiting): a refusal as beyond its time suggests no job. */
  background?: boolean;
}

export interface ConverterHealth {
  healthy: boolean;
  instances: number;
  ready: number;
  detail?: string;
}

/** Counters since the converter was created; `busy` and `queueLength` are the current values. */
export interface ConverterStats {
  conversions: number;
  failures: number;
  restarts: number;
  queueLength: number;
  busy: number;
  instances: number;
}

/** A filled .docx in, a PDF out. Implemented by the embedded LibreOffice pool and the Gotenberg client. */
export interface PdfConverter {
  readonly name: string; // 'libreoffice' | 'gotenberg'
  readonly capacity: number; // how many conversions it runs at once
  /** What else it runs with, for the start-up log line (the pool: `allocator jemalloc, work dir /dev/shm`). */
  readonly setup?: string;
  convert(docx: Buffer, options?: ConvertOptions): Promise<Buffer>;
  health(): Promise<ConverterHealth>;
  stats(): ConverterStats;
  close(): Promise<void>;
}

/**
 * `details.reason` of the ConversionFailedError thrown when the wait queue is full. A
 * ConversionFailedError rather than a class of its own: it then crosses the job queue as JSON
 * and is rebuilt with its status by TransportedError like every other error; callers
 * that want to answer 503 instead of 502 test `isConverterQueueFull(e)`.
 */
export const QUEUE_FULL_REASON = 'converter_queue_full';

export function queueFullError(converter: string, maxQueue: number, jobId?: string): ConversionFailedError {
  return new ConversionFailedError(
    `The ${converter} converter is busy: ${maxQueue} conversions are already waiting`,
    { reason: QUEUE_FULL_REASON, retryable: true, converter, maxQueue, ...(jobId ? { jobId } : {}) },
  );
}

export function isConverterQueueFull(e: unknown): e is ConversionFailedError {
  return e instanceof ConversionFailedError && e.details.reason === QUEUE_FULL_REASON;
}

/**
 * The embedded LibreOffice pool has no instance up (every start failed; it retries with backoff):
 * nothing is wrong with the document. `details.retryAfterMs` estimates when an instance may be up.
 */
export function isLibreOfficeUnavailable(e: unknown): e is ConversionFailedError {
  return (
    e instanceof ConversionFailedError &&
    e.details.reason === 'converter_unavailable' &&
    e.details.backend === 'libreoffice'
  );
}

/** A PDF file starts with `%PDF-`; anything else from a converter is a failure, not a result. */
export function looksLikePdf(buf: Buffer): boolean {
  return buf.length > 5 && buf.subarray(0, 5).toString('latin1') === '%PDF-';
}
