import { TypedError, type ErrorDetails } from '@app/contracts';

/** options.pdf.signature.profile names no profile this deployment loaded. `details.profile`. */
export class UnknownSigningProfileError extends TypedError {
  readonly errorType = 'unknown_signing_profile';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/**
 * The profile's time-stamping authority, an OCSP responder or a CRL server failed, answered
 * something unusable, or timed out. Retried as a converter outage is (`details.retryable`).
 * `details.service` (`tsa`, `ocsp`, `crl`); never the URL's credentials, never key material.
 */
export class SigningServiceFailedError extends TypedError {
  readonly errorType = 'signing_service_failed';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, { retryable: true, ...details });
  }
}

/** The signer's certificate is expired or not yet valid at signing time. `details.not_before`, `details.not_after`. */
export class SigningCertificateInvalidError extends TypedError {
  readonly errorType = 'signing_certificate_invalid';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** The PDF to sign cannot be read or updated (encrypted, damaged). The same answer as a bad options.pdf input. */
export class UnsignablePdfError extends TypedError {
  readonly errorType = 'invalid_pdf_input';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** A signing profile that cannot be loaded: the worker stops. The message names the profile, never its password. */
export class SigningProfileError extends Error {
  constructor(
    readonly profile: string,
    reason: string,
  ) {
    super(`signing profile "${profile}" cannot be loaded: ${reason}`);
    this.name = 'SigningProfileError';
  }
}
