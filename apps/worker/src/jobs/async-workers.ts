/**
 * The BullMQ workers of asynchronous jobs, beside the render worker: one takes the flows' parents
 * (assembly), one the webhook deliveries. Both are stateless: any worker process takes any job.
 */
import { type Job, Queue, Worker } from 'bullmq';
import type { ServiceConfig } from '@app/config';
import {
  type AssembleJob,
  jobQueueNames,
  parseAllowedHosts,
  type RedisConnection,
  type RenderJob,
  type RenderJobResult,
  type WebhookDeliveryJob,
} from '@app/contracts';
import type { Logger } from 'pino';
import type { WorkerMetrics } from '../worker-metrics';
import { createAssembleProcessor } from './assemble.processor';
import { createWebhookProcessor } from './webhook.processor';

export interface AsyncWorkers {
  run(): void;
  close(): Promise<void>;
}

export function createAsyncWorkers(deps: {
  config: ServiceConfig;
  redis: RedisConnection;
  queueRedis: RedisConnection;
  logger: Logger;
  metrics: WorkerMetrics;
  onError: (e: unknown) => void;
  /** The render processor (shared with the render queue's worker, and its template caches). */
  render: (job: Job<RenderJob, RenderJobResult>) => Promise<RenderJobResult>;
  /** Items taken at once: the render worker's concurrency, as they share its converter. */
  itemConcurrency: number;
}): AsyncWorkers {
  const { config, logger } = deps;
  const names = { prefix: config.QUEUE_PREFIX, name: config.QUEUE_NAME };
  const queues = jobQueueNames(names);
  const webhookQueue = new Queue<WebhookDeliveryJob>(queues.webhooks, {
    connection: deps.queueRedis,
    prefix: names.prefix,
  });
  webhookQueue.on('error', deps.onError);
  const common = {
    connection: deps.queueRedis,
    prefix: names.prefix,
    lockDuration: config.WORKER_LOCK_DURATION_MS,
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
    maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
    autorun: false,
  };
  const items = new Worker<RenderJob, RenderJobResult>(queues.items, deps.render, {
    ...common,
    concurrency: deps.itemConcurrency,
  });
  const assembler = new Worker<AssembleJob>(
    queues.parents,
    createAssembleProcessor({
      redis: deps.redis,
      names,
      webhooks: webhookQueue,
      webhookAttempts: config.WEBHOOK_RETRIES,
      webhookBackoffMs: config.WEBHOOK_BACKOFF_MS,
      resultTtlS: config.RESULT_TTL_S,
      maxResultBytes: config.MAX_RESULT_BYTES,
      logger,
      metrics: deps.metrics,
    }),
    // Assembling is I/O and qpdf: two at once keep the worker's converter the busy part.
    { ...common, concurrency: 2 },
  );
  const secret = config.WEBHOOK_SECRET;
  const deliverer = secret
    ? new Worker<WebhookDeliveryJob>(
        queues.webhooks,
        createWebhookProcessor({
          secret,
          timeoutMs: config.WEBHOOK_TIMEOUT_MS,
          allowed: parseAllowedHosts(config.WEBHOOK_ALLOWED_HOSTS),
          logger,
          metrics: deps.metrics,
        }),
        // Deliveries mostly wait on receivers' answers.
        { ...common, concurrency: 8 },
      )
    : undefined;
  if (!secret) logger.info('WEBHOOK_SECRET is not set: this worker delivers no webhooks');
  for (const w of [items, assembler, deliverer]) {
    w?.on('error', deps.onError);
    w?.on('stalled', (jobId) =>
      logger.warn({ jobId }, `${w.name} job ${jobId} stalled; handed to another worker`),
    );
  }
  return {
    run() {
      for (const w of [items, assembler, deliverer]) {
        void w?.run().catch((e: unknown) => logger.error(`${w.name} worker stopped: ${String(e)}`));
      }
    },
    async close() {
      await Promise.all([items.close(), assembler.close(), deliverer?.close()]);
      await webhookQueue.close();
    },
  };
}
