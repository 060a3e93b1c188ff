/**
 * What travels between the API and the workers, and where it is kept in Redis.
 *
 * A job carries ids, sizes, the file name and options only (Bull Board shows job data; it must not
 * show documents). The request (data and images) lives under the job's own key with a TTL,
 * beside the queue's keys under the same Redis Cluster hash tag; the worker deletes it with its
 * reply, the API in every other case. The template lives under a key named by its digest,
 * shared by the requests that send the same bytes, and ends with its TTL (renewed by each use).
 *
 * A failure crosses the queue as the JSON error body in the job's failed reason, so the caller gets
 * the error type, status and details the worker raised.
 */
import { TransportedError, TypedError, type ErrorDetails } from './errors';
import type { PdfOptions } from './pdf-options';

/**
 * Each output format's media type and file extension, written once. The document pipeline's table
 * (libs/pipeline/src/output-formats.ts) builds its rows on these; the API reads them here, as it
 * must not load the converters (LibreOffice's code) into its process. png and jpeg name one page;
 * several pages answer a ZIP (PAGE_IMAGES_ZIP), which the produced result then carries.
 */
export const OUTPUT_MEDIA = {
  pdf: { contentType: 'application/pdf', extension: 'pdf' },
  docx: {
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extension: 'docx',
  },
  odt: { contentType: 'application/vnd.oasis.opendocument.text', extension: 'odt' },
  html: { contentType: 'text/html; charset=utf-8', extension: 'html' },
  txt: { contentType: 'text/plain; charset=utf-8', extension: 'txt' },
  png: { contentType: 'image/png', extension: 'png' },
  jpeg: { contentType: 'image/jpeg', extension: 'jpg' },
  // Spreadsheet templates (.xlsx): the filled workbook, or Calc's OpenDocument spreadsheet.
  xlsx: {
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    extension: 'xlsx',
  },
  ods: { contentType: 'application/vnd.oasis.opendocument.spreadsheet', extension: 'ods' },
  // Slide-deck templates (.pptx): the filled deck, or Impress's OpenDocument presentation.
  pptx: {
    contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    extension: 'pptx',
  },
  odp: { contentType: 'application/vnd.oasis.opendocument.presentation', extension: 'odp' },
} as const satisfies Record<string, { contentType: string; extension: string }>;

/** Several pages of a png/jpeg output: a ZIP of page-1.png, page-2.png, … */
export const PAGE_IMAGES_ZIP = { contentType: 'application/zip', extension: 'zip' } as const;

export type OutputFormat = keyof typeof OUTPUT_MEDIA;

/** The extension of a result of `contentType` (a reply's), `bin` for one no output format makes. */
export function extensionOf(contentType: string): string {
  return (
    [...Object.values(OUTPUT_MEDIA), PAGE_IMAGES_ZIP].find((m) => m.contentType === contentType)?.extension ??
    'bin'
  );
}

/** The output formats a request may ask for, in the table's order. */
export const OUTPUT_FORMAT_NAMES = Object.keys(OUTPUT_MEDIA) as OutputFormat[];
/** The formats drawn from the PDF by pdftoppm, which options.image applies to. */
export const IMAGE_OUTPUTS = ['png', 'jpeg'] as const;

export function isImageOutput(output: string | undefined): output is (typeof IMAGE_OUTPUTS)[number] {
  return output === 'png' || output === 'jpeg';
}

/** options.image (ImageOutputOptionsSchema): page images' size, pages and JPEG quality. */
export interface ImageOutputOptions {
  dpi?: number;
  width_px?: number;
  height_px?: number;
  pages?: string;
  quality?: number;
}

/** Several pages of an image output answer a ZIP (page-1.png, …); one page the image. */
export function imageOutputIsZip(image: ImageOutputOptions | undefined): boolean {
  const pages = (image?.pages ?? '1').trim();
  return !/^\d+$/.test(pages) && !/^(\d+)\s*-\s*\1$/.test(pages);
}

/** The file extension of a request's answer: `letter.docx` → `letter.png`, several pages → `.zip`. */
export function outputExtension(output: OutputFormat | undefined, image?: ImageOutputOptions): string {
  if (isImageOutput(output) && imageOutputIsZip(image)) return PAGE_IMAGES_ZIP.extension;
  return OUTPUT_MEDIA[output ?? 'pdf'].extension;
}

/**
 * What a variable the data does not define becomes: `empty` nothing (the seed system's `silent`),
 * `debug` a visible `[Missing variable: customer.name]`, `property_missing` the seed system's
 * `<property missing in json>`, `strict` one `undefined_variable` error naming every one.
 */
export const UNDEFINED_MODES = ['empty', 'strict', 'debug', 'property_missing'] as const;
export type UndefinedMode = (typeof UNDEFINED_MODES)[number];

export interface RenderJobOptions {
  undefined: UndefinedMode;
  output: OutputFormat;
  /** `options.pdf` as the caller sent it, validated by the API (absent: the defaults). */
  pdf?: PdfOptions;
  /** `options.image`, for png and jpeg only (the API refuses it otherwise). */
  image?: ImageOutputOptions;
  /**
   * The formatting filters' locale and IANA time zone: the request's, else the API's
   * DEFAULT_LOCALE / DEFAULT_TIMEZONE, checked by the API. Absent in jobs of older APIs (en_US, UTC).
   */
  locale?: string;
  timezone?: string;
  /**
   * options.locale when the request itself names it (not DEFAULT_LOCALE): with options.pdf.pdfua
   * it becomes the document's language, the PDF's /Lang; without it the template's stays.
   */
  documentLocale?: string;
}

/** The data of one BullMQ job. */
export interface RenderJob {
  /**
   * The HTTP request's id (X-Request-Id, or one the API made up): the worker logs it and hands it
   * to the converter. Not the job id: callers may reuse an id, job ids must be unique.
   */
  requestId: string;
  /**
   * The W3C traceparent of the span that queued the job (docs/operations.md, "Traces"): the
   * worker's spans continue its trace. Absent while traces are off.
   */
  traceparent?: string;
  /**
   * Redis keys of the template (.docx bytes) and of the request (JSON: template_data, images).
   * The template's key is its digest's (templateKey): requests with the same bytes share it, so a
   * template sent over and over crosses Redis once per PAYLOAD_TTL_MS, not with every request.
   */
  templateKey: string;
  requestKey: string;
  /**
   * SHA-256 (base64) of the template's bytes, as the API computed it: workers keep recent
   * templates by it and read from Redis only what they lack.
   */
  templateDigest: string;
  /**
   * The list the API that queued the job reads its answers from (replyKey()): the worker pushes
   * the result there (encodeReply), deleting requestKey in the same transaction (the API deletes
   * it in every other case), and a final failure beside its failed reason, so the answer reaches
   * the waiting request in one step, before the worker has even told BullMQ the job is done.
   */
  replyKey: string;
  filename: string;
  templateBytes: number;
  requestBytes: number;
  imageCount: number;
  /**
   * The API ran the template checks (zip, sizes, DTDs, UTF-8, well-formed XML, macros) before
   * queueing: the worker does not scan every part again, only bounds what it inflates.
   */
  templateChecked: boolean;
  /**
   * Redis' clock (TIME, in ms) when the API admitted the request, just before it started its
   * JOB_TIMEOUT_MS wait. The worker reads Redis' clock again with the payload and so learns how
   * much of the wait is left on one clock: hosts' clocks may differ by minutes (no NTP in a
   * fresh container, a VM resumed from suspend). Absent in jobs of older APIs: the worker then
   * counts the budget from its own receipt of the job.
   */
  admittedAt?: number;
  options: RenderJobOptions;
  /**
   * An item of an asynchronous job (async-job.ts): no caller waits, so the conversion gets the
   * full CONVERSION_TIMEOUT_MS rather than what is left of JOB_TIMEOUT_MS, and its reply list is
   * the item's own (itemReplyKey) and lives this long, until the job's parent assembles it. The
   * item's index is its job id's.
   */
  background?: { resultTtlMs: number; recordKey: string };
  /**
   * A render by id (docs/templates.md): the stored template and version that rendered, for the
   * logs and the job's status. Its bytes reach the worker as any template's do, by digest.
   */
  storedTemplate?: { templateId: string; version: number; digest: string };
}

/** The return value of a completed job. */
export interface RenderJobResult {
  /** The reply list the result was pushed to. */
  replyKey: string;
  bytes: number;
  contentType: string;
  /** Milliseconds spent filling the template and converting it. */
  renderMs: number;
  convertMs: number;
  worker: string;
}

export interface QueueNames {
  prefix: string;
  name: string;
}

/** The key of one job's own payload (its request: data and images), in the queue's hash slot. */
export function payloadKeys(q: QueueNames, jobId: string): { requestKey: string } {
  return { requestKey: `${q.prefix}:${q.name}-payload:${jobId}:request` };
}

/**
 * The list one API process reads its answers from (BLPOP), named by an id it draws at start-up;
 * in the queue's hash slot. Each push renews its TTL, so the list of an API that went away ends
 * with it.
 */
export function replyKey(q: QueueNames, apiId: string): string {
  return `${q.prefix}:${q.name}-reply:${apiId}`;
}

/** One answer in a reply list: which job, and the document's bytes. */
export interface Reply {
  jobId: string;
  contentType: string;
  body: Buffer;
}

/**
 * A job's final failure in a reply list: the failed reason BullMQ records (encodeFailure's JSON
 * error body), pushed by the worker before BullMQ moves the job to failed.
 */
export interface FailureReply {
  jobId: string;
  failedReason: string;
}

/**
 * A reply as it crosses Redis: a 4-byte big-endian length, a JSON header of that length
 * ({ jobId, contentType } or { jobId, failedReason }), then the document's bytes as they are (no
 * base64; none for a failure).
 */
export function encodeReply(reply: Reply | FailureReply): Buffer {
  const header = Buffer.from(
    JSON.stringify(
      'failedReason' in reply
        ? { jobId: reply.jobId, failedReason: reply.failedReason }
        : { jobId: reply.jobId, contentType: reply.contentType },
    ),
    'utf8',
  );
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(header.length);
  return Buffer.concat('failedReason' in reply ? [prefix, header] : [prefix, header, reply.body]);
}

/** The reply in a frame encodeReply wrote; null for anything else (it is ignored, never thrown). */
export function decodeReply(frame: Buffer): Reply | FailureReply | null {
  if (frame.length < 4) return null;
  const headerLength = frame.readUInt32BE(0);
  if (headerLength > frame.length - 4) return null;
  try {
    const header = JSON.parse(frame.toString('utf8', 4, 4 + headerLength)) as Partial<Reply & FailureReply>;
    if (typeof header?.jobId !== 'string') return null;
    if (typeof header.failedReason === 'string')
      return { jobId: header.jobId, failedReason: header.failedReason };
    if (typeof header.contentType !== 'string') return null;
    return { jobId: header.jobId, contentType: header.contentType, body: frame.subarray(4 + headerLength) };
  } catch {
    return null;
  }
}

/**
 * The key of a template's bytes, named by their digest (digestOf: SHA-256, base64) and shared by
 * every request that sends those bytes; in the queue's hash slot. Each request that uses it sets
 * its TTL to PAYLOAD_TTL_MS again; no request deletes it.
 */
export function templateKey(q: QueueNames, digest: string): string {
  return `${q.prefix}:${q.name}-template:${digest.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

/** The sorted set where workers register their heartbeats. */
export function heartbeatKey(q: QueueNames): string {
  return `${q.prefix}:${q.name}-workers`;
}

/**
 * The sorted set (same scheme as heartbeatKey) where workers whose converter is healthy register;
 * the API's readiness needs at least one. A separate key keeps the heartbeat itself unchanged.
 */
export function converterHealthKey(q: QueueNames): string {
  return `${q.prefix}:${q.name}-converters-healthy`;
}

/**
 * Where workers publish which converter they use and its version (JSON `ConverterInfo`, with the
 * heartbeat's TTL), for the API's GET /version. The last worker to beat wins: workers of one
 * deployment share a converter kind.
 */
export function converterInfoKey(q: QueueNames): string {
  return `${q.prefix}:${q.name}-converter-info`;
}

export interface ConverterInfo {
  kind: string;
  /** `LibreOffice 7.4.7.2 …`, Gotenberg's `8.x`, or `unknown` when it could not be asked. */
  version: string;
}

/** An error as it crosses the queue: its type, never a status (the API maps types to statuses). */
export interface FailureBody {
  error_type: string;
  message: string;
  details: ErrorDetails;
}

export function encodeFailure(error: TypedError): string {
  const body: FailureBody = { error_type: error.errorType, message: error.message, details: error.details };
  return JSON.stringify(body);
}

/**
 * Rebuilds the typed error from a job's failed reason. A reason that is not ours (BullMQ's own, e.g.
 * a job that stalled too often) becomes an internal error.
 */
export function decodeFailure(reason: string | undefined): TypedError {
  try {
    const parsed = JSON.parse(reason ?? '') as Partial<FailureBody>;
    if (parsed && typeof parsed.error_type === 'string' && typeof parsed.message === 'string') {
      return new TransportedError({
        error_type: parsed.error_type,
        message: parsed.message,
        details: parsed.details ?? {},
      });
    }
  } catch {
    // not JSON: fall through
  }
  // BullMQ's own reasons; their text stays in the job (and the log), not in the answer.
  const stalled = /stalled more than allowable limit/i.test(reason ?? '');
  return new TransportedError({
    error_type: 'internal_error',
    message: stalled
      ? 'The document could not be processed: its worker stopped more often than allowed'
      : 'The document could not be processed',
    details: {},
  });
}
