/**
 * The worker's side of a RenderJob: load the template and the request (libs/queue's PayloadStore), fill the
 * template and make the document its output format asks for (libs/pipeline: fill, prepare, convert,
 * finish), push the result to the API's reply list. Failures are classified here: a caller's mistake fails the job at once
 * (UnrecoverableError), a converter outage is retried with backoff, and the reason always carries
 * the JSON error body so the API answers with the right error type and status.
 */
import {
  checkImagePixelsUpFront,
  ConversionFailedError,
  isLibreOfficeUnavailable,
  PAGE_IMAGE_DEFAULTS,
  parsePageSelection,
  parsePdfOptions,
  type PdfConverter,
  preparationOf,
} from '@app/converters';
import {
  PDF_FINISH_KEY,
  encodeFailure,
  encodeReply,
  InternalError,
  isImageOutput,
  type RenderJob,
  type RenderJobResult,
  TypedError,
} from '@app/contracts';
import {
  CompiledTemplates,
  DigestLru,
  type ImageLimits,
  parseDataJson,
  type RichLimits,
  type ChartLimits,
} from '@app/engine';
import { needsConverter, outputFormatOf, produceDocument, type SignRequest } from '@app/pipeline';
import {
  isFinalFailure,
  JobRecordStore,
  PayloadStore,
  pushReply,
  type RedisConnection,
  type RenderJobHandle as Job,
  UnrecoverableError,
} from '@app/queue';
import type { Logger } from 'pino';
import type { FillPool } from './fill/fill-pool';
// The request payload's reader (its PDF finishing options typed: RenderPayload).
import { openRenderPayload, type RenderPayload } from '@app/contracts';
import { jobContext } from './job-context';
import type { WorkerMetrics } from './worker-metrics';
import { recordQueueWait, type SpanHandle, withSpan } from '@app/telemetry';

/** What runs the jobs: this worker's id, its Redis connection (payloads, replies), log and metrics. */
export interface WorkerHandle {
  id: string;
  redis: RedisConnection;
  /** Each job logs through a child carrying its requestId and jobId. */
  logger: Logger;
  metrics?: WorkerMetrics;
}

/** The time a job has. */
export interface JobBudget {
  /** How long payloads and replies stay in Redis (PAYLOAD_TTL_MS). */
  payloadTtlMs: number;
  /** Per-conversion time limit handed to the converter (CONVERSION_TIMEOUT_MS). */
  convertTimeoutMs?: number;
  /**
   * The same for an item of an asynchronous job, which no caller waits on
   * (ASYNC_CONVERSION_TIMEOUT_MS); convertTimeoutMs when unset.
   */
  asyncConvertTimeoutMs?: number;
  /**
   * The API's wait (JOB_TIMEOUT_MS): a conversion gets at most what is left of it, less a
   * second for the answer to travel, so running out of time is the worker's typed error and
   * not the API's bare 504.
   */
  jobTimeoutMs?: number;
}

/** What one document may hold: the engine's limits (the limits settings of libs/contracts) and the PDF's. */
export interface JobLimits {
  /** Table cells a document may hold for PDF output (MAX_TABLE_CELLS). */
  maxTableCells?: number;
  /** The same for an item of an asynchronous job (ASYNC_MAX_TABLE_CELLS); maxTableCells when unset. */
  asyncMaxTableCells?: number;
  maxLoopIterations?: number;
  /** Cells one filled sheet may hold (MAX_CELLS_PER_SHEET). */
  maxCellsPerSheet?: number;
  /** Slides one filled deck may hold (MAX_SLIDES_PER_DECK). */
  maxSlidesPerDeck?: number;
  /** ALLOW_MACRO_TEMPLATES: macro-enabled workbooks and decks are filled (macros never run). */
  allowMacros?: boolean;
  /** Largest decoded file of options.pdf (MAX_PDF_EXTRA_BYTES), checked again here. */
  maxPdfExtraBytes?: number;
  imageLimits?: ImageLimits;
  richLimits?: Partial<RichLimits>;
  /** Chart points per chart and per request (MAX_CHART_POINTS, MAX_CHART_POINTS_PER_REQUEST). */
  chartLimits?: Partial<ChartLimits>;
  /** Pixels of the page images one request may ask for (MAX_IMAGE_OUTPUT_PIXELS). */
  maxImageOutputPixels?: number;
}

/** What this process keeps between jobs (one of each per process; created if absent). */
export interface ProcessCaches {
  /** Templates compiled by earlier jobs. */
  compiledTemplates?: CompiledTemplates;
  /** Templates' bytes read by earlier jobs, by digest. */
  templateBytes?: TemplateBytes;
}

export interface ProcessorDeps {
  worker: WorkerHandle;
  converter: PdfConverter;
  budget: JobBudget;
  limits?: JobLimits;
  caches?: ProcessCaches;
  /** Parent directory of the PDF finishing step's job directories (the converter's work dir). */
  finishTmpDir?: string;
  /**
   * Signs a finished PDF with one of the operator's profiles (options.pdf.signature; main.ts binds
   * it to libs/signing). Absent when no profile is configured: such requests are 400.
   */
  sign?: (pdf: Buffer, request: SignRequest, timeoutMs: number | undefined) => Promise<Buffer>;
  /** Table styles written as direct formatting before a PDF conversion (RESOLVE_TABLE_STYLES). */
  resolveTableStyles?: boolean;
  /** With it: tables of this many rows or more lose a style that shades every cell (the converter's SPLIT_MIN_ROWS). */
  resolveAllTableStylesFromRows?: number;
  /** Unused styles left out before a PDF conversion (PRUNE_UNUSED_STYLES). */
  pruneUnusedStyles?: boolean;
  /**
   * Large fills run on these threads, off the event loop (fill/fill-pool.ts): those whose
   * request JSON has at least `minRequestBytes` (FILL_THREAD_MIN_BYTES). Without it every fill
   * runs on the loop.
   */
  fillThreads?: { pool: FillPool; minRequestBytes: number };
}

/** Converter failures that say nothing about the document: another attempt may succeed. */
const RETRYABLE_CONVERSION_REASONS = new Set([
  'converter_queue_full',
  'converter_unavailable',
  'converter_closed',
]);
/** Network failures (e.g. Gotenberg unreachable) that reach us unwrapped. */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** How long an asynchronous job's item waits in all for a LibreOffice instance to start. */
export const UNAVAILABLE_WAIT_MAX_MS = 10 * 60_000;

/**
 * Converts; while no LibreOffice instance can start (a starved or broken machine: the pool keeps
 * retrying with backoff), waits for the pool's estimate (`retryAfterMs`, within [minWaitMs,
 * 60 s]) and converts again, for `maxWaitMs` in all. For asynchronous jobs' items, which no caller
 * waits on: their JOB_ATTEMPTS (1 s, 2 s apart) would all be spent within seconds of an outage
 * that lasts minutes. A synchronous request fails at once instead (a 503 with Retry-After).
 */
export async function convertWhenUp<T>(
  convert: () => Promise<T>,
  log: Pick<Logger, 'warn'>,
  { maxWaitMs = UNAVAILABLE_WAIT_MAX_MS, minWaitMs = 1000 } = {},
): Promise<T> {
  const giveUpAt = Date.now() + maxWaitMs;
  for (;;) {
    try {
      return await convert();
    } catch (e) {
      if (!isLibreOfficeUnavailable(e)) throw e;
      const hint = Number(e.details.retryAfterMs);
      const waitMs = Math.min(60_000, Math.max(minWaitMs, Number.isFinite(hint) ? hint : 5000));
      if (Date.now() + waitMs > giveUpAt) throw e;
      log.warn(`no LibreOffice instance is up (${e.message}); converting again in ${waitMs} ms`);
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
}

export function isRetryable(error: unknown): boolean {
  if (error instanceof ConversionFailedError) {
    return error.details.retryable === true || RETRYABLE_CONVERSION_REASONS.has(String(error.details.reason));
  }
  // A signing profile's time-stamping authority or OCSP responder that failed (libs/signing): an
  // outage of the operator's service, retried as a converter outage is.
  if (error instanceof TypedError)
    return error.errorType === 'signing_service_failed' && error.details.retryable === true;
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } } | undefined)?.code ??
    (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === 'string' && CONNECTION_ERROR_CODES.has(code);
}

/** The error a job fails with: its message is the JSON error body. */
export function jobFailure(error: unknown): Error {
  const typed =
    error instanceof TypedError
      ? error
      : isRetryable(error)
        ? new ConversionFailedError('The PDF converter is unreachable', { retryable: true })
        : new InternalError('The document could not be processed because of an internal error');
  const reason = encodeFailure(typed);
  return isRetryable(error) ? new Error(reason) : new UnrecoverableError(reason);
}

export function createRenderProcessor(deps: ProcessorDeps) {
  const { worker, converter, budget, limits = {} } = deps;
  const { redis, logger, metrics } = worker;
  const payloads = new PayloadStore(redis);
  // Callers send the same few templates over and over: each is compiled once per worker.
  const compiledTemplates = deps.caches?.compiledTemplates ?? new CompiledTemplates();
  const templateBytes = deps.caches?.templateBytes ?? new TemplateBytes();
  metrics?.watchCompiledTemplates(compiledTemplates);
  return function processRenderJob(job: Job): Promise<RenderJobResult> {
    const requestId = job.data.requestId;
    const jobId = String(job.id);
    const traceparent = job.data.traceparent;
    // From the API's enqueueing (BullMQ's timestamp, the API host's clock) to this attempt's start.
    recordQueueWait(traceparent, job.timestamp, { 'job.id': jobId, 'job.attempt': job.attemptsStarted });
    // Lines of the converter (which knows nothing of jobs) find the request id here.
    return jobContext.run({ requestId, jobId }, () =>
      withSpan('render job', (span) => runJob(job, logger.child({ requestId, jobId }), span), {
        kind: 'consumer',
        traceparent,
        attributes: {
          'job.id': jobId,
          'job.attempt': job.attemptsStarted,
          'job.background': job.data.background !== undefined,
          output: job.data.options.output ?? 'pdf',
          template_bytes: job.data.templateBytes,
          request_bytes: job.data.requestBytes,
          image_count: job.data.imageCount,
          'worker.id': worker.id,
        },
      }),
    );
  };

  async function runJob(job: Job, log: Logger, span: SpanHandle): Promise<RenderJobResult> {
    const { requestId, templateDigest, options } = job.data;
    // Ids and sizes only: template data and images never reach the log.
    log.info(
      {
        attempt: job.attemptsStarted,
        templateBytes: job.data.templateBytes,
        requestBytes: job.data.requestBytes,
        imageCount: job.data.imageCount,
        output: options.output,
      },
      `job ${job.id} started (attempt ${job.attemptsStarted}, ${job.data.templateBytes} bytes)`,
    );
    try {
      if (job.data.background && !(await JobRecordStore.markStarted(redis, job.data.background.recordKey))) {
        // DELETE /api/v1/jobs/{id} dropped the job: nobody will read this item (a typed error:
        // failed at once, logged as routine).
        throw new InternalError('The job was cancelled', { request_id: requestId, cancelled: true });
      }
      const receivedAt = performance.now();
      const [template, requestJson, redisNow] = await readPayload(payloads, job.data, templateBytes);
      // From here on the budget is counted on this process's monotonic clock alone.
      const deadline = jobDeadline(job.data, redisNow, budget, receivedAt);
      if (!template || requestJson === null) {
        // The API gave up on this request (timeout or hang-up) and deleted its payload.
        throw new InternalError('The request expired before a worker could take it', {
          request_id: requestId,
        });
      }
      // A large fill would hold the event loop (and every lock this worker renews) for seconds:
      // it runs on a thread, which parses the request itself. Here it is parsed only when it
      // may carry finishing options (the key's name appears in it): a 50,000-row request's
      // parse is 0.2–0.5 s of loop.
      const threads = deps.fillThreads;
      const onThread = threads !== undefined && requestJson.length >= threads.minRequestBytes;
      // The finishing options (passwords, files) came in the payload (RenderPayload), not the job data.
      const { request, finish } =
        onThread && !requestJson.includes(`"${PDF_FINISH_KEY}"`)
          ? { request: undefined, finish: undefined }
          : openRenderPayload(parseDataJson(requestJson) as RenderPayload);

      // The output format's row (libs/pipeline): what it is, how it is made and finished.
      const row = outputFormatOf(options.output);
      // Validated by the API; parsed again because the job crossed Redis as JSON,
      // before the fill, which a bad value would waste.
      const pdfOptions = !needsConverter(row)
        ? {}
        : parsePdfOptions(options.pdf || finish ? { ...options.pdf, ...finish } : undefined, 'options.pdf', {
            maxExtraBytes: limits.maxPdfExtraBytes,
          });

      if (isImageOutput(row.output)) {
        // Page images beyond MAX_IMAGE_OUTPUT_PIXELS are refused (413) before the fill, from the
        // template's largest page; pdfToPageImages checks again against the PDF's pages.
        checkImagePixelsUpFront(
          template,
          parsePageSelection(options.image?.pages),
          options.image ?? {},
          limits.maxImageOutputPixels ?? PAGE_IMAGE_DEFAULTS.maxPixels,
        );
      }

      // An asynchronous job's item has no caller waiting: budgets of its own.
      const maxTableCells = job.data.background
        ? (limits.asyncMaxTableCells ?? limits.maxTableCells)
        : limits.maxTableCells;
      // The conversion's time limit, asked as each step starts (what is left of the API's wait). An
      // asynchronous job's item has no caller waiting: its own conversion limit only.
      const jobBudget = () =>
        job.data.background
          ? (budget.asyncConvertTimeoutMs ?? budget.convertTimeoutMs)
          : conversionBudget(deadline, budget);
      const produced = await produceDocument(
        template,
        {
          output: row.output,
          ...(onThread ? { requestJson } : { request }),
          fill: {
            undefined: options.undefined,
            ...(options.locale ? { locale: options.locale } : {}),
            ...(options.timezone ? { timezone: options.timezone } : {}),
            // The API decoded every image before queueing; only sizes and headers are read again.
            imagesVerified: true,
            // Checked once per request, by the API; the worker still bounds what it inflates.
            templateChecked: job.data.templateChecked === true,
            templateDigest,
          },
          pdf: pdfOptions,
          ...(options.image ? { image: options.image } : {}),
          ...(options.documentLocale ? { documentLocale: options.documentLocale } : {}),
        },
        {
          ...(limits.maxImageOutputPixels ? { maxImagePixels: limits.maxImageOutputPixels } : {}),
          fill: {
            imageLimits: limits.imageLimits,
            richLimits: limits.richLimits,
            chartLimits: limits.chartLimits,
            ...(limits.maxLoopIterations ? { maxLoopIterations: limits.maxLoopIterations } : {}),
            // The spreadsheet and deck limits the settings give (the engine's defaults otherwise).
            ...(limits.maxCellsPerSheet ? { maxCellsPerSheet: limits.maxCellsPerSheet } : {}),
            ...(limits.maxSlidesPerDeck ? { maxSlidesPerDeck: limits.maxSlidesPerDeck } : {}),
            ...(limits.allowMacros ? { allowMacros: true } : {}),
          },
          // LibreOffice's preparation (the pdf row's passes; a .docx row has none): what it could not
          // convert within the budget is refused now, not at the timeout; long tables' styles as direct
          // formatting, which it imports faster; the styles nothing uses left out.
          prepare: {
            ...(maxTableCells ? { maxTableCells } : {}),
            ...preparationOf(deps),
          },
        },
        {
          converter,
          compiledTemplates,
          ...(onThread ? { offLoop: threads.pool } : {}),
          onFilled: (ms) => metrics?.renderDuration.observe(ms / 1000),
          // The request id names the conversion (Gotenberg-Trace, the converter's errors and lines).
          jobId: requestId || String(job.id),
          timeoutMs: jobBudget,
          ...(job.data.background
            ? { background: true, runConversion: (convert) => convertWhenUp(convert, log) }
            : {}),
          finishTmpDir: deps.finishTmpDir,
          ...(deps.sign
            ? { sign: (pdf: Buffer, request: SignRequest) => deps.sign!(pdf, request, jobBudget()) }
            : {}),
          log: (message) => log.warn(message),
        },
      );
      const result = produced.body;
      const renderMs = Math.round(produced.timings.fillMs);
      const convertMs = Math.round(produced.timings.convertMs);
      if (needsConverter(row)) metrics?.conversionDuration.observe(produced.timings.convertMs / 1000);

      const contentType = produced.contentType;
      // The request is answered: its payload goes with the push.
      const frame = encodeReply({ jobId: String(job.id), contentType, body: result });
      await pushReply(redis, job.data.replyKey, frame, replyTtlMs(job.data, budget), job.data.requestKey);
      metrics?.jobs.inc({ outcome: 'success' });
      span.setAttributes({ result_bytes: result.length });
      log.info(
        {
          bytes: result.length,
          renderMs,
          convertMs,
          fillThread: onThread,
        },
        `job ${job.id} completed (${result.length} bytes, render ${renderMs} ms, convert ${convertMs} ms)`,
      );
      return {
        replyKey: job.data.replyKey,
        bytes: result.length,
        contentType,
        renderMs,
        convertMs,
        worker: worker.id,
      };
    } catch (e) {
      const failure = jobFailure(e);
      const retry = !(failure instanceof UnrecoverableError);
      const errorType = e instanceof TypedError ? e.errorType : decodeErrorType(failure.message);
      metrics?.jobs.inc({ outcome: errorType });
      span.fail(errorType);
      span.setAttributes({ retry });
      const detail =
        e instanceof TypedError
          ? `${e.errorType}: ${e.message}`
          : e instanceof Error
            ? (e.stack ?? e.message)
            : String(e);
      // A caller's mistake is routine, an outage is worth a look, anything else is a bug.
      const level = retry ? 'warn' : e instanceof TypedError ? 'info' : 'error';
      log[level](
        { error_type: errorType, retry },
        `job ${job.id} failed${retry ? ' (will retry if attempts remain)' : ''}: ${detail}`,
      );
      // The job's own verdict (the caller's mistake, the converter's failure) goes to the API at
      // once. Anything unexpected (a bug, a Redis error while answering) is left to BullMQ's
      // record, which the API finds: a job Redis lost meanwhile is then told as lost (503).
      const verdict = e instanceof TypedError || isRetryable(e);
      if (verdict && isFinalFailure(job, failure)) await replyFailure(deps, job, failure, log);
      throw failure;
    }
  }
}

/**
 * Templates' bytes by digest, read from Redis by earlier jobs: callers send the same few templates
 * over and over, and a job whose template is here reads only its request. Bounded by entries and
 * bytes, least recently used out first.
 */
export class TemplateBytes extends DigestLru<Buffer> {
  constructor(maxEntries = 32, maxBytes = 64 * 1024 * 1024) {
    super(maxEntries, maxBytes);
  }
}

/**
 * The template's bytes, the request's JSON and Redis' clock (ms), in one round trip
 * (PayloadStore.read): the request alone when the template is kept here. The template's key is
 * named by the digest the API computed (templateKey), so bytes read under it are kept under that
 * digest. Redis' clock rides along so the job's age is measured on the clock that stamped
 * admittedAt.
 */
async function readPayload(
  payloads: PayloadStore,
  job: Pick<RenderJob, 'templateKey' | 'templateDigest' | 'requestKey'>,
  kept: TemplateBytes,
): Promise<[Buffer | null, string | null, number]> {
  const cached = job.templateDigest ? kept.get(job.templateDigest) : undefined;
  const read = await payloads.read(job, !cached);
  if (cached) return [cached, read.requestJson, read.redisNow];
  const template = read.template;
  if (template && job.templateDigest) kept.set(job.templateDigest, template, template.length);
  return [template, read.requestJson, read.redisNow];
}

/**
 * Tells the waiting API of a final failure in its reply list, before BullMQ records it. Best
 * effort: if Redis refuses, the API still finds the failed job (its check of requests waiting
 * over a second, or at JOB_TIMEOUT_MS).
 */
async function replyFailure(
  deps: Pick<ProcessorDeps, 'worker' | 'budget'>,
  job: Job,
  failure: Error,
  log: Logger,
): Promise<void> {
  try {
    const frame = encodeReply({ jobId: String(job.id), failedReason: failure.message });
    await pushReply(deps.worker.redis, job.data.replyKey, frame, replyTtlMs(job.data, deps.budget));
  } catch (e) {
    log.warn(`job ${job.id}: its failure could not be pushed to the API (${String(e)})`);
  }
}

/**
 * How long a reply waits in its list: for an asynchronous job's item (whose list is its own, read
 * by the job's parent once every item is done) as long as the job may take, else PAYLOAD_TTL_MS.
 */
function replyTtlMs(job: Pick<RenderJob, 'background'>, budget: Pick<JobBudget, 'payloadTtlMs'>): number {
  return job.background?.resultTtlMs ?? budget.payloadTtlMs;
}

/** Time the answer needs to reach the API after the conversion ends. */
const ANSWER_MARGIN_MS = 1000;

/**
 * When the API stops waiting for this job, on this process's monotonic clock (performance.now()):
 * JOB_TIMEOUT_MS after admission, less the time the job spent in the queue, which is measured
 * between two readings of Redis' clock (admittedAt, and `redisNow` read with the payload at
 * `receivedAt`). No host's wall clock is compared with another's: a worker minutes ahead of the
 * API's host used to find every job's budget spent. The wait is clamped to [0, JOB_TIMEOUT_MS]
 * (a failover to a Redis with another clock must not make it negative or endless); jobs of older
 * APIs (no admittedAt) count from their receipt. Undefined when there is no job budget.
 */
export function jobDeadline(
  job: Pick<RenderJob, 'admittedAt'>,
  redisNow: number,
  deps: Pick<JobBudget, 'jobTimeoutMs'>,
  receivedAt = performance.now(),
): number | undefined {
  if (!deps.jobTimeoutMs) return undefined;
  const admittedAt = job.admittedAt;
  const waited =
    typeof admittedAt === 'number' && Number.isFinite(admittedAt)
      ? Math.min(Math.max(0, redisNow - admittedAt), deps.jobTimeoutMs)
      : 0;
  return receivedAt + deps.jobTimeoutMs - waited;
}

/**
 * The conversion's time limit: CONVERSION_TIMEOUT_MS, within what is left before `deadline`
 * (jobDeadline; performance.now() clock) less a second for the answer to travel.
 */
export function conversionBudget(
  deadline: number | undefined,
  deps: Pick<JobBudget, 'convertTimeoutMs'>,
  now = performance.now(),
): number | undefined {
  if (deadline === undefined) return deps.convertTimeoutMs;
  const left = Math.max(100, Math.round(deadline - now) - ANSWER_MARGIN_MS);
  return Math.min(deps.convertTimeoutMs ?? left, left);
}

/** The error_type inside a failure's JSON reason (jobFailure always writes one). */
function decodeErrorType(reason: string): string {
  try {
    const parsed = JSON.parse(reason) as { error_type?: unknown };
    return typeof parsed.error_type === 'string' ? parsed.error_type : 'internal_error';
  } catch {
    return 'internal_error';
  }
}
