/**
 * The API's handle on the render queue: add a job, withdraw one nobody waits for any more, count
 * jobs by state, and the BullMQ Queue itself for Bull Board. Everything the API does with BullMQ
 * goes through here (or bullmq-state.ts, for what the public API does not offer in one step).
 */
import { Queue } from 'bullmq';
import type { QueueNames, RenderJob, RenderJobResult } from '@app/contracts';
import type { RedisConnection } from './redis-connection';
import { finishedJobs, type Finished, missingJobs, waitingKeys, type WaitingKeys } from './bullmq-state';
import type { JobOutcome } from './outcome';

/** Job states reported by jobCounts() (and the docgen_queue_jobs gauge). */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** States in which a job has not been taken by a worker yet (so it can be withdrawn). */
const NOT_STARTED = new Set(['waiting', 'delayed', 'prioritized', 'wait', 'paused']);

export interface RenderQueueOptions {
  names: QueueNames;
  /** JOB_ATTEMPTS, and JOB_BACKOFF_MS as the first exponential backoff. */
  attempts: number;
  backoffMs: number;
}

export class RenderQueue {
  private readonly queue: Queue<RenderJob, RenderJobResult>;

  constructor(
    /** Runs no blocking command: the Queue and Bull Board only read and write. */
    private readonly redis: RedisConnection,
    private readonly options: RenderQueueOptions,
    onError: (e: unknown) => void,
  ) {
    this.queue = new Queue<RenderJob, RenderJobResult>(options.names.name, {
      connection: redis,
      prefix: options.names.prefix,
    });
    this.queue.on('error', onError);
  }

  /** The BullMQ queue, for Bull Board only (it reads it through this queue's connection). */
  get board(): Queue<RenderJob, RenderJobResult> {
    return this.queue;
  }

  /** The keys admission counts waiting jobs in. */
  get waitingKeys(): WaitingKeys {
    return waitingKeys(this.queue);
  }

  async add(jobId: string, job: RenderJob): Promise<void> {
    await this.queue.add('render', job, {
      jobId,
      attempts: this.options.attempts,
      backoff: { type: 'exponential', delay: this.options.backoffMs },
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 24 * 3600, count: 1000 },
    });
  }

  /**
   * Once the wait is over: the outcome if the job ended after all (an answer may be lost while
   * Redis reconnects), else removes the job if no worker has started it. A completed job replied
   * to a list: its reply did not come.
   */
  async withdraw(jobId: string): Promise<JobOutcome | undefined> {
    if (this.redis.status !== 'ready') return undefined;
    const job = await this.queue.getJob(jobId);
    if (!job) return undefined;
    const state = await job.getState();
    if (state === 'completed') return { kind: 'reply_lost' };
    if (state === 'failed') return { kind: 'failed', reason: job.failedReason };
    if (NOT_STARTED.has(state)) await job.remove().catch(() => undefined); // a worker may have taken it meanwhile
    return undefined;
  }

  /** How each job ended, if it did (one pipeline). */
  finished(ids: readonly string[]): Promise<Map<string, Finished>> {
    return finishedJobs(this.redis, this.queue, ids);
  }

  /** The jobs Redis no longer has; null when it did not answer (one pipeline). */
  missing(ids: readonly string[]): Promise<string[] | null> {
    return missingJobs(this.redis, this.queue, ids);
  }

  /** The queue by state. */
  async jobCounts(): Promise<Record<QueueState, number>> {
    const counts = await this.queue.getJobCounts(...QUEUE_STATES);
    return Object.fromEntries(QUEUE_STATES.map((s) => [s, counts[s] ?? 0])) as Record<QueueState, number>;
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}
