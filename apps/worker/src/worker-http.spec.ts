import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { createWorkerHttpServer, listen, type WorkerReadiness } from './worker-http';
import { WorkerMetrics } from './worker-metrics';

describe('worker HTTP listener', () => {
  let readiness: WorkerReadiness;
  const metrics = new WorkerMetrics(new Registry());
  const server = createWorkerHttpServer({ registry: metrics.registry, readiness: () => readiness });
  let base: string;

  beforeAll(async () => {
    const address: AddressInfo = await listen(server, 0, '127.0.0.1');
    base = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers liveness, and readiness by its checks', async () => {
    expect((await fetch(`${base}/health/live`)).status).toBe(200);
    readiness = { ready: true, failed: [], checks: { redis: { status: 'up' } } };
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    readiness = {
      ready: false,
      failed: ['converter'],
      checks: { converter: { status: 'down', detail: 'x' } },
    };
    const res = await fetch(`${base}/health/ready`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: 'error',
      failed: ['converter'],
      checks: { converter: { status: 'down', detail: 'x' } },
    });
  });

  it('serves the metrics in Prometheus text format', async () => {
    metrics.jobs.inc({ outcome: 'success' });
    const res = await fetch(`${base}/metrics?x=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toMatch(/^docgen_jobs_total\{outcome="success"\} 1$/m);
  });

  it('answers anything else with a JSON 404 (405 for other methods)', async () => {
    const res = await fetch(`${base}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 'error', error_type: 'not_found' });
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('reports a taken port instead of running without its listener', async () => {
    const port = (server.address() as AddressInfo).port;
    const other = createWorkerHttpServer({ registry: metrics.registry, readiness: () => readiness });
    await expect(listen(other, port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
