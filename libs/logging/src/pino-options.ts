/**
 * The pino settings the API (through nestjs-pino) and the workers share, so their lines have the
 * same shape: one JSON object per line with an ISO time, a text level, `service` and `msg`, or
 * coloured lines through pino-pretty when LOG_FORMAT=pretty (`npm start`).
 *
 * Nothing here logs request bodies: the API's request serializer keeps method, path and status
 * only, and the worker logs ids and sizes, never template data or image bytes.
 */
import { hostname } from 'node:os';
import pino, { type LoggerOptions } from 'pino';
import { traceLogFields, tracingRequested } from '@app/telemetry';
import type { LoggingSettings } from './settings';

/** LOG_LEVEL uses NestJS's names; pino calls `log` `info`. */
export const PINO_LEVEL = { error: 'error', warn: 'warn', log: 'info', debug: 'debug' } as const;

/** pino-pretty is a dev dependency: a production image may lack it, and JSON is the safe fallback. */
export function prettyAvailable(): boolean {
  try {
    require.resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

export function pinoOptions(logging: LoggingSettings, service: 'api' | 'worker'): LoggerOptions {
  const pretty = logging.format === 'pretty' && prettyAvailable();
  return {
    level: PINO_LEVEL[logging.level],
    base: { service, pid: process.pid, host: hostname() },
    timestamp: pino.stdTimeFunctions.isoTime,
    // With traces on, each line written inside a span carries its trace_id and span_id; without,
    // no mixin runs at all.
    ...(tracingRequested() ? { mixin: traceLogFields } : {}),
    // Text levels read better in log stores than pino's numbers; pino-pretty wants the numbers.
    ...(pretty
      ? {
          transport: {
            target: 'pino-pretty',
            // Colours follow the terminal (or FORCE_COLOR, which npm start sets for a TTY).
            // One line per entry; npm start already prefixes each line with [api] or [worker].
            options: {
              translateTime: 'SYS:HH:MM:ss.l',
              singleLine: true,
              ignore: 'pid,host,service,context',
              messageFormat: '{if context}{context}: {end}{msg}',
            },
          },
        }
      : { formatters: { level: (label: string) => ({ level: label }) } }),
  };
}
