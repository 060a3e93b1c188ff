import { TemplateSyntaxError } from '@app/engine';
import { toErrorResponse } from './error-response';
import { ServiceUnavailableError } from '@app/contracts';

/**
 * Stand-ins with the shape of NestJS's HttpException: @nestjs/common is an ES module, which Jest
 * on Node 20 cannot load (the end-to-end tests cover the real ones).
 */
class HttpExceptionLike extends Error {
  constructor(
    message: string,
    private readonly status: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
  getStatus(): number {
    return this.status;
  }
  getResponse(): unknown {
    return { statusCode: this.status, message: this.message };
  }
}
const PayloadTooLargeException = class extends HttpExceptionLike {
  constructor(m: string, o?: { cause?: unknown }) {
    super(m, 413, o);
  }
};
const BadRequestException = class extends HttpExceptionLike {
  constructor(m: string, o?: { cause?: unknown }) {
    super(m, 400, o);
  }
};
const NotFoundException = class extends HttpExceptionLike {
  constructor(m: string) {
    super(m, 404);
  }
};

const limits = { maxTemplateBytes: 1000, maxRequestBytes: 2000 };

function multerError(code: string, field?: string): Error {
  return Object.assign(new Error(code), { code, field, storageErrors: [] });
}

describe('toErrorResponse', () => {
  it('renders a typed error with its own status and body', () => {
    const e = new TemplateSyntaxError([
      { message: 'unexpected end', tag: '{{ x', context: '… {{ x …', part: 'word/document.xml' },
    ]);
    const r = toErrorResponse(e);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      status: 'error',
      error_type: 'template_syntax_error',
      message: e.message,
      details: { errors: [expect.objectContaining({ tag: '{{ x' })] },
    });
  });

  it('adds Retry-After to 503 answers', () => {
    const r = toErrorResponse(new ServiceUnavailableError('No worker is running', 7));
    expect(r.status).toBe(503);
    expect(r.headers).toEqual({ 'Retry-After': '7' });
    expect(r.body.error_type).toBe('service_unavailable');
  });

  it('hides unexpected errors behind a generic 500', () => {
    const cause = new TypeError('secret at /srv/app.js:12');
    const r = toErrorResponse(cause);
    expect(r.status).toBe(500);
    expect(r.body).toEqual({
      status: 'error',
      error_type: 'internal_error',
      message: 'Internal server error',
      details: {},
    });
    expect(JSON.stringify(r.body)).not.toContain('secret');
    expect(r.unexpected).toBe(cause);
  });

  it.each([
    ['LIMIT_FILE_SIZE', 'file', 413, 'payload_too_large', 1000],
    ['LIMIT_FIELD_VALUE', 'request_data', 413, 'payload_too_large', 2000],
    ['LIMIT_UNEXPECTED_FILE', 'template', 400, 'invalid_request_structure', undefined],
    ['LIMIT_PART_COUNT', undefined, 400, 'invalid_request_structure', undefined],
  ])('maps multer %s (as NestJS wraps it) to %s', (code, field, status, errorType, maxBytes) => {
    const cause = multerError(code, field);
    const wrapped =
      code === 'LIMIT_FILE_SIZE'
        ? new PayloadTooLargeException(cause.message, { cause })
        : new BadRequestException(cause.message, { cause });
    for (const e of [wrapped, cause]) {
      const r = toErrorResponse(e, limits);
      expect(r.status).toBe(status);
      expect(r.body.error_type).toBe(errorType);
      expect(r.body.details.limit).toBe(maxBytes);
      expect(r.body.details.max_bytes).toBe(maxBytes);
    }
  });

  it('maps a malformed multipart body to 400', () => {
    const r = toErrorResponse(Object.assign(new Error('Unexpected end of form'), { storageErrors: [] }));
    expect(r.status).toBe(400);
    expect(r.body.error_type).toBe('invalid_request_structure');
  });

  it('maps NestJS exceptions by status', () => {
    expect(toErrorResponse(new NotFoundException('Cannot GET /x')).body).toMatchObject({
      error_type: 'not_found',
      message: 'Cannot GET /x',
    });
    expect(toErrorResponse(new BadRequestException('bad')).status).toBe(400);
  });
});
