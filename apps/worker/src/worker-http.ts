/**
 * The worker's small HTTP listener (node:http, no framework) on WORKER_HTTP_PORT: Prometheus
 * metrics and the probes an orchestrator needs for a process that otherwise only talks to Redis.
 *
 *   /health/live   200 while the process runs (the event loop answers)
 *   /health/ready  200 when it takes jobs: Redis connected and the converter healthy; else 503
 *                  naming the failed checks
 *   /metrics       Prometheus text format
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { WORKER_HTTP_PATHS } from '@app/contracts';

export interface WorkerReadiness {
  ready: boolean;
  failed: string[];
  checks: Record<string, { status: 'up' | 'down'; [detail: string]: unknown }>;
}

export interface WorkerHttpOptions {
  registry: Registry;
  readiness: () => WorkerReadiness;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));

export function createWorkerHttpServer(options: WorkerHttpOptions): Server {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      json(res, 405, {
        status: 'error',
        error_type: 'not_found',
        message: `${req.method} is not served here`,
        details: {},
      });
      return;
    }
    switch (path) {
      case WORKER_HTTP_PATHS.live:
        json(res, 200, { status: 'ok' });
        return;
      case WORKER_HTTP_PATHS.ready: {
        const r = options.readiness();
        json(res, r.ready ? 200 : 503, {
          status: r.ready ? 'ok' : 'error',
          failed: r.failed,
          checks: r.checks,
        });
        return;
      }
      case WORKER_HTTP_PATHS.metrics:
        send(res, 200, options.registry.contentType, await options.registry.metrics());
        return;
      default:
        json(res, 404, {
          status: 'error',
          error_type: 'not_found',
          message: `Cannot ${req.method} ${path}`,
          details: {},
        });
    }
  };
  return createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent)
        json(res, 500, {
          status: 'error',
          error_type: 'internal_error',
          message: 'Internal server error',
          details: {},
        });
      else res.destroy(e instanceof Error ? e : undefined);
    });
  });
}

/** Listens; rejects on EADDRINUSE and the like so the caller can stop with a clear message. */
export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}
