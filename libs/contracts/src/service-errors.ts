/**
 * Errors of the service itself (HTTP, queue, workers), beside the engine's and the converters'
 * typed errors. All extend TypedError, so one exception filter renders every error body the same
 * way and they cross the queue alike.
 */
import { TypedError, type ErrorDetails } from './errors';

/** The multipart form has no `file` part. */
export class MissingFileError extends TypedError {
  readonly errorType = 'missing_file';
  constructor(message = "The form field 'file' (the .docx template) is missing", details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** Redis is unreachable, no worker is alive, or the queue is full. Carries a Retry-After. */
export class ServiceUnavailableError extends TypedError {
  readonly errorType = 'service_unavailable';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    details: ErrorDetails = {},
  ) {
    super(message, details);
  }
}

/** No worker finished the job within JOB_TIMEOUT_MS. */
export class ProcessingTimeoutError extends TypedError {
  readonly errorType = 'processing_timeout';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** Anything unexpected. The message is generic on purpose: causes go to the log, not to callers. */
export class InternalError extends TypedError {
  readonly errorType = 'internal_error';
  constructor(message = 'Internal server error', details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** No such route. */
export class NotFoundError extends TypedError {
  readonly errorType = 'not_found';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** The route exists but not for this method; the answer carries `Allow`. */
export class MethodNotAllowedError extends TypedError {
  readonly errorType = 'method_not_allowed';
  constructor(
    message: string,
    readonly allow: string[],
    details: ErrorDetails = {},
  ) {
    super(message, { allow, ...details });
  }
}

/**
 * The embedded LibreOffice pool had no instance up (every start failed; the pool keeps retrying
 * with backoff): nothing is wrong with the document, the caller should send it again later. The
 * converter reports it as conversion_failed, reason `converter_unavailable` (it crosses the job
 * queue as that); the synchronous API and the command line answer it as this 503 with
 * Retry-After: the converter's estimate (`details.retryAfterMs`: its next start attempt plus
 * what its last start took), else `fallbackRetryAfterSeconds`. Undefined for any other error.
 * Gotenberg's `converter_unavailable` (unreachable after its retries) stays a 502.
 */
export function converterUnavailableError(
  error: TypedError,
  fallbackRetryAfterSeconds: number,
): ServiceUnavailableError | undefined {
  const { details } = error;
  if (
    error.errorType !== 'conversion_failed' ||
    details.reason !== 'converter_unavailable' ||
    details.backend !== 'libreoffice'
  ) {
    return undefined;
  }
  const hint = typeof details.retryAfterMs === 'number' ? Math.ceil(details.retryAfterMs / 1000) : NaN;
  const retryAfter = Number.isFinite(hint) && hint >= 1 ? hint : fallbackRetryAfterSeconds;
  return new ServiceUnavailableError(
    `No PDF converter is up to take the document (${error.message}); try again in ${retryAfter} s`,
    retryAfter,
    { reason: 'converter_unavailable', backend: 'libreoffice', retry_after_seconds: retryAfter },
  );
}

/** No API key (Authorization: Bearer …), or one the service does not know. */
export class UnauthorizedError extends TypedError {
  readonly errorType = 'unauthorized';
  constructor(
    message = 'A valid API key is required (Authorization: Bearer <key>)',
    details: ErrorDetails = {},
  ) {
    super(message, details);
  }
}

/** The API key lacks the scope the route needs (`details.required_scope`). */
export class ForbiddenError extends TypedError {
  readonly errorType = 'forbidden';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/**
 * A stored template or version that is missing, deleted or in another namespace: the three answer
 * alike, so that another namespace's templates are not revealed.
 */
export class TemplateNotFoundError extends TypedError {
  readonly errorType = 'template_not_found';
  constructor(message = 'No such template', details: ErrorDetails = {}) {
    super(message, details);
  }
}
