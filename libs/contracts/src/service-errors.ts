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
