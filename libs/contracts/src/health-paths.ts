/**
 * The HTTP paths operators and orchestrators probe, in one place so the API, the worker's small
 * listener, the docs tests and the deployment manifests cannot drift apart.
 */

/** Paths served by the API (on PORT). */
export const API_PATHS = {
  live: '/health-check',
  root: '/',
  ready: '/health/ready',
  metrics: '/metrics',
  docs: '/docs',
  board: '/admin/queues',
} as const;

/** Paths served by each worker's own HTTP listener (on WORKER_HTTP_PORT). */
export const WORKER_HTTP_PATHS = {
  live: '/health/live',
  ready: '/health/ready',
  metrics: '/metrics',
} as const;

/** Default port of the worker's HTTP listener (the usual Prometheus exporter port). */
export const WORKER_HTTP_PORT_DEFAULT = 9464;
