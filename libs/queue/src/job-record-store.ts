/**
 * Asynchronous jobs in Redis (libs/contracts' async-job.ts names the keys, all in the queue's hash
 * slot): the job's record (a hash of AsyncJobRecord's fields), its template's bytes, each item's
 * request JSON (payloadKeys of the item's job id) and reply list (itemReplyKey), and the
 * assembled result. The API creates, reads and cancels jobs; the workers mark them started, read
 * the items' replies and write the outcome. Multi-key writes are MULTI transactions, so a job is
 * stored whole or not at all.
 */
import {
  type AsyncJobRecord,
  asyncJobKeys,
  type ErrorBody,
  itemJobId,
  itemReplyKey,
  payloadKeys,
  type QueueNames,
} from '@app/contracts';
import type { ChainableCommander } from 'ioredis';
import type { RedisConnection } from './redis-connection';
import { RedisScript } from './redis-script';

const MARK_STARTED = RedisScript.file('job-mark-started');

/** Runs a MULTI and throws the first command's error (exec() reports them, it does not throw). */
async function execAll(multi: ChainableCommander): Promise<void> {
  const replies = await multi.exec();
  for (const [error] of replies ?? []) if (error) throw error;
}

export class JobRecordStore {
  constructor(
    private readonly redis: RedisConnection,
    private readonly names: QueueNames,
  ) {}

  /** The request key of item `index` of a job (its child's payload). */
  itemRequestKey(jobId: string, index: number): string {
    return payloadKeys(this.names, itemJobId(jobId, index)).requestKey;
  }

  /** Every key of a job's items and its template: what goes once the job is answered or cancelled. */
  private itemKeys(jobId: string, total: number): string[] {
    return [
      asyncJobKeys(this.names, jobId).template,
      ...Array.from({ length: total }, (_, i) => [
        this.itemRequestKey(jobId, i),
        itemReplyKey(this.names, jobId, i),
      ]).flat(),
    ];
  }

  /**
   * Stores a new job's record, template, items' requests (in item order) and deliver_to's targets
   * (JSON), all for `ttlMs`, in one transaction.
   */
  async create(
    jobId: string,
    job: { record: AsyncJobRecord; template: Buffer; requestJsons: string[]; deliveryJson?: string },
    ttlMs: number,
  ): Promise<void> {
    const keys = asyncJobKeys(this.names, jobId);
    const multi = this.redis.multi();
    multi.hset(keys.record, job.record as unknown as Record<string, string>);
    multi.pexpire(keys.record, ttlMs);
    multi.set(keys.template, job.template, 'PX', ttlMs);
    if (job.deliveryJson) multi.set(keys.delivery, job.deliveryJson, 'PX', ttlMs);
    job.requestJsons.forEach((json, i) => multi.set(this.itemRequestKey(jobId, i), json, 'PX', ttlMs));
    await execAll(multi);
  }

  /** Undoes create() (the flow could not be added). Best effort. */
  async discard(jobId: string, total: number): Promise<void> {
    const keys = asyncJobKeys(this.names, jobId);
    await this.redis
      .del(
        keys.record,
        keys.template,
        keys.delivery,
        ...Array.from({ length: total }, (_, i) => this.itemRequestKey(jobId, i)),
      )
      .catch(() => undefined);
  }

  /** The record's fields; an empty object when there is no such job (cancelled or expired). */
  async read(jobId: string): Promise<Partial<AsyncJobRecord>> {
    return (await this.redis.hgetall(asyncJobKeys(this.names, jobId).record)) as Partial<AsyncJobRecord>;
  }

  /** The record's status field alone (one HGET, for polling); null when the record is gone. */
  async status(jobId: string): Promise<string | null> {
    return this.redis.hget(asyncJobKeys(this.names, jobId).record, 'status');
  }

  /** The assembled result; null when it is gone. */
  async result(jobId: string): Promise<Buffer | null> {
    return this.redis.getBuffer(asyncJobKeys(this.names, jobId).result);
  }

  /** Deletes the record and the result: what a cancellation does first. */
  async deleteRecord(jobId: string): Promise<void> {
    const keys = asyncJobKeys(this.names, jobId);
    await this.redis.del(keys.record, keys.result, keys.delivery);
  }

  /** deliver_to's targets (JSON of DeliveryTarget[]); null when gone (delivered, cancelled, expired). */
  async deliveryTargets(jobId: string): Promise<string | null> {
    return this.redis.get(asyncJobKeys(this.names, jobId).delivery);
  }

  /**
   * Notes a delivery's progress in the record (delivery_* fields); with `ended`, its targets go
   * (their signatures are kept no longer than needed). The record is never re-created.
   */
  async noteDelivery(
    jobId: string,
    fields: Partial<
      Pick<AsyncJobRecord, 'delivery_status' | 'delivery_attempts' | 'delivery_error' | 'delivery_done'>
    >,
    ended = false,
  ): Promise<void> {
    const keys = asyncJobKeys(this.names, jobId);
    if (!(await this.redis.exists(keys.record))) return;
    const multi = this.redis.multi().hset(keys.record, fields as Record<string, string>);
    if (ended) multi.del(keys.delivery);
    await execAll(multi);
  }

  /** Deletes the template and every item's request and reply (the job is answered or cancelled). */
  async deleteItems(jobId: string, total: number): Promise<void> {
    await this.redis.del(...this.itemKeys(jobId, total));
  }

  /**
   * Notes the first start of an item in the job's record (`recordKey`, which the item carries, so
   * the worker needs no queue names: static); false when the record is gone (the job was
   * cancelled or expired). One call (lua/job-mark-started.lua), and the record is never
   * re-created without its TTL.
   */
  static async markStarted(redis: RedisConnection, recordKey: string, now = Date.now()): Promise<boolean> {
    return (await MARK_STARTED.run(redis, [recordKey], [String(now)])) === 1;
  }

  /** The first frame of each item's reply list, in item order (null where none), in one round trip. */
  async firstReplies(jobId: string, total: number): Promise<Array<Buffer | null>> {
    const reads = this.redis.pipeline();
    for (let i = 0; i < total; i++) reads.lindexBuffer(itemReplyKey(this.names, jobId, i), 0);
    const frames = await reads.exec();
    if (!frames) throw new Error('Redis discarded the pipeline');
    return frames.map(([error, frame]) => {
      if (error) throw error;
      return (frame as Buffer | null) ?? null;
    });
  }

  /**
   * Writes a job's outcome: the result (if it succeeded) and the record's final fields, both for
   * `ttlMs`, in one transaction.
   */
  async finish(
    jobId: string,
    outcome: { result: Buffer; contentType?: string; filename?: string } | { error: ErrorBody },
    at: number,
    ttlMs: number,
  ): Promise<void> {
    const keys = asyncJobKeys(this.names, jobId);
    const multi = this.redis.multi();
    if ('result' in outcome) multi.set(keys.result, outcome.result, 'PX', ttlMs);
    multi.hset(keys.record, {
      status: 'result' in outcome ? 'completed' : 'failed',
      finished_at: String(at),
      expires_at: String(at + ttlMs),
      ...('result' in outcome
        ? {
            bytes: String(outcome.result.length),
            // What the result turned out to be (page images: one image, or a ZIP of several).
            ...(outcome.contentType ? { content_type: outcome.contentType } : {}),
            ...(outcome.filename ? { filename: outcome.filename } : {}),
          }
        : { error: JSON.stringify(outcome.error) }),
    });
    multi.pexpire(keys.record, ttlMs);
    // deliver_to's targets last no longer than the result they deliver.
    multi.pexpire(keys.delivery, ttlMs);
    await execAll(multi);
  }
}
