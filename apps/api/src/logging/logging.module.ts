/**
 * Structured request logging (nestjs-pino + pino-http): one JSON line per request with the
 * request id, method, path, status, duration and error_type, and every line logged while a request
 * is handled carries the same `requestId`. NestJS's own Logger calls go through pino too
 * (main.ts: app.useLogger).
 */
import { Module } from '@nestjs/common';
import type { Request, Response } from 'express';
import { LoggerModule } from 'nestjs-pino';
import { ApiSettings } from '../config/settings';
import { pinoOptions } from '@app/logging';
import { REQUEST_ID_HEADER, requestIdFrom } from './request-id';
import { errorTypeOf } from './response-locals';

/** The path as the caller sent it (Express strips mount points from `url`), without the query. */
function pathOf(req: Request): string {
  return (req.originalUrl ?? req.url ?? '').split('?')[0];
}

@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [ApiSettings],
      useFactory: (config: ApiSettings) => ({
        pinoHttp: {
          ...pinoOptions(config.logging, 'api'),
          genReqId: (req, res) => {
            const id = requestIdFrom(req.headers['x-request-id']);
            res.setHeader(REQUEST_ID_HEADER, id);
            return id;
          },
          // Lines logged during a request carry only the id, not the whole request.
          quietReqLogger: true,
          customAttributeKeys: { reqId: 'requestId', responseTime: 'duration_ms' },
          // Method and path only: no headers (Authorization of the board, cookies), no query, no body.
          serializers: {
            req: (req: { method?: string; url?: string }) => ({
              method: req.method,
              path: (req.url ?? '').split('?')[0],
            }),
            res: (res: { statusCode?: number }) => ({ status: res.statusCode }),
          },
          // Called at the start and again at the end: error_type is known only at the end.
          customProps: (_req, res) => {
            const errorType = errorTypeOf(res as unknown as Response);
            return errorType ? { error_type: errorType } : {};
          },
          customLogLevel: (_req, res, err) =>
            err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info',
          customSuccessMessage: (req, res) =>
            `${req.method} ${pathOf(req as unknown as Request)} ${res.statusCode}`,
          customErrorMessage: (req, res) =>
            `${req.method} ${pathOf(req as unknown as Request)} ${res.statusCode}`,
          // The 5xx line says what failed through error_type; a synthetic Error adds nothing.
          customErrorObject: (_req, _res, _err, value: Record<string, unknown>) => {
            const { err: _unused, ...rest } = value;
            return rest;
          },
        },
      }),
    }),
  ],
})
export class LoggingModule {}
