/**
 * /metrics of the API, in Prometheus text format. One prom-client Registry per process, provided
 * here for every module that declares metrics beside what they measure (HTTP here, the queue in
 * queue/queue-metrics.ts).
 */
import { Global, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { collectProcessMetrics } from '@app/logging';
import { Registry } from 'prom-client';
import { HttpMetrics, HttpMetricsMiddleware } from './http-metrics';
import { MetricsController } from './metrics.controller';

export function createRegistry(): Registry {
  const registry = new Registry();
  collectProcessMetrics(registry); // process_resident_memory_bytes, event loop lag, GC…
  return registry;
}

@Global()
@Module({
  providers: [{ provide: Registry, useFactory: createRegistry }, HttpMetrics],
  controllers: [MetricsController],
  exports: [Registry],
})
export class MetricsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes({ path: '{/*splat}', method: RequestMethod.ALL });
  }
}
