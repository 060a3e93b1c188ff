import perfHooks from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { collectProcessMetrics, EVENT_LOOP_SAMPLE_MS } from './process-metrics';

describe('collectProcessMetrics', () => {
  afterEach(() => jest.restoreAllMocks());

  it('samples the event loop every EVENT_LOOP_SAMPLE_MS, not every 10 ms', () => {
    const monitor = jest.spyOn(perfHooks, 'monitorEventLoopDelay');
    collectProcessMetrics(new Registry());
    expect(monitor).toHaveBeenCalledTimes(1);
    expect(monitor).toHaveBeenCalledWith({ resolution: EVENT_LOOP_SAMPLE_MS });
    expect(EVENT_LOOP_SAMPLE_MS).toBeGreaterThan(10);
  });

  it('registers the process metrics operators read', async () => {
    const registry = new Registry();
    collectProcessMetrics(registry);
    const text = await registry.metrics();
    for (const name of [
      'process_resident_memory_bytes',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds',
    ])
      expect(text).toContain(`# TYPE ${name} `);
  });
});
