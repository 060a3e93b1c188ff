/**
 * The typed errors of a bad request, raised by the one request parser (request/) for the API and
 * the CLI alike, and by the engine's and converters' own checks (they re-export these). Their
 * error_type and messages are the interface's: 400 invalid_request_structure, 400
 * missing_template_data, 413 payload_too_large (statuses in errors.ts's catalogue).
 */
import { TypedError, type ErrorDetails } from './errors';

/** The request body does not have the shape the interface specification describes. */
export class InvalidRequestError extends TypedError {
  readonly errorType = 'invalid_request_structure';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

export class MissingTemplateDataError extends TypedError {
  readonly errorType = 'missing_template_data';
  constructor(message = 'request_data must contain a template_data object', details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** A limit set by configuration was exceeded (sizes, counts). */
export class PayloadTooLargeError extends TypedError {
  readonly errorType = 'payload_too_large';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/**
 * `options.pdf` has an unknown field or a bad value. The same error type as the API's other
 * request-shape errors (400 invalid_request_structure); `details.errors` names each field.
 */
export class InvalidPdfOptionsError extends TypedError {
  readonly errorType = 'invalid_request_structure';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}
