import { UnrecoverableError } from 'bullmq';
import { ConversionFailedError } from '@app/converters';
import { TemplateSyntaxError, UndefinedVariableError } from '@app/engine';
import { decodeFailure, httpStatusOf } from '@app/contracts';
import { conversionBudget, isRetryable, jobFailure } from './render.processor';

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
    const enqueuedAt = 1_000_000;
    // 5 s spent waiting and filling: 60 - 5 - 1 s left.
    expect(conversionBudget(enqueuedAt, { jobTimeoutMs: 60_000 }, enqueuedAt + 5_000)).toBe(54_000);
    expect(
      conversionBudget(enqueuedAt, { jobTimeoutMs: 60_000, convertTimeoutMs: 30_000 }, enqueuedAt + 5_000),
    ).toBe(30_000);
    expect(
      conversionBudget(enqueuedAt, { jobTimeoutMs: 60_000, convertTimeoutMs: 30_000 }, enqueuedAt + 40_000),
    ).toBe(19_000);
    // Never zero or negative: the converter refuses those.
    expect(conversionBudget(enqueuedAt, { jobTimeoutMs: 60_000 }, enqueuedAt + 70_000)).toBe(100);
    expect(conversionBudget(enqueuedAt, { convertTimeoutMs: 30_000 })).toBe(30_000);
  });
});
