/**
 * The API's side of asynchronous jobs (libs/contracts/src/async-job.ts): stores a job's record
 * and payload (libs/queue's JobRecordStore), adds its flow (FlowProducer: one parent, one child per item), and reads the record,
 * the progress and the result back. Nothing is kept in this process: any API answers for any job.
 */
import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ApiSettings } from '../config/settings';
import {
  type AsyncJobRecord,
  type AsyncJobStatus,
  type AsyncOutput,
  asyncJobKeys,
  decodeFailure,
  InternalError,
  itemReplyKey,
  JOB_ID_PATTERN,
  jobPaths,
  newJobId,
  type QueueNames,
  type RenderJob,
  type RenderJobOptions,
  ServiceUnavailableError,
  TransportedError,
  TypedError,
  type ErrorBody,
  JobNotFinishedError,
  JobNotFoundError,
  type JobView,
  OUTPUT_MEDIA,
  type ParsedDeliverTo,
  shownUrl,
} from '@app/contracts';
import { type RenderRequest, stringifyDataJson } from '@app/engine';
import { connectRedis, JobFlows, JobRecordStore, onRedisError, type RedisConnection } from '@app/queue';
import { currentTraceparent } from '@app/telemetry';

/** How long an unfinished job's record and payload are kept: a day, or RESULT_TTL_S if longer. */
const MIN_PENDING_TTL_MS = 24 * 3600 * 1000;

export interface JobInput {
  requestId: string;
  template: Buffer;
  templateDigest: string;
  /** The result's name (Content-Disposition). */
  filename: string;
  /** One per item (one for a plain job). */
  requests: RenderRequest[];
  itemNames?: string[];
  output: AsyncOutput;
  options: RenderJobOptions;
  webhookUrl?: string;
  /** Kept under its own key (asyncJobKeys().delivery), never in the record or BullMQ's job data. */
  deliverTo?: ParsedDeliverTo;
  baseUrl: string;
  /** A render by id: recorded with the job, shown in its status (template_version). */
  storedTemplate?: RenderJob['storedTemplate'];
  /** What the fill drops from the template (templateWarnings): in the status and the result's Warning header. */
  warnings?: string[];
}

// The status answer's type comes from its schema, beside the OpenAPI it gives.
export type { JobView };

export interface JobResult {
  body: Buffer;
  contentType: string;
  filename: string;
  /** What the fill dropped from the template: the result's Warning header. */
  warnings?: string[];
}

/** The record's warnings; [] when none (or a record written before jobs kept them). */
function warningsOf(record: Partial<AsyncJobRecord>): string[] {
  try {
    const parsed: unknown = JSON.parse(record.warnings ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((w): w is string => typeof w === 'string') : [];
  } catch {
    return [];
  }
}

const iso = (ms: string | undefined) => (ms ? new Date(Number(ms)).toISOString() : null);

@Injectable()
export class JobsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Jobs');
  private readonly names: QueueNames;
  private redis!: RedisConnection;
  private flows!: JobFlows;
  private jobs!: JobRecordStore;
  private lastRedisError = 0;

  constructor(private readonly config: ApiSettings) {
    this.names = config.queue.names;
  }

  onModuleInit(): void {
    // Commands fail at once while Redis is away (503), as on the synchronous path.
    this.redis = connectRedis(this.config.redis.target, {
      connectionName: 'docx-api-jobs',
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: this.config.redis.commandTimeoutMs,
    });
    onRedisError(this.redis, (e) => this.logRedisError(e));
    this.jobs = new JobRecordStore(this.redis, this.names);
    this.flows = new JobFlows(
      this.redis,
      { names: this.names, attempts: this.config.queue.attempts, backoffMs: this.config.queue.backoffMs },
      (e) => this.logRedisError(e),
    );
  }

  async onModuleDestroy(): Promise<void> {
    await this.flows.close();
    this.redis.disconnect();
  }

  /** The queues, for Bull Board. */
  get bullQueues() {
    return this.flows.board;
  }

  private get pendingTtlMs(): number {
    return Math.max(this.config.jobs.resultTtlS * 1000, MIN_PENDING_TTL_MS);
  }

  /** Stores the record and the payload, then adds the flow. Returns the job id. */
  async submit(input: JobInput): Promise<string> {
    const jobId = newJobId();
    const { record: recordKey, template: templateKey } = asyncJobKeys(this.names, jobId);
    const ttl = this.pendingTtlMs;
    const total = input.requests.length;
    const now = Date.now();
    const record: AsyncJobRecord = {
      status: 'queued',
      created_at: String(now),
      // Until it finishes, the job (record and payload) lasts its pending TTL; then RESULT_TTL_S.
      expires_at: String(now + ttl),
      total: String(total),
      output: input.output,
      filename: input.filename,
      content_type:
        input.output === 'zip'
          ? 'application/zip'
          : // A merged job is one PDF; else each item's format, from the one table of them.
            OUTPUT_MEDIA[input.output === 'merged' ? 'pdf' : input.options.output].contentType,
      base_url: input.baseUrl,
      ...(input.webhookUrl ? { webhook_url: input.webhookUrl } : {}),
      ...(input.deliverTo ? { delivery_status: 'pending', delivery_attempts: '0' } : {}),
      ...(input.storedTemplate
        ? {
            template_id: input.storedTemplate.templateId,
            template_version: String(input.storedTemplate.version),
          }
        : {}),
      ...(input.warnings?.length ? { warnings: JSON.stringify(input.warnings) } : {}),
    };
    // As the synchronous path writes it: `9.0` stays a float across the queue (json-numbers.ts).
    const requestJsons = input.requests.map((request) => stringifyDataJson(request));
    // The items' and the assembling's spans continue the submitting request's trace (traces on).
    const traceparent = currentTraceparent();
    const items = input.requests.map((request, index): RenderJob => {
      const requestKey = this.jobs.itemRequestKey(jobId, index);
      const requestJson = requestJsons[index];
      return {
        requestId: input.requestId,
        ...(traceparent ? { traceparent } : {}),
        templateKey,
        requestKey,
        templateDigest: input.templateDigest,
        // The item's own list: the worker pushes its document there, for the parent.
        replyKey: itemReplyKey(this.names, jobId, index),
        filename: input.itemNames?.[index] ?? input.filename,
        templateBytes: input.template.length,
        requestBytes: Buffer.byteLength(requestJson),
        imageCount: Object.keys(request.images ?? {}).length,
        templateChecked: true,
        options: input.options,
        background: { resultTtlMs: ttl, recordKey },
        ...(input.storedTemplate ? { storedTemplate: input.storedTemplate } : {}),
      };
    });
    try {
      await this.jobs.create(
        jobId,
        {
          record,
          template: input.template,
          requestJsons,
          ...(input.deliverTo ? { deliveryJson: JSON.stringify(input.deliverTo) } : {}),
        },
        ttl,
      );
      await this.flows.add(
        jobId,
        {
          jobId,
          total,
          output: input.output,
          ...(input.itemNames ? { itemNames: input.itemNames } : {}),
          ...(traceparent ? { traceparent } : {}),
        },
        items,
      );
    } catch (e) {
      void this.jobs.discard(jobId, total);
      throw this.unavailable(e);
    }
    this.logger.log(
      `job ${jobId} queued: ${total} item(s), ${input.output}${input.webhookUrl ? ', webhook' : ''}${
        input.deliverTo
          ? `, delivery to ${input.deliverTo.targets.map((t) => shownUrl(t.url)).join(', ')}`
          : ''
      }`,
    );
    return jobId;
  }

  private async record(jobId: string): Promise<Partial<AsyncJobRecord>> {
    if (!JOB_ID_PATTERN.test(jobId)) throw new JobNotFoundError();
    const record = await this.jobs.read(jobId).catch((e: unknown) => {
      throw this.unavailable(e);
    });
    if (!record.created_at) throw new JobNotFoundError();
    return record;
  }

  /** Items finished so far: the parent's processed children (BullMQ keeps the count). */
  private async done(jobId: string, record: Partial<AsyncJobRecord>): Promise<number> {
    const total = Number(record.total);
    if (record.status === 'completed') return total;
    const done = await this.flows.done(jobId).catch((e: unknown) => {
      throw this.unavailable(e);
    });
    return Math.min(done, total);
  }

  async status(jobId: string, baseUrl: string): Promise<JobView> {
    const record = await this.record(jobId);
    const status: AsyncJobStatus =
      record.status === 'completed' || record.status === 'failed'
        ? record.status
        : record.started_at
          ? 'active'
          : 'queued';
    const view: JobView = {
      job_id: jobId,
      status,
      progress: { done: await this.done(jobId, record), total: Number(record.total) },
      created_at: iso(record.created_at)!,
      finished_at: iso(record.finished_at),
      expires_at: iso(record.expires_at),
    };
    if (record.template_id) {
      view.template_id = record.template_id;
      view.template_version = Number(record.template_version);
    }
    if (status === 'completed') view.result_url = `${baseUrl}${jobPaths(jobId).result}`;
    const warnings = warningsOf(record);
    if (warnings.length) view.warnings = warnings;
    if (status === 'failed') view.error = this.errorOf(record).toBody();
    if (record.delivery_status) {
      view.delivery = {
        status: record.delivery_status,
        attempts: Number(record.delivery_attempts ?? 0),
        last_error: record.delivery_error ?? null,
      };
    }
    return view;
  }

  private errorOf(record: Partial<AsyncJobRecord>): TypedError {
    try {
      const body = JSON.parse(record.error ?? '') as ErrorBody;
      return new TransportedError({
        error_type: body.error_type,
        message: body.message,
        details: body.details ?? {},
      });
    } catch {
      return decodeFailure(undefined);
    }
  }

  /** The result; throws job_not_finished, the job's own error, or job_not_found once expired. */
  async result(jobId: string): Promise<JobResult> {
    const record = await this.record(jobId);
    if (record.status === 'failed') throw this.errorOf(record);
    if (record.status !== 'completed') {
      const done = await this.done(jobId, record);
      throw new JobNotFinishedError('The job is not finished yet', {
        status: record.started_at ? 'active' : 'queued',
        progress: { done, total: Number(record.total) },
      });
    }
    const body = await this.jobs.result(jobId).catch((e: unknown) => {
      throw this.unavailable(e);
    });
    if (!body) throw new JobNotFoundError();
    return {
      body,
      contentType: record.content_type ?? 'application/octet-stream',
      filename: record.filename ?? 'result',
      warnings: warningsOf(record),
    };
  }

  /**
   * Cancels a job (its record goes first: items not yet started then refuse to run, and the
   * parent finds nothing to answer) or drops a finished job's result.
   */
  async cancel(jobId: string): Promise<void> {
    const record = await this.record(jobId);
    try {
      await this.jobs.deleteRecord(jobId);
      if (record.status !== 'completed' && record.status !== 'failed') {
        // Removes the parent and its children not locked by a worker; a running item finishes and is dropped.
        await this.flows.remove(jobId).catch(() => undefined);
        await this.jobs.deleteItems(jobId, Number(record.total));
      }
    } catch (e) {
      throw this.unavailable(e);
    }
    this.logger.log(`job ${jobId} ${record.status === 'queued' ? 'cancelled' : 'dropped'}`);
  }

  /**
   * Waits for a job to finish (the synchronous endpoint's batches): polls its record, which costs
   * one HGET per poll and keeps no subscription. Returns the result or throws the job's error.
   */
  async waitForResult(jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<JobResult | null> {
    const deadline = Date.now() + timeoutMs;
    let delay = 50;
    while (Date.now() < deadline && !signal?.aborted) {
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 500);
      const status = await this.jobs.status(jobId).catch(() => 'unknown');
      if (status === 'completed' || status === 'failed') return this.result(jobId);
      if (status === null) throw new InternalError('The job disappeared while it was processed');
    }
    return null;
  }

  async jobCounts(): Promise<Record<string, Record<string, number>>> {
    return this.flows.counts();
  }

  private unavailable(e: unknown): TypedError {
    if (e instanceof TypedError) return e;
    this.logRedisError(e);
    return new ServiceUnavailableError('Redis is unreachable', this.config.queue.retryAfterSeconds);
  }

  private logRedisError(e: unknown): void {
    const now = Date.now();
    if (now - this.lastRedisError < 5000) return;
    this.lastRedisError = now;
    this.logger.warn(`Redis: ${e instanceof Error ? e.message : String(e)}`);
  }
}
