import { InvalidRequestError, MissingTemplateDataError, RenderingError } from '@app/rendering';
import { parseRenderFields } from './render-request.dto';

function errorOf(fields: Record<string, unknown> | undefined): RenderingError {
  try {
    parseRenderFields(fields);
  } catch (e) {
    return e as RenderingError;
  }
  throw new Error('expected an error');
}

const PNG = 'iVBORw0KGgo=';

describe('parseRenderFields', () => {
  it('reads legacy data', () => {
    const parsed = parseRenderFields({ data: '{"name":"Ada","items":[{"n":1}]}' });
    expect(parsed).toEqual({
      mode: 'legacy',
      request: { template_data: { name: 'Ada', items: [{ n: 1 }] } },
      options: {},
    });
  });

  it('reads an enhanced request with images and options', () => {
    const parsed = parseRenderFields({
      request_data: JSON.stringify({
        template_data: { a: 1 },
        images: { logo: { data: PNG, width_mm: 30 }, sig: { data: PNG, height_px: 40 } },
        options: { undefined: 'strict', output: 'docx' },
      }),
    });
    expect(parsed.mode).toBe('enhanced');
    expect(parsed.request).toEqual({
      template_data: { a: 1 },
      images: { logo: { data: PNG, width_mm: 30 }, sig: { data: PNG, height_px: 40 } },
    });
    expect(parsed.options).toEqual({ undefined: 'strict', output: 'docx' });
  });

  it.each<[string, Record<string, unknown> | undefined, string, RegExp]>([
    ['neither field', {}, 'missing_template_data', /data.*request_data/],
    ['no form at all', undefined, 'missing_template_data', /request_data/],
    [
      'both fields',
      { data: '{}', request_data: '{"template_data":{}}' },
      'invalid_request_structure',
      /not both/,
    ],
    ['bad JSON in data', { data: '{nope' }, 'invalid_request_structure', /'data' is not valid JSON/],
    ['data not an object', { data: '[1,2]' }, 'invalid_request_structure', /must be a JSON object/],
    ['data sent twice', { data: ['{}', '{}'] }, 'invalid_request_structure', /sent once/],
    ['bad JSON in request_data', { request_data: 'x' }, 'invalid_request_structure', /not valid JSON/],
    ['request_data not an object', { request_data: '"x"' }, 'invalid_request_structure', /JSON object/],
    ['template_data absent', { request_data: '{"images":{}}' }, 'missing_template_data', /no template_data/],
    [
      'template_data not an object',
      { request_data: '{"template_data":[]}' },
      'missing_template_data',
      /must be an object/,
    ],
    [
      'template_data null',
      { request_data: '{"template_data":null}' },
      'missing_template_data',
      /must be an object/,
    ],
    [
      'unknown top-level field',
      { request_data: '{"template_data":{},"extra":1}' },
      'invalid_request_structure',
      /extra/,
    ],
    [
      'images not an object',
      { request_data: '{"template_data":{},"images":[]}' },
      'invalid_request_structure',
      /images/,
    ],
    [
      'image not an object',
      { request_data: '{"template_data":{},"images":{"a":"x"}}' },
      'invalid_request_structure',
      /images\.a/,
    ],
    [
      'image without data',
      { request_data: '{"template_data":{},"images":{"a":{}}}' },
      'invalid_request_structure',
      /images\.a\.data/,
    ],
    [
      'unknown ImageData field',
      { request_data: `{"template_data":{},"images":{"a":{"data":"${PNG}","width_cm":3}}}` },
      'invalid_request_structure',
      /width_cm/,
    ],
    [
      'size of the wrong type',
      { request_data: `{"template_data":{},"images":{"a":{"data":"${PNG}","width_mm":"30"}}}` },
      'invalid_request_structure',
      /images\.a\.width_mm/,
    ],
    [
      'negative size',
      { request_data: `{"template_data":{},"images":{"a":{"data":"${PNG}","height_px":-4}}}` },
      'invalid_request_structure',
      /positive/,
    ],
    [
      'unknown option value',
      { request_data: '{"template_data":{},"options":{"output":"html"}}' },
      'invalid_request_structure',
      /output/,
    ],
    [
      'unknown option',
      { request_data: '{"template_data":{},"options":{"colour":1}}' },
      'invalid_request_structure',
      /colour/,
    ],
  ])('%s → %s', (_name, fields, errorType, message) => {
    const e = errorOf(fields);
    expect(e).toBeInstanceOf(
      errorType === 'missing_template_data' ? MissingTemplateDataError : InvalidRequestError,
    );
    expect(e.errorType).toBe(errorType);
    expect(e.httpStatus).toBe(400);
    expect(e.message).toMatch(message);
  });

  it('names the failing fields in the details', () => {
    const e = errorOf({
      request_data: `{"template_data":{},"images":{"logo":{"data":"${PNG}","width_mm":0}}}`,
    });
    expect(e.details).toEqual({
      errors: [{ field: 'images.logo.width_mm', problems: [expect.stringMatching(/positive/)] }],
    });
  });
});
