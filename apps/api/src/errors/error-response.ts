/**
 * Turns anything thrown while handling a request into the status, headers and JSON error body the
 * interface specification describes. The exception filter is a thin shell around this function;
 * it stays free of NestJS so it is tested directly.
 */
import {
  ErrorBody,
  httpStatusOf,
  InternalError,
  MethodNotAllowedError,
  NotFoundError,
  ServiceUnavailableError,
  TypedError,
} from '@app/contracts';
import { InvalidRequestError, PayloadTooLargeError } from '@app/engine';

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
  /** Set for unexpected errors: the cause, for the log only. */
  unexpected?: unknown;
}

/** What NestJS's HttpException looks like, without importing NestJS. */
interface HttpExceptionLike {
  getStatus(): number;
  getResponse(): unknown;
  message: string;
  cause?: unknown;
}

function isHttpException(e: unknown): e is HttpExceptionLike {
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof (e as HttpExceptionLike).getStatus === 'function' &&
    typeof (e as HttpExceptionLike).getResponse === 'function'
  );
}

/** multer's limit errors, by code (NestJS keeps the multer error as `cause`). */
const TOO_LARGE_CODES = new Set(['LIMIT_FILE_SIZE', 'LIMIT_FIELD_VALUE']);

/** Limits named in the details of a 413 answer. */
export interface UploadLimits {
  maxTemplateBytes: number;
  maxRequestBytes: number;
}

export function toErrorResponse(exception: unknown, limits?: UploadLimits): ErrorResponse {
  const error = toRenderingError(exception, limits);
  const headers: Record<string, string> = {};
  if (error instanceof ServiceUnavailableError) {
    headers['Retry-After'] = String(error.retryAfterSeconds);
  }
  if (error instanceof MethodNotAllowedError) headers.Allow = error.allow.join(', ');
  const response: ErrorResponse = { status: httpStatusOf(error.errorType), headers, body: error.toBody() };
  if (error instanceof InternalError && !(exception instanceof InternalError)) {
    response.unexpected = exception;
  }
  return response;
}

function toRenderingError(exception: unknown, limits?: UploadLimits): TypedError {
  if (exception instanceof TypedError) return exception;
  if (isHttpException(exception)) return fromHttpException(exception, limits);
  const multer = multerError(exception, limits);
  if (multer) return multer;
  return new InternalError();
}

function fromHttpException(e: HttpExceptionLike, limits?: UploadLimits): TypedError {
  const fromMulter = multerError(e.cause, limits);
  if (fromMulter) return fromMulter;
  const status = e.getStatus();
  const message = e.message;
  if (status === 404) return new NotFoundError(message);
  if (status === 413) return new PayloadTooLargeError(message);
  if (status >= 400 && status < 500) return new InvalidRequestError(message);
  return new InternalError();
}

/** Form fields that carry JSON or text, never a file. */
const TEXT_FIELDS = new Set([
  'data',
  'request_data',
  'images',
  'undefined_behavior',
  'linter_options',
  'options',
]);

/**
 * What a newcomer most likely did wrong, in words that say how to fix it: curl's `-F data=@x.json`
 * uploads a file where a text field is expected (`<` sends the content as text), and any other
 * file field is probably the template under another name.
 */
function formMistake(code: string, field: unknown): string | undefined {
  if (code === 'LIMIT_UNEXPECTED_FILE' && typeof field === 'string') {
    if (TEXT_FIELDS.has(field))
      return (
        `The form field '${field}' must be text, not a file upload; with curl send a file's content ` +
        `as text with -F '${field}=<file.json' (<, not @)`
      );
    return `Unexpected file in the form field '${field}': the .docx template goes in the field 'file' (curl: -F file=@template.docx)`;
  }
  if (code === 'LIMIT_FILE_COUNT')
    return "Too many files: only the field 'file' takes a file; send JSON fields as text (curl: -F 'data=<data.json')";
  return undefined;
}

/**
 * multer (and busboy under it) report every problem with the multipart body as an Error carrying
 * a `code` (limits) or `storageErrors` (multer adds it to all errors it passes on).
 */
function multerError(e: unknown, limits?: UploadLimits): TypedError | undefined {
  if (!(e instanceof Error)) return undefined;
  const { code, field } = e as Error & { code?: unknown; field?: unknown };
  const details: Record<string, unknown> = {};
  if (typeof field === 'string') details.field = field;
  if (typeof code === 'string' && code.startsWith('LIMIT_')) {
    details.code = code;
    if (TOO_LARGE_CODES.has(code)) {
      if (limits) {
        // `limit`, as in the library's 413s (zip bomb, image size, image count); `max_bytes`, the
        // same number, stays for callers that read it before `limit` was documented.
        details.limit = field === 'file' ? limits.maxTemplateBytes : limits.maxRequestBytes;
        details.max_bytes = details.limit;
      }
      return new PayloadTooLargeError(
        field === 'file'
          ? 'The template file is too large'
          : `The form field '${String(field)}' is too large`,
        details,
      );
    }
    return new InvalidRequestError(
      formMistake(code, field) ?? `Invalid multipart form: ${e.message}`,
      details,
    );
  }
  if (
    'storageErrors' in e ||
    /^(Multipart|Malformed|Unexpected end of|Unsupported content type)/.test(e.message)
  ) {
    return new InvalidRequestError(`Invalid multipart form: ${e.message}`, details);
  }
  return undefined;
}
