/**
 * Typed errors of the template engine. Each carries its `error_type`, message and details; the
 * HTTP status is the error catalogue's business (@app/contracts), looked up at the HTTP edge.
 */
import { TypedError, type ErrorDetails } from '@app/contracts';

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
export class TemplateSyntaxError extends TypedError {
  readonly errorType = 'template_syntax_error';
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
export class UndefinedVariableError extends TypedError {
  readonly errorType = 'undefined_variable';
  constructor(readonly variables: string[]) {
    super(`Undefined variable${variables.length > 1 ? 's' : ''} in template: ${variables.join(', ')}`, {
      variables,
    });
  }
}

/** An expression that parsed but failed on the data given (wrong type, bad filter argument, limits). */
export class TemplateRuntimeError extends TypedError {
  readonly errorType = 'template_runtime_error';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/**
 * options.pdf.pdfua and a request image placed without alternative text that is not decorative:
 * an accessible PDF needs a description of every picture (422, `details.image`).
 */
export class MissingAltTextError extends TypedError {
  readonly errorType = 'missing_alt_text';
  constructor(image: string) {
    super(
      `options.pdf.pdfua: image "${image}" has no alternative text; give images.${image}.alt, or mark it "decorative": true`,
      { field: `images.${image}.alt`, image },
    );
  }
}

/** The uploaded file is not a Word document we can fill (judged by content, not by name). */
export class InvalidTemplateError extends TypedError {
  readonly errorType = 'invalid_template';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** Details exactly as the interface specification lists them. */
export class ImageProcessingError extends TypedError {
  readonly errorType = 'image_processing_error';
  constructor(imageName: string, cause: string, errorClass: string, suggestion: string) {
    super(`Image '${imageName}' could not be processed: ${cause}`, {
      image_name: imageName,
      error: cause,
      error_class: errorClass,
      suggestion,
    });
  }
}

/**
 * `chart(…)` got something that is not chart data, or chart data with a non-numeric value or
 * series of unequal lengths (422): details name the chart (its tag's expression), the series and
 * the index, so an author can find the bad value in the JSON.
 */
export class ChartDataError extends TypedError {
  readonly errorType = 'chart_data_error';
  constructor(
    message: string,
    details: {
      chart: string;
      series?: number | null;
      series_name?: string | null;
      index?: number | null;
      field?: string;
    },
  ) {
    super(`Chart '${details.chart}': ${message}`, { series: null, index: null, ...details });
  }
}

// The request's own errors (InvalidRequestError, MissingTemplateDataError, PayloadTooLargeError)
// live in @app/contracts beside the request parser; re-exported here for the engine's checks.
export { InvalidRequestError, MissingTemplateDataError, PayloadTooLargeError } from '@app/contracts';
