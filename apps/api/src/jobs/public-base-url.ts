import type { Request } from 'express';
import type { ApiSettings } from '../config/settings';

/** PUBLIC_BASE_URL, else the request's own scheme and Host (also the MCP endpoint's result URLs). */
export function publicBaseUrl(req: Request, config: ApiSettings): string {
  if (config.jobs.publicBaseUrl) return config.jobs.publicBaseUrl.replace(/\/+$/, '');
  // The Host header is the caller's: only a plain host[:port] is echoed into URLs.
  const host = req.get('host') ?? '';
  const safe = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(host)
    ? host
    : `localhost:${config.http.port}`;
  return `${req.protocol}://${safe}`;
}
