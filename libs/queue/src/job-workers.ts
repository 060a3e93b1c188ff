/**
 * The worker's handles on asynchronous jobs: BullMQ Workers for the items (the render processor,
 * shared with the render queue), the parents (assembly) and the webhook deliveries, and the
 * webhook queue the parents add deliveries to. All stateless: any worker process takes any job.
 */
import { type Job, Queue, Worker } from 'bullmq';
import {
  type AssembleJob,
  jobQueueNames,
  type QueueNames,
  type RenderJob,
  type RenderJobResult,
  type ResultDeliveryJob,
  type WebhookDeliveryJob,
} from '@app/contracts';
import type { RedisConnection } from './redis-connection';
import type { RenderJobHandle } from './render-worker';

/** What the assembler uses of its parent job. */
export type AssembleJobHandle = Pick<
  Job<AssembleJob>,
  | 'data'
  | 'attemptsMade'
  | 'opts'
  | 'getFailedChildrenValues'
  | 'getChildrenValues'
  | 'removeUnprocessedChildren'
>;
export type WebhookJobHandle = Pick<Job<WebhookDeliveryJob>, 'data' | 'attemptsMade' | 'opts'>;
export type ResultDeliveryJobHandle = Pick<Job<ResultDeliveryJob>, 'data' | 'attemptsMade' | 'opts'>;

export interface WebhookQueueOptions {
  /** WEBHOOK_RETRIES (DELIVERY_RETRIES) attempts in all, WEBHOOK_BACKOFF_MS (DELIVERY_BACKOFF_MS) the first exponential backoff. */
  attempts: number;
  backoffMs: number;
}

/** Adds deliveries (of webhooks, or of results); the job id (the async job's) makes a second add a no-op. */
class DeliveryQueue<T extends { jobId: string }> {
  private readonly queue: Queue<T>;

  constructor(
    connection: RedisConnection,
    names: QueueNames,
    which: 'webhooks' | 'deliveries',
    private readonly options: WebhookQueueOptions,
    onError: (e: unknown) => void,
  ) {
    this.queue = new Queue(jobQueueNames(names)[which], { connection, prefix: names.prefix });
    this.queue.on('error', onError);
  }

  async add(delivery: T): Promise<void> {
    // BullMQ's add() is typed for its own generic name and data types.
    await (this.queue as unknown as Queue).add('deliver', delivery, {
      jobId: delivery.jobId,
      attempts: this.options.attempts,
      backoff: { type: 'exponential', delay: this.options.backoffMs },
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
    });
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

export class WebhookQueue extends DeliveryQueue<WebhookDeliveryJob> {
  constructor(
    connection: RedisConnection,
    names: QueueNames,
    options: WebhookQueueOptions,
    onError: (e: unknown) => void,
  ) {
    super(connection, names, 'webhooks', options, onError);
  }
}

/** Result deliveries (deliver_to): their data names no URL (ResultDeliveryJob). */
export class ResultDeliveryQueue extends DeliveryQueue<ResultDeliveryJob> {
  constructor(
    connection: RedisConnection,
    names: QueueNames,
    options: WebhookQueueOptions,
    onError: (e: unknown) => void,
  ) {
    super(connection, names, 'deliveries', options, onError);
  }
}

export interface JobWorkersOptions {
  names: QueueNames;
  connection: RedisConnection;
  /** Items taken at once (they share the render worker's converter). */
  itemConcurrency: number;
  lockDuration: number;
  stalledInterval: number;
  maxStalledCount: number;
  onError: (e: unknown) => void;
  onStalled: (queue: string, jobId: string) => void;
}

export interface JobWorkers {
  run(onStop: (queue: string, e: unknown) => void): void;
  close(): Promise<void>;
}

export function createJobWorkers(
  processors: {
    render: (job: RenderJobHandle) => Promise<RenderJobResult>;
    assemble: (job: AssembleJobHandle) => Promise<unknown>;
    /** Absent: this worker delivers no webhooks (no WEBHOOK_SECRET). */
    deliver?: (job: WebhookJobHandle) => Promise<unknown>;
    /** Result deliveries (deliver_to). */
    deliverResult: (job: ResultDeliveryJobHandle) => Promise<unknown>;
  },
  options: JobWorkersOptions,
): JobWorkers {
  const queues = jobQueueNames(options.names);
  const common = {
    connection: options.connection,
    prefix: options.names.prefix,
    lockDuration: options.lockDuration,
    stalledInterval: options.stalledInterval,
    maxStalledCount: options.maxStalledCount,
    autorun: false,
  };
  const workers: Worker[] = [
    new Worker<RenderJob, RenderJobResult>(queues.items, processors.render, {
      ...common,
      concurrency: options.itemConcurrency,
    }) as Worker,
    // Assembling is Redis reads and qpdf: two at once leave the converter the busy part.
    new Worker<AssembleJob>(queues.parents, processors.assemble, { ...common, concurrency: 2 }) as Worker,
  ];
  // PUTs mostly wait on the storage's answers.
  workers.push(
    new Worker<ResultDeliveryJob>(queues.deliveries, processors.deliverResult, {
      ...common,
      concurrency: 4,
    }) as Worker,
  );
  if (processors.deliver) {
    // Deliveries mostly wait on receivers' answers.
    workers.push(
      new Worker<WebhookDeliveryJob>(queues.webhooks, processors.deliver, {
        ...common,
        concurrency: 8,
      }) as Worker,
    );
  }
  for (const w of workers) {
    w.on('error', options.onError);
    w.on('stalled', (jobId) => options.onStalled(w.name, jobId));
  }
  return {
    run(onStop) {
      for (const w of workers) void w.run().catch((e: unknown) => onStop(w.name, e));
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}
