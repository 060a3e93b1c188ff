/**
 * The API's handle on asynchronous jobs (libs/contracts/src/async-job.ts): one BullMQ flow per job
 * (FlowProducer: the parent in `<QUEUE_NAME>-jobs`, one RenderJob child per item in
 * `<QUEUE_NAME>-items`), the parent's progress, cancellation, and the three queues for Bull Board
 * and the metrics.
 */
import { FlowProducer, Job, Queue } from 'bullmq';
import {
  type AssembleJob,
  itemJobId,
  jobQueueNames,
  type QueueNames,
  type RenderJob,
  type RenderJobResult,
  type ResultDeliveryJob,
  type WebhookDeliveryJob,
} from '@app/contracts';
import type { RedisConnection } from './redis-connection';

/** States reported by counts() (and the docgen_async_queue_jobs gauge). */
export const JOB_QUEUE_STATES = [
  'waiting',
  'waiting-children',
  'active',
  'delayed',
  'failed',
  'completed',
] as const;

export interface JobFlowsOptions {
  names: QueueNames;
  /** Items: JOB_ATTEMPTS, and JOB_BACKOFF_MS as the first exponential backoff. */
  attempts: number;
  backoffMs: number;
}

export class JobFlows {
  private readonly flows: FlowProducer;
  private readonly parents: Queue<AssembleJob>;
  private readonly items: Queue<RenderJob, RenderJobResult>;
  private readonly webhooks: Queue<WebhookDeliveryJob>;
  private readonly deliveries: Queue<ResultDeliveryJob>;
  private readonly queueNames: ReturnType<typeof jobQueueNames>;

  constructor(
    /** Runs no blocking command. */
    connection: RedisConnection,
    private readonly options: JobFlowsOptions,
    onError: (e: unknown) => void,
  ) {
    const opts = { connection, prefix: options.names.prefix };
    this.queueNames = jobQueueNames(options.names);
    this.flows = new FlowProducer(opts);
    this.parents = new Queue(this.queueNames.parents, opts);
    this.items = new Queue(this.queueNames.items, opts);
    this.webhooks = new Queue(this.queueNames.webhooks, opts);
    this.deliveries = new Queue(this.queueNames.deliveries, opts);
    this.flows.on('error', onError);
    for (const q of this.board) q.on('error', onError);
  }

  /** The queues, for Bull Board only: items, parents, webhook and result deliveries. */
  get board(): Queue[] {
    return [this.items, this.parents, this.webhooks, this.deliveries] as Queue[];
  }

  /**
   * Adds the job's flow. Each item may fail the job as soon as it fails for good
   * (continueParentOnFailure: the parent runs at once and reports that item).
   */
  async add(jobId: string, parent: AssembleJob, items: RenderJob[]): Promise<void> {
    await this.flows.add({
      name: 'assemble',
      queueName: this.queueNames.parents,
      data: parent,
      opts: {
        jobId,
        attempts: 3,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age: 3600, count: 1000 },
        removeOnFail: { age: 24 * 3600, count: 1000 },
      },
      children: items.map((data, index) => ({
        name: 'render',
        queueName: this.queueNames.items,
        data,
        opts: {
          jobId: itemJobId(jobId, index),
          attempts: this.options.attempts,
          backoff: { type: 'exponential' as const, delay: this.options.backoffMs },
          continueParentOnFailure: true,
          removeOnComplete: { age: 3600, count: 1000 },
          removeOnFail: { age: 24 * 3600, count: 1000 },
        },
      })),
    });
  }

  /** Items finished so far (BullMQ's count of the parent's processed children); 0 if the parent is gone. */
  async done(jobId: string): Promise<number> {
    const parent = await Job.fromId(this.parents, jobId);
    if (!parent) return 0;
    const counts = await parent.getDependenciesCount({ processed: true });
    return counts.processed ?? 0;
  }

  /** Removes the parent and its children that no worker holds (a running item finishes). */
  async remove(jobId: string): Promise<void> {
    await this.parents.remove(jobId, { removeChildren: true });
  }

  /** Each queue by state, by queue name. */
  async counts(): Promise<Record<string, Record<string, number>>> {
    const out: Record<string, Record<string, number>> = {};
    for (const q of this.board) {
      const counts = await q.getJobCounts(...JOB_QUEUE_STATES);
      out[q.name] = Object.fromEntries(JOB_QUEUE_STATES.map((s) => [s, counts[s] ?? 0]));
    }
    return out;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.flows.close(), ...this.board.map((q) => q.close())]);
  }
}
