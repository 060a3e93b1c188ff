import { TypedError, type ErrorDetails } from '@app/contracts';

/** The converter (LibreOffice or Gotenberg) could not turn the filled document into a PDF. */
export class ConversionFailedError extends TypedError {
  readonly errorType = 'conversion_failed';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}
