import { ConfigurationError } from '@app/config';
import { loadWorkerSettings, WORKER_SETTINGS } from './settings';
import { settingsVariables } from '@app/config';

const load = loadWorkerSettings;

describe("the worker's settings", () => {
  it('has safe defaults', () => {
    const s = load({});
    expect(s.queue.names).toEqual({ prefix: '{docx}', name: 'render' });
    expect(s.limits.templateBytes).toBe(10 * 1024 * 1024);
    expect(s.queue.payloadTtlMs).toBe(s.queue.jobTimeoutMs + 60_000);
    expect(s.worker.concurrency).toBeUndefined();
    expect(s.conversion.tableCells).toBe(100_000);
    expect(load({ MAX_TABLE_CELLS: '8000' }).conversion.tableCells).toBe(8000);
    expect(() => load({ MAX_TABLE_CELLS: '0' })).toThrow(/MAX_TABLE_CELLS/);
  });

  it("sizes an asynchronous job's table cells and conversion time apart from a synchronous request's", () => {
    const c = load({}).conversion;
    expect([c.asyncTableCells, c.asyncConversionTimeoutMs]).toEqual([250_000, 600_000]);
    const set = load({ ASYNC_MAX_TABLE_CELLS: '400000', ASYNC_CONVERSION_TIMEOUT_MS: '900000' }).conversion;
    expect([set.asyncTableCells, set.asyncConversionTimeoutMs]).toEqual([400_000, 900_000]);
    expect(() => load({ ASYNC_MAX_TABLE_CELLS: '0' })).toThrow(/ASYNC_MAX_TABLE_CELLS/);
    expect(() => load({ ASYNC_CONVERSION_TIMEOUT_MS: '10' })).toThrow(/ASYNC_CONVERSION_TIMEOUT_MS/);
    expect(() => load({ ASYNC_CONVERSION_TIMEOUT_MS: '3600001' })).toThrow(/ASYNC_CONVERSION_TIMEOUT_MS/);
  });

  it('fills requests of FILL_THREAD_MIN_BYTES and more on a thread (256 KiB by default)', () => {
    expect(load({}).worker.fillThreadMinBytes).toBe(256 * 1024);
    expect(load({ FILL_THREAD_MIN_BYTES: '0' }).worker.fillThreadMinBytes).toBe(0);
    expect(() => load({ FILL_THREAD_MIN_BYTES: '-1' })).toThrow(/FILL_THREAD_MIN_BYTES/);
  });

  it('prunes unused styles and resolves table styles before conversion unless set off', () => {
    expect(load({}).conversion).toMatchObject({ pruneUnusedStyles: true, resolveTableStyles: true });
    expect(load({ PRUNE_UNUSED_STYLES: 'off', RESOLVE_TABLE_STYLES: 'off' }).conversion).toMatchObject({
      pruneUnusedStyles: false,
      resolveTableStyles: false,
    });
    expect(() => load({ PRUNE_UNUSED_STYLES: 'no' })).toThrow(/PRUNE_UNUSED_STYLES/);
    expect(() => load({ RESOLVE_TABLE_STYLES: 'yes' })).toThrow(/RESOLVE_TABLE_STYLES/);
  });

  it('asynchronous jobs and webhooks: defaults, and what is refused', () => {
    const s = load({});
    expect([s.limits.batchItems, s.jobs.webhookRetries, s.jobs.resultTtlS, s.jobs.maxResultBytes]).toEqual([
      1000,
      5,
      3600,
      100 * 1024 * 1024,
    ]);
    expect([s.jobs.webhookSecret, s.jobs.publicBaseUrl, s.jobs.webhookAllowedHosts]).toEqual([
      undefined,
      undefined,
      '',
    ]);
    const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    const set = load({
      WEBHOOK_SECRET: secret,
      PUBLIC_BASE_URL: 'https://docs.example.com/base',
      WEBHOOK_ALLOWED_HOSTS: 'hooks.internal:8443',
    }).jobs;
    expect([set.webhookSecret, set.publicBaseUrl, set.webhookAllowedHosts]).toEqual([
      secret,
      'https://docs.example.com/base',
      'hooks.internal:8443',
    ]);
    expect(() => load({ WEBHOOK_SECRET: 'whsec_not base64!' })).toThrow(/WEBHOOK_SECRET/);
    expect(() => load({ PUBLIC_BASE_URL: 'ftp://x' })).toThrow(/PUBLIC_BASE_URL/);
    expect(() => load({ PUBLIC_BASE_URL: 'https://x/?a=1' })).toThrow(/PUBLIC_BASE_URL/);
    expect(() => load({ WEBHOOK_RETRIES: '0' })).toThrow(/WEBHOOK_RETRIES/);
    expect(() => load({ MAX_BATCH_ITEMS: '0' })).toThrow(/MAX_BATCH_ITEMS/);
  });

  it("lists every wrong variable by name, the converter's with the rest", () => {
    let error: unknown;
    try {
      load({
        JOB_TIMEOUT_MS: '60s',
        MAX_IMAGES: '-1',
        QUEUE_PREFIX: 'docx',
        REDIS_URL: 'http://x',
        LIBREOFFICE_INSTANCES: 'many',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).problems).toEqual([
      "REDIS_URL must be a redis:// or rediss:// URL (got 'http://x')",
      "QUEUE_PREFIX must contain one Redis Cluster hash tag, e.g. {docx} (got 'docx')",
      "JOB_TIMEOUT_MS must be an integer (got '60s')",
      "MAX_IMAGES must be an integer of at least 0 (got '-1')",
      "LIBREOFFICE_INSTANCES must be an integer (got 'many')",
    ]);
    expect((error as Error).message).toMatch(/^Invalid configuration:/);
  });

  it('reads a Redis Cluster as host:port seed nodes, IPv6 in brackets', () => {
    expect(load({}).redis.target).toEqual({ url: 'redis://127.0.0.1:6379' });
    const s = load({
      REDIS_URL: 'rediss://u:pw@ignored:1',
      REDIS_CLUSTER_NODES: 'redis-0:6379, 10.0.0.2:7001,[::1]:7002',
    });
    expect(s.redis.target).toEqual({
      url: 'rediss://u:pw@ignored:1',
      clusterNodes: [
        { host: 'redis-0', port: 6379 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
  });

  it.each(['redis-0', 'redis://redis-0:6379', 'a:1,,b:2', 'a:1;b:2', 'a:99999'])(
    'refuses REDIS_CLUSTER_NODES=%s',
    (value) => {
      expect(() => load({ REDIS_CLUSTER_NODES: value })).toThrow(/REDIS_CLUSTER_NODES/);
    },
  );

  it('reads the Redis command timeout, the heartbeat and refuses a TTL that does not outlive its interval', () => {
    expect(load({}).redis.commandTimeoutMs).toBe(2000);
    expect(load({ REDIS_COMMAND_TIMEOUT_MS: '500' }).redis.commandTimeoutMs).toBe(500);
    expect(() => load({ REDIS_COMMAND_TIMEOUT_MS: '0' })).toThrow(/REDIS_COMMAND_TIMEOUT_MS/);
    expect(() => load({ HEARTBEAT_INTERVAL_MS: '5000', HEARTBEAT_TTL_MS: '4000' })).toThrow(
      /HEARTBEAT_TTL_MS must be greater than HEARTBEAT_INTERVAL_MS/,
    );
  });

  it('reads the worker HTTP port, its address and the log format', () => {
    expect(load({}).worker).toMatchObject({ httpPort: 9464, host: '0.0.0.0' });
    expect(load({}).logging).toEqual({ level: 'log', format: 'json' });
    const s = load({ WORKER_HTTP_PORT: '9100', LOG_FORMAT: 'pretty', HOST: '127.0.0.1' });
    expect([s.worker.httpPort, s.worker.host, s.logging.format]).toEqual([9100, '127.0.0.1', 'pretty']);
    expect(() => load({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it("gives the converter its own slice, in createConverter's shape", () => {
    const s = load({ GOTENBERG_URL: 'http://gotenberg:3000/', LIBREOFFICE_INSTANCES: '3' });
    expect(s.converter).toEqual({ gotenbergUrl: 'http://gotenberg:3000', instances: 3 });
    expect(load({}).converter).toEqual({});
  });

  it('the limits are the engine defaults, so the library and the command line refuse what the service refuses', () => {
    const { DEFAULT_IMAGE_LIMITS } = require('@app/engine') as typeof import('@app/engine');
    expect(DEFAULT_IMAGE_LIMITS).toEqual(load({}).limits.render.imageLimits);
  });

  it('names the variables it reads', () => {
    const names = settingsVariables(WORKER_SETTINGS);
    expect(names).toEqual(
      expect.arrayContaining([
        'REDIS_URL',
        'WORKER_CONCURRENCY',
        'WORKER_HTTP_PORT',
        'GOTENBERG_URL',
        'HOST',
      ]),
    );
    expect(names).not.toContain('PORT');
  });
});
