/**
 * The methods the app has routes for at a request's path, so that a GET on a POST endpoint is a
 * 405 with `Allow` (RFC 9110) instead of a 404 that suggests the path is wrong. Read from
 * Express's router (Nest mounts its controllers there as a sub-router), so every route, present
 * and future, is covered without a list to keep in step.
 */
import type { Request } from 'express';

interface RouterLayer {
  route?: { path?: unknown; methods?: Record<string, boolean> };
  handle?: { stack?: RouterLayer[] };
  match?: (path: string) => false | { path?: string };
}

function collect(stack: RouterLayer[], path: string, into: Set<string>): void {
  for (const layer of stack) {
    const match = typeof layer.match === 'function' ? layer.match(path) : false;
    if (!match) continue;
    if (layer.route) {
      // The not-found handler is a catch-all for every method: it says nothing about this path.
      if (String(layer.route.path).includes('*')) continue;
      for (const [method, on] of Object.entries(layer.route.methods ?? {}))
        if (on && method !== '_all') into.add(method.toUpperCase());
    } else if (layer.handle?.stack) {
      collect(layer.handle.stack, path.slice((match.path ?? '').length) || '/', into);
    }
  }
}

export function allowedMethods(req: Request): string[] {
  const router = (req.app as unknown as { router?: { stack?: RouterLayer[] } }).router;
  const methods = new Set<string>();
  collect(router?.stack ?? [], req.path, methods);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
