import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiSettings } from '../config/settings';
import { MethodNotAllowedError } from '@app/contracts';
import { allowedMethods } from './allowed-methods';
import { ERROR_TYPE_LOCAL } from '../logging/response-locals';
import { toErrorResponse } from './error-response';

/** The one place that writes error bodies: every exception, ours, NestJS's or multer's. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly config: ApiSettings) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const req = host.switchToHttp().getRequest<Request>();
    let error = toErrorResponse(exception, {
      maxTemplateBytes: this.config.limits.templateBytes,
      maxRequestBytes: this.config.limits.requestBytes,
    });
    if (error.status === 404) {
      const allow = allowedMethods(req);
      if (allow.length && !allow.includes(req.method))
        error = toErrorResponse(
          new MethodNotAllowedError(
            `${req.method} is not allowed on ${req.path}; use ${allow.join(' or ')}`,
            allow,
          ),
        );
    }
    if (error.unexpected !== undefined) {
      const e = error.unexpected;
      this.logger.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
    }
    // For the request log line and the metrics' error_type label.
    res.locals[ERROR_TYPE_LOCAL] = error.body.error_type;
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(error.status).set(error.headers).type('application/json').send(JSON.stringify(error.body));
  }
}
