/** The shapes telemetry.ts and the SDK's side (otel-runtime.ts) share; nothing of OpenTelemetry. */

export type SpanAttributeValue = string | number | boolean;
export type SpanAttributes = Record<string, SpanAttributeValue | undefined>;

/** What a callback of withSpan may do with its span (a no-op while tracing is off). */
export interface SpanHandle {
  setAttributes(attributes: SpanAttributes): void;
  /** Status ERROR with `error_type` (the typed error's name), for failures that are not thrown through withSpan. */
  fail(errorType: string): void;
}

export interface SpanOptions {
  attributes?: SpanAttributes;
  /** 'server' for the API's request span, 'consumer' for a job's, 'client' for outgoing calls. */
  kind?: 'internal' | 'server' | 'client' | 'consumer' | 'producer';
  /** A W3C traceparent to continue (a job's), instead of the active span. */
  traceparent?: string;
  /** When the span began (epoch ms), if before now. */
  startTime?: number;
}

export const NOOP_SPAN: SpanHandle = {
  setAttributes: () => undefined,
  fail: () => undefined,
};

/** What otel-runtime.ts gives telemetry.ts once the SDK has started. */
export interface OtelRuntime {
  withSpan<T>(name: string, fn: (span: SpanHandle) => T, options?: SpanOptions): T;
  currentTraceparent(): string | undefined;
  recordQueueWait(traceparent: string, enqueuedAt: number, attributes?: SpanAttributes): void;
  logFields(): { trace_id?: string; span_id?: string };
  shutdown(): Promise<void>;
}

/**
 * The error_type of a thrown value: a TypedError's errorType, else the error_type of a JSON error
 * body in its message (a failed job's reason), else internal_error.
 */
export function errorTypeOf(error: unknown): string {
  const type = (error as { errorType?: unknown } | null | undefined)?.errorType;
  if (typeof type === 'string' && type) return type;
  const message = error instanceof Error ? error.message : '';
  if (message.startsWith('{')) {
    try {
      const parsed = JSON.parse(message) as { error_type?: unknown };
      if (typeof parsed.error_type === 'string' && parsed.error_type) return parsed.error_type;
    } catch {
      // not a JSON error body
    }
  }
  return 'internal_error';
}
