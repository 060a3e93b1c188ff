/**
 * Request counter and latency histogram of the API, measured by a middleware that sees every
 * request (matched routes, 404s, Bull Board) when its response is finished.
 * Labels stay bounded (route-label.ts).
 */
import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Counter, Histogram, Registry } from 'prom-client';
import { errorTypeOf } from '../logging/response-locals';
import { routeOf } from './route-label';

/** From 5 ms to the 60 s default job timeout. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The metrics themselves: one instance per registry (Nest may build a middleware more than once). */
@Injectable()
export class HttpMetrics {
  readonly requests: Counter<'route' | 'method' | 'status' | 'error_type'>;
  readonly duration: Histogram<'route' | 'outcome'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'docgen_http_requests_total',
      help: 'HTTP requests answered by the API, by route pattern, method, status and error_type ("none" on success)',
      labelNames: ['route', 'method', 'status', 'error_type'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'docgen_http_request_duration_seconds',
      help: 'Time from receiving a request to finishing its answer, by route pattern and outcome (success or the error_type)',
      labelNames: ['route', 'outcome'],
      buckets: HTTP_BUCKETS,
      registers: [registry],
    });
  }
}

@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: HttpMetrics) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const started = process.hrtime.bigint();
    let recorded = false;
    const record = () => {
      if (recorded) return;
      recorded = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeOf(req, res);
      // A 4xx/5xx without our error body (none today) still gets a bounded label.
      const errorType = errorTypeOf(res) ?? (res.statusCode >= 400 ? `http_${res.statusCode}` : undefined);
      this.metrics.requests.inc({
        route,
        method: req.method,
        status: String(res.statusCode),
        error_type: errorType ?? 'none',
      });
      this.metrics.duration.observe({ route, outcome: errorType ?? 'success' }, seconds);
    };
    // `close` without `finish`: the caller hung up before the answer was sent.
    res.once('finish', record);
    res.once('close', record);
    next();
  }
}
