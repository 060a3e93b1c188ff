/**
 * What handlers leave on `res.locals` for the request log line and the HTTP metrics, which run
 * when the response is finished. A file without dependencies, so any layer may import it.
 */
import type { Response } from 'express';

/** The error_type of the answer: set by the exception filter and by the board's auth. */
export const ERROR_TYPE_LOCAL = 'errorType';

/** The route label of a request served by middleware for a whole subtree (Bull Board). */
export const METRICS_ROUTE_LOCAL = 'metricsRoute';

export function errorTypeOf(res: Response): string | undefined {
  const value = (res.locals as Record<string, unknown> | undefined)?.[ERROR_TYPE_LOCAL];
  return typeof value === 'string' ? value : undefined;
}
