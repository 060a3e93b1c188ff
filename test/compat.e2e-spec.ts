/**
 * Every version of the seed system's API against the running service (Redis, one worker with an
 * embedded LibreOffice, the API): the v1.1 legacy form, the v1.2–1.5 `request_data` form, the
 * v1.6+ form with `images`, `undefined_behavior` (all four) and `linter_options`, GET /version,
 * the lint endpoint (JSON and PDF), the inspect endpoint and the OpenAPI document.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers are read field by field in the assertions */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDocx, p, table } from './support/docx-builder';
import {
  buildService,
  ManagedProcess,
  pdfImages,
  pdfText,
  RedisServer,
  RENDER_PATH,
  RunningApi,
  solidPng,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
} from './service-harness';

jest.setTimeout(120_000);

let redis: RedisServer;
let worker: ManagedProcess;
let api: RunningApi;

const ROOT = join(__dirname, '..');
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;

const farmerTemplate = buildDocx([
  p('Name: {{ farmer.name }}'),
  p('Email: {{ farmer.email }}'),
  p('Type: {{ organization.type }}'),
  p('{% for c in crops %}[{{ c }}]{% endfor %}'),
]);
const FARMER = { farmer: { name: 'John Doe' }, organization: {}, crops: ['corn', 'rye'] };
const logoTemplate = buildDocx([p('Farm {{ farm }}'), p('{{ logo }}')]);
const brokenTemplate = buildDocx([
  p('Total {{ total | bogus }}'),
  p('{% if paid %}Paid'),
  // A block from a table cell to the text after the table: refused by the renderer, so by lint.
  table([['{% if a %}x']]),
  p('y{% endif %}'),
]);
const LOGO = solidPng(40, 20, [200, 30, 30]);

interface ErrorBody {
  status: string;
  error_type: string;
  message: string;
  details: Record<string, unknown>;
}

function form(
  fields: Record<string, string | Buffer>,
  filename = 'template.docx',
  fileField = 'file',
): FormData {
  const f = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (Buffer.isBuffer(value)) f.append(name === 'file' ? fileField : name, new Blob([value]), filename);
    else f.append(name, value);
  }
  return f;
}

async function post(path: string, body: FormData): Promise<Response> {
  return fetch(`${api.url}${path}`, { method: 'POST', body });
}

async function pdfOf(res: Response): Promise<string> {
  expect(res.headers.get('content-type')).toBe('application/pdf');
  const pdf = Buffer.from(await res.arrayBuffer());
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  return pdfText(pdf);
}

async function errorOf(res: Response): Promise<ErrorBody> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as ErrorBody;
  expect(body.status).toBe('error');
  return body;
}

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, { QUEUE_PREFIX: '{compat}' });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
});

afterAll(async () => {
  await stopAll(api, worker);
  await stopAll(redis);
});

describe('v1.1 legacy form: file + data', () => {
  it('renders, missing variables silent', async () => {
    const res = await post(RENDER_PATH, form({ file: farmerTemplate, data: JSON.stringify(FARMER) }));
    expect(res.status).toBe(200);
    const text = await pdfOf(res);
    expect(text).toContain('Name: John Doe');
    expect(text).toMatch(/Email:\s*\n/);
    expect(text).toContain('[corn][rye]');
  });
});

describe('v1.2–1.5 form: request_data', () => {
  it('renders template_data with images', async () => {
    const res = await post(
      RENDER_PATH,
      form({
        file: logoTemplate,
        request_data: JSON.stringify({
          template_data: { farm: 'Green Acres' },
          images: { logo: { data: LOGO } },
        }),
      }),
    );
    expect(res.status).toBe(200);
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdfText(pdf)).toContain('Farm Green Acres');
    expect(pdfImages(pdf)).toHaveLength(1);
  });

  it('accepts undefined_behavior inside request_data', async () => {
    const res = await post(
      RENDER_PATH,
      form({
        file: farmerTemplate,
        request_data: JSON.stringify({ template_data: FARMER, undefined_behavior: 'debug' }),
      }),
    );
    expect(res.status).toBe(200);
    expect(await pdfOf(res)).toContain('Email: [Missing variable: farmer.email]');
  });

  it('accepts linter_options inside request_data: a failing template answers 200 with the report', async () => {
    const res = await post(
      RENDER_PATH,
      form({
        file: brokenTemplate,
        request_data: JSON.stringify({
          template_data: {},
          linter_options: { enabled: true, response_format: 'json' },
        }),
      }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; linting_results: { errors: unknown[] } };
    expect(body.status).toBe('template_validation_failed');
    expect(body.linting_results.errors.length).toBeGreaterThanOrEqual(3);
  });

  it('refuses undefined_behavior and options.undefined at odds', async () => {
    const res = await post(
      RENDER_PATH,
      form({
        file: farmerTemplate,
        request_data: JSON.stringify({
          template_data: FARMER,
          undefined_behavior: 'debug',
          options: { undefined: 'strict' },
        }),
      }),
    );
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details.fields).toEqual(['options.undefined', 'undefined_behavior']);
  });
});

describe('v1.6+ form: file, data, images, undefined_behavior, linter_options', () => {
  it.each([
    ['silent', /Email:\s*\n/],
    ['property_missing', /Email: <property missing in json>/],
    ['debug', /Type: \[Missing variable: organization\.type\]/],
  ])('undefined_behavior=%s', async (behavior, expected) => {
    const res = await post(
      RENDER_PATH,
      form({ file: farmerTemplate, data: JSON.stringify(FARMER), undefined_behavior: behavior }),
    );
    expect(res.status).toBe(200);
    const text = await pdfOf(res);
    expect(text).toMatch(expected);
    expect(text).toContain('Name: John Doe');
  });

  it('undefined_behavior=strict answers 422 undefined_variable naming every one', async () => {
    const res = await post(
      RENDER_PATH,
      form({ file: farmerTemplate, data: JSON.stringify(FARMER), undefined_behavior: 'strict' }),
    );
    expect(res.status).toBe(422);
    const body = await errorOf(res);
    expect(body.error_type).toBe('undefined_variable');
    expect((body.details.variables as string[]).sort()).toEqual(['farmer.email', 'organization.type']);
  });

  it('takes images as a form field of its own', async () => {
    const res = await post(
      RENDER_PATH,
      form({
        file: logoTemplate,
        data: JSON.stringify({ farm: 'Hill' }),
        images: JSON.stringify({ logo: { data: LOGO, width_mm: 30 } }),
      }),
    );
    expect(res.status).toBe(200);
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdfText(pdf)).toContain('Farm Hill');
    expect(pdfImages(pdf)).toEqual([{ width: 40, height: 20 }]);
  });

  it('linter_options json: a failing template answers 200 template_validation_failed', async () => {
    const res = await post(
      RENDER_PATH,
      form({ file: brokenTemplate, data: '{}', linter_options: JSON.stringify({ response_format: 'json' }) }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      message: string;
      linting_results: {
        success: boolean;
        errors: { error_type: string; line_number: number; code: string }[];
        warnings: unknown[];
        summary: { total_errors: number; jinja_tags_count: number };
        template_preview: string;
      };
    };
    expect(body.status).toBe('template_validation_failed');
    expect(body.message).toMatch(/3 errors/);
    expect(body.linting_results.success).toBe(false);
    expect(body.linting_results.errors.map((e) => [e.line_number, e.error_type, e.code])).toEqual([
      [1, 'invalid_expression', 'unknown_filter'],
      [2, 'unclosed_tag', 'unclosed_block'],
      [3, 'nested_error', 'block_crosses_table_cells'],
    ]);
    expect(body.linting_results.summary.total_errors).toBe(3);
    expect(body.linting_results.template_preview).toContain('Total {{ total | bogus }}');
  });

  it('linter_options pdf: a failing template answers 200 with the PDF report', async () => {
    const res = await post(
      RENDER_PATH,
      form(
        { file: brokenTemplate, data: '{}', linter_options: JSON.stringify({ response_format: 'pdf' }) },
        'broken.docx',
      ),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('broken_lint_report.pdf');
    const text = await pdfOf(res);
    expect(text).toContain('Template lint report');
    expect(text).toContain("unknown filter 'bogus'");
    expect(text).toContain('table 1 row 1 cell 1');
  });

  it('linter_options with a template that passes renders as usual', async () => {
    const res = await post(
      RENDER_PATH,
      form({ file: farmerTemplate, data: JSON.stringify(FARMER), linter_options: '{"enabled": true}' }),
    );
    expect(res.status).toBe(200);
    expect(await pdfOf(res)).toContain('Name: John Doe');
  });

  it('without linter_options a template error stays 422', async () => {
    const res = await post(RENDER_PATH, form({ file: brokenTemplate, data: '{}' }));
    expect(res.status).toBe(422);
    expect((await errorOf(res)).error_type).toBe('template_syntax_error');
  });

  it('request_data beside a v1.6 field is a 400 naming both', async () => {
    const res = await post(
      RENDER_PATH,
      form({
        file: farmerTemplate,
        request_data: JSON.stringify({ template_data: FARMER }),
        undefined_behavior: 'debug',
      }),
    );
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error_type).toBe('invalid_request_structure');
    expect(body.details.fields).toEqual(['request_data', 'undefined_behavior']);
  });

  it('v1.6 fields without data are 400 missing_template_data', async () => {
    const res = await post(RENDER_PATH, form({ file: farmerTemplate, undefined_behavior: 'debug' }));
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error_type).toBe('missing_template_data');
  });

  it('an unknown undefined_behavior is a 400', async () => {
    const res = await post(
      RENDER_PATH,
      form({ file: farmerTemplate, data: JSON.stringify(FARMER), undefined_behavior: 'loud' }),
    );
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/silent, property_missing, debug, strict/);
  });

  it('keys with a dash are accepted and reachable with brackets', async () => {
    const template = buildDocx([p(`Mail: {{ contact['e-mail'] }}`)]);
    const res = await post(
      RENDER_PATH,
      form({ file: template, data: JSON.stringify({ contact: { 'e-mail': 'a@b.c' } }) }),
    );
    expect(res.status).toBe(200);
    expect(await pdfOf(res)).toContain('Mail: a@b.c');
  });
});

describe('GET /version', () => {
  it('tells the version, forms, features, engine and the converter the worker reported', async () => {
    let body: Record<string, any> = {};
    await waitUntil(
      async () => {
        body = (await (await fetch(`${api.url}/version`)).json()) as Record<string, any>;
        return body.converter?.version !== 'unknown';
      },
      30_000,
      'the worker to publish its converter version',
    );
    expect(body.version).toBe(PACKAGE_VERSION);
    expect(body.compatible_with).toEqual(expect.arrayContaining(['1.1', '1.5', '1.8.1']));
    expect(Object.keys(body.modes)).toEqual(['legacy', 'enhanced', 'v1.6']);
    expect(body.undefined_behaviors).toEqual(['silent', 'property_missing', 'debug', 'strict']);
    // The seed system's features object, to the letter; our list beside it.
    expect(body.features).toEqual({
      undefined_behavior_options: ['silent', 'property_missing', 'debug', 'strict'],
      default_undefined_behavior: 'silent',
      missing_fields_handling: true,
    });
    expect(body.capabilities).toEqual(
      expect.arrayContaining(['lint', 'inspect', 'linter_options', 'playground']),
    );
    expect(body.engine.docxtemplater).toMatch(/^\d+\.\d+\.\d+$/);
    expect(body.converter).toEqual({
      kind: 'libreoffice',
      version: expect.stringMatching(/^LibreOffice \d+\.\d+/),
      reported_by: 'worker',
    });
  });
});

describe('max_line_length (issue 23): long_line warnings, on the lint endpoint and under linter_options', () => {
  const longLines = buildDocx([
    p('Hi {{ name }}'),
    p(`${'A rather long line of text. '.repeat(3)}{{ name }}`),
  ]);

  it('the lint endpoint warns about paragraphs longer than max_line_length', async () => {
    const res = await post(
      '/api/v1/lint-docx-template',
      form(
        { file: longLines, options: JSON.stringify({ response_format: 'json', max_line_length: 40 }) },
        'l.docx',
        'document',
      ),
    );
    expect(res.status).toBe(200);
    const report = (await res.json()) as {
      success: boolean;
      warnings: { warning_type: string; line_number: number }[];
    };
    expect(report.success).toBe(true);
    expect(report.warnings.map((w) => [w.warning_type, w.line_number])).toEqual([['long_line', 2]]);
  });

  it('linter_options with max_line_length and fail_on_warnings answers the warnings', async () => {
    const res = await post(
      RENDER_PATH,
      form({
        file: longLines,
        data: '{"name": "Ann"}',
        linter_options: JSON.stringify({ max_line_length: 40, fail_on_warnings: true }),
      }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      linting_results: { warnings: { warning_type: string; message: string }[] };
    };
    expect(body.status).toBe('template_validation_failed');
    expect(body.linting_results.warnings).toEqual([
      expect.objectContaining({
        warning_type: 'long_line',
        message: 'Line 2 is 94 characters long (more than 40)',
      }),
    ]);
  });

  it('max_line_length must be a positive number', async () => {
    const res = await post(
      RENDER_PATH,
      form({ file: longLines, data: '{}', linter_options: JSON.stringify({ max_line_length: -1 }) }),
    );
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error_type).toBe('invalid_request_structure');
  });
});

describe('POST /api/v1/lint-docx-template', () => {
  it('answers the JSON report in the seed system shape', async () => {
    const res = await post(
      '/api/v1/lint-docx-template',
      form(
        { file: brokenTemplate, options: JSON.stringify({ response_format: 'json', verbose: true }) },
        'b.docx',
        'document',
      ),
    );
    expect(res.status).toBe(200);
    const report = (await res.json()) as Record<string, any>;
    expect(report.success).toBe(false);
    expect(report.errors[0]).toEqual({
      line_number: 1,
      column: 7,
      error_type: 'invalid_expression',
      message: "unknown filter 'bogus'",
      context: expect.stringContaining('Total {{ total | bogus }}'),
      tag_name: 'expression',
      suggestion: expect.any(String),
      code: 'unknown_filter',
      tag: '{{ total | bogus }}',
      location: { part: 'word/document.xml', paragraph: 1, line: 1, table: null },
    });
    expect(report.errors[2].location.table).toEqual({ table: 1, row: 1, cell: 1 });
    expect(report.summary).toEqual(
      expect.objectContaining({ total_errors: 3, total_warnings: 0, jinja_tags_count: 4, lines_count: 4 }),
    );
    expect(report.template_content).toContain('{% if paid %}Paid');
  });

  it('answers a PDF report by default, rendered by the worker', async () => {
    const res = await post(
      '/api/v1/lint-docx-template',
      form({ file: farmerTemplate }, 'farmer.docx', 'document'),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain('farmer_lint_report.pdf');
    const text = await pdfOf(res);
    expect(text).toContain('PASSED: no errors');
    expect(text).toContain('No errors.');
  });

  it('refuses a missing document and a non-docx', async () => {
    const missing = await post('/api/v1/lint-docx-template', form({ options: '{}' }));
    expect(missing.status).toBe(400);
    expect((await errorOf(missing)).error_type).toBe('missing_file');
    const notDocx = await post(
      '/api/v1/lint-docx-template',
      form({ file: Buffer.from('hello') }, 'x.docx', 'document'),
    );
    expect(notDocx.status).toBe(400);
    expect((await errorOf(notDocx)).error_type).toBe('invalid_template');
  });
});

describe('POST /api/v1/inspect-template', () => {
  it('lists variables with usages, loops and images, with a skeleton and a schema', async () => {
    const template = buildDocx([
      p('{{ customer.name }}'),
      p('{{ logo }}'),
      table([
        ['{%tr for item in items %}'],
        ['{{ item.sku }}', '{{ item.qty * item.price }}'],
        ['{%tr endfor %}'],
      ]),
      p('{% if paid %}Paid{% endif %}'),
    ]);
    const res = await post('/api/v1/inspect-template', form({ file: template }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, any>;
    const usages = Object.fromEntries(
      body.variables.map((v: { path: string; usages: string[] }) => [v.path, v.usages]),
    );
    expect(usages).toEqual({
      'customer.name': ['printed'],
      logo: ['image'],
      items: ['looped'],
      'items[].sku': ['printed'],
      'items[].qty': ['printed'],
      'items[].price': ['printed'],
      paid: ['tested'],
    });
    expect(body.loops[0]).toEqual(
      expect.objectContaining({ iterable: 'items', item_fields: ['sku', 'qty', 'price'] }),
    );
    expect(body.skeleton.template_data).toEqual({
      customer: { name: '' },
      items: [{ sku: '', qty: 0, price: 0 }],
      paid: true,
    });
    expect(Object.keys(body.skeleton.images)).toEqual(['logo']);
    expect(body.json_schema.properties.items.items.properties.qty).toEqual(
      expect.objectContaining({ type: 'number' }),
    );
  });
});

describe('OpenAPI', () => {
  it('documents the new endpoints and fields', async () => {
    const doc = (await (await fetch(`${api.url}/docs-json`)).json()) as Record<string, any>;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/version',
        '/api/v1/lint-docx-template',
        '/api/v1/inspect-template',
        '/playground',
      ]),
    );
    const renderBody =
      doc.paths['/api/v1/process-template-document'].post.requestBody.content['multipart/form-data'].schema;
    expect(Object.keys(renderBody.properties)).toEqual(
      expect.arrayContaining(['data', 'request_data', 'images', 'undefined_behavior', 'linter_options']),
    );
    expect(Object.keys(doc.components.schemas.EnhancedRequest.properties)).toEqual(
      expect.arrayContaining(['undefined_behavior', 'linter_options']),
    );
    for (const name of [
      'LintReport',
      'TemplateInspection',
      'VersionInfo',
      'LinterOptions',
      'TemplateValidationFailed',
    ])
      expect(doc.components.schemas[name]).toBeDefined();
  });
});
