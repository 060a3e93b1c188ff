import { ConfigurationError } from '@app/config';
import { converterConfigFromEnv, createConverter, splitMinRowsOf } from './index';

describe('converterConfigFromEnv', () => {
  it('is empty (all defaults) when nothing is set, and treats empty values as unset', () => {
    expect(converterConfigFromEnv({})).toEqual({});
    expect(converterConfigFromEnv({ GOTENBERG_URL: '', LIBREOFFICE_INSTANCES: ' ' })).toEqual({});
  });

  it('reads every variable', () => {
    expect(
      converterConfigFromEnv({
        GOTENBERG_URL: 'http://gotenberg:3000/',
        LIBREOFFICE_INSTANCES: '3',
        LIBREOFFICE_RESTART_AFTER: '0',
        CONVERSION_TIMEOUT_MS: '15000',
        LIBREOFFICE_START_TIMEOUT_MS: '30000',
        LIBREOFFICE_START_MAX_MS: '600000',
        CONVERSION_MAX_QUEUE: '10',
        GOTENBERG_RETRIES: '4',
        SPLIT_MIN_ROWS: '0',
        SPLIT_PART_PAGES: '20',
        CONVERSION_BUDGET_SCALE: '150',
      }),
    ).toEqual({
      gotenbergUrl: 'http://gotenberg:3000',
      instances: 3,
      restartAfter: 0,
      conversionTimeoutMs: 15000,
      startTimeoutMs: 30000,
      startMaxMs: 600000,
      maxQueue: 10,
      gotenbergRetries: 4,
      splitMinRows: 0,
      splitPartPages: 20,
      budgetScalePercent: 150,
    });
  });

  it('names every bad value in one error', () => {
    let err: unknown;
    try {
      converterConfigFromEnv({
        GOTENBERG_URL: 'gotenberg:3000',
        LIBREOFFICE_INSTANCES: '0',
        CONVERSION_TIMEOUT_MS: '30s',
        GOTENBERG_RETRIES: '-1',
        CONVERSION_MAX_QUEUE: '1.5',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigurationError);
    // The URL's own check runs once the integers pass their schemas.
    expect((err as ConfigurationError).problems).toEqual([
      "LIBREOFFICE_INSTANCES must be an integer from 1 to 64 (got '0')",
      "CONVERSION_TIMEOUT_MS must be an integer (got '30s')",
      "CONVERSION_MAX_QUEUE must be an integer (got '1.5')",
      "GOTENBERG_RETRIES must be an integer from 0 to 10 (got '-1')",
    ]);
    expect((err as Error).message).toMatch(/^Invalid configuration:\n {2}- LIBREOFFICE_INSTANCES/);
    expect(() => converterConfigFromEnv({ GOTENBERG_URL: 'gotenberg:3000' })).toThrow(
      "GOTENBERG_URL must use http or https (got 'gotenberg:3000')",
    );
  });

  it('reads LIBREOFFICE_ALLOCATOR and names a value it does not know', () => {
    expect(converterConfigFromEnv({ LIBREOFFICE_ALLOCATOR: 'system' })).toEqual({ allocator: 'system' });
    expect(converterConfigFromEnv({ LIBREOFFICE_ALLOCATOR: ' auto ' })).toEqual({ allocator: 'auto' });
    // Requiring jemalloc where it is installed: test/libreoffice-pool.e2e-spec.ts.
    expect(() => converterConfigFromEnv({ LIBREOFFICE_ALLOCATOR: 'tcmalloc' })).toThrow(
      "LIBREOFFICE_ALLOCATOR must be one of auto, jemalloc, system (got 'tcmalloc')",
    );
    expect(() => createConverter({ allocator: 'mimalloc' as never })).toThrow(
      /LIBREOFFICE_ALLOCATOR must be one of/,
    );
  });

  it('reads LIBREOFFICE_WORK_DIR and refuses one that cannot hold the pool', () => {
    expect(converterConfigFromEnv({ LIBREOFFICE_WORK_DIR: '/tmp' })).toEqual({ workDir: '/tmp' });
    expect(() => converterConfigFromEnv({ LIBREOFFICE_WORK_DIR: 'shm' })).toThrow(
      "LIBREOFFICE_WORK_DIR must be an absolute path (got 'shm')",
    );
    expect(() => converterConfigFromEnv({ LIBREOFFICE_WORK_DIR: '/no/such/dir' })).toThrow(
      "LIBREOFFICE_WORK_DIR is not a writable directory (ENOENT) (got '/no/such/dir')",
    );
    expect(() => createConverter({ workDir: 'relative' })).toThrow(
      /LIBREOFFICE_WORK_DIR must be an absolute path/,
    );
  });

  it('rejects a URL that is not http(s) or carries a query', () => {
    expect(() => converterConfigFromEnv({ GOTENBERG_URL: 'ftp://x' })).toThrow(/GOTENBERG_URL must use http/);
    expect(() => converterConfigFromEnv({ GOTENBERG_URL: 'http://x/?a=1' })).toThrow(/query/);
    expect(() => converterConfigFromEnv({ GOTENBERG_URL: 'not a url' })).toThrow(/absolute http\(s\) URL/);
  });
});

describe('createConverter', () => {
  it('validates a config built in code', () => {
    // Each field is checked as the variable that sets it, and named so.
    expect(() => createConverter({ instances: 0 })).toThrow(ConfigurationError);
    expect(() => createConverter({ instances: 0 })).toThrow(
      /LIBREOFFICE_INSTANCES must be an integer from 1 to 64/,
    );
    expect(() => createConverter({ gotenbergUrl: 'localhost:3000' })).toThrow(/GOTENBERG_URL/);
  });

  it('says from how many rows the converter it builds splits a table (the fill resolves long tables from there)', () => {
    expect(splitMinRowsOf({})).toBe(2500);
    expect(splitMinRowsOf({ splitMinRows: 300 })).toBe(300);
    expect(splitMinRowsOf({ splitMinRows: 0 })).toBeUndefined();
    expect(splitMinRowsOf({ gotenbergUrl: 'http://gotenberg:3000', splitMinRows: 300 })).toBeUndefined();
  });
});
