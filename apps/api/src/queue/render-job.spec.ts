import { InvalidTemplateError, TemplateRuntimeError } from '@app/rendering';
import { decodeFailure, encodeFailure, heartbeatKey, payloadKeys } from './render-job';
import { ServiceUnavailableError } from '../errors/service-errors';

describe('render job protocol', () => {
  it('keeps every key in the queue prefix hash slot', () => {
    const q = { prefix: '{docx}', name: 'render' };
    const keys = payloadKeys(q, 'abc');
    for (const key of [...Object.values(keys), heartbeatKey(q)]) expect(key.startsWith('{docx}:')).toBe(true);
    expect(new Set(Object.values(keys)).size).toBe(3);
  });

  it('carries a typed error across the queue with type, status and details', () => {
    const original = new TemplateRuntimeError("'total' is not a number", { tag: '{{ total + 1 }}' });
    const rebuilt = decodeFailure(encodeFailure(original));
    expect(rebuilt.errorType).toBe('template_runtime_error');
    expect(rebuilt.httpStatus).toBe(422);
    expect(rebuilt.toBody()).toEqual(original.toBody());
  });

  it('keeps the status of error types the library does not know', () => {
    const rebuilt = decodeFailure(encodeFailure(new ServiceUnavailableError('busy', 5)));
    expect(rebuilt.httpStatus).toBe(503);
    expect(decodeFailure(encodeFailure(new InvalidTemplateError('not a docx'))).httpStatus).toBe(400);
  });

  it('turns a foreign reason into an internal error without its text', () => {
    const e = decodeFailure('job stalled more than allowable limit');
    expect(e.httpStatus).toBe(500);
    expect(e.errorType).toBe('internal_error');
    expect(e.message).toMatch(/stopped more often than allowed/);
    const other = decodeFailure('Error: boom at /srv/app/x.js:10');
    expect(other.errorType).toBe('internal_error');
    expect(JSON.stringify(other.toBody())).not.toContain('/srv/app');
  });
});
