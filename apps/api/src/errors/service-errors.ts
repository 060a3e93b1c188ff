/**
 * Errors of the service itself (HTTP and queue), beside the rendering library's typed errors.
 * They extend the library's RenderingError so that one exception filter renders every error body
 * the same way, and so that they cross the queue like the library's errors.
 */
import { ErrorDetails, RenderingError } from '@app/rendering';

/** The multipart form has no `file` part. */
export class MissingFileError extends RenderingError {
  readonly errorType = 'missing_file';
  readonly httpStatus = 400;
  constructor(message = "The form field 'file' (the .docx template) is missing", details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** Redis is unreachable, no worker is alive, or the queue is full. Carries a Retry-After. */
export class ServiceUnavailableError extends RenderingError {
  readonly errorType = 'service_unavailable';
  readonly httpStatus = 503;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    details: ErrorDetails = {},
  ) {
    super(message, details);
  }
}

/** No worker finished the job within JOB_TIMEOUT_MS. */
export class ProcessingTimeoutError extends RenderingError {
  readonly errorType = 'processing_timeout';
  readonly httpStatus = 504;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** Anything unexpected. The message is generic on purpose: causes go to the log, not to callers. */
export class InternalError extends RenderingError {
  readonly errorType = 'internal_error';
  readonly httpStatus = 500;
  constructor(message = 'Internal server error', details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** No such route, or a method the route does not accept. */
export class NotFoundError extends RenderingError {
  readonly errorType = 'not_found';
  readonly httpStatus = 404;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}
