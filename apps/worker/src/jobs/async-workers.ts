/**
 * The workers of asynchronous jobs, beside the render worker (libs/queue's job-workers): the items
 * (the render processor, shared with the render queue and its template caches), the parents
 * (assembly) and the webhook deliveries. Stateless: any worker process takes any job.
 */
import type { ServiceConfig } from '@app/config';
import { parseAllowedHosts, type RenderJobResult } from '@app/contracts';
import { createJobWorkers, type RedisConnection, type RenderJobHandle, WebhookQueue } from '@app/queue';
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
  render: (job: RenderJobHandle) => Promise<RenderJobResult>;
  /** Items taken at once: the render worker's concurrency, as they share its converter. */
  itemConcurrency: number;
}): AsyncWorkers {
  const { config, logger } = deps;
  const names = { prefix: config.QUEUE_PREFIX, name: config.QUEUE_NAME };
  const webhooks = new WebhookQueue(
    deps.queueRedis,
    names,
    { attempts: config.WEBHOOK_RETRIES, backoffMs: config.WEBHOOK_BACKOFF_MS },
    deps.onError,
  );
  const secret = config.WEBHOOK_SECRET;
  if (!secret) logger.info('WEBHOOK_SECRET is not set: this worker delivers no webhooks');
  const workers = createJobWorkers(
    {
      render: deps.render,
      assemble: createAssembleProcessor({
        redis: deps.redis,
        names,
        webhooks,
        resultTtlS: config.RESULT_TTL_S,
        maxResultBytes: config.MAX_RESULT_BYTES,
        logger,
        metrics: deps.metrics,
      }),
      ...(secret
        ? {
            deliver: createWebhookProcessor({
              secret,
              timeoutMs: config.WEBHOOK_TIMEOUT_MS,
              allowed: parseAllowedHosts(config.WEBHOOK_ALLOWED_HOSTS),
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
      lockDuration: config.WORKER_LOCK_DURATION_MS,
      stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
      maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
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
      await webhooks.close();
    },
  };
}
