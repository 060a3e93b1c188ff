/**
 * The API's span of a request (kind server), around a controller's handler: the root of the
 * trace that the job's spans in the worker continue (docs/operations.md, "Traces"). A manual span
 * rather than the HTTP instrumentation, which must patch `http` before anything loads it and would
 * cost every request something even with traces off; here, with traces off, the handler is
 * simply called.
 */
import type { Request } from 'express';
import { withSpan } from '@app/telemetry';
import { requestIdOf } from '../logging/request-id';

export function inRequestSpan<T>(req: Request, handler: () => Promise<T>): Promise<T> {
  // The route's pattern (never the query, which may carry a caller's data).
  const route = (req.route as { path?: string } | undefined)?.path ?? req.path;
  return withSpan(`${req.method} ${route}`, handler, {
    kind: 'server',
    attributes: {
      'http.request.method': req.method,
      'http.route': route,
      request_id: requestIdOf(req),
    },
  });
}
