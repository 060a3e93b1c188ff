/**
 * The OpenTelemetry SDK, loaded only when tracing is on (telemetry.ts). NodeSDK reads the standard
 * variables: the exporter and its protocol (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_PROTOCOL,
 * OTEL_EXPORTER_OTLP_HEADERS...), the batch processor (OTEL_BSP_*), the sampler
 * (OTEL_TRACES_SAMPLER), propagators and resource attributes (OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES). Metrics stay with Prometheus (/metrics) and logs with pino: neither
 * is exported through OpenTelemetry.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
} from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { errorTypeOf, type OtelRuntime, type SpanAttributes, type SpanHandle } from './types';

const KINDS = {
  internal: SpanKind.INTERNAL,
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  consumer: SpanKind.CONSUMER,
  producer: SpanKind.PRODUCER,
} as const;

function defined(attributes: SpanAttributes | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(attributes ?? {})) if (v !== undefined) out[k] = v;
  return out;
}

/** Spans whose callback said how they failed (SpanHandle.fail): a later throw keeps that error_type. */
const failedByHandle = new WeakSet<Span>();

function handleOf(span: Span): SpanHandle {
  return {
    setAttributes: (attributes) => span.setAttributes(defined(attributes)),
    fail: (errorType) => {
      failedByHandle.add(span);
      fail(span, errorType);
    },
  };
}

function fail(span: Span, errorType: string): void {
  // The error type only: messages may quote the caller's template or data.
  span.setAttribute('error_type', errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
}

function parentOf(traceparent: string | undefined): Context {
  if (!traceparent) return context.active();
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

export function startOtelRuntime(service: string, env: NodeJS.ProcessEnv): OtelRuntime {
  const sdk = new NodeSDK({
    // OTEL_SERVICE_NAME, when set, names the service instead.
    ...(env.OTEL_SERVICE_NAME?.trim() ? {} : { serviceName: service }),
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  const tracer = trace.getTracer('docgen');

  return {
    withSpan(name, fn, options = {}) {
      const span = tracer.startSpan(
        name,
        {
          kind: KINDS[options.kind ?? 'internal'],
          attributes: defined(options.attributes),
          ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
        },
        parentOf(options.traceparent),
      );
      const failed = (e: unknown) => {
        if (!failedByHandle.has(span)) fail(span, errorTypeOf(e));
        span.end();
      };
      return context.with(trace.setSpan(parentOf(options.traceparent), span), () => {
        let result: ReturnType<typeof fn>;
        try {
          result = fn(handleOf(span));
        } catch (e) {
          failed(e);
          throw e;
        }
        if (result instanceof Promise) {
          return result.then(
            (value) => {
              span.end();
              return value;
            },
            (e: unknown) => {
              failed(e);
              throw e;
            },
          ) as typeof result;
        }
        span.end();
        return result;
      });
    },

    currentTraceparent() {
      const carrier: Record<string, string> = {};
      propagation.inject(context.active(), carrier);
      return carrier.traceparent;
    },

    recordQueueWait(traceparent, enqueuedAt, attributes) {
      const now = Date.now();
      // Clocks of the API's and the worker's hosts may differ: never a span that ends before it starts.
      tracer
        .startSpan(
          'queue wait',
          { kind: SpanKind.CONSUMER, startTime: Math.min(enqueuedAt, now), attributes: defined(attributes) },
          parentOf(traceparent),
        )
        .end(now);
    },

    logFields() {
      const ctx = trace.getActiveSpan()?.spanContext();
      return ctx && trace.isSpanContextValid(ctx) ? { trace_id: ctx.traceId, span_id: ctx.spanId } : {};
    },

    shutdown: () => sdk.shutdown(),
  };
}
