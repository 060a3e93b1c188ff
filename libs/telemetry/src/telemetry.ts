/**
 * Traces (OpenTelemetry), configured only by the standard OTEL_* variables and off unless
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set. While off, nothing
 * of OpenTelemetry is loaded: every function here is a plain call of its callback, so start-up
 * and latency stay as they were. The SDK lives in ./otel-runtime, required only by
 * startTelemetry().
 *
 * Spans carry ids, sizes, counts, output formats and error types: never template text, request
 * data, passwords or a caller's URL beyond its host.
 */
import { NOOP_SPAN, type OtelRuntime, type SpanAttributes, type SpanHandle, type SpanOptions } from './types';

export { errorTypeOf, NOOP_SPAN, type SpanAttributes, type SpanHandle, type SpanOptions } from './types';

let runtime: OtelRuntime | undefined;

/** Whether the environment asks for traces: an OTLP endpoint set, and the SDK not disabled. */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint) return false;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() ?? '') !== 'none';
}

/**
 * Starts the SDK when tracing is requested (tracingRequested), once per process; `service` is
 * service.name unless OTEL_SERVICE_NAME says otherwise. Returns whether traces are on.
 */
export function startTelemetry(service: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (runtime) return true;
  if (!tracingRequested(env)) return false;
  // Required here, not imported: with tracing off no OpenTelemetry module is loaded at all.
  const { startOtelRuntime } = require('./otel-runtime') as {
    startOtelRuntime: (service: string, env: NodeJS.ProcessEnv) => OtelRuntime;
  };
  runtime = startOtelRuntime(service, env);
  return true;
}

/** Whether startTelemetry() started the SDK in this process. */
export function telemetryOn(): boolean {
  return runtime !== undefined;
}

/** Exports the spans still buffered and stops the SDK (at shutdown). */
export async function stopTelemetry(): Promise<void> {
  const r = runtime;
  runtime = undefined;
  await r?.shutdown();
}

/**
 * Runs `fn` inside a span named `name` (the active span's child, or `options.traceparent`'s). The
 * span ends when `fn` returns or, for a promise, settles; a throw or rejection sets status ERROR
 * and `error_type` (the error's errorType, else `internal_error`) and is passed on. Other
 * helpers' steps (a delivery, say) use this too.
 */
export function withSpan<T>(name: string, fn: (span: SpanHandle) => T, options?: SpanOptions): T {
  return runtime ? runtime.withSpan(name, fn, options) : fn(NOOP_SPAN);
}

/** The active span's W3C traceparent, to carry in a job's data; undefined while off. */
export function currentTraceparent(): string | undefined {
  return runtime?.currentTraceparent();
}

/**
 * Records a job's wait in the queue as a span `queue wait` from `enqueuedAt` (BullMQ's
 * job.timestamp, epoch ms) until now, under the job's traceparent. Nothing without one.
 */
export function recordQueueWait(
  traceparent: string | undefined,
  enqueuedAt: number,
  attributes?: SpanAttributes,
): void {
  if (runtime && traceparent) runtime.recordQueueWait(traceparent, enqueuedAt, attributes);
}

/** The active span's ids for a log line (pino's mixin), or nothing. */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  return runtime ? runtime.logFields() : {};
}
