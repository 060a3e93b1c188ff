/**
 * The workers of asynchronous jobs, beside the render worker (libs/queue's job-workers): the items
 * (the render processor, shared with the render queue and its template caches), the parents
 * (assembly), the webhook deliveries and the result deliveries (deliver_to). Stateless: any worker process takes any job.
 */
import type { WorkerSettings } from '../settings';
import { parseAllowedHosts, type RenderJobResult } from '@app/contracts';
import {
  createJobWorkers,
  type RedisConnection,
  type RenderJobHandle,
  ResultDeliveryQueue,
  WebhookQueue,
} from '@app/queue';
import type { Logger } from 'pino';
import type { WorkerMetrics } from '../worker-metrics';
import { createAssembleProcessor } from './assemble.processor';
import { createResultDeliveryProcessor } from './delivery.processor';
import { createWebhookProcessor } from './webhook.processor';

export interface AsyncWorkers {
  run(): void;
  close(): Promise<void>;
}

export function createAsyncWorkers(deps: {
  /** The queue's names, the asynchronous jobs' results and webhooks, the worker's locks. */
  settings: Pick<WorkerSettings, 'queue' | 'jobs' | 'worker'>;
  redis: RedisConnection;
  queueRedis: RedisConnection;
  logger: Logger;
  metrics: WorkerMetrics;
  onError: (e: unknown) => void;
  /** The render processor (shared with the render queue's worker, and its template caches). */
  render: (job: RenderJobHandle) => Promise<RenderJobResult>;
  /** Items taken at once: the render worker's concurrency, as they share its converter. */
  itemConcurrency: number;
}): AsyncWorkers {
  const { logger } = deps;
  const { queue, jobs, worker } = deps.settings;
  const names = queue.names;
  const webhooks = new WebhookQueue(
    deps.queueRedis,
    names,
    { attempts: jobs.webhookRetries, backoffMs: jobs.webhookBackoffMs },
    deps.onError,
  );
  const deliveries = new ResultDeliveryQueue(
    deps.queueRedis,
    names,
    { attempts: jobs.deliveryRetries, backoffMs: jobs.deliveryBackoffMs },
    deps.onError,
  );
  const secret = jobs.webhookSecret;
  if (!secret) logger.info('WEBHOOK_SECRET is not set: this worker delivers no webhooks');
  const workers = createJobWorkers(
    {
      render: deps.render,
      assemble: createAssembleProcessor({
        redis: deps.redis,
        names,
        webhooks,
        deliveries,
        resultTtlS: jobs.resultTtlS,
        maxResultBytes: jobs.maxResultBytes,
        logger,
        metrics: deps.metrics,
      }),
      deliverResult: createResultDeliveryProcessor({
        redis: deps.redis,
        names,
        webhooks,
        timeoutMs: jobs.deliveryTimeoutMs,
        allowed: parseAllowedHosts(jobs.deliveryAllowedHosts),
        logger,
        metrics: deps.metrics,
      }),
      ...(secret
        ? {
            deliver: createWebhookProcessor({
              secret,
              timeoutMs: jobs.webhookTimeoutMs,
              allowed: parseAllowedHosts(jobs.webhookAllowedHosts),
              logger,
              metrics: deps.metrics,
            }),
          }
        : {}),
    },
    {
      names,
      connection: deps.queueRedis,
      itemConcurrency: deps.itemConcurrency,
      lockDuration: worker.lockDurationMs,
      stalledInterval: worker.stalledIntervalMs,
      maxStalledCount: worker.maxStalledCount,
      onError: deps.onError,
      onStalled: (queue, jobId) =>
        logger.warn({ jobId }, `${queue} job ${jobId} stalled; handed to another worker`),
    },
  );
  return {
    run() {
      workers.run((queue, e) => logger.error(`${queue} worker stopped: ${String(e)}`));
    },
    async close() {
      await workers.close();
      await Promise.all([webhooks.close(), deliveries.close()]);
    },
  };
}
