import { Value } from '@sinclair/typebox/value';
import { ERROR_CATALOGUE, ErrorBodySchema, TransportedError } from './errors';

describe('ErrorBodySchema', () => {
  it('describes the body every typed error gives, and documents every catalogued type', () => {
    const body = new TransportedError({
      error_type: 'invalid_request_structure',
      message: 'Invalid options.pdf.quality: must be an integer from 1 to 100',
      details: { field: 'options.pdf.quality', errors: [] },
    }).toBody();
    expect([...Value.Errors(ErrorBodySchema, body)]).toEqual([]);
    expect(Value.Check(ErrorBodySchema, { ...body, status: 'ok' })).toBe(false);
    const documented = (ErrorBodySchema.properties.error_type as unknown as { enum: string[] }).enum;
    expect([...documented].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
  });
});
