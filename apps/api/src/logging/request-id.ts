/**
 * One id per request, from the caller's `X-Request-Id` when it is a safe token, else a fresh
 * UUID. It is echoed in the response, bound to the API's log lines, stored in the job and used
 * by the worker and the converter (Gotenberg-Trace), so one grep follows a request everywhere.
 */
import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What we accept from callers: short, and nothing a log parser or a header could trip on. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The caller's id when it is safe to reuse; anything else (too long, odd characters, repeated header) yields a new id. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return typeof header === 'string' && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}

export function isSafeRequestId(id: unknown): id is string {
  return typeof id === 'string' && SAFE_REQUEST_ID.test(id);
}

/**
 * This request's id: the one the request logger (logging.module.ts) set from X-Request-Id, or,
 * if it did not run, one made here the same way.
 */
export function requestIdOf(req: {
  id?: unknown;
  headers: Record<string, string | string[] | undefined>;
}): string {
  return typeof req.id === 'string' ? req.id : requestIdFrom(req.headers['x-request-id']);
}
