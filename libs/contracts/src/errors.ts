/**
 * The error catalogue: every `error_type` the service answers with, its HTTP status, and the base
 * class of the typed errors. Errors carry a type, a message and details, never a status: the
 * status is looked up here once, at the HTTP edge (as Gotenberg maps its sentinel errors in its
 * routes), so the engine, the converters and the command line stay free of HTTP.
 */

import { type Static, Type } from '@sinclair/typebox';

export type ErrorDetails = Record<string, unknown>;

/** The JSON error body of the interface specification (ErrorBodySchema below). */
export type ErrorBody = Static<typeof ErrorBodySchema>;

/** error_type → HTTP status. The one place a status is chosen. */
export const ERROR_CATALOGUE = {
  // the request
  invalid_request_structure: 400,
  missing_template_data: 400,
  missing_file: 400,
  invalid_template: 400,
  image_processing_error: 400,
  invalid_webhook_url: 400,
  /** deliver_to's shape, headers or URLs (docs/jobs.md, "Delivery"). */
  invalid_deliver_to: 400,
  /** options.pdf.signature.profile is not one of the operator's signing profiles (docs/signing.md). */
  unknown_signing_profile: 400,
  /** options.output names a format this deployment's converter cannot write (docs/outputs.md). */
  unsupported_output: 400,
  // API keys (docs/templates.md): no key or an unknown one; a key without the route's scope.
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  job_not_found: 404,
  /** A stored template (or its version) that does not exist, was deleted, or is another namespace's. */
  template_not_found: 404,
  method_not_allowed: 405,
  job_not_finished: 409,
  payload_too_large: 413,
  // the template and its data
  template_syntax_error: 422,
  undefined_variable: 422,
  template_runtime_error: 422,
  // options.pdf's files (docs/pdf.md)
  invalid_pdf_input: 422,
  invalid_einvoice: 422,
  // signing (docs/pdf.md)
  /** options.pdf.signature on a deployment whose worker has no signer bound. */
  signing_not_configured: 400,
  /** options.pdf.signature.field names no signature_field of the document. */
  signature_field_not_found: 422,
  /** The signing profile's certificate is expired or not yet valid (docs/signing.md). */
  signing_certificate_invalid: 422,
  // outputs beyond PDF (docs/outputs.md)
  page_out_of_range: 422,
  missing_alt_text: 422,
  /** chart() data that is not chart data, a non-numeric value, unequal series (docs/charts.md). */
  chart_data_error: 422,
  // the service
  internal_error: 500,
  conversion_failed: 502,
  /** The signing profile's time-stamping authority, OCSP responder or CRL server failed or timed out. */
  signing_service_failed: 502,
  service_unavailable: 503,
  processing_timeout: 504,
} as const;

export type ErrorType = keyof typeof ERROR_CATALOGUE;

/** The HTTP status of an error type; an unknown type is an internal error. */
export function httpStatusOf(errorType: string): number {
  return Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, errorType)
    ? ERROR_CATALOGUE[errorType as ErrorType]
    : 500;
}

/**
 * The error body, defined once: its type is ErrorBody, the OpenAPI document's ErrorBody is this.
 * error_type is typed as a string (a body read back from the queue may carry any), documented as
 * the catalogue's types, by status.
 */
export const ErrorBodySchema = Type.Object(
  {
    status: Type.Literal('error'),
    // TypeBox's String leaves `enum` to the document: the type stays string, the check too.
    error_type: Type.String({
      enum: (Object.keys(ERROR_CATALOGUE) as ErrorType[]).sort(
        (a, b) => ERROR_CATALOGUE[a] - ERROR_CATALOGUE[b],
      ),
    }),
    message: Type.String({ description: 'Human-readable description' }),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Further information; keys depend on error_type (see the examples)',
    }),
  },
  {
    $id: 'ErrorBody',
    description: 'Every error answer (application/json). Stack traces are never included.',
  },
);

/** An error the caller is told about: its type, a message for people and details for programs. */
export abstract class TypedError extends Error {
  abstract readonly errorType: ErrorType;
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

export function isTypedError(e: unknown): e is TypedError {
  return e instanceof TypedError;
}

/** A typed error rebuilt from its body, e.g. after it crossed the queue as JSON. */
export class TransportedError extends TypedError {
  readonly errorType: ErrorType;
  constructor(body: Pick<ErrorBody, 'error_type' | 'message' | 'details'>) {
    super(body.message, body.details ?? {});
    this.errorType = Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, body.error_type)
      ? (body.error_type as ErrorType)
      : 'internal_error';
  }
}
