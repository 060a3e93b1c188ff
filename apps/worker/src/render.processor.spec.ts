import { ConversionFailedError } from '@app/converters';
import { TemplateSyntaxError, UndefinedVariableError } from '@app/engine';
import { decodeFailure, httpStatusOf } from '@app/contracts';
import { UnrecoverableError } from '@app/queue';
import { conversionBudget, convertWhenUp, isRetryable, jobDeadline, jobFailure } from './render.processor';

// The processor on a real Redis and LibreOffice pool: test/render-processor.e2e-spec.ts.

describe('job failure classification', () => {
  it('fails caller mistakes at once, with the error body as reason', () => {
    const f = jobFailure(new UndefinedVariableError(['customer']));
    expect(f).toBeInstanceOf(UnrecoverableError);
    expect(decodeFailure(f.message).toBody()).toEqual(new UndefinedVariableError(['customer']).toBody());
    expect(
      jobFailure(new TemplateSyntaxError([{ message: 'm', tag: 't', context: 'c', part: 'p' }])),
    ).toBeInstanceOf(UnrecoverableError);
  });

  it('retries converter outages', () => {
    for (const e of [
      new ConversionFailedError('down', { retryable: true }),
      new ConversionFailedError('busy', { reason: 'converter_queue_full' }),
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:3000'), { code: 'ECONNREFUSED' }),
      new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'UND_ERR_SOCKET' }) }),
    ]) {
      expect(isRetryable(e)).toBe(true);
      const f = jobFailure(e);
      expect(f).not.toBeInstanceOf(UnrecoverableError);
      expect(httpStatusOf(decodeFailure(f.message).errorType)).toBe(502);
    }
  });

  it('waits for LibreOffice to come up for an asynchronous item, and gives up after its wait', async () => {
    const unavailable = () =>
      new ConversionFailedError('No LibreOffice instance could be started: x', {
        backend: 'libreoffice',
        reason: 'converter_unavailable',
        retryable: true,
        retryAfterMs: 10,
      });
    const warnings: string[] = [];
    const log = { warn: (m: string) => warnings.push(m) };
    let calls = 0;
    const upOnThird = () => (++calls < 3 ? Promise.reject(unavailable()) : Promise.resolve('pdf'));
    await expect(convertWhenUp(upOnThird, log, { minWaitMs: 1 })).resolves.toBe('pdf');
    expect(calls).toBe(3);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/no LibreOffice instance is up .*converting again in 10 ms/);

    // Never up: the last failure once the wait is spent; a document's own failure at once.
    calls = 0;
    const neverUp = () => (++calls, Promise.reject(unavailable()));
    await expect(convertWhenUp(neverUp, log, { maxWaitMs: 100, minWaitMs: 1 })).rejects.toMatchObject({
      details: { reason: 'converter_unavailable' },
    });
    expect(calls).toBeGreaterThan(1);
    calls = 0;
    const bad = () => (
      ++calls,
      Promise.reject(new ConversionFailedError('bad', { reason: 'libreoffice_error' }))
    );
    await expect(convertWhenUp(bad, log, { minWaitMs: 1 })).rejects.toMatchObject({
      details: { reason: 'libreoffice_error' },
    });
    expect(calls).toBe(1);
  });

  it('does not retry a document LibreOffice cannot convert, nor a bug', () => {
    expect(isRetryable(new ConversionFailedError('bad', { reason: 'libreoffice_error' }))).toBe(false);
    const bug = jobFailure(new TypeError('x is undefined'));
    expect(bug).toBeInstanceOf(UnrecoverableError);
    const body = decodeFailure(bug.message).toBody();
    expect(body.error_type).toBe('internal_error');
    expect(body.message).not.toContain('x is undefined');
  });
});

describe('the conversion time limit', () => {
  it('is CONVERSION_TIMEOUT_MS within what is left of the job budget, less a second for the answer', () => {
    const deadline = 1_000_000 + 60_000; // a 60 s budget received at 1_000_000 (performance.now())
    // 5 s spent filling: 60 - 5 - 1 s left.
    expect(conversionBudget(deadline, {}, 1_005_000)).toBe(54_000);
    expect(conversionBudget(deadline, { convertTimeoutMs: 30_000 }, 1_005_000)).toBe(30_000);
    expect(conversionBudget(deadline, { convertTimeoutMs: 30_000 }, 1_040_000)).toBe(19_000);
    // Never zero or negative: the converter refuses those.
    expect(conversionBudget(deadline, {}, 1_070_000)).toBe(100);
    expect(conversionBudget(undefined, { convertTimeoutMs: 30_000 })).toBe(30_000);
  });

  it("measures the job's wait on Redis' clock alone, whatever the worker's wall clock says", () => {
    const redisAdmitted = 1_700_000_000_000;
    const deps = { jobTimeoutMs: 60_000 };
    // 4 s in the queue by Redis' clock: 56 s left, counted from the receipt on the monotonic clock.
    expect(jobDeadline({ admittedAt: redisAdmitted }, redisAdmitted + 4_000, deps, 500)).toBe(56_500);
    // Date.now() plays no part: a worker's wall clock minutes ahead or behind changes nothing.
    const realNow = Date.now;
    try {
      for (const skew of [+300_000, -300_000]) {
        Date.now = () => realNow() + skew;
        expect(jobDeadline({ admittedAt: redisAdmitted }, redisAdmitted + 4_000, deps, 500)).toBe(56_500);
      }
    } finally {
      Date.now = realNow;
    }
    // Redis' clock stepped back (a failover) or far ahead: the wait is clamped to [0, budget].
    expect(jobDeadline({ admittedAt: redisAdmitted }, redisAdmitted - 90_000, deps, 500)).toBe(60_500);
    expect(jobDeadline({ admittedAt: redisAdmitted }, redisAdmitted + 900_000, deps, 500)).toBe(500);
    // A job of an older API (no admittedAt) counts from its receipt.
    expect(jobDeadline({}, redisAdmitted, deps, 500)).toBe(60_500);
    expect(jobDeadline({ admittedAt: redisAdmitted }, redisAdmitted, {}, 500)).toBeUndefined();
  });
});
