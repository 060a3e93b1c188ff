import { httpStatusOf, TypedError } from '@app/contracts';
import { formatDefaultsOf } from '@app/engine';
import { DEFAULT_PARSE_LIMITS, type ParseLimits, parseRenderFields as parse } from './render-fields';

/** As the API and the CLI call it: with the engine's check of locale and time zone names. */
const parseRenderFields = (
  fields: Record<string, unknown> | undefined,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
) => parse(fields, { ...limits, formatDefaults: formatDefaultsOf });

const PNG = 'iVBORw0KGgo=';

function errorOf(fields: Record<string, unknown>): TypedError {
  try {
    parseRenderFields(fields);
  } catch (e) {
    return e as TypedError;
  }
  throw new Error('expected an error');
}

describe('mode detection and the seed system fields', () => {
  it('data alone is the legacy mode', () => {
    expect(parseRenderFields({ data: '{"a":1}' }).mode).toBe('legacy');
  });

  it('data with any v1.6 field is the v1.6 mode', () => {
    const parsed = parseRenderFields({
      data: '{"a":1}',
      images: JSON.stringify({ logo: { data: PNG, width_mm: 20 } }),
      undefined_behavior: 'property_missing',
      linter_options: '{"response_format":"pdf","verbose":true,"check_tag_matching":true}',
    });
    expect(parsed).toEqual({
      mode: 'v1.6',
      request: { template_data: { a: 1 }, images: { logo: { data: PNG, width_mm: 20 } } },
      options: { undefined: 'property_missing' },
      linter: { enabled: true, response_format: 'pdf', verbose: true, fail_on_warnings: false },
    });
  });

  it.each([
    ['silent', 'empty'],
    ['debug', 'debug'],
    ['"strict"', 'strict'],
    ['property_missing', 'property_missing'],
  ])('undefined_behavior %s is the engine mode %s', (given, mode) => {
    expect(parseRenderFields({ data: '{}', undefined_behavior: given }).options.undefined).toBe(mode);
  });

  it('request_data takes undefined_behavior and linter_options as keys', () => {
    const parsed = parseRenderFields({
      request_data: JSON.stringify({
        template_data: {},
        undefined_behavior: 'silent',
        linter_options: { enabled: false },
      }),
    });
    expect(parsed.mode).toBe('enhanced');
    expect(parsed.options).toEqual({ undefined: 'empty' });
    expect(parsed.linter).toEqual({
      enabled: false,
      response_format: 'json',
      verbose: false,
      fail_on_warnings: false,
    });
  });

  it('request_data beside v1.6 fields is 400 naming both', () => {
    const e = errorOf({ request_data: '{"template_data":{}}', images: '{}', linter_options: '{}' });
    expect(e.errorType).toBe('invalid_request_structure');
    expect(httpStatusOf(e.errorType)).toBe(400);
    expect(e.details.fields).toEqual(['request_data', 'images', 'linter_options']);
  });

  it('v1.6 fields without data are missing_template_data', () => {
    expect(errorOf({ undefined_behavior: 'debug' }).errorType).toBe('missing_template_data');
  });

  it.each([
    [{ data: '{}', undefined_behavior: 'loud' }, /undefined_behavior/],
    [{ data: '{}', linter_options: '{"response_format":"html"}' }, /response_format/],
    [{ data: '{}', linter_options: '{"colour":true}' }, /colour should not exist/],
    [{ data: '{}', linter_options: '{"verbose":"yes"}' }, /verbose must be a boolean/],
    [{ data: '{}', images: '[]' }, /'images' must be a JSON object/],
    [{ data: '{}', images: '{"logo":{"data":"x","dpi":3}}' }, /dpi should not exist/],
    [
      { request_data: '{"template_data":{},"undefined_behavior":"strict","options":{"undefined":"debug"}}' },
      /differently/,
    ],
  ])('refuses %j', (fields, message) => {
    const e = errorOf(fields);
    expect(e.errorType).toBe('invalid_request_structure');
    expect(e.message).toMatch(message);
  });

  it('keeps JSON keys with a dash (reachable as x["a-b"])', () => {
    expect(parseRenderFields({ data: '{"e-mail":"a@b.c"}' }).request.template_data).toEqual({
      'e-mail': 'a@b.c',
    });
  });
});
