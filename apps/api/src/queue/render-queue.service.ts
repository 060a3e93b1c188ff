/**
 * The API's side of the queue: admits a request (Redis up, a worker alive, room in the queue),
 * stores its payload, enqueues a RenderJob and waits for the worker's answer, so the HTTP caller
 * sees a plain synchronous answer. The worker's side is apps/worker/src/render.processor.ts.
 *
 * This service only orchestrates; each part lives in libs/queue: admission (one Lua round trip),
 * the reply channel (the worker pushes the document or a final failure to this process's list),
 * the watchdog (what no reply brings: jobs BullMQ failed itself, replies lost, jobs lost with
 * Redis' data) and the BullMQ queue.
 */
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DigestLru, digestOf, stringifyDataJson, type RenderRequest } from '@app/engine';
import { ApiSettings } from '../config/settings';
import {
  type ConverterInfo,
  converterUnavailableError,
  decodeFailure,
  heartbeatKey,
  InternalError,
  payloadKeys,
  ProcessingTimeoutError,
  type QueueNames,
  replyKey,
  type RenderJob,
  type RenderJobOptions,
  ServiceUnavailableError,
  TypedError,
  templateKey,
} from '@app/contracts';
import {
  type Admission,
  connectRedis,
  type JobOutcome,
  onRedisConnectionLost,
  onRedisError,
  PayloadStore,
  type QueueState,
  type RedisConnection,
  ReplyReader,
  RenderQueue,
  Watchdog,
  WorkerRegistry,
} from '@app/queue';
import { currentTraceparent, withSpan } from '@app/telemetry';

export type { RenderJob } from '@app/contracts';
export { QUEUE_STATES, type QueueState } from '@app/queue';

/**
 * A stored template's bytes (docs/templates.md), read from PostgreSQL only when Redis does not
 * hold them already: a render by id sends no bytes while its template is recent.
 */
export interface LazyTemplate {
  size: number;
  load: () => Promise<Buffer>;
}

export interface RenderInput {
  /** The HTTP request's id, carried to the worker's and the converter's logs. */
  requestId: string;
  template: Buffer | LazyTemplate;
  filename: string;
  request: RenderRequest;
  /** checkDocxTemplate passed on this template (the controller runs it before queueing). */
  templateChecked: boolean;
  /** digestOf(template), when the caller has it (the controller's check computed it). */
  templateDigest?: string;
  options: RenderJobOptions;
  /** A render by id: which stored version (the job records it; no bytes). */
  storedTemplate?: RenderJob['storedTemplate'];
}

function bytesOf(template: Buffer | LazyTemplate): Promise<Buffer> {
  return Buffer.isBuffer(template) ? Promise.resolve(template) : template.load();
}

export interface RenderOutput {
  body: Buffer;
  contentType: string;
}

export interface QueueProbe {
  redis: boolean;
  /** Set while the API shuts down: it takes no more requests. */
  closing?: boolean;
  liveWorkers?: number;
  healthyConverters?: number;
}

@Injectable()
export class RenderQueueService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('RenderQueue');
  private readonly names: QueueNames;
  private redis!: RedisConnection;
  private payloads!: PayloadStore;
  private registry!: WorkerRegistry;
  private replies!: ReplyReader;
  private queue!: RenderQueue;
  private watchdog!: Watchdog;
  /**
   * Templates this API stored in Redis, by digest: until when it sends none (admit()). The last
   * 256 used are remembered.
   */
  private readonly storedTemplates = new DigestLru<{ until: number }>(256);
  /** Requests waiting for their job, by job id. */
  private readonly waiters = new Map<string, (outcome: JobOutcome) => void>();
  private lastRedisError = 0;
  private closing = false;

  constructor(private readonly config: ApiSettings) {
    this.names = config.queue.names;
  }

  onModuleInit(): void {
    // Commands fail at once while Redis is away, instead of queueing up behind a request, and
    // after REDIS_COMMAND_TIMEOUT_MS while it is stalled but still connected (a frozen process, a
    // fork stall, a partition): the request then gets 503 instead of hanging. This connection runs
    // no blocking command (the Queue and Bull Board only read and write).
    this.redis = connectRedis(this.config.redis.target, {
      connectionName: 'docx-api',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: this.config.redis.commandTimeoutMs,
    });
    // The reply list's BLPOP: no commandTimeout (it would cut every blocking read short), and it
    // waits out a reconnection.
    const replyRedis = connectRedis(this.config.redis.target, {
      connectionName: 'docx-api-replies',
      maxRetriesPerRequest: null,
    });
    this.payloads = new PayloadStore(this.redis);
    this.registry = new WorkerRegistry(this.redis, this.names);
    for (const client of [this.redis, replyRedis]) {
      onRedisError(client, (e) => this.logRedisError(e));
      onRedisConnectionLost(client, () => this.watchdog?.scheduleLostJobCheck());
    }
    this.queue = new RenderQueue(
      this.redis,
      { names: this.names, attempts: this.config.queue.attempts, backoffMs: this.config.queue.backoffMs },
      (e) => this.logRedisError(e),
    );
    this.watchdog = new Watchdog(
      this.queue,
      () => this.redis.status === 'ready',
      (jobId, outcome) => this.settle(jobId, outcome),
      (e) => this.logRedisError(e),
    );
    this.replies = new ReplyReader(
      replyRedis,
      replyKey(this.names, randomUUID()),
      (reply) =>
        this.settle(
          reply.jobId,
          'failedReason' in reply
            ? { kind: 'failed', reason: reply.failedReason }
            : { kind: 'replied', reply },
        ),
      (e) => this.logRedisError(e),
    );
    this.replies.start();
    this.watchdog.start();
  }

  /**
   * Shutdown (SIGTERM): refuse new requests with 503 and let those waiting for a worker get their
   * answer, for JOB_TIMEOUT_MS at most; then close the connections.
   */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    const deadline = Date.now() + this.config.queue.jobTimeoutMs + 1000;
    if (this.waiters.size > 0) this.logger.log(`shutting down: waiting for ${this.waiters.size} request(s)`);
    while (this.waiters.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const settle of this.waiters.values()) settle({ kind: 'aborted' });
    this.watchdog.stop();
    await Promise.allSettled([this.queue.close(), this.replies.stop()]);
    this.redis.disconnect();
  }

  /**
   * Runs one request through a worker. Throws the worker's typed error, ServiceUnavailableError
   * (503) or ProcessingTimeoutError (504). `signal` aborts the wait when the caller hangs up.
   */
  async render(input: RenderInput, signal?: AbortSignal): Promise<RenderOutput> {
    const retryAfter = this.config.queue.retryAfterSeconds;
    if (this.closing) throw new ServiceUnavailableError('The service is shutting down', retryAfter);
    if (this.redis.status !== 'ready') throw new ServiceUnavailableError('Redis is unreachable', retryAfter);
    // Unique whatever the caller sent as X-Request-Id: it names the job and the payload keys.
    const jobId = randomUUID();
    const keys = payloadKeys(this.names, jobId);
    const digest = input.templateDigest ?? digestOf(await bytesOf(input.template));
    // Floats as the data wrote them (`9.0`) cross the queue as written (runtime/json-numbers.ts).
    const requestJson = stringifyDataJson(input.request);
    const job: RenderJob = {
      requestId: input.requestId,
      ...keys,
      templateKey: templateKey(this.names, digest),
      templateDigest: digest,
      filename: input.filename,
      templateBytes: Buffer.isBuffer(input.template) ? input.template.length : input.template.size,
      requestBytes: Buffer.byteLength(requestJson),
      imageCount: Object.keys(input.request.images ?? {}).length,
      templateChecked: input.templateChecked,
      options: input.options,
      // While the reply connection is away the reply waits in the list (with its TTL).
      replyKey: this.replies.key,
      ...(input.storedTemplate ? { storedTemplate: input.storedTemplate } : {}),
    };
    // The worker's spans continue the request's trace (absent while traces are off).
    const traceparent = currentTraceparent();
    if (traceparent) job.traceparent = traceparent;
    job.admittedAt = await withSpan('admission', () => this.admit(job, input.template, requestJson, signal), {
      attributes: { 'job.id': jobId, template_bytes: job.templateBytes, request_bytes: job.requestBytes },
    });
    const started = Date.now();
    let replied = false;
    // Listen before adding, so a fast worker's answer is not missed.
    const outcome = this.wait(jobId, signal);
    try {
      try {
        await this.queue.add(jobId, job);
        this.watchdog.watch(jobId);
      } catch (e) {
        this.settle(jobId, { kind: 'aborted' });
        throw this.unavailable('Redis is unreachable', e);
      }
      const result = await outcome;
      const elapsed = Date.now() - started;
      replied = result.kind === 'replied';
      switch (result.kind) {
        case 'replied': {
          const { body, contentType } = result.reply;
          this.logger.log(`job ${jobId} done in ${elapsed} ms (${body.length} bytes, by reply)`);
          return { body, contentType };
        }
        case 'failed': {
          const error = decodeFailure(result.reason);
          this.logger.log(`job ${jobId} failed in ${elapsed} ms: ${error.errorType}: ${error.message}`);
          // No LibreOffice instance could start (a starved or broken worker): try later, a 503.
          throw converterUnavailableError(error, retryAfter) ?? error;
        }
        case 'timeout':
          this.logger.warn(`job ${jobId} timed out after ${elapsed} ms`);
          throw new ProcessingTimeoutError(
            `The document was not processed within ${this.config.queue.jobTimeoutMs} ms`,
            { timeout_ms: this.config.queue.jobTimeoutMs },
          );
        case 'aborted':
          this.logger.log(`job ${jobId} abandoned by the caller after ${elapsed} ms`);
          throw new ProcessingTimeoutError('The request was abandoned', {});
        case 'reply_lost':
          this.logger.warn(`job ${jobId} completed but its reply did not arrive (${elapsed} ms)`);
          throw new ServiceUnavailableError(
            'The document was processed but its answer was lost on the way (a Redis connection dropped); send it again',
            retryAfter,
          );
        case 'lost':
          this.logger.warn(`job ${jobId} lost with Redis' data after ${elapsed} ms`);
          throw new ServiceUnavailableError(
            'Redis lost the document while it was processed (a restart without persistence); send it again',
            retryAfter,
          );
        default: {
          const unknown: never = result;
          throw new InternalError(`Unknown outcome ${JSON.stringify(unknown)}`);
        }
      }
    } finally {
      // The template's key is shared with other requests: its TTL ends it. A reply came with its
      // request's payload deleted.
      if (!replied) this.payloads.drop(keys.requestKey).catch(() => undefined);
    }
  }

  /** The BullMQ queue, for Bull Board (which reads it through this service's connection). */
  get bullQueue(): RenderQueue['board'] {
    return this.queue.board;
  }

  get redisReady(): boolean {
    return this.redis?.status === 'ready';
  }

  /** The queue by state, for the metrics (read on each scrape). Throws while Redis is away. */
  async jobCounts(): Promise<Record<QueueState, number>> {
    if (this.redis.status !== 'ready') throw new Error('Redis is not connected');
    return this.queue.jobCounts();
  }

  /**
   * What readiness needs: Redis connected, live workers, and workers whose converter reported
   * healthy with their last heartbeat. Two cheap Redis calls; nothing else is asked once Redis is down.
   */
  async probe(): Promise<QueueProbe> {
    if (this.closing) return { redis: false, closing: true };
    if (this.redis.status !== 'ready') return { redis: false };
    try {
      const [workers, converters] = await Promise.all([
        this.registry.liveWorkers(),
        this.registry.healthyConverters(),
      ]);
      return { redis: true, liveWorkers: workers, healthyConverters: converters };
    } catch (e) {
      this.logRedisError(e);
      return { redis: false };
    }
  }

  /** The converter the workers published with their heartbeat (GET /version); null if none did. */
  converterInfo(): Promise<ConverterInfo | null> {
    return this.registry.converterInfo();
  }

  /**
   * Live workers after waiting up to NO_WORKER_WAIT_MS for one to register (asked every 250 ms):
   * a request that arrives while workers restart is held briefly instead of refused. 0 when none
   * came, at once when there is no hold.
   */
  private async workersAfterWait(signal?: AbortSignal): Promise<number> {
    const deadline = Date.now() + this.config.queue.noWorkerWaitMs;
    for (;;) {
      if (Date.now() >= deadline || signal?.aborted || this.closing) return 0;
      await new Promise((r) => setTimeout(r, Math.min(250, Math.max(deadline - Date.now(), 1))));
      const workers = await this.registry.liveWorkers();
      if (workers > 0) return workers;
    }
  }

  /**
   * Refuses what would only time out (no worker alive after a short hold, the queue full) and
   * otherwise stores the request's payload, in one round trip (PayloadStore.admit). The template's
   * bytes go only when this API has not stored them within the last half PAYLOAD_TTL_MS, or when
   * Redis no longer has them. Returns Redis' clock at admission (RenderJob.admittedAt).
   */
  private async admit(
    job: RenderJob,
    lazyTemplate: Buffer | LazyTemplate,
    requestJson: string,
    signal?: AbortSignal,
  ): Promise<number> {
    const retryAfter = this.config.queue.retryAfterSeconds;
    const digest = job.templateDigest;
    const stored = this.storedTemplates.get(digest);
    let sendTemplate = !(stored && stored.until > Date.now());
    // A stored template's bytes are read (from PostgreSQL) only when they must go to Redis.
    let template = Buffer.isBuffer(lazyTemplate)
      ? lazyTemplate
      : sendTemplate
        ? await lazyTemplate.load()
        : null;
    const run = () =>
      this.payloads.admit(
        {
          heartbeat: heartbeatKey(this.names),
          ...this.queue.waitingKeys,
          template: job.templateKey,
          request: job.requestKey,
        },
        {
          maxWaiting: this.config.queue.maxWaitingJobs,
          ttlMs: this.config.queue.payloadTtlMs,
          template: sendTemplate ? template : null,
          requestJson,
        },
      );
    let admission: Admission;
    try {
      admission = await run();
      if (admission.workers === 0 && (await this.workersAfterWait(signal)) > 0) admission = await run();
      if (admission.outcome === 'template_missing') {
        sendTemplate = true;
        template ??= await bytesOf(lazyTemplate);
        admission = await run();
      }
    } catch (e) {
      if (e instanceof TypedError) throw e;
      throw this.unavailable('Redis is unreachable', e);
    }
    if (admission.workers === 0) {
      throw new ServiceUnavailableError('No worker is running', retryAfter, { live_workers: 0 });
    }
    if (admission.outcome !== 'stored') {
      throw new ServiceUnavailableError('Too many documents are waiting; try again shortly', retryAfter, {
        waiting_jobs: admission.waiting,
        max_waiting_jobs: this.config.queue.maxWaitingJobs,
      });
    }
    // Stored or renewed: the key lives PAYLOAD_TTL_MS from now.
    const until = Date.now() + this.config.queue.payloadTtlMs / 2;
    if (stored) stored.until = until;
    else this.storedTemplates.set(digest, { until });
    return admission.redisTime;
  }

  /** Resolves with the job's outcome; after JOB_TIMEOUT_MS (or an abort) withdraws the job if no worker took it. */
  private wait(jobId: string, signal?: AbortSignal): Promise<JobOutcome> {
    return new Promise<JobOutcome>((resolve) => {
      let done = false;
      const finish = (outcome: JobOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(jobId);
        this.watchdog.forget(jobId);
        resolve(outcome);
      };
      const giveUp = (kind: 'timeout' | 'aborted') => {
        if (done) return;
        this.queue.withdraw(jobId).then(
          (late) => finish(late ?? { kind }),
          () => finish({ kind }),
        );
      };
      const onAbort = () => giveUp('aborted');
      const timer = setTimeout(() => giveUp('timeout'), this.config.queue.jobTimeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(jobId, finish);
    });
  }

  private settle(jobId: string, outcome: JobOutcome): void {
    this.waiters.get(jobId)?.(outcome);
  }

  private unavailable(message: string, cause: unknown): ServiceUnavailableError {
    this.logRedisError(cause);
    return new ServiceUnavailableError(message, this.config.queue.retryAfterSeconds);
  }

  /** At most one line per 5 s while Redis is away; lost jobs are looked for once it answers. */
  private logRedisError(e: unknown): void {
    this.watchdog?.scheduleLostJobCheck();
    const now = Date.now();
    if (now - this.lastRedisError < 5000) return;
    this.lastRedisError = now;
    this.logger.warn(`Redis: ${e instanceof Error ? e.message : String(e)}`);
  }
}
