/**
 * The worker's Prometheus metrics: how long filling and converting take, how jobs end, and the
 * converter's state (read from converter.stats() when Prometheus scrapes). Served by
 * worker-http.ts on WORKER_HTTP_PORT.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type PdfConverter } from '@app/converters';
import type { CompiledTemplates } from '@app/engine';

export class WorkerMetrics {
  readonly registry: Registry;
  /** Filling the template (renderDocx), per attempt that got that far. */
  readonly renderDuration: Histogram;
  /** converter.convert(), per successful conversion (queue wait inside the converter included). */
  readonly conversionDuration: Histogram;
  /** Attempts by outcome: `success` or the error_type the attempt failed with. */
  readonly jobs: Counter<'outcome'>;

  constructor(registry = new Registry()) {
    this.registry = registry;
    collectDefaultMetrics({ register: registry });
    this.renderDuration = new Histogram({
      name: 'docgen_render_duration_seconds',
      help: 'Time to fill one template with its data and images (before conversion)',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    this.conversionDuration = new Histogram({
      name: 'docgen_conversion_duration_seconds',
      help: 'Time of one successful .docx to PDF conversion, waiting for a converter instance included',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60],
      registers: [registry],
    });
    this.jobs = new Counter({
      name: 'docgen_jobs_total',
      help: 'Job attempts run by this worker, by outcome (success or the error_type); a retried job counts once per attempt',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }

  /** How often a job's template was compiled before (read on each scrape). */
  watchCompiledTemplates(cache: CompiledTemplates): void {
    const registers = [this.registry];
    new Gauge({
      name: 'docgen_compiled_templates',
      help: 'Templates this worker keeps compiled (a job with one of them skips compiling it)',
      registers,
      collect() {
        this.set(cache.size);
      },
    });
    const seen = { hit: 0, miss: 0 };
    new Counter({
      name: 'docgen_compiled_template_lookups_total',
      help: 'Jobs that found their template compiled by an earlier job (result="hit") or compiled it (result="miss")',
      labelNames: ['result'],
      registers,
      collect() {
        // The cache keeps running totals; the counter adds what they grew since the last scrape.
        const now = { hit: cache.hits, miss: cache.misses };
        for (const result of ['hit', 'miss'] as const) {
          if (now[result] > seen[result]) this.inc({ result }, now[result] - seen[result]);
          seen[result] = Math.max(seen[result], now[result]);
        }
      },
    });
  }

  /**
   * Converter gauges, read on each scrape. `converter.stats().restarts` is a running total;
   * the counter follows it by adding what it grew since the last scrape.
   */
  watchConverter(converter: PdfConverter, healthy: () => boolean | undefined): void {
    const registers = [this.registry];
    new Gauge({
      name: 'docgen_converter_instances',
      help: 'LibreOffice instances of the pool, or requests in flight allowed to Gotenberg',
      registers,
      collect() {
        this.set(converter.stats().instances);
      },
    });
    new Gauge({
      name: 'docgen_converter_busy',
      help: 'Conversions running now',
      registers,
      collect() {
        this.set(converter.stats().busy);
      },
    });
    new Gauge({
      name: 'docgen_converter_queue_length',
      help: 'Conversions waiting for a free converter instance inside this worker',
      registers,
      collect() {
        this.set(converter.stats().queueLength);
      },
    });
    let restartsSeen = 0;
    new Counter({
      name: 'docgen_converter_restarts_total',
      help: 'LibreOffice instances replaced (after N conversions, a crash or a hang); always 0 with Gotenberg',
      registers,
      collect() {
        const restarts = converter.stats().restarts;
        if (restarts > restartsSeen) this.inc(restarts - restartsSeen);
        restartsSeen = Math.max(restartsSeen, restarts);
      },
    });
    new Gauge({
      name: 'docgen_converter_healthy',
      help: '1 when the last converter health check passed (refreshed with each heartbeat)',
      registers,
      collect() {
        this.set(healthy() ? 1 : 0);
      },
    });
  }
}
