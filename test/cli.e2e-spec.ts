import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDocx, messy, SPLIT as S } from './support/docx-builder';
import { docxText } from './support/docx-text';
import {
  buildService,
  postRender,
  RedisServer,
  type RunningApi,
  solidPng,
  startApi,
  stopAll,
  testEnv,
} from './service-harness';
import { pageText, pdfAttachments, pdfInfo, pdfXmp } from './support/pdf-inspect';

const ROOT = join(__dirname, '..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const CLI = join(ROOT, 'apps/cli/src/main.ts');

describe('npm run render (command line)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-test-'));
    writeFileSync(
      join(dir, 'tpl.docx'),
      buildDocx([messy(`Invoice for {{ cus${S}tomer }}: {{ "%.2f"|format(total) }}`)]),
    );
    writeFileSync(join(dir, 'ok.json'), JSON.stringify({ template_data: { customer: 'Ann', total: 12.5 } }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (...args: string[]) =>
    spawnSync(TSX, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });

  it('writes the filled .docx and exits 0', () => {
    const res = run(join(dir, 'tpl.docx'), join(dir, 'ok.json'), join(dir, 'out.docx'));
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    expect(docxText(readFileSync(join(dir, 'out.docx'))).body).toEqual(['Invoice for Ann: 12.50']);
  });

  it('writes a PDF through the configured converter', () => {
    const res = run(join(dir, 'tpl.docx'), join(dir, 'ok.json'), join(dir, 'out.pdf'));
    expect(res.status).toBe(0);
    const pdf = readFileSync(join(dir, 'out.pdf'));
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const text = spawnSync('pdftotext', [join(dir, 'out.pdf'), '-'], { encoding: 'utf8' }).stdout;
    expect(text).toContain('Invoice for Ann: 12.50');
  });

  it('applies options.pdf from REQUEST.json, and refuses a bad one by name', () => {
    writeFileSync(
      join(dir, 'pdfa.json'),
      JSON.stringify({
        template_data: { customer: 'Ann', total: 1 },
        options: { pdf: { pdfa: 'PDF/A-1b', metadata: { title: 'From the CLI' } } },
      }),
    );
    const res = run(join(dir, 'tpl.docx'), join(dir, 'pdfa.json'), join(dir, 'pdfa.pdf'));
    expect(res.status).toBe(0);
    const pdf = readFileSync(join(dir, 'pdfa.pdf'));
    expect(pdfXmp(pdf)).toMatch(/pdfaid:part(="|>)1/);
    expect(pdfInfo(pdf).Title).toBe('From the CLI');

    writeFileSync(
      join(dir, 'badpdf.json'),
      JSON.stringify({ template_data: {}, options: { pdf: { pdfa: 'A' } } }),
    );
    const bad = run(join(dir, 'tpl.docx'), join(dir, 'badpdf.json'), join(dir, 'never.pdf'));
    expect(bad.status).toBe(1);
    const body = JSON.parse(bad.stderr);
    expect(body.error_type).toBe('invalid_request_structure');
    expect(body.message).toContain('options.pdf.pdfa');
    expect(existsSync(join(dir, 'never.pdf'))).toBe(false);
  });

  it('finishes the PDF as the service does: the factur-x invoice embedded, a watermark on each page (docs/pdf.md)', () => {
    const xml = readFileSync(join(__dirname, 'fixtures/facturx/en16931-invoice.xml'));
    writeFileSync(
      join(dir, 'fx.json'),
      JSON.stringify({
        template_data: { customer: 'Ann', total: 893.97 },
        options: {
          pdf: {
            facturx: { xml: xml.toString('base64'), profile: 'EN 16931' },
            watermark: { text: 'DUPLICATA' },
          },
        },
      }),
    );
    const res = run(join(dir, 'tpl.docx'), join(dir, 'fx.json'), join(dir, 'fx.pdf'));
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    const pdf = readFileSync(join(dir, 'fx.pdf'));
    expect(pdfXmp(pdf)).toContain('<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>');
    expect(pdfAttachments(pdf).get('factur-x.xml')?.equals(xml)).toBe(true);
    expect(pageText(pdf, 1)).toContain('DUPLICATA');
  });

  it('prints the typed error as JSON on stderr and exits 1', () => {
    writeFileSync(
      join(dir, 'strict.json'),
      JSON.stringify({ template_data: {}, options: { undefined: 'strict' } }),
    );
    const res = run(join(dir, 'tpl.docx'), join(dir, 'strict.json'), join(dir, 'never.docx'));
    expect(res.status).toBe(1);
    expect(JSON.parse(res.stderr)).toEqual({
      status: 'error',
      error_type: 'undefined_variable',
      message: 'Undefined variables in template: customer, total',
      details: { variables: ['customer', 'total'] },
    });
    expect(existsSync(join(dir, 'never.docx'))).toBe(false);
  });

  it('reports a request without template_data and a non-docx template by type', () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ data: {} }));
    expect(
      JSON.parse(run(join(dir, 'tpl.docx'), join(dir, 'bad.json'), join(dir, 'x.docx')).stderr).error_type,
    ).toBe('missing_template_data');
    expect(
      JSON.parse(run(join(dir, 'ok.json'), join(dir, 'ok.json'), join(dir, 'x.docx')).stderr).error_type,
    ).toBe('invalid_template');
  });

  it('explains its usage and exits 2', () => {
    const res = run('only-one-arg');
    expect(res.status).toBe(2);
    expect(res.stderr).toContain(
      'usage: npm run render -- TEMPLATE.docx REQUEST.json OUT.pdf|.docx|.odt|.html|.txt|.png|.jpg',
    );
  });

  it('resolves relative paths against the directory npm was called from', () => {
    const res = spawnSync(
      'npm',
      ['--prefix', ROOT, 'run', '--silent', 'render', '--', 'tpl.docx', 'ok.json', 'rel.docx'],
      {
        cwd: dir,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    expect(res.status).toBe(0);
    expect(docxText(readFileSync(join(dir, 'rel.docx'))).body).toEqual(['Invoice for Ann: 12.50']);
  });

  it("enforces the service's limits (template size, image count)", () => {
    const big = spawnSync(TSX, [CLI, join(dir, 'tpl.docx'), join(dir, 'ok.json'), join(dir, 'big.docx')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, MAX_TEMPLATE_BYTES: '1000' },
    });
    expect(big.status).toBe(1);
    expect(JSON.parse(big.stderr)).toMatchObject({
      error_type: 'payload_too_large',
      details: { limit: 1000 },
    });
    const png = solidPng(2, 2, [0, 0, 0]);
    writeFileSync(
      join(dir, 'images.json'),
      JSON.stringify({ template_data: {}, images: { a: { data: png }, b: { data: png } } }),
    );
    const many = spawnSync(
      TSX,
      [CLI, join(dir, 'tpl.docx'), join(dir, 'images.json'), join(dir, 'many.docx')],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, MAX_IMAGES: '1' },
      },
    );
    expect(many.status).toBe(1);
    expect(JSON.parse(many.stderr).error_type).toBe('payload_too_large');
    expect(existsSync(join(dir, 'many.docx'))).toBe(false);
  });
});

/**
 * Issue 35: the CLI and the API parse a request with the same parser (@app/contracts), so a bad
 * REQUEST.json is refused by both with the same error_type, message and details. No worker: the
 * API refuses these before anything is queued.
 */
describe('the CLI refuses what the API refuses, with the same typed error', () => {
  let dir: string;
  let redis: RedisServer | undefined;
  let api: RunningApi | undefined;
  const template = buildDocx(['Hello {{ name }}']);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-api-'));
    writeFileSync(join(dir, 'tpl.docx'), template);
    buildService();
    redis = await RedisServer.start();
    api = await startApi(testEnv(redis.url, { QUEUE_PREFIX: '{cli-parity}' }));
  }, 120_000);
  afterAll(async () => {
    await stopAll(api, redis);
    rmSync(dir, { recursive: true, force: true });
  });

  const BAD_REQUESTS: Array<[string, string]> = [
    ['an unknown key', JSON.stringify({ template_data: { name: 'Ann' }, colour: 'red' })],
    ['an image without data', JSON.stringify({ template_data: {}, images: { logo: { width_mm: 10 } } })],
    [
      'an image with an unknown field',
      JSON.stringify({ template_data: {}, images: { logo: { data: 'iVBO', dpi: 3 } } }),
    ],
    ['a bad undefined mode', JSON.stringify({ template_data: {}, options: { undefined: 'loud' } })],
    ['an unknown locale', JSON.stringify({ template_data: {}, options: { locale: 'xx_YY' } })],
    [
      'undefined_behavior at odds with options.undefined',
      JSON.stringify({ template_data: {}, undefined_behavior: 'debug', options: { undefined: 'strict' } }),
    ],
    ['template_data that is a list', JSON.stringify({ template_data: [1] })],
    ['text that is not JSON', '{"template_data": {'],
  ];

  /**
   * The CLI run without blocking the event loop: spawnSync held it for the CLI's few seconds, so
   * fetch's pooled connection outlived the API's 5 s keep-alive unnoticed and its next request
   * met a closed socket (EPIPE) on a loaded machine.
   */
  const runCli = (args: string[]) =>
    new Promise<{ status: number | null; stderr: string }>((done, fail) => {
      const child = spawn(TSX, [CLI, ...args], { cwd: ROOT, timeout: 120_000 });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', fail);
      child.on('close', (status) => done({ status, stderr }));
    });

  it.each(BAD_REQUESTS)('%s', async (_what, text) => {
    writeFileSync(join(dir, 'req.json'), text);
    const cli = await runCli([join(dir, 'tpl.docx'), join(dir, 'req.json'), join(dir, 'out.docx')]);
    expect(cli.status).toBe(1);
    const fromCli = JSON.parse(cli.stderr);

    const res = await postRender(api!.url, { file: template, request_data: text });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const fromApi = (await res.json()) as { error_type: string; message: string; details?: unknown };

    expect(fromCli.error_type).toMatch(/^(invalid_request_structure|missing_template_data)$/);
    expect({ error_type: fromCli.error_type, message: fromCli.message }).toEqual({
      error_type: fromApi.error_type,
      message: fromApi.message,
    });
    expect(fromCli.details).toEqual(fromApi.details);
    expect(existsSync(join(dir, 'out.docx'))).toBe(false);
  });
});
