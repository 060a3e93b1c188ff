/**
 * The worker's Prometheus metrics: how long filling and converting take, how jobs end, and the
 * converter's state (read from converter.stats() when Prometheus scrapes). Served by
 * worker-http.ts on WORKER_HTTP_PORT.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { collectProcessMetrics } from '@app/logging';
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
  /** Asynchronous jobs (POST /api/v1/jobs) finished by this worker, by status. */
  readonly asyncJobs: Counter<'status'>;
  /** Items of asynchronous jobs, counted when their job is assembled, by outcome. */
  readonly batchItems: Counter<'outcome'>;
  /** Webhook delivery attempts by outcome: delivered, retried, exhausted (the last failed), refused. */
  readonly webhookDeliveries: Counter<'outcome'>;
  /** Result delivery (deliver_to) attempts by outcome, as webhookDeliveries counts them. */
  readonly resultDeliveries: Counter<'outcome'>;

  constructor(registry = new Registry()) {
    this.registry = registry;
    collectProcessMetrics(registry);
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
    this.asyncJobs = new Counter({
      name: 'docgen_async_jobs_total',
      help: 'Asynchronous jobs finished by this worker, by status (completed or failed)',
      labelNames: ['status'],
      registers: [registry],
    });
    this.batchItems = new Counter({
      name: 'docgen_batch_items_total',
      help: 'Items of asynchronous jobs, counted when their job is assembled, by outcome (completed or failed)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.webhookDeliveries = new Counter({
      name: 'docgen_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: delivered, retried, exhausted (the last attempt failed), refused (address not allowed)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.resultDeliveries = new Counter({
      name: 'docgen_result_deliveries_total',
      help: 'Result delivery (deliver_to) attempts by outcome: delivered, retried, exhausted (the last attempt failed), refused (address not allowed)',
      labelNames: ['outcome'],
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
    totalsCounter(
      {
        name: 'docgen_compiled_template_lookups_total',
        help: 'Jobs that found their template compiled by an earlier job (result="hit") or compiled it (result="miss")',
        registers,
        labelName: 'result',
      },
      () => ({ hit: cache.hits, miss: cache.misses }),
    );
  }

  /** Converter gauges, read on each scrape; restarts follow the pool's running total. */
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
    totalsCounter(
      {
        name: 'docgen_converter_restarts_total',
        help: 'LibreOffice instances replaced (after N conversions, a crash or a hang); always 0 with Gotenberg',
        registers,
      },
      () => ({ '': converter.stats().restarts }),
    );
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

/**
 * A counter that follows running totals kept elsewhere (the pool's restarts, the compiled
 * templates' hits and misses), read on each scrape: it adds what each grew since the last one.
 * Without `labelName` the totals have one key, ''.
 */
function totalsCounter(
  config: { name: string; help: string; registers: Registry[]; labelName?: string },
  read: () => Record<string, number>,
): void {
  const seen: Record<string, number> = {};
  const { labelName } = config;
  new Counter({
    name: config.name,
    help: config.help,
    registers: config.registers,
    labelNames: labelName ? [labelName] : [],
    collect() {
      for (const [label, total] of Object.entries(read())) {
        const before = seen[label] ?? 0;
        if (total > before) {
          if (labelName) this.inc({ [labelName]: label }, total - before);
          else this.inc(total - before);
        }
        seen[label] = Math.max(before, total);
      }
    },
  });
}
