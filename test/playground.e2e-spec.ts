/**
 * The playground page in a real browser: Debian's chromium driven by playwright-core (no browser
 * download), against the running service (Redis, a worker, the API). Uploads a template with a
 * loop and an image placeholder, sees its variables, fills the data, adds a PNG, renders and reads
 * the PDF the page received; then a broken template's problems with their location.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import PizZip from 'pizzip';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildDocx, p } from './support/docx-builder';
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
} from './service-harness';

jest.setTimeout(180_000);

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** docs/playground.png is refreshed on request only (UPDATE_DOCS_SCREENSHOT=1); runs do not touch the tree. */
const SCREENSHOT = process.env.UPDATE_DOCS_SCREENSHOT
  ? join(__dirname, '..', 'docs', 'playground.png')
  : join(__dirname, '..', '.tmp', 'playground.png');

let redis: RedisServer;
let worker: ManagedProcess;
let api: RunningApi;
let browser: Browser;
let page: Page;

const invoiceTemplate = buildDocx([
  p('Invoice for {{ customer.name }}'),
  p('{{ logo }}'),
  p('{% for item in items %}[{{ item.sku }} x{{ item.qty }}]{% endfor %}'),
]);
const brokenTemplate = buildDocx([
  p('Dear {{ customer.name }}'),
  p('{% if paid %}Paid, {{ total | bogus }}'),
]);

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  buildService();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, { QUEUE_PREFIX: '{playground}' });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await stopAll(api, worker);
  await stopAll(redis);
});

describe('the playground page', () => {
  it('inspects a template, renders it with edited data and an image, and gets the PDF', async () => {
    await page.goto(`${api.url}/playground`);
    expect(await page.title()).toBe('Template playground');

    await page.setInputFiles('#file', { name: 'invoice.docx', mimeType: DOCX_TYPE, buffer: invoiceTemplate });
    await page.waitForSelector('#variables tr[data-path="items[].sku"]');
    const paths = await page.$$eval('#variables tr', (rows) => rows.map((r) => r.getAttribute('data-path')));
    expect(paths).toEqual(['customer.name', 'logo', 'items', 'items[].sku', 'items[].qty']);
    expect(await page.textContent('#variables tr[data-path="items"]')).toContain('looped');
    expect(await page.textContent('#variables tr[data-path="logo"]')).toContain('image');
    expect(await page.textContent('#lint')).toContain('No problems (6 tags)');
    // The generated skeleton is in the editor.
    expect(JSON.parse(await page.inputValue('#data'))).toEqual({
      customer: { name: '' },
      items: [{ sku: '', qty: '' }],
    });

    await page.fill(
      '#data',
      JSON.stringify(
        {
          customer: { name: 'Ada Lovelace' },
          items: [
            { sku: 'A-1', qty: 2 },
            { sku: 'B-2', qty: 5 },
          ],
        },
        null,
        2,
      ),
    );
    expect(await page.inputValue('#image-name')).toBe('logo');
    await page.setInputFiles('#image-file', {
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: Buffer.from(solidPng(60, 30, [20, 90, 200]), 'base64'),
    });
    await page.waitForSelector('#images >> text=images.logo');

    // The render answer as the page receives it: fetched through the route, kept, then handed on.
    let rendered: { status: number; body: Buffer } | undefined;
    await page.route(`**${RENDER_PATH}`, async (route) => {
      const response = await route.fetch();
      rendered = { status: response.status(), body: await response.body() };
      await route.fulfill({ response });
    });
    await page.click('#render');
    await page.waitForSelector('#status >> text=/Rendered|Failed/');
    await page.unroute(`**${RENDER_PATH}`);
    expect(rendered?.status).toBe(200);
    const pdf = rendered!.body;
    const text = pdfText(pdf);
    expect(text).toContain('Invoice for Ada Lovelace');
    expect(text).toContain('[A-1 x2][B-2 x5]');
    expect(pdfImages(pdf)).toEqual([{ width: 60, height: 30 }]);
    await page.waitForSelector('#status >> text=Rendered');
    expect(await page.getAttribute('#pdf', 'src')).toMatch(/^blob:/);

    // The screenshot for docs/: give the built-in PDF viewer a moment to paint (nothing is asserted on it).
    await page.waitForTimeout(2000);
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(statSync(SCREENSHOT).size).toBeLessThan(200 * 1024);
  });

  it('shows a broken template’s problems with their location, and the render error', async () => {
    await page.goto(`${api.url}/playground`);
    await page.setInputFiles('#file', { name: 'broken.docx', mimeType: DOCX_TYPE, buffer: brokenTemplate });
    await page.waitForSelector('#lint .problem');
    const problems = await page.$$eval('#lint .problem', (nodes) => nodes.map((n) => n.textContent ?? ''));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain("unclosed_tag: 'if' has no 'endif'");
    expect(problems[0]).toContain('line 2, column 1 — word/document.xml, paragraph 2');
    expect(problems[0]).toContain('Suggestion: Add {% endif %}');
    expect(problems[1]).toContain("invalid_expression: unknown filter 'bogus'");
    expect(problems[1]).toContain('line 2, column 20 — word/document.xml, paragraph 2');

    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(RENDER_PATH)),
      page.click('#render'),
    ]);
    expect(response.status()).toBe(422);
    await page.waitForSelector('#render-error .problem');
    const shown = await page.textContent('#render-error');
    expect(shown).toContain('template_syntax_error');
    expect(shown).toContain('word/document.xml');
  });

  it('takes a deck: its problems located by slide and shape', async () => {
    const zip = new PizZip(readFileSync(join(__dirname, 'fixtures/slides/deck.powerpoint.pptx')));
    const slide3 = zip.file('ppt/slides/slide3.xml')!.asText();
    expect(slide3).toContain('{{ f.name }}');
    zip.file('ppt/slides/slide3.xml', slide3.replace('{{ f.name }}', '{{ f.name | bogus }}'));
    await page.goto(`${api.url}/playground`);
    await page.setInputFiles('#file', {
      name: 'offer.pptx',
      mimeType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      buffer: zip.generate({ type: 'nodebuffer' }),
    });
    await page.waitForSelector('#lint .problem');
    const problems = await page.$$eval('#lint .problem', (nodes) => nodes.map((n) => n.textContent ?? ''));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain("invalid_expression: unknown filter 'bogus'");
    expect(problems[0]).toContain('— slide 3, shape Table 3, table 1 row 3 cell 1');
  });

  it('lists the formatting and barcode examples, and renders them in the locale and time zone chosen', async () => {
    await page.goto(`${api.url}/playground`);
    const tags = await page.$$eval('#example-tags code', (nodes) => nodes.map((n) => n.textContent ?? ''));
    expect(tags).toEqual(
      expect.arrayContaining([
        '{{ invoice.total | format_currency("EUR") }}',
        '{{ payment | epc_qr(size_mm=35) }}',
      ]),
    );
    // A template made of the listed tags, as a user pastes them into Word.
    const template = buildDocx(tags.map((t) => p(t)));
    await page.setInputFiles('#file', { name: 'examples.docx', mimeType: DOCX_TYPE, buffer: template });
    await page.waitForSelector('#lint >> text=No problems');
    await page.click('#example-data');
    await page.fill('#locale', 'de_DE');
    await page.fill('#timezone', 'Europe/Berlin');
    let rendered: { status: number; body: Buffer } | undefined;
    await page.route(`**${RENDER_PATH}`, async (route) => {
      const response = await route.fetch();
      rendered = { status: response.status(), body: await response.body() };
      await route.fulfill({ response });
    });
    await page.click('#render');
    await page.waitForSelector('#status >> text=/Rendered|Failed/');
    await page.unroute(`**${RENDER_PATH}`);
    expect(rendered?.status).toBe(200);
    const text = pdfText(rendered!.body).replace(/\s+/g, ' ');
    expect(text).toContain('25. November 2026');
    expect(text).toContain('Mittwoch, 25.11.2026 15:30');
    expect(text).toContain('1.234,56 €');
    expect(text).toContain('26 %');
    // The QR code, the EAN-13 and the EPC QR code are pictures in the PDF.
    expect(pdfImages(rendered!.body)).toHaveLength(3);

    // An unknown locale: the 400 naming the field is shown.
    await page.fill('#locale', 'xx_YY');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(RENDER_PATH)),
      page.click('#render'),
    ]);
    expect(response.status()).toBe(400);
    await page.waitForSelector('#render-error .problem');
    expect(await page.textContent('#render-error')).toContain('options.locale');
  });

  it('is off with PLAYGROUND=off', async () => {
    const off = await startApi(
      testEnv(redis.url, { QUEUE_PREFIX: '{playground}', PLAYGROUND: 'off' }),
      'api-off',
    );
    try {
      const res = await fetch(`${off.url}/playground`);
      expect(res.status).toBe(404);
      const version = (await (await fetch(`${off.url}/version`)).json()) as { capabilities: string[] };
      expect(version.capabilities).not.toContain('playground');
    } finally {
      await stopAll(off);
    }
  });
});
