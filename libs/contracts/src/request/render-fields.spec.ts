import { InvalidRequestError, MissingTemplateDataError } from '@app/contracts';
import { httpStatusOf, TypedError } from '@app/contracts';
import { formatDefaultsOf } from '@app/engine';
import {
  exceedsJsonDepth,
  DEFAULT_PARSE_LIMITS,
  type ParseLimits,
  parseRenderFields as parse,
} from './render-fields';

/** As the API and the CLI call it: with the engine's check of locale and time zone names. */
const parseRenderFields = (
  fields: Record<string, unknown> | undefined,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
) => parse(fields, { ...limits, formatDefaults: formatDefaultsOf });

function errorOf(fields: Record<string, unknown> | undefined, maxJsonDepth?: number): TypedError {
  try {
    parseRenderFields(fields, maxJsonDepth === undefined ? undefined : { maxJsonDepth });
  } catch (e) {
    return e as TypedError;
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
      { request_data: '{"template_data":{},"options":{"output":"rtf"}}' },
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
    expect(httpStatusOf(e.errorType)).toBe(400);
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

describe('options.output and options.image', () => {
  const withOptions = (options: unknown) => ({
    request_data: JSON.stringify({ template_data: {}, options }),
  });

  it.each(['pdf', 'docx', 'odt', 'html', 'txt', 'png', 'jpeg'])('accepts output %s', (output) => {
    expect(parseRenderFields(withOptions({ output })).options.output).toBe(output);
  });

  it('refuses an unknown format naming the field and the formats', () => {
    const e = errorOf(withOptions({ output: 'gif' }));
    expect(e.errorType).toBe('invalid_request_structure');
    expect(e.details).toEqual({
      errors: [
        {
          field: 'options.output',
          problems: [expect.stringMatching(/pdf, docx, odt, html, txt, png, jpeg, xlsx, ods/)],
        },
      ],
    });
  });

  it('takes image options for png and jpeg', () => {
    expect(
      parseRenderFields(withOptions({ output: 'png', image: { dpi: 150, pages: '2-4, 7' } })).options,
    ).toEqual({
      output: 'png',
      image: { dpi: 150, pages: '2-4, 7' },
    });
    expect(
      parseRenderFields(withOptions({ output: 'jpeg', image: { width_px: 300, quality: 70, pages: 'all' } }))
        .options.image,
    ).toEqual({ width_px: 300, quality: 70, pages: 'all' });
  });

  it.each<[string, unknown, string | string[]]>([
    ['image options without an image output', { image: { dpi: 96 } }, ['options.image', 'options.output']],
    [
      'image options with html',
      { output: 'html', image: { pages: '1' } },
      ['options.image', 'options.output'],
    ],
    [
      'quality for png',
      { output: 'png', image: { quality: 50 } },
      ['options.image.quality', 'options.output'],
    ],
    ['dpi and a pixel size', { output: 'png', image: { dpi: 96, width_px: 100 } }, 'options.image.dpi'],
  ])('refuses %s (400 naming the fields)', (_name, options, fields) => {
    const e = errorOf(withOptions(options));
    expect(e).toBeInstanceOf(InvalidRequestError);
    expect(httpStatusOf(e.errorType)).toBe(400);
    expect(Array.isArray(fields) ? e.details.fields : e.details.field).toEqual(fields);
  });

  it.each<[string, unknown, string]>([
    ['a bad page list', { pages: '1;3' }, 'options.image.pages'],
    ['a zero dpi', { dpi: 0 }, 'options.image.dpi'],
    ['quality above 100', { quality: 101 }, 'options.image.quality'],
    ['an unknown key', { colour: 'red' }, 'options.image.colour'],
  ])('refuses %s by the schema', (_name, image, field) => {
    const e = errorOf(withOptions({ output: 'jpeg', image }));
    expect(e.errorType).toBe('invalid_request_structure');
    expect(JSON.stringify(e.details)).toContain(field);
  });

  it('takes alt text and the decorative mark on an image', () => {
    const parsed = parseRenderFields({
      request_data: JSON.stringify({
        template_data: {},
        images: { logo: { data: PNG, alt: 'Logo' }, rule: { data: PNG, decorative: true } },
      }),
    });
    expect(parsed.request.images).toEqual({
      logo: { data: PNG, alt: 'Logo' },
      rule: { data: PNG, decorative: true },
    });
    expect(
      errorOf({
        request_data: JSON.stringify({ template_data: {}, images: { logo: { data: PNG, alt: 3 } } }),
      }).details,
    ).toEqual({ errors: [{ field: 'images.logo.alt', problems: [expect.any(String)] }] });
  });
});

describe('deep JSON', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  it('measures depth without recursion (100,000 levels)', () => {
    expect(exceedsJsonDepth(JSON.parse(nested(100_000)), 64)).toBe(true);
    expect(exceedsJsonDepth(JSON.parse(nested(64)), 64)).toBe(false);
    expect(exceedsJsonDepth(JSON.parse(nested(65)), 64)).toBe(true);
    expect(exceedsJsonDepth({ a: [{ b: 1 }], c: 'x' }, 3)).toBe(false);
    expect(exceedsJsonDepth({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(exceedsJsonDepth('text', 1)).toBe(false);
    expect(exceedsJsonDepth(JSON.parse('{"__proto__":{"a":{}}}'), 2)).toBe(true);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['legacy data', { data: `{"a":${nested(100_000)}}` }, 'data'],
    ['template_data', { request_data: `{"template_data":{"a":${nested(2_000)}}}` }, 'request_data'],
    [
      'nested objects',
      { request_data: `{"template_data":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}` },
      'request_data',
    ],
    [
      'an image',
      { request_data: `{"template_data":{},"images":{"logo":${nested(100_000)}}}` },
      'request_data',
    ],
  ])('refuses it in %s with 400 and the limit', (_name, fields, field) => {
    const e = errorOf(fields);
    expect(e.errorType).toBe('invalid_request_structure');
    expect(httpStatusOf(e.errorType)).toBe(400);
    expect(e.details).toEqual({ field, max_depth: 64 });
  });

  it('follows MAX_JSON_DEPTH', () => {
    const fields = { data: `{"a":${nested(10)}}` }; // 11 levels
    expect(() => parseRenderFields(fields)).not.toThrow();
    expect(() => parseRenderFields(fields, { maxJsonDepth: 11 })).not.toThrow();
    expect(errorOf(fields, 10).details).toEqual({ field: 'data', max_depth: 10 });
  });
});

describe('keys named like Object.prototype members', () => {
  it('passes template_data through as parsed, a "constructor" key included', () => {
    const text = '{"template_data":{"v":"ok","constructor":{"prototype":{"polluted":"yes"}}}}';
    const parsed = parseRenderFields({ request_data: text });
    expect(parsed.request.template_data).toEqual(JSON.parse(text).template_data);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts an image named "constructor"', () => {
    const parsed = parseRenderFields({
      request_data: `{"template_data":{},"images":{"constructor":{"data":"${PNG}"}}}`,
    });
    expect(Object.keys(parsed.request.images!)).toEqual(['constructor']);
    expect(parsed.request.images!.constructor).toEqual({ data: PNG });
  });

  it('keeps an image named "__proto__" as an own key, so it is checked like any other', () => {
    const parsed = parseRenderFields({
      request_data: `{"template_data":{},"images":{"__proto__":{"data":"${PNG}"}}}`,
    });
    const images = parsed.request.images!;
    expect(Object.keys(images)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(images, '__proto__')?.value).toEqual({ data: PNG });
    expect(JSON.parse(JSON.stringify(parsed.request)).images).toEqual(images);
  });

  it('checks an image named "__proto__" for its fields too', () => {
    const e = errorOf({ request_data: '{"template_data":{},"images":{"__proto__":{"width_mm":3}}}' });
    expect(e.errorType).toBe('invalid_request_structure');
    expect(e.message).toMatch(/images\.__proto__\.data/);
  });

  it.each([
    ['top level', '{"template_data":{},"__proto__":{"images":{}}}', /__proto__/],
    ['top level', '{"template_data":{},"constructor":{}}', /constructor/],
    ['options', '{"template_data":{},"options":{"__proto__":{"output":"docx"}}}', /options\.__proto__/],
    ['options', '{"template_data":{},"options":{"constructor":1}}', /options\.constructor/],
    [
      'ImageData',
      `{"template_data":{},"images":{"a":{"data":"${PNG}","__proto__":{"width_mm":5}}}}`,
      /images\.a\.__proto__/,
    ],
    [
      'ImageData',
      `{"template_data":{},"images":{"a":{"data":"${PNG}","constructor":1}}}`,
      /images\.a\.constructor/,
    ],
  ])('refuses __proto__ / constructor as an unknown field of the %s', (_where, text, message) => {
    const e = errorOf({ request_data: text });
    expect(e.errorType).toBe('invalid_request_structure');
    expect(httpStatusOf(e.errorType)).toBe(400);
    expect(e.message).toMatch(message);
  });

  it('treats null images and options as absent', () => {
    const parsed = parseRenderFields({ request_data: '{"template_data":{},"images":null,"options":null}' });
    expect(parsed.request).toEqual({ template_data: {} });
    expect(parsed.options).toEqual({});
  });

  it('refuses options that are not an object', () => {
    const e = errorOf({ request_data: '{"template_data":{},"options":["docx"]}' });
    expect(e.errorType).toBe('invalid_request_structure');
    expect(e.message).toMatch(/options must be an object/);
  });
});

describe('parseRenderFields: options.pdf', () => {
  const withPdf = (pdf: unknown) => JSON.stringify({ template_data: {}, options: { output: 'pdf', pdf } });

  it('passes valid PDF options on', () => {
    const pdf = { pdfa: 'PDF/A-2b', lossless_images: false, quality: 80, metadata: { title: 'T' } };
    expect(parseRenderFields({ request_data: withPdf(pdf) }).options).toEqual({ output: 'pdf', pdf });
    expect(parseRenderFields({ request_data: withPdf(null) }).options).toEqual({ output: 'pdf' });
  });

  it.each([
    [{ pdfa: 'PDF/A-4' }, 'options.pdf.pdfa'],
    [{ dpi: 300 }, 'options.pdf.dpi'],
    [{ lossless_images: false, quality: 0 }, 'options.pdf.quality'],
    [{ metadata: { title: 1 } }, 'options.pdf.metadata.title'],
    ['PDF/A-2b', 'options.pdf'],
  ])('refuses %j with 400 invalid_request_structure naming %s', (pdf, field) => {
    const e = errorOf({ request_data: withPdf(pdf) });
    expect(e).toBeInstanceOf(InvalidRequestError);
    expect(httpStatusOf(e.errorType)).toBe(400);
    expect(e.message).toContain(field);
    expect(JSON.stringify(e.details)).toContain(`"field":"${field}"`);
  });
});

describe('request_data.documents (sub-documents)', () => {
  const enhanced = (documents: unknown) => JSON.stringify({ template_data: {}, documents });

  it('passes sub-documents on to the engine', () => {
    const parsed = parseRenderFields({ request_data: enhanced({ annex: { data: 'UEsDBA==' } }) });
    expect(parsed.request.documents).toEqual({ annex: { data: 'UEsDBA==' } });
  });

  it('refuses a wrong shape with a 400 naming the document', () => {
    for (const bad of [[], { annex: 'x' }, { annex: { data: '' } }, { annex: { data: 'x', extra: 1 } }]) {
      let error: unknown;
      try {
        parseRenderFields({ request_data: enhanced(bad) });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(httpStatusOf((error as TypedError).errorType)).toBe(400);
    }
  });

  it('refuses more than MAX_SUBDOCUMENTS with a 413', () => {
    const many = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`d${i}`, { data: 'UEsDBA==' }]));
    let error: unknown;
    try {
      parseRenderFields({ request_data: enhanced(many) }, { maxJsonDepth: 64, maxDocuments: 2 });
    } catch (e) {
      error = e;
    }
    expect((error as TypedError).errorType).toBe('payload_too_large');
  });
});

describe('locale and timezone (formatting filters)', () => {
  const enhanced = (options: unknown, extra: Record<string, unknown> = {}) => ({
    request_data: JSON.stringify({ template_data: {}, options }),
    ...extra,
  });

  it('reads options.locale / options.timezone in enhanced mode, canonical (de_DE → de-DE)', () => {
    const parsed = parseRenderFields(
      enhanced({ locale: 'de_DE', timezone: 'Europe/Berlin', undefined: 'strict' }),
    );
    expect(parsed.options).toEqual({ undefined: 'strict', locale: 'de-DE', timezone: 'Europe/Berlin' });
    expect(parseRenderFields(enhanced({ locale: null })).options).toEqual({});
  });

  it('reads the form fields locale / timezone in legacy and v1.6 modes', () => {
    expect(parseRenderFields({ data: '{}', locale: 'fr_FR', timezone: 'Europe/Paris' }).options).toEqual({
      locale: 'fr-FR',
      timezone: 'Europe/Paris',
    });
    const v16 = parseRenderFields({ data: '{}', undefined_behavior: 'debug', locale: 'ja-JP' });
    expect(v16.mode).toBe('v1.6');
    expect(v16.options).toEqual({ undefined: 'debug', locale: 'ja-JP' });
  });

  it.each([
    [enhanced({ locale: 'xx_YY' }), 'options.locale'],
    [enhanced({ locale: 42 }), 'options.locale'],
    [enhanced({ timezone: 'Europe/Atlantis' }), 'options.timezone'],
    [{ data: '{}', locale: 'klingon' }, 'locale'],
    [{ data: '{}', timezone: 'Moon/Base' }, 'timezone'],
    [{ data: '{}', images: '{}', timezone: '../../etc/passwd' }, 'timezone'],
  ])('an unknown locale or time zone is a 400 naming the field (%#)', (fields, field) => {
    const e = errorOf(fields as Record<string, unknown>);
    expect(e).toBeInstanceOf(InvalidRequestError);
    expect(httpStatusOf(e.errorType)).toBe(400);
    expect(e.details.field).toBe(field);
    expect(e.message).toContain(field);
  });

  it('refuses the form fields beside request_data (its options carry them)', () => {
    const e = errorOf(enhanced({}, { locale: 'de_DE' }));
    expect(httpStatusOf(e.errorType)).toBe(400);
    expect(e.details.fields).toEqual(['locale']);
  });
});

describe('the form fields the parser names, from the schema that feeds OpenAPI', () => {
  it("are RenderFormSchema's v1.6, locale and stored-template properties, in the form's order", () => {
    const { RenderFormSchema } =
      require('../payload/render-request') as typeof import('../payload/render-request');
    const { V16_FIELDS } = require('./render-fields') as typeof import('./render-fields');
    const { LOCALE_FORM_FIELDS } = require('./locale-fields') as typeof import('./locale-fields');
    const { TEMPLATE_ID_FIELD, TEMPLATE_VERSION_FIELD } =
      require('./template-source') as typeof import('./template-source');
    expect(V16_FIELDS).toEqual(['images', 'undefined_behavior', 'linter_options']);
    expect(LOCALE_FORM_FIELDS).toEqual(['locale', 'timezone']);
    expect(Object.keys(RenderFormSchema.properties)).toEqual([
      'file',
      'data',
      'request_data',
      ...V16_FIELDS,
      ...LOCALE_FORM_FIELDS,
      TEMPLATE_ID_FIELD,
      TEMPLATE_VERSION_FIELD,
    ]);
  });
});

describe('options.pdf.signature', () => {
  const withOptions = (options: unknown) => ({
    request_data: JSON.stringify({ template_data: {}, options }),
  });
  const signature = { profile: 'company', level: 'B-T', reason: 'Approved', field: 'seller' };

  it('takes a signature for a PDF, with every field', () => {
    const full = {
      ...signature,
      location: 'Berlin',
      contact_info: 'sales@example.com',
      appearance: { image: PNG },
    };
    expect(parseRenderFields(withOptions({ pdf: { signature: full } })).options.pdf).toEqual({
      signature: full,
    });
    expect(
      parseRenderFields(withOptions({ output: 'pdf', pdf: { signature: { profile: 'p' } } })).options.pdf,
    ).toEqual({ signature: { profile: 'p' } });
  });

  it.each<[string, unknown, string[], RegExp]>([
    [
      'an appearance without a field',
      { pdf: { signature: { profile: 'p', appearance: { image: PNG } } } },
      ['options.pdf.signature.appearance'],
      /needs signature\.field/,
    ],
    [
      'a signature with encryption',
      { pdf: { signature: { profile: 'p' }, encryption: { owner_password: 'o' } } },
      ['options.pdf.signature'],
      /cannot be combined with options\.pdf\.encryption/,
    ],
    [
      'an appearance image that is not a PNG',
      { pdf: { signature: { profile: 'p', field: 'f', appearance: { image: 'JVBERi0xLjcK' } } } },
      ['options.pdf.signature.appearance.image'],
      /is not a PNG/,
    ],
    ['no profile', { pdf: { signature: { field: 'f' } } }, ['options.pdf.signature'], /profile/],
    [
      'an unknown level',
      { pdf: { signature: { profile: 'p', level: 'B-X' } } },
      ['options.pdf.signature.level'],
      /B-B/,
    ],
    [
      'a field name with a dot',
      { pdf: { signature: { profile: 'p', field: 'a.b' } } },
      ['options.pdf.signature.field'],
      /signature_field name/,
    ],
    [
      'an unknown key',
      { pdf: { signature: { profile: 'p', key: 'secret' } } },
      ['options.pdf.signature.key'],
      /is not a signature field/,
    ],
  ])('refuses %s: 400 invalid_request_structure naming the field', (_name, options, fields, message) => {
    const e = errorOf(withOptions(options));
    expect(e.errorType).toBe('invalid_request_structure');
    expect(httpStatusOf(e.errorType)).toBe(400);
    for (const field of fields) expect(JSON.stringify(e.details)).toContain(`"${field}`);
    expect(JSON.stringify(e.details) + e.message).toMatch(message);
  });

  it.each(['png', 'jpeg', 'docx', 'odt', 'html', 'txt'])(
    'refuses a signature with output %s: 400 naming both fields',
    (output) => {
      const e = errorOf(withOptions({ output, pdf: { signature } }));
      expect(e).toBeInstanceOf(InvalidRequestError);
      expect(e.details.fields).toEqual(['options.pdf.signature', 'options.output']);
      expect(e.message).toBe(`options.pdf.signature applies to options.output "pdf", not "${output}"`);
    },
  );
});
