/**
 * Numbers as the data wrote them (issue 23): JSON `9.0` prints `9.0`, as docxtpl and the seed
 * system print it, through the whole service (the API parses the form field, the job payload
 * crosses Redis, the worker parses it again) and through the CLI; image sizes written `50.0`
 * stay plain numbers. Real Redis, API and worker (output docx: no conversion needed).
 * How each Node version reads the numbers: libs/engine/src/runtime/json-numbers.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDocx, messy, p, SPLIT as S } from './support/docx-builder';
import { docxImages, docxText } from './support/docx-text';
import {
  buildService,
  pdfText,
  type ManagedProcess,
  postRender,
  RedisServer,
  type RunningApi,
  solidPng,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';

jest.setTimeout(90_000);

const PREFIX = '{n}';
const template = buildDocx([
  messy(`Unit: {{ pri${S}ce }} × {{ qty }} = {{ price * qty }}`),
  p('{{ "%.2f"|format(price) }} {{ price|round }} {{ lines|sum(attribute="amount") }} {{ price > 8 }}'),
  p('{{ rate }} {{ half }} {{ "v1.0" }}'),
  p('{{ logo }}'),
]);
const DATA = '{"price": 9.0, "qty": 2, "rate": 1e2, "half": 2.50, "lines": [{"amount": 1.0}, {"amount": 2}]}';
const WANT = ['Unit: 9.0 × 2 = 18.0', '9.00 9.0 3.0 True', '100.0 2.5 v1.0'];

let redis: RedisServer;
let api: RunningApi;
let worker: ManagedProcess;

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, { QUEUE_PREFIX: PREFIX });
  worker = await startWorker(env);
  api = await startApi(env);
});

afterAll(async () => {
  await stopAll(api);
  await stopAll(worker);
  await stopAll(redis);
});

it('request_data: floats cross the queue as written; an image size 50.0 is a size', async () => {
  const requestData =
    `{"template_data": ${DATA.slice(0, -1)}, "logo": "x"},` +
    ` "images": {"logo": {"data": "${solidPng(4, 2, [0, 0, 0])}", "width_mm": 50.0}},` +
    ` "options": {"output": "docx"}}`;
  const res = await postRender(api.url, { file: template, request_data: requestData });
  expect(res.status).toBe(200);
  const docx = Buffer.from(await res.arrayBuffer());
  expect(docxText(docx).body.slice(0, 3)).toEqual(WANT);
  const [image] = docxImages(docx);
  expect(image.cx).toBe(50 * 36000);
});

it('legacy data: the same numbers, in the PDF', async () => {
  const res = await postRender(api.url, { file: template, data: DATA });
  expect(res.status).toBe(200);
  const text = pdfText(Buffer.from(await res.arrayBuffer()));
  for (const line of WANT) expect(text).toContain(line);
});

it('the CLI reads REQUEST.json the same way', () => {
  const dir = mkdtempSync(join(tmpdir(), 'numbers-'));
  try {
    writeFileSync(join(dir, 't.docx'), template);
    writeFileSync(join(dir, 'r.json'), `{"template_data": ${DATA}}`);
    const root = join(__dirname, '..');
    const res = spawnSync(
      join(root, 'node_modules/.bin/tsx'),
      [join(root, 'apps/cli/src/main.ts'), join(dir, 't.docx'), join(dir, 'r.json'), join(dir, 'o.docx')],
      { cwd: root, encoding: 'utf8', timeout: 120_000 },
    );
    expect(res.stderr).toBe('');
    expect(docxText(readFileSync(join(dir, 'o.docx'))).body.slice(0, 3)).toEqual(WANT);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
