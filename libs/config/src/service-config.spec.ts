import { ConverterConfigError } from './converter-config';
import { ConfigurationError, loadConfig, SERVICE_ENV_VARS } from './service-config';

describe('loadConfig', () => {
  it('has safe defaults', () => {
    const c = loadConfig({});
    expect(c.PORT).toBe(8000);
    expect(c.QUEUE_PREFIX).toBe('{docx}');
    expect(c.MAX_TEMPLATE_BYTES).toBe(10 * 1024 * 1024);
    expect(c.payloadTtlMs).toBe(c.JOB_TIMEOUT_MS + 60_000);
    expect(c.WORKER_CONCURRENCY).toBeUndefined();
    expect(c.MAX_TABLE_CELLS).toBe(100_000);
    expect(loadConfig({ MAX_TABLE_CELLS: '8000' }).MAX_TABLE_CELLS).toBe(8000);
    expect(() => loadConfig({ MAX_TABLE_CELLS: '0' })).toThrow(/MAX_TABLE_CELLS/);
  });

  it("sizes an asynchronous job's table cells and conversion time apart from a synchronous request's", () => {
    const c = loadConfig({});
    expect([c.ASYNC_MAX_TABLE_CELLS, c.ASYNC_CONVERSION_TIMEOUT_MS]).toEqual([250_000, 600_000]);
    const set = loadConfig({ ASYNC_MAX_TABLE_CELLS: '400000', ASYNC_CONVERSION_TIMEOUT_MS: '900000' });
    expect([set.ASYNC_MAX_TABLE_CELLS, set.ASYNC_CONVERSION_TIMEOUT_MS]).toEqual([400_000, 900_000]);
    expect(() => loadConfig({ ASYNC_MAX_TABLE_CELLS: '0' })).toThrow(/ASYNC_MAX_TABLE_CELLS/);
    expect(() => loadConfig({ ASYNC_CONVERSION_TIMEOUT_MS: '10' })).toThrow(/ASYNC_CONVERSION_TIMEOUT_MS/);
    expect(() => loadConfig({ ASYNC_CONVERSION_TIMEOUT_MS: '3600001' })).toThrow(
      /ASYNC_CONVERSION_TIMEOUT_MS/,
    );
  });

  it('fills requests of FILL_THREAD_MIN_BYTES and more on a thread (256 KiB by default)', () => {
    expect(loadConfig({}).FILL_THREAD_MIN_BYTES).toBe(256 * 1024);
    expect(loadConfig({ FILL_THREAD_MIN_BYTES: '0' }).FILL_THREAD_MIN_BYTES).toBe(0);
    expect(() => loadConfig({ FILL_THREAD_MIN_BYTES: '-1' })).toThrow(/FILL_THREAD_MIN_BYTES/);
  });

  it('leaves unused styles out before conversion unless PRUNE_UNUSED_STYLES is off', () => {
    expect(loadConfig({}).unusedStylesPruned).toBe(true);
    expect(loadConfig({ PRUNE_UNUSED_STYLES: 'off' }).unusedStylesPruned).toBe(false);
    expect(() => loadConfig({ PRUNE_UNUSED_STYLES: 'no' })).toThrow(/PRUNE_UNUSED_STYLES/);
  });

  it('resolves table styles before conversion unless RESOLVE_TABLE_STYLES is off', () => {
    expect(loadConfig({}).tableStylesResolved).toBe(true);
    expect(loadConfig({ RESOLVE_TABLE_STYLES: 'off' }).tableStylesResolved).toBe(false);
    expect(() => loadConfig({ RESOLVE_TABLE_STYLES: 'yes' })).toThrow(/RESOLVE_TABLE_STYLES/);
  });

  it('asynchronous jobs and webhooks: defaults, and what is refused', () => {
    const c = loadConfig({});
    expect([c.MAX_BATCH_ITEMS, c.WEBHOOK_RETRIES, c.RESULT_TTL_S, c.MAX_RESULT_BYTES]).toEqual([
      1000,
      5,
      3600,
      100 * 1024 * 1024,
    ]);
    expect([c.WEBHOOK_SECRET, c.PUBLIC_BASE_URL, c.WEBHOOK_ALLOWED_HOSTS]).toEqual([
      undefined,
      undefined,
      '',
    ]);
    const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    const set = loadConfig({
      WEBHOOK_SECRET: secret,
      PUBLIC_BASE_URL: 'https://docs.example.com/base',
      WEBHOOK_ALLOWED_HOSTS: 'hooks.internal:8443',
    });
    expect([set.WEBHOOK_SECRET, set.PUBLIC_BASE_URL, set.WEBHOOK_ALLOWED_HOSTS]).toEqual([
      secret,
      'https://docs.example.com/base',
      'hooks.internal:8443',
    ]);
    expect(() => loadConfig({ WEBHOOK_SECRET: 'whsec_not base64!' })).toThrow(/WEBHOOK_SECRET/);
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'ftp://x' })).toThrow(/PUBLIC_BASE_URL/);
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'https://x/?a=1' })).toThrow(/PUBLIC_BASE_URL/);
    expect(() => loadConfig({ WEBHOOK_RETRIES: '0' })).toThrow(/WEBHOOK_RETRIES/);
    expect(() => loadConfig({ MAX_BATCH_ITEMS: '0' })).toThrow(/MAX_BATCH_ITEMS/);
    expect(SERVICE_ENV_VARS).toEqual(
      expect.arrayContaining(['WEBHOOK_SECRET', 'PUBLIC_BASE_URL', 'RESULT_TTL_S']),
    );
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

  it('reads a Redis Cluster as host:port seed nodes, IPv6 in brackets', () => {
    expect(loadConfig({}).redisTarget).toEqual({ url: 'redis://127.0.0.1:6379' });
    const c = loadConfig({
      REDIS_URL: 'rediss://u:pw@ignored:1',
      REDIS_CLUSTER_NODES: 'redis-0:6379, 10.0.0.2:7001,[::1]:7002',
    });
    expect(c.redisTarget).toEqual({
      url: 'rediss://u:pw@ignored:1',
      clusterNodes: [
        { host: 'redis-0', port: 6379 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    expect(SERVICE_ENV_VARS).toContain('REDIS_CLUSTER_NODES');
  });

  it('DEFAULT_LOCALE and DEFAULT_TIMEZONE: en_US and UTC unless set; unknown ones are named', () => {
    const c = loadConfig({});
    expect([c.DEFAULT_LOCALE, c.DEFAULT_TIMEZONE]).toEqual(['en_US', 'UTC']);
    expect(loadConfig({ DEFAULT_LOCALE: 'de-DE', DEFAULT_TIMEZONE: 'Europe/Berlin' }).DEFAULT_LOCALE).toBe(
      'de-DE',
    );
    expect(() => loadConfig({ DEFAULT_LOCALE: 'not a locale' })).toThrow(/DEFAULT_LOCALE/);
    expect(() => loadConfig({ DEFAULT_TIMEZONE: 'Europe/Atlantis' })).toThrow(/DEFAULT_TIMEZONE/);
    expect(SERVICE_ENV_VARS).toEqual(expect.arrayContaining(['DEFAULT_LOCALE', 'DEFAULT_TIMEZONE']));
  });

  it.each(['redis-0', 'redis://redis-0:6379', 'a:1,,b:2', 'a:1;b:2', 'a:99999'])(
    'refuses REDIS_CLUSTER_NODES=%s',
    (value) => {
      expect(() => loadConfig({ REDIS_CLUSTER_NODES: value })).toThrow(/REDIS_CLUSTER_NODES/);
    },
  );

  it('reads the JSON depth limit and the Redis command timeout', () => {
    expect(loadConfig({})).toMatchObject({ MAX_JSON_DEPTH: 64, REDIS_COMMAND_TIMEOUT_MS: 2000 });
    expect(loadConfig({ MAX_JSON_DEPTH: '100', REDIS_COMMAND_TIMEOUT_MS: '500' })).toMatchObject({
      MAX_JSON_DEPTH: 100,
      REDIS_COMMAND_TIMEOUT_MS: 500,
    });
    expect(() => loadConfig({ MAX_JSON_DEPTH: '1' })).toThrow(/MAX_JSON_DEPTH/);
    expect(() => loadConfig({ MAX_JSON_DEPTH: '100000' })).toThrow(/MAX_JSON_DEPTH/);
    expect(() => loadConfig({ REDIS_COMMAND_TIMEOUT_MS: '0' })).toThrow(/REDIS_COMMAND_TIMEOUT_MS/);
    expect(SERVICE_ENV_VARS).toEqual(expect.arrayContaining(['MAX_JSON_DEPTH', 'REDIS_COMMAND_TIMEOUT_MS']));
  });

  it('refuses a heartbeat TTL that does not outlive its interval', () => {
    expect(() => loadConfig({ HEARTBEAT_INTERVAL_MS: '5000', HEARTBEAT_TTL_MS: '4000' })).toThrow(
      /HEARTBEAT_TTL_MS/,
    );
  });
});

describe('operator settings', () => {
  it('leaves Bull Board off unless both credentials are set', () => {
    expect(loadConfig({}).boardEnabled).toBe(false);
    expect(loadConfig({ BULL_BOARD_USER: 'ops' }).boardEnabled).toBe(false);
    const c = loadConfig({ BULL_BOARD_USER: 'ops', BULL_BOARD_PASSWORD: 's3cret' });
    expect(c.boardEnabled).toBe(true);
    expect(c.BULL_BOARD_PASSWORD).toBe('s3cret');
  });

  it('refuses a board user with a colon', () => {
    expect(() => loadConfig({ BULL_BOARD_USER: 'a:b', BULL_BOARD_PASSWORD: 'x' })).toThrow(/BULL_BOARD_USER/);
  });

  it('reads the worker HTTP port and the log format', () => {
    expect(loadConfig({}).WORKER_HTTP_PORT).toBe(9464);
    expect(loadConfig({}).LOG_FORMAT).toBe('json');
    expect(loadConfig({ WORKER_HTTP_PORT: '9100', LOG_FORMAT: 'pretty' })).toMatchObject({
      WORKER_HTTP_PORT: 9100,
      LOG_FORMAT: 'pretty',
    });
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it('names every variable it reads', () => {
    for (const name of [
      'PORT',
      'REDIS_URL',
      'WORKER_CONCURRENCY',
      'BULL_BOARD_USER',
      'BULL_BOARD_PASSWORD',
    ]) {
      expect(SERVICE_ENV_VARS).toContain(name);
    }
    expect(SERVICE_ENV_VARS).toContain('WORKER_HTTP_PORT');
    expect(SERVICE_ENV_VARS).not.toContain('payloadTtlMs');
  });
});

describe("the engine's defaults", () => {
  it('are the service defaults, so the library and the command line refuse what the service refuses', () => {
    const { DEFAULT_IMAGE_LIMITS } = require('@app/engine') as typeof import('@app/engine');
    const config = loadConfig({});
    expect(DEFAULT_IMAGE_LIMITS).toEqual({
      maxImages: config.MAX_IMAGES,
      maxImageBytes: config.MAX_IMAGE_BYTES,
      maxImagePixels: config.MAX_IMAGE_PIXELS,
    });
  });
});

describe('one loader, read by group', () => {
  it('groups the variables it read', () => {
    const config = loadConfig({
      PORT: '9000',
      QUEUE_PREFIX: '{q}',
      JOB_TIMEOUT_MS: '5000',
      WORKER_HTTP_PORT: '0',
    });
    expect(config.http).toEqual({ port: 9000, host: '0.0.0.0' });
    expect(config.queue).toMatchObject({
      names: { prefix: '{q}', name: 'render' },
      jobTimeoutMs: 5000,
      payloadTtlMs: 65_000,
    });
    expect(config.worker.httpPort).toBe(0);
    expect(config.limits.render.imageLimits.maxImages).toBe(20);
    expect([config.limits.tableCells, config.limits.asyncTableCells]).toEqual([100_000, 250_000]);
    expect(config.worker.fillThreadMinBytes).toBe(256 * 1024);
  });

  it("reads the converter's variables from the same environment, and only when asked", () => {
    const config = loadConfig({ GOTENBERG_URL: 'http://gotenberg:3000/', LIBREOFFICE_INSTANCES: '3' });
    expect(config.converter).toEqual({ gotenbergUrl: 'http://gotenberg:3000', instances: 3 });
    // The API never converts: a converter typo does not stop it, the worker's first read does.
    const api = loadConfig({ LIBREOFFICE_INSTANCES: 'many' });
    expect(() => api.converter).toThrow(ConverterConfigError);
  });
});
