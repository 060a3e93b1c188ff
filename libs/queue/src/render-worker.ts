/**
 * The worker's handle on the render queue: a BullMQ Worker running `process` on each RenderJob.
 * BullMQ makes its own blocking connection from `connection`; `autorun` is off so the worker
 * takes jobs only once its converter is warm (run()).
 */
import { type Job, UnrecoverableError, Worker } from 'bullmq';
import type { QueueNames, RenderJob, RenderJobResult } from '@app/contracts';
import type { RedisConnection } from './redis-connection';

export { UnrecoverableError };
export type RenderJobHandle = Job<RenderJob, RenderJobResult>;
export type RenderWorker = Worker<RenderJob, RenderJobResult>;

export interface RenderWorkerOptions {
  names: QueueNames;
  connection: RedisConnection;
  concurrency: number;
  /** WORKER_LOCK_DURATION_MS, WORKER_STALLED_INTERVAL_MS, WORKER_MAX_STALLED_COUNT. */
  lockDuration: number;
  stalledInterval: number;
  maxStalledCount: number;
}

export function createRenderWorker(
  process: (job: RenderJobHandle) => Promise<RenderJobResult>,
  options: RenderWorkerOptions,
): RenderWorker {
  return new Worker<RenderJob, RenderJobResult>(options.names.name, process, {
    connection: options.connection,
    prefix: options.names.prefix,
    concurrency: options.concurrency,
    lockDuration: options.lockDuration,
    stalledInterval: options.stalledInterval,
    maxStalledCount: options.maxStalledCount,
    autorun: false,
  });
}
