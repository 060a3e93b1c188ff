import { Value } from '@sinclair/typebox/value';
import { ReadinessBodySchema } from './health.openapi';
import { readiness } from './readiness';

describe('readiness', () => {
  it('is ready with Redis, a worker and a healthy converter', () => {
    expect(readiness({ redis: true, liveWorkers: 2, healthyConverters: 1 })).toEqual({
      status: 'ok',
      failed: [],
      checks: {
        api: { status: 'up' },
        redis: { status: 'up' },
        workers: { status: 'up', live: 2 },
        converter: { status: 'up', healthy_workers: 1 },
      },
    });
  });

  it('names Redis alone when it is down (the rest cannot be known)', () => {
    const r = readiness({ redis: false });
    expect(r.status).toBe('error');
    expect(r.failed).toEqual(['redis']);
    expect(r.checks.workers.status).toBe('unknown');
  });

  it('names the workers when none is alive', () => {
    const r = readiness({ redis: true, liveWorkers: 0, healthyConverters: 0 });
    expect(r).toMatchObject({
      status: 'error',
      failed: ['workers'],
      checks: { converter: { status: 'unknown' } },
    });
  });

  it('names the converter when workers run but none has a healthy converter', () => {
    const r = readiness({ redis: true, liveWorkers: 1, healthyConverters: 0 });
    expect(r).toMatchObject({ status: 'error', failed: ['converter'] });
  });

  it('is not ready while shutting down', () => {
    expect(readiness({ redis: false, closing: true })).toMatchObject({ status: 'error', failed: ['api'] });
  });

  it('answers what its one definition (and so the OpenAPI document) says, in every state', () => {
    for (const probe of [
      { redis: true, liveWorkers: 2, healthyConverters: 1 },
      { redis: true, liveWorkers: 1, healthyConverters: 0 },
      { redis: true, liveWorkers: 0, healthyConverters: 0 },
      { redis: false },
      { redis: false, closing: true },
    ]) {
      expect([...Value.Errors(ReadinessBodySchema, readiness(probe))]).toEqual([]);
    }
    const body = readiness({ redis: true, liveWorkers: 1, healthyConverters: 1 });
    expect(Value.Check(ReadinessBodySchema, { ...body, failed: ['disk'] })).toBe(false);
    expect(Value.Check(ReadinessBodySchema, { ...body, status: 'ready' })).toBe(false);
  });
});

describe('readiness: the database', () => {
  const healthy = { redis: true, liveWorkers: 1, healthyConverters: 1 };

  it('is reported, never failing readiness: uploads render without it', () => {
    const down = readiness(healthy, false);
    expect(down.status).toBe('ok');
    expect(down.failed).toEqual([]);
    expect(down.checks.database).toEqual({ status: 'down', reason: expect.any(String) });
    expect(readiness(healthy, true).checks.database).toEqual({ status: 'up' });
  });

  it('is absent without DATABASE_URL', () => {
    expect(readiness(healthy).checks).not.toHaveProperty('database');
  });
});
