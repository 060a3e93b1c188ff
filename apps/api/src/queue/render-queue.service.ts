/**
 * The API's side of the queue: admits a request (Redis up, a worker alive, room in the queue),
 * stores its payload, enqueues a RenderJob and waits for the worker's answer, so the HTTP caller
 * sees a plain synchronous answer. The worker's side is apps/worker/src/render.processor.ts.
 *
 * Answers come by this process's reply list (replyKey), which one blocking connection reads: the
 * worker pushes the document, or a final failure, there before it tells BullMQ, so the answer
 * arrives in one step. What no worker pushes (a job failed by BullMQ itself for stalling too
 * often, workers that predate reply lists, a push Redis refused) is found by looking up, once a
 * second, the jobs of requests waiting longer than that (checkStragglers), and at the latest at
 * JOB_TIMEOUT_MS. A job found completed whose reply names this list means the reply is in Redis
 * or on its way; if it has not come within REPLY_GRACE_MS it was lost with a dropped connection,
 * and the caller is told to send the document again. No QueueEvents: each API would read every
 * event of every job, about four per document, to learn of its own few.
 */
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { DigestLru, digestOf, type RenderRequest } from '@app/engine';
import { ServiceConfig } from '@app/config';
import {
  connectRedis,
  InternalError,
  onRedisConnectionLost,
  onRedisError,
  ProcessingTimeoutError,
  type RedisConnection,
  ServiceUnavailableError,
} from '@app/contracts';
import {
  CONTENT_TYPES,
  converterHealthKey,
  converterInfoKey,
  type ConverterInfo,
  decodeFailure,
  decodeReply,
  heartbeatKey,
  payloadKeys,
  QueueNames,
  type Reply,
  replyKey,
  RenderJob,
  templateKey,
  RenderJobOptions,
  RenderJobResult,
} from '@app/contracts';
import { liveWorkers } from '@app/contracts';
import { admitAndStore, type Admission } from './admission';

export type { RenderJob } from '@app/contracts';

export interface RenderInput {
  /** The HTTP request's id, carried to the worker's and the converter's logs. */
  requestId: string;
  template: Buffer;
  filename: string;
  request: RenderRequest;
  /** checkDocxTemplate passed on this template (the controller runs it before queueing). */
  templateChecked: boolean;
  /** digestOf(template), when the caller has it (the controller's check computed it). */
  templateDigest?: string;
  options: RenderJobOptions;
}

export interface RenderOutput {
  body: Buffer;
  contentType: string;
}

type Outcome =
  | { kind: 'replied'; reply: Reply }
  | { kind: 'completed'; result: RenderJobResult }
  | { kind: 'reply_lost' }
  | { kind: 'failed'; reason: string }
  | { kind: 'timeout' }
  | { kind: 'aborted' }
  | { kind: 'lost' };

/** Job states reported by jobCounts() (and the docgen_queue_jobs gauge). */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

export interface QueueProbe {
  redis: boolean;
  /** Set while the API shuts down: it takes no more requests. */
  closing?: boolean;
  liveWorkers?: number;
  healthyConverters?: number;
}

/** How often, after a Redis error, the API looks for lost jobs until Redis answers. */
const LOST_JOB_CHECK_MS = 1000;

/**
 * How long after a job's completed event its reply may still be on its way (it was pushed before
 * the event was written, so only a dropped connection delays it this long).
 */
const REPLY_GRACE_MS = 5000;

/** Requests waiting longer than this have their job looked up, this often (checkStragglers). */
const STRAGGLER_CHECK_MS = 1000;

/** States in which a job has not been taken by a worker yet (so it can be withdrawn). */
const NOT_STARTED = new Set(['waiting', 'delayed', 'prioritized', 'wait', 'paused']);

@Injectable()
export class RenderQueueService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('RenderQueue');
  private readonly names: QueueNames;
  private redis!: RedisConnection;
  /** Blocks on this process's reply list (BLPOP): nothing else runs on it. */
  private replyRedis!: RedisConnection;
  private readonly replyKey: string;
  private readingReplies?: Promise<void>;
  private queue!: Queue<RenderJob, RenderJobResult>;
  /**
   * Templates this API stored in Redis, by digest: until when it sends none (admit()). The last
   * 256 used are remembered.
   */
  private readonly storedTemplates = new DigestLru<{ until: number }>(256);
  /** Requests waiting for their job, by job id. */
  private readonly waiters = new Map<string, (outcome: Outcome) => void>();
  /** Jobs of waiting requests that are in the queue (added, not yet settled). */
  private readonly enqueued = new Map<string, number>();
  /** Jobs found completed, whose reply this API still waits for (REPLY_GRACE_MS). */
  private readonly replyGrace = new Set<string>();
  private stragglerCheck?: NodeJS.Timeout;
  private checkingStragglers = false;
  /** Pending after a Redis error or lost connection: look for lost jobs once Redis answers. */
  private lostJobCheck?: NodeJS.Timeout;
  private lastRedisError = 0;
  private closing = false;
  /** Set once the connections are being closed: the reply loop ends. */
  private closed = false;

  constructor(private readonly config: ServiceConfig) {
    this.names = { prefix: config.QUEUE_PREFIX, name: config.QUEUE_NAME };
    this.replyKey = replyKey(this.names, randomUUID());
  }

  onModuleInit(): void {
    const base: RedisOptions = { connectionName: 'docx-api' };
    // Commands fail at once while Redis is away, instead of queueing up behind a request, and
    // after REDIS_COMMAND_TIMEOUT_MS while it is stalled but still connected (a frozen process, a
    // fork stall, a partition): the request then gets 503 instead of hanging. This connection runs
    // no blocking command (the Queue and Bull Board only read and write).
    this.redis = connectRedis(this.config.redisTarget, {
      ...base,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: this.config.REDIS_COMMAND_TIMEOUT_MS,
    });
    // The reply list's BLPOP: no commandTimeout (it would cut every blocking read short), and it
    // waits out a reconnection.
    this.replyRedis = connectRedis(this.config.redisTarget, {
      connectionName: 'docx-api-replies',
      maxRetriesPerRequest: null,
    });
    for (const client of [this.redis, this.replyRedis]) {
      onRedisError(client, (e) => this.logRedisError(e));
      onRedisConnectionLost(client, () => this.scheduleLostJobCheck());
    }

    this.queue = new Queue<RenderJob, RenderJobResult>(this.names.name, {
      connection: this.redis,
      prefix: this.names.prefix,
    });
    this.queue.on('error', (e) => this.logRedisError(e));
    this.readingReplies = this.readReplies();
    this.stragglerCheck = setInterval(() => void this.checkStragglers(), STRAGGLER_CHECK_MS);
    this.stragglerCheck.unref();
  }

  /** Settles each request whose reply a worker pushed, until the module closes. */
  private async readReplies(): Promise<void> {
    while (!this.closed) {
      try {
        const popped = await this.replyRedis.blpopBuffer(this.replyKey, 0);
        const reply = popped ? decodeReply(popped[1]) : null;
        if (reply && 'failedReason' in reply)
          this.settle(reply.jobId, { kind: 'failed', reason: reply.failedReason });
        else if (reply) this.settle(reply.jobId, { kind: 'replied', reply });
      } catch (e) {
        if (this.closed) return;
        this.logRedisError(e);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  /**
   * Shutdown (SIGTERM): refuse new requests with 503 and let those waiting for a worker get their
   * answer, for JOB_TIMEOUT_MS at most; then close the connections.
   */
  async onModuleDestroy(): Promise<void> {
    this.closing = true;
    const deadline = Date.now() + this.config.JOB_TIMEOUT_MS + 1000;
    if (this.waiters.size > 0) this.logger.log(`shutting down: waiting for ${this.waiters.size} request(s)`);
    while (this.waiters.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    for (const settle of this.waiters.values()) settle({ kind: 'aborted' });
    this.closed = true;
    clearInterval(this.stragglerCheck);
    this.replyRedis.disconnect(); // ends the pending BLPOP
    await Promise.allSettled([this.queue.close(), this.readingReplies]);
    this.redis.disconnect();
  }

  /**
   * Runs one request through a worker. Throws the worker's typed error, ServiceUnavailableError
   * (503) or ProcessingTimeoutError (504). `signal` aborts the wait when the caller hangs up.
   */
  async render(input: RenderInput, signal?: AbortSignal): Promise<RenderOutput> {
    const retryAfter = this.config.RETRY_AFTER_SECONDS;
    if (this.closing) throw new ServiceUnavailableError('The service is shutting down', retryAfter);
    if (this.redis.status !== 'ready') throw new ServiceUnavailableError('Redis is unreachable', retryAfter);
    // Unique whatever the caller sent as X-Request-Id: it names the job and the payload keys.
    const jobId = randomUUID();
    const keys = payloadKeys(this.names, jobId);
    const digest = input.templateDigest ?? digestOf(input.template);
    const requestJson = JSON.stringify(input.request);
    const job: RenderJob = {
      requestId: input.requestId,
      ...keys,
      templateKey: templateKey(this.names, digest),
      templateDigest: digest,
      filename: input.filename,
      templateBytes: input.template.length,
      requestBytes: Buffer.byteLength(requestJson),
      imageCount: Object.keys(input.request.images ?? {}).length,
      templateChecked: input.templateChecked,
      options: input.options,
      // While the reply connection is away, answers take the completed event and the result key.
      ...(this.replyRedis.status === 'ready' ? { replyKey: this.replyKey } : {}),
    };
    job.admittedAt = await this.admit(job, input.template, requestJson, signal);
    const started = Date.now();
    let replied = false;
    // Listen before adding, so a fast worker's answer is not missed.
    const outcome = this.wait(jobId, signal);
    try {
      try {
        await this.queue.add('render', job, {
          jobId,
          attempts: this.config.JOB_ATTEMPTS,
          backoff: { type: 'exponential', delay: this.config.JOB_BACKOFF_MS },
          removeOnComplete: { age: 3600, count: 1000 },
          removeOnFail: { age: 24 * 3600, count: 1000 },
        });
        this.enqueued.set(jobId, Date.now());
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
        case 'completed': {
          const body = await this.redis.getBuffer(result.result.resultKey).catch((e: unknown) => {
            throw this.unavailable('Redis is unreachable', e);
          });
          if (!body) throw new InternalError('The result of the job has expired');
          this.logger.log(
            `job ${jobId} done in ${elapsed} ms (render ${result.result.renderMs} ms, convert ${result.result.convertMs} ms, worker ${result.result.worker}, ${body.length} bytes)`,
          );
          return { body, contentType: result.result.contentType ?? CONTENT_TYPES[input.options.output] };
        }
        case 'failed': {
          const error = decodeFailure(result.reason);
          this.logger.log(`job ${jobId} failed in ${elapsed} ms: ${error.errorType}: ${error.message}`);
          throw error;
        }
        case 'timeout':
          this.logger.warn(`job ${jobId} timed out after ${elapsed} ms`);
          throw new ProcessingTimeoutError(
            `The document was not processed within ${this.config.JOB_TIMEOUT_MS} ms`,
            { timeout_ms: this.config.JOB_TIMEOUT_MS },
          );
        case 'aborted':
          this.logger.log(`job ${jobId} abandoned by the caller after ${elapsed} ms`);
          throw new ProcessingTimeoutError('The request was abandoned', {});
        case 'reply_lost':
          this.logger.warn(`job ${jobId} completed but its reply did not arrive (${elapsed} ms)`);
          throw new ServiceUnavailableError(
            'The document was processed but its answer was lost on the way (a Redis connection dropped); send it again',
            this.config.RETRY_AFTER_SECONDS,
          );
        case 'lost':
          this.logger.warn(`job ${jobId} lost with Redis' data after ${elapsed} ms`);
          throw new ServiceUnavailableError(
            'Redis lost the document while it was processed (a restart without persistence); send it again',
            this.config.RETRY_AFTER_SECONDS,
          );
        default: {
          const unknown: never = result;
          throw new InternalError(`Unknown outcome ${JSON.stringify(unknown)}`);
        }
      }
    } finally {
      // The template's key is shared with other requests: its TTL ends it. A reply came with its
      // request's payload deleted and wrote no result.
      if (!replied) this.redis.del(keys.requestKey, keys.resultKey).catch(() => undefined);
    }
  }

  /** The BullMQ queue, for Bull Board (which reads it through this service's connection). */
  get bullQueue(): Queue<RenderJob, RenderJobResult> {
    return this.queue;
  }

  get redisReady(): boolean {
    return this.redis?.status === 'ready';
  }

  /** The queue by state, for the metrics (read on each scrape). Throws while Redis is away. */
  async jobCounts(): Promise<Record<QueueState, number>> {
    if (this.redis.status !== 'ready') throw new Error('Redis is not connected');
    const counts = await this.queue.getJobCounts(...QUEUE_STATES);
    return Object.fromEntries(QUEUE_STATES.map((s) => [s, counts[s] ?? 0])) as Record<QueueState, number>;
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
        liveWorkers(this.redis, heartbeatKey(this.names)),
        liveWorkers(this.redis, converterHealthKey(this.names)),
      ]);
      return { redis: true, liveWorkers: workers, healthyConverters: converters };
    } catch (e) {
      this.logRedisError(e);
      return { redis: false };
    }
  }

  /** The converter the workers published with their heartbeat (GET /version); null if none did. */
  async converterInfo(): Promise<ConverterInfo | null> {
    const text = await this.redis.get(converterInfoKey(this.names));
    if (!text) return null;
    try {
      const info = JSON.parse(text) as Partial<ConverterInfo>;
      return typeof info.kind === 'string' && typeof info.version === 'string'
        ? { kind: info.kind, version: info.version }
        : null;
    } catch {
      return null;
    }
  }

  /**
   * Live workers after waiting up to NO_WORKER_WAIT_MS for one to register (asked every 250 ms):
   * a request that arrives while workers restart is held briefly instead of refused. 0 when none
   * came, at once when there is no hold.
   */
  private async workersAfterWait(signal?: AbortSignal): Promise<number> {
    const deadline = Date.now() + this.config.NO_WORKER_WAIT_MS;
    for (;;) {
      if (Date.now() >= deadline || signal?.aborted || this.closing) return 0;
      await new Promise((r) => setTimeout(r, Math.min(250, Math.max(deadline - Date.now(), 1))));
      const workers = await liveWorkers(this.redis, heartbeatKey(this.names));
      if (workers > 0) return workers;
    }
  }

  /**
   * Refuses what would only time out (no worker alive after a short hold, the queue full) and
   * otherwise stores the request's payload, in one round trip (admission.ts). The template's bytes
   * go only when this API has not stored them within the last half PAYLOAD_TTL_MS, or when Redis
   * no longer has them. Returns Redis' clock at admission (RenderJob.admittedAt).
   */
  private async admit(
    job: RenderJob,
    template: Buffer,
    requestJson: string,
    signal?: AbortSignal,
  ): Promise<number> {
    const retryAfter = this.config.RETRY_AFTER_SECONDS;
    const digest = job.templateDigest!;
    const stored = this.storedTemplates.get(digest);
    let sendTemplate = !(stored && stored.until > Date.now());
    const run = () =>
      admitAndStore(
        this.redis,
        {
          heartbeat: heartbeatKey(this.names),
          wait: this.queue.keys.wait,
          prioritized: this.queue.keys.prioritized,
          delayed: this.queue.keys.delayed,
          template: job.templateKey,
          request: job.requestKey,
        },
        {
          maxWaiting: this.config.MAX_WAITING_JOBS,
          ttlMs: this.config.payloadTtlMs,
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
        admission = await run();
      }
    } catch (e) {
      throw this.unavailable('Redis is unreachable', e);
    }
    if (admission.workers === 0) {
      throw new ServiceUnavailableError('No worker is running', retryAfter, { live_workers: 0 });
    }
    if (admission.outcome !== 'stored') {
      throw new ServiceUnavailableError('Too many documents are waiting; try again shortly', retryAfter, {
        waiting_jobs: admission.waiting,
        max_waiting_jobs: this.config.MAX_WAITING_JOBS,
      });
    }
    // Stored or renewed: the key lives PAYLOAD_TTL_MS from now.
    const until = Date.now() + this.config.payloadTtlMs / 2;
    if (stored) stored.until = until;
    else this.storedTemplates.set(digest, { until });
    return admission.redisTime;
  }

  /** Resolves with the job's outcome; after JOB_TIMEOUT_MS (or an abort) withdraws the job if no worker took it. */
  private wait(jobId: string, signal?: AbortSignal): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      let done = false;
      const finish = (outcome: Outcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(jobId);
        this.enqueued.delete(jobId);
        resolve(outcome);
      };
      const giveUp = (kind: 'timeout' | 'aborted') => {
        if (done) return;
        this.withdraw(jobId).then(
          (late) => finish(late ?? { kind }),
          () => finish({ kind }),
        );
      };
      const onAbort = () => giveUp('aborted');
      const timer = setTimeout(() => giveUp('timeout'), this.config.JOB_TIMEOUT_MS);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(jobId, finish);
    });
  }

  /**
   * Called when the wait is over: returns the outcome if the job finished after all (an event may
   * be lost while Redis reconnects), else removes the job if no worker has started it.
   */
  private async withdraw(jobId: string): Promise<Outcome | undefined> {
    if (this.redis.status !== 'ready') return undefined;
    const job = await this.queue.getJob(jobId);
    if (!job) return undefined;
    const state = await job.getState();
    if (state === 'completed')
      return job.returnvalue?.replyKey
        ? { kind: 'reply_lost' }
        : { kind: 'completed', result: job.returnvalue };
    if (state === 'failed') return { kind: 'failed', reason: job.failedReason };
    if (NOT_STARTED.has(state)) {
      await job.remove().catch(() => undefined); // a worker may have taken it meanwhile
    }
    return undefined;
  }

  private settle(jobId: string, outcome: Outcome): void {
    const waiter = this.waiters.get(jobId);
    if (!waiter) return;
    if (outcome.kind === 'completed' && outcome.result?.replyKey) {
      // The reply was pushed before the job completed: it is in the list or on its way.
      if (this.replyGrace.has(jobId)) return;
      this.replyGrace.add(jobId);
      setTimeout(() => {
        this.replyGrace.delete(jobId);
        this.waiters.get(jobId)?.({ kind: 'reply_lost' });
      }, REPLY_GRACE_MS).unref();
      return;
    }
    waiter(outcome);
  }

  private unavailable(message: string, cause: unknown): ServiceUnavailableError {
    this.logRedisError(cause);
    return new ServiceUnavailableError(message, this.config.RETRY_AFTER_SECONDS);
  }

  /**
   * After a Redis error or a lost connection: once Redis answers again, settles the requests
   * whose job no longer exists as 'lost' (503 at once, instead of 504 after JOB_TIMEOUT_MS). A
   * finished job stays in Redis (the last 1000, for up to an hour) and its event settles the
   * request first, so a missing one was lost with Redis' data: a Redis (or the Redis Cluster
   * master of the queue's slot) restarted without persistence. One EXISTS per waiting request,
   * only after such an event.
   */
  private scheduleLostJobCheck(): void {
    if (this.lostJobCheck || this.closing) return;
    this.lostJobCheck = setTimeout(() => {
      this.lostJobCheck = undefined;
      void this.settleLostJobs().then(
        (answered) => {
          if (!answered) this.scheduleLostJobCheck(); // Redis still away: look again
        },
        () => this.scheduleLostJobCheck(),
      );
    }, LOST_JOB_CHECK_MS);
    this.lostJobCheck.unref();
  }

  /** True once Redis answered (or nothing is waiting). */
  private async settleLostJobs(): Promise<boolean> {
    const jobIds = [...this.enqueued.keys()];
    if (jobIds.length === 0) return true;
    if (this.redis.status !== 'ready') return false;
    const pipeline = this.redis.pipeline();
    for (const id of jobIds) pipeline.exists(this.queue.toKey(id));
    const answers = await pipeline.exec();
    if (!answers || answers.some(([err]) => err)) return false;
    answers.forEach(([, exists], i) => {
      if (exists === 0) this.settle(jobIds[i], { kind: 'lost' });
    });
    return true;
  }

  /**
   * Looks up the jobs of requests waiting longer than STRAGGLER_CHECK_MS, and settles those that
   * ended without a reply reaching this API: failed (by BullMQ itself, or with a push Redis
   * refused) or completed by a worker that writes the result key. One pipeline of two reads per
   * such request, once a second; nothing while every answer comes by reply within the second.
   */
  private async checkStragglers(): Promise<void> {
    if (this.checkingStragglers || this.redis.status !== 'ready') return;
    const now = Date.now();
    const due = [...this.enqueued].filter(([, at]) => now - at >= STRAGGLER_CHECK_MS).map(([id]) => id);
    if (due.length === 0) return;
    this.checkingStragglers = true;
    try {
      const pipeline = this.redis.pipeline();
      for (const id of due) {
        pipeline.hmget(this.queue.toKey(id), 'finishedOn', 'returnvalue', 'failedReason');
        pipeline.zscore(this.queue.keys.failed, id);
      }
      const answers = await pipeline.exec();
      due.forEach((id, i) => {
        const [fieldsError, fields] = answers?.[2 * i] ?? [new Error('no answer')];
        const [scoreError, failedScore] = answers?.[2 * i + 1] ?? [new Error('no answer')];
        if (fieldsError || scoreError) return;
        const [finishedOn, returnvalue, failedReason] = fields as Array<string | null>;
        if (!finishedOn) return; // waiting, running, or waiting for another attempt
        if (failedScore !== null) return this.settle(id, { kind: 'failed', reason: failedReason ?? '' });
        try {
          const result = JSON.parse(returnvalue ?? 'null') as RenderJobResult | null;
          if (result) this.settle(id, { kind: 'completed', result });
        } catch {
          // not a result of ours: the wait ends at JOB_TIMEOUT_MS
        }
      });
    } catch (e) {
      this.logRedisError(e);
    } finally {
      this.checkingStragglers = false;
    }
  }

  /** At most one line per 5 s while Redis is away. */
  private logRedisError(e: unknown): void {
    this.scheduleLostJobCheck();
    const now = Date.now();
    if (now - this.lastRedisError < 5000) return;
    this.lastRedisError = now;
    this.logger.warn(`Redis: ${e instanceof Error ? e.message : String(e)}`);
  }
}
