/**
 * Typed errors of the rendering library. Each carries the `error_type`, message, details and the
 * HTTP status the service answers with, so the API, the worker and the command line render the
 * same error body (interface spec, "Error body") without a mapping table of their own.
 */

export type ErrorDetails = Record<string, unknown>;

/** The JSON error body of the interface specification. */
export interface ErrorBody {
  status: 'error';
  error_type: string;
  message: string;
  details: ErrorDetails;
}

export abstract class RenderingError extends Error {
  abstract readonly errorType: string;
  abstract readonly httpStatus: number;
  readonly details: ErrorDetails;

  constructor(message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }

  toBody(): ErrorBody {
    return { status: 'error', error_type: this.errorType, message: this.message, details: this.details };
  }
}

/** One problem found in a template tag, with the text around it so an author can find it in Word. */
export interface TemplateProblem {
  message: string;
  /** The tag as written, e.g. `{{ total | bogus }}`. */
  tag: string;
  /** Some text before and after the tag, with the tag itself, e.g. `…Total: {{ total | bogus }} EUR…`. */
  context: string;
  /** The part of the document: `word/document.xml`, `word/header1.xml`, … */
  part: string;
}

/** Every syntax error of the template at once (not just the first). */
export class TemplateSyntaxError extends RenderingError {
  readonly errorType = 'template_syntax_error';
  readonly httpStatus = 422;
  constructor(readonly problems: TemplateProblem[]) {
    super(
      problems.length === 1
        ? `Template syntax error: ${problems[0].message} in ${problems[0].tag}`
        : `The template has ${problems.length} syntax errors; the first: ${problems[0].message} in ${problems[0].tag}`,
      { errors: problems },
    );
  }
}

/** Strict mode only: every variable the template used but the data did not define, in one error. */
export class UndefinedVariableError extends RenderingError {
  readonly errorType = 'undefined_variable';
  readonly httpStatus = 422;
  constructor(readonly variables: string[]) {
    super(`Undefined variable${variables.length > 1 ? 's' : ''} in template: ${variables.join(', ')}`, {
      variables,
    });
  }
}

/** An expression that parsed but failed on the data given (wrong type, bad filter argument, limits). */
export class TemplateRuntimeError extends RenderingError {
  readonly errorType = 'template_runtime_error';
  readonly httpStatus = 422;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** The uploaded file is not a Word document we can fill (judged by content, not by name). */
export class InvalidTemplateError extends RenderingError {
  readonly errorType = 'invalid_template';
  readonly httpStatus = 400;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** Details exactly as the interface specification lists them. */
export class ImageProcessingError extends RenderingError {
  readonly errorType = 'image_processing_error';
  readonly httpStatus = 400;
  constructor(imageName: string, cause: string, errorClass: string, suggestion: string) {
    super(`Image '${imageName}' could not be processed: ${cause}`, {
      image_name: imageName,
      error: cause,
      error_class: errorClass,
      suggestion,
    });
  }
}

/** The request body does not have the shape the interface specification describes. */
export class InvalidRequestError extends RenderingError {
  readonly errorType = 'invalid_request_structure';
  readonly httpStatus = 400;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

export class MissingTemplateDataError extends RenderingError {
  readonly errorType = 'missing_template_data';
  readonly httpStatus = 400;
  constructor(message = 'request_data must contain a template_data object', details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** The converter (LibreOffice or Gotenberg) could not turn the filled document into a PDF. */
export class ConversionFailedError extends RenderingError {
  readonly errorType = 'conversion_failed';
  readonly httpStatus = 502;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** A limit set by configuration was exceeded (sizes, counts). */
export class PayloadTooLargeError extends RenderingError {
  readonly errorType = 'payload_too_large';
  readonly httpStatus = 413;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** HTTP status of every error type the library raises. */
export const HTTP_STATUS_BY_ERROR_TYPE = {
  template_syntax_error: 422,
  undefined_variable: 422,
  template_runtime_error: 422,
  invalid_template: 400,
  image_processing_error: 400,
  invalid_request_structure: 400,
  missing_template_data: 400,
  conversion_failed: 502,
  payload_too_large: 413,
} as const;

export type RenderingErrorType = keyof typeof HTTP_STATUS_BY_ERROR_TYPE;

export function isRenderingError(e: unknown): e is RenderingError {
  return e instanceof RenderingError;
}

/** A typed error rebuilt from its body, e.g. after it crossed the queue as JSON. */
export class TransportedRenderingError extends RenderingError {
  readonly errorType: string;
  readonly httpStatus: number;
  constructor(body: Pick<ErrorBody, 'error_type' | 'message' | 'details'>, httpStatus?: number) {
    super(body.message, body.details ?? {});
    this.errorType = body.error_type;
    this.httpStatus =
      httpStatus ??
      (Object.prototype.hasOwnProperty.call(HTTP_STATUS_BY_ERROR_TYPE, body.error_type)
        ? HTTP_STATUS_BY_ERROR_TYPE[body.error_type as RenderingErrorType]
        : 500);
  }
}
