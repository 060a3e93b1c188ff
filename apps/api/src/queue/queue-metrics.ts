/**
 * Queue gauges of the API's /metrics, read from Redis when Prometheus scrapes (BullMQ's
 * getJobCounts and the heartbeat registry), so they are right whichever API replica is asked and
 * cost nothing between scrapes. While Redis is away the queue gauge has no samples (rather than
 * stale ones) and docgen_redis_up is 0.
 */
import { Injectable } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { QUEUE_STATES, RenderQueueService } from './render-queue.service';
import { JobsService } from './jobs.service';

@Injectable()
export class QueueMetrics {
  constructor(registry: Registry, queue: RenderQueueService, jobs: JobsService) {
    new Gauge({
      name: 'docgen_queue_jobs',
      help: 'Jobs in the render queue by state (waiting, active, delayed, failed, completed), read from Redis on scrape',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        this.reset();
        const counts = await queue.jobCounts().catch(() => undefined);
        if (counts) for (const state of QUEUE_STATES) this.set({ state }, counts[state]);
      },
    });
    new Gauge({
      name: 'docgen_async_queue_jobs',
      help:
        'Jobs of asynchronous jobs by queue (<QUEUE_NAME>-items: batch items, -jobs: jobs, -webhooks: deliveries) and ' +
        'state (waiting, waiting-children, active, delayed, failed, completed), read from Redis on scrape',
      labelNames: ['queue', 'state'],
      registers: [registry],
      async collect() {
        this.reset();
        const counts = await jobs.jobCounts().catch(() => undefined);
        for (const [name, byState] of Object.entries(counts ?? {}))
          for (const [state, n] of Object.entries(byState)) this.set({ queue: name, state }, n);
      },
    });
    new Gauge({
      name: 'docgen_workers_live',
      help: 'Workers whose heartbeat has not expired',
      registers: [registry],
      async collect() {
        this.reset();
        const probe = await queue.probe();
        if (probe.liveWorkers !== undefined) this.set(probe.liveWorkers);
      },
    });
    new Gauge({
      name: 'docgen_redis_up',
      help: '1 when the API is connected to Redis',
      registers: [registry],
      collect() {
        this.set(queue.redisReady ? 1 : 0);
      },
    });
  }
}
