import { TypedError, type ErrorDetails } from '@app/contracts';

/** The converter (LibreOffice or Gotenberg) could not turn the filled document into a PDF. */
export class ConversionFailedError extends TypedError {
  readonly errorType = 'conversion_failed';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

// In @app/contracts beside the options.pdf validator (request/pdf-options-check.ts).
export { InvalidPdfOptionsError } from '@app/contracts';

/**
 * A PDF of options.pdf (prepend/append) or an attachment cannot be used: encrypted, unreadable,
 * a compression bomb, or beyond the time and memory its reading is allowed. `details.field`.
 */
export class InvalidPdfInputError extends TypedError {
  readonly errorType = 'invalid_pdf_input';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** options.pdf.facturx.xml is not a well-formed CII invoice (rsm:CrossIndustryInvoice). */
export class InvalidEInvoiceError extends TypedError {
  readonly errorType = 'invalid_einvoice';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** options.pdf.signature.field names a place the document does not hold (422; details.requested, details.fields). */
export class SignatureFieldNotFoundError extends TypedError {
  readonly errorType = 'signature_field_not_found';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** options.pdf.signature, and this deployment's worker has no signer (no signing profiles): 400. */
export class SigningNotConfiguredError extends TypedError {
  readonly errorType = 'signing_not_configured';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/**
 * A document that would be converted whole (split conversion cannot cut it) and whose size
 * predicts more time than its conversion has (split/conversion-budget.ts): refused before
 * LibreOffice runs. The same answer as the fill's table-cell budget: 413 `payload_too_large`,
 * `details.reason` `conversion_budget`.
 */
export class ConversionBudgetError extends TypedError {
  readonly errorType = 'payload_too_large';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, { reason: 'conversion_budget', ...details });
  }
}
