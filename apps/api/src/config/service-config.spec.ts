import { ConfigurationError, loadConfig } from './service-config';

describe('loadConfig', () => {
  it('has safe defaults', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(8000);
    expect(c.QUEUE_PREFIX).toBe('{docx}');
    expect(c.MAX_TEMPLATE_BYTES).toBe(10 * 1024 * 1024);
    expect(c.payloadTtlMs).toBe(c.JOB_TIMEOUT_MS + 60_000);
    expect(c.WORKER_CONCURRENCY).toBeUndefined();
  });

  it('reads integers and strings from the environment', () => {
    const c = loadConfig({
      PORT: '9000',
      JOB_TIMEOUT_MS: '1_500',
      REDIS_URL: 'redis://r:1',
      WORKER_CONCURRENCY: '3',
    });
    expect(c.PORT).toBe(9000);
    expect(c.JOB_TIMEOUT_MS).toBe(1500);
    expect(c.REDIS_URL).toBe('redis://r:1');
    expect(c.WORKER_CONCURRENCY).toBe(3);
  });

  it('lists every wrong variable by name', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'abc',
        MAX_IMAGES: '-1',
        QUEUE_PREFIX: 'docx',
        REDIS_URL: 'http://x',
        DEFAULT_UNDEFINED: 'loose',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    const problems = (error as ConfigurationError).problems.join('\n');
    expect(problems).toMatch(/PORT must be an integer \(got 'abc'\)/);
    expect(problems).toMatch(/MAX_IMAGES/);
    expect(problems).toMatch(/QUEUE_PREFIX must contain one Redis Cluster hash tag/);
    expect(problems).toMatch(/REDIS_URL/);
    expect(problems).toMatch(/DEFAULT_UNDEFINED/);
    expect((error as Error).message).toMatch(/^Invalid configuration:/);
  });

  it('refuses a heartbeat TTL that does not outlive its interval', () => {
    expect(() => loadConfig({ HEARTBEAT_INTERVAL_MS: '5000', HEARTBEAT_TTL_MS: '4000' })).toThrow(
      /HEARTBEAT_TTL_MS/,
    );
  });
});
