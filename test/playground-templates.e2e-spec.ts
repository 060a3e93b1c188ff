/**
 * The playground's stored-template flow in Debian's chromium (playwright-core), against the
 * service with PostgreSQL: list the key's templates, open one (its lint, inspection and sample
 * data), preview it by id, upload a new version, publish it, and preview again.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildDocx, p } from './support/docx-builder';
import { startPostgres, type RunningPostgres } from './support/postgres';
import {
  buildService,
  ManagedProcess,
  pdfText,
  RedisServer,
  RENDER_PATH,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';

jest.setTimeout(180_000);

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'];
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const ADMIN_KEY = `dpk_${'p'.repeat(43)}`;

let redis: RedisServer;
let pg: RunningPostgres;
let worker: ManagedProcess;
let api: RunningApi;
let browser: Browser;
let page: Page;
let templateId: string;

beforeAll(async () => {
  buildService();
  [redis, pg] = await Promise.all([RedisServer.start(), startPostgres()]);
  const dir = mkdtempSync(join(tmpdir(), 'playground-templates-'));
  writeFileSync(join(dir, '.admin-key'), ADMIN_KEY, { mode: 0o600 });
  const env = testEnv(redis.url, { DATABASE_URL: pg.url, ADMIN_KEY_FILE: join(dir, '.admin-key') });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
  const form = new FormData();
  form.append('file', new Blob([buildDocx([p('Hello {{ customer.name }}')])]), 'greeting.docx');
  form.append('name', 'greeting');
  form.append('sample_data', JSON.stringify({ template_data: { customer: { name: 'Sample Sam' } } }));
  const created = await fetch(`${api.url}/api/v1/templates`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    body: form,
  });
  expect(created.status).toBe(201);
  templateId = ((await created.json()) as { template_id: string }).template_id;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await stopAll(api, worker);
  await stopAll(redis);
  await pg?.stop();
});

/** Clicks render and returns the PDF the page received. */
async function renderedPdf(): Promise<{ status: number; text: string; version: string | undefined }> {
  let rendered: { status: number; body: Buffer; version?: string } | undefined;
  await page.route(`**${RENDER_PATH}`, async (route) => {
    const response = await route.fetch();
    rendered = {
      status: response.status(),
      body: await response.body(),
      version: response.headers()['x-template-version'],
    };
    await route.fulfill({ response });
  });
  // A fresh status line, so the wait below sees this render's outcome.
  await page.$eval('#status', (node) => (node.textContent = ''));
  await page.click('#render');
  await page.waitForSelector('#status >> text=/Rendered|Failed/');
  await page.unroute(`**${RENDER_PATH}`);
  return { status: rendered!.status, text: pdfText(rendered!.body), version: rendered!.version };
}

it('lists, opens with sample data, previews, uploads a version, publishes it and previews it', async () => {
  await page.goto(`${api.url}/playground`);
  await page.fill('#api-key', ADMIN_KEY);
  await page.click('#list-templates');
  await page.waitForSelector(`#templates tr[data-template-id="${templateId}"]`);
  expect(await page.textContent(`#templates tr[data-template-id="${templateId}"]`)).toContain('current: v1');

  await page.click(`#templates tr[data-template-id="${templateId}"] button`);
  await page.waitForSelector('#variables tr[data-path="customer.name"]');
  expect(await page.textContent('#lint')).toContain('No problems');
  expect(JSON.parse(await page.inputValue('#data'))).toEqual({ customer: { name: 'Sample Sam' } });
  const first = await renderedPdf();
  expect([first.status, first.version]).toEqual([200, '1']);
  expect(first.text).toContain('Hello Sample Sam');

  await page.setInputFiles('#version-file', {
    name: 'greeting-v2.docx',
    mimeType: DOCX_TYPE,
    buffer: buildDocx([p('Welcome {{ customer.name }}, {{ customer.city }}')]),
  });
  await page.click('#upload-version');
  await page.waitForSelector('#stored-status >> text=Uploaded version 2');
  await page.waitForSelector('#variables tr[data-path="customer.city"]');
  // The preview renders the uploaded, unpublished version with the sample data.
  const preview = await renderedPdf();
  expect([preview.status, preview.version]).toEqual([200, '2']);
  expect(preview.text).toContain('Welcome Sample Sam');

  await page.click('#publish-version');
  await page.waitForSelector('#stored-status >> text=Version 2 is current');
  const detail = await fetch(`${api.url}/api/v1/templates/${templateId}`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  expect(((await detail.json()) as { current_version: number }).current_version).toBe(2);
});
