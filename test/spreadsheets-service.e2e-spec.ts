/**
 * Spreadsheet templates (.xlsx, issue 41) through the running service: the synchronous endpoint
 * fills the Calc-saved price list to PDF and to .xlsx, names a dropped external link in the
 * Warning header (and a job's status and result say the same), and refuses what a spreadsheet
 * cannot be made into with a 400 naming it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import PizZip from 'pizzip';

import {
  buildService,
  jobFinished,
  ManagedProcess,
  postRender,
  RedisServer,
  type RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';
import { withExternalLink } from './support/external-link';

jest.setTimeout(300_000);

const TEMPLATE = readFileSync(join(__dirname, 'fixtures/spreadsheets/price-list.calc.xlsx'));
const DATA = {
  customer: 'ACME',
  issued: '2026-03-15',
  vip: true,
  currency: 'EUR',
  items: [
    { name: 'Apple', qty: 2, price: 1.5 },
    { name: 'Plum', qty: 10, price: 12 },
  ],
};

let redis: RedisServer;
let worker: ManagedProcess;
let api: RunningApi;

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, { QUEUE_PREFIX: '{sheetsvc}', JOB_TIMEOUT_MS: '60000' });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
});

afterAll(async () => {
  await stopAll(api, worker, redis);
});

it('fills a spreadsheet to PDF: Calc recalculates the total over the repeated rows', async () => {
  const res = await postRender(api.url, { file: TEMPLATE, filename: 'prices.xlsx', data: DATA });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  expect(res.headers.get('content-disposition')).toContain('prices.pdf');
  expect(res.headers.get('warning')).toBeNull();
  const pdf = Buffer.from(await res.arrayBuffer());
  const text = execFileSync('pdftotext', ['-layout', '-', '-'], { input: pdf })
    .toString('utf8')
    .replace(/[ \t]+/g, ' ');
  expect(text).toMatch(/Total 123\.00/);
});

it('fills to .xlsx, drops an external link and names it in the Warning header', async () => {
  const res = await postRender(api.url, {
    file: withExternalLink(TEMPLATE),
    filename: 'prices.xlsx',
    request_data: { template_data: DATA, options: { output: 'xlsx' } },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe(
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  );
  expect(res.headers.get('warning')).toBe('299 - "dropped external link (externalLink1.xml)"');
  const zip = new PizZip(Buffer.from(await res.arrayBuffer()));
  expect(zip.file('xl/externalLinks/externalLink1.xml')).toBeNull();
  expect(zip.file('xl/_rels/workbook.xml.rels')!.asText()).not.toContain('externalLink');
});

it('a job carries the same warning: in its status (warnings) and its result (Warning header)', async () => {
  const form = new FormData();
  form.append('file', new Blob([withExternalLink(TEMPLATE)]), 'prices.xlsx');
  form.append('request_data', JSON.stringify({ template_data: DATA, options: { output: 'xlsx' } }));
  const submitted = await fetch(`${api.url}/api/v1/jobs`, { method: 'POST', body: form });
  expect(submitted.status).toBe(202);
  const { job_id: id } = (await submitted.json()) as { job_id: string };
  const status = await jobFinished<{ status: string; warnings?: string[] }>(api.url, id, 60_000);
  expect(status).toMatchObject({
    status: 'completed',
    warnings: ['dropped external link (externalLink1.xml)'],
  });
  const result = await fetch(`${api.url}/api/v1/jobs/${id}/result`);
  expect(result.status).toBe(200);
  expect(result.headers.get('warning')).toBe('299 - "dropped external link (externalLink1.xml)"');
  expect(
    new PizZip(Buffer.from(await result.arrayBuffer())).file('xl/externalLinks/externalLink1.xml'),
  ).toBeNull();

  // A template with nothing to drop: no field, no header.
  const plain = new FormData();
  plain.append('file', new Blob([TEMPLATE]), 'prices.xlsx');
  plain.append('request_data', JSON.stringify({ template_data: DATA, options: { output: 'xlsx' } }));
  const other = (await (await fetch(`${api.url}/api/v1/jobs`, { method: 'POST', body: plain })).json()) as {
    job_id: string;
  };
  const done = await jobFinished<{ status: string; warnings?: string[] }>(api.url, other.job_id, 60_000);
  expect(done.status).toBe('completed');
  expect(done.warnings).toBeUndefined();
  expect((await fetch(`${api.url}/api/v1/jobs/${other.job_id}/result`)).headers.get('warning')).toBeNull();
});

it('lints and inspects a workbook over HTTP, and a render with linter_options answers its report', async () => {
  const lintForm = new FormData();
  lintForm.append('document', new Blob([TEMPLATE]), 'prices.xlsx');
  lintForm.append('options', JSON.stringify({ response_format: 'json', verbose: true }));
  const lint = await fetch(`${api.url}/api/v1/lint-docx-template`, { method: 'POST', body: lintForm });
  expect(lint.status).toBe(200);
  const report = (await lint.json()) as {
    success: boolean;
    tags: { tag: string; location: { sheet?: string; cell?: string } }[];
  };
  expect(report.success).toBe(true);
  expect(report.tags.find((t) => t.tag === '{{ item.name }}')!.location).toMatchObject({
    sheet: 'Prices',
    cell: 'A5',
  });

  const inspectForm = new FormData();
  inspectForm.append('file', new Blob([TEMPLATE]), 'prices.xlsx');
  const inspect = await fetch(`${api.url}/api/v1/inspect-template`, { method: 'POST', body: inspectForm });
  expect(inspect.status).toBe(200);
  const inspection = (await inspect.json()) as { loops: { iterable: string; placement: string }[] };
  expect(inspection.loops).toEqual([expect.objectContaining({ iterable: 'items', placement: 'tr' })]);

  // A broken workbook with linter_options: the lint report instead of a render.
  const zip = new PizZip(TEMPLATE);
  const strings = zip.file('xl/sharedStrings.xml')!.asText();
  expect(strings).toContain('{{ item.name }}');
  zip.file('xl/sharedStrings.xml', strings.replace('{{ item.name }}', '{{ item.name | bogus }}'));
  const res = await postRender(api.url, {
    file: zip.generate({ type: 'nodebuffer' }),
    filename: 'prices.xlsx',
    request_data: { template_data: DATA, linter_options: { enabled: true, response_format: 'json' } },
  });
  expect(res.status).toBe(200);
  const failed = (await res.json()) as {
    status: string;
    linting_results: { errors: { code: string; location: { cell?: string } }[] };
  };
  expect(failed.status).toBe('template_validation_failed');
  expect(failed.linting_results.errors).toEqual([
    expect.objectContaining({ code: 'unknown_filter', location: expect.objectContaining({ cell: 'A5' }) }),
  ]);
});

it.each([
  [{ output: 'docx' }, 'options.output'],
  [{ output: 'pdf', pdf: { pdfua: true } }, 'options.pdf.pdfua'],
])('refuses %j on a spreadsheet with a 400 naming %s', async (options, field) => {
  const res = await postRender(api.url, {
    file: TEMPLATE,
    filename: 'prices.xlsx',
    request_data: { template_data: DATA, options },
  });
  expect(res.status).toBe(400);
  const body = (await res.json()) as { details: Record<string, unknown> };
  expect(body.details.field).toBe(field);
});
