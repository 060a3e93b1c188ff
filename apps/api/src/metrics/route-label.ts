/**
 * The `route` label of the HTTP metrics. Labels must stay bounded: the route pattern (never the
 * raw URL, which a caller controls), `unmatched` for anything no route took, and the board's mount
 * path for all of the board. Free of NestJS so it is unit-tested directly.
 */
import type { Request, Response } from 'express';
import { METRICS_ROUTE_LOCAL } from '../logging/response-locals';

export function routeOf(req: Request, res: Response): string {
  const named = (res.locals as Record<string, unknown>)[METRICS_ROUTE_LOCAL];
  if (typeof named === 'string') return named;
  const route = (req as Request & { route?: { path?: unknown } }).route;
  // A wildcard is the catch-all that global middleware is mounted on (Nest's 404 leaves it in
  // place); none of our controller routes has one.
  if (route && typeof route.path === 'string' && !route.path.includes('*')) {
    return `${req.baseUrl ?? ''}${route.path}` || '/';
  }
  return 'unmatched';
}
