import { TypedError, type ErrorDetails } from '@app/contracts';

/** The converter (LibreOffice or Gotenberg) could not turn the filled document into a PDF. */
export class ConversionFailedError extends TypedError {
  readonly errorType = 'conversion_failed';
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
