/**
 * The service end to end over HTTP: a private Redis, one real worker (embedded LibreOffice, one
 * instance) and the real API process. Every endpoint and every client error row of the contract.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { buildDocx, p } from './support/docx-builder';
import { docxImages, docxPlainText } from './support/docx-text';
import { pdfInfo, pdfXmp } from './support/pdf-inspect';
import {
  buildService,
  ManagedProcess,
  pdfImages,
  pdfText,
  postRender,
  RedisServer,
  RunningApi,
  solidPng,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
} from './service-harness';

jest.setTimeout(120_000);

const PREFIX = '{svc}';
const EXAMPLES = join(__dirname, '..', 'examples');
const MAX_TEMPLATE_BYTES = 200_000;
const MAX_REQUEST_BYTES = 400_000;
const EMU_PER_MM = 36_000;

let redis: RedisServer;
let worker: ManagedProcess;
let api: RunningApi;
let client: Redis;
let queue: Queue;

const helloTemplate = buildDocx({
  body: [
    p('Hello {{ name }}!'),
    p('{% for item in items %}[{{ item.label }}]{% endfor %}'),
    p('{% if vip %}Welcome back{% else %}Nice to meet you{% endif %}'),
  ],
});
const imageTemplate = buildDocx({ body: [p('Logo: {{ logo }}'), p('Signature: {{ signature }}')] });
const invoiceTemplate = readFileSync(join(EXAMPLES, 'invoice.docx'));

interface ErrorBody {
  status: string;
  error_type: string;
  message: string;
  details: Record<string, unknown>;
}

async function errorOf(res: Response): Promise<ErrorBody> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as ErrorBody;
  expect(body).toEqual({
    status: 'error',
    error_type: expect.any(String),
    message: expect.any(String),
    details: expect.any(Object),
  });
  return body;
}

async function payloadKeysLeft(): Promise<string[]> {
  return client.keys(`${PREFIX}:render-payload:*`);
}

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, {
    QUEUE_PREFIX: PREFIX,
    MAX_TEMPLATE_BYTES: String(MAX_TEMPLATE_BYTES),
    MAX_REQUEST_BYTES: String(MAX_REQUEST_BYTES),
    MAX_IMAGES: '3',
    MAX_IMAGE_PIXELS: '1000000',
  });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
  client = redis.client();
  queue = new Queue('render', { connection: { url: redis.url }, prefix: PREFIX });
});

afterAll(async () => {
  await queue?.close();
  client?.disconnect();
  await stopAll(api, worker);
  await stopAll(redis);
});

describe('health checks', () => {
  it.each(['/', '/health-check'])('GET %s answers the fixed healthy message', async (path) => {
    const res = await fetch(`${api.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.text()).toBe('{"status":"Service is healthy !"}');
  });

  it('answers unknown routes with a JSON error', async () => {
    const res = await fetch(`${api.url}/api/v2/nothing`);
    expect(res.status).toBe(404);
    expect((await errorOf(res)).error_type).toBe('not_found');
  });
});

describe('rendering', () => {
  it('renders a legacy request (data) to PDF', async () => {
    const res = await postRender(api.url, {
      file: helloTemplate,
      filename: 'greeting.docx',
      data: { name: 'Ada Lovelace', items: [{ label: 'one' }, { label: 'two' }], vip: true },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="greeting.pdf"; filename*=UTF-8''greeting.pdf`,
    );
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(Number(res.headers.get('content-length'))).toBe(pdf.length);
    const text = pdfText(pdf);
    expect(text).toContain('Hello Ada Lovelace!');
    expect(text).toContain('[one][two]');
    expect(text).toContain('Welcome back');
    expect(await payloadKeysLeft()).toEqual([]);
  });

  it('renders the shipped invoice example (enhanced, with a logo) and names the file in unicode', async () => {
    const res = await postRender(api.url, {
      file: invoiceTemplate,
      filename: 'Rechnung März.docx',
      request_data: readFileSync(join(EXAMPLES, 'invoice-request.json'), 'utf8'),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="Rechnung Marz.pdf"; filename*=UTF-8''Rechnung%20M%C3%A4rz.pdf`,
    );
    const pdf = Buffer.from(await res.arrayBuffer());
    const text = pdfText(pdf);
    expect(text).toContain('Invoice INV-2024-0042');
    expect(text).toContain('Müller & Söhne GmbH');
    expect(text).toContain('Gear assembly');
    expect(text).toContain('Total: 626.50 EUR');
    expect(text).not.toContain('{{');
    expect(pdfImages(pdf)).toEqual([{ width: 120, height: 60 }]);
  });

  it('places two images of different sizes (options.output = docx)', async () => {
    const res = await postRender(api.url, {
      file: imageTemplate,
      request_data: {
        template_data: {},
        images: {
          logo: { data: solidPng(200, 100, [200, 0, 0]), width_mm: 40 },
          signature: { data: solidPng(60, 30, [0, 0, 200]), width_px: 96 },
        },
        options: { output: 'docx' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    expect(res.headers.get('content-disposition')).toContain('filename="template.docx"');
    const docx = Buffer.from(await res.arrayBuffer());
    const images = docxImages(docx);
    expect(images).toHaveLength(2);
    const sizes = images.map((i) => [i.cx / EMU_PER_MM, i.cy / EMU_PER_MM]).sort((a, b) => b[0] - a[0]);
    // 40 mm wide, aspect 2:1 kept; 96 px = 25.4 mm wide, aspect 2:1 kept
    expect(sizes[0][0]).toBeCloseTo(40, 1);
    expect(sizes[0][1]).toBeCloseTo(20, 1);
    expect(sizes[1][0]).toBeCloseTo(25.4, 1);
    expect(sizes[1][1]).toBeCloseTo(12.7, 1);
    expect(docxPlainText(docx)).toContain('Logo:');
  });

  it('embeds both images in the PDF', async () => {
    const res = await postRender(api.url, {
      file: imageTemplate,
      request_data: {
        template_data: {},
        images: {
          logo: { data: solidPng(200, 100, [200, 0, 0]), width_mm: 40 },
          signature: { data: solidPng(60, 30, [0, 0, 200]), height_mm: 10 },
        },
      },
    });
    expect(res.status).toBe(200);
    const images = pdfImages(Buffer.from(await res.arrayBuffer()));
    expect(images.map((i) => `${i.width}x${i.height}`).sort()).toEqual(['200x100', '60x30']);
  });
});

describe('options.pdf reaches the converter', () => {
  it('answers a PDF/A-2b with the title asked for', async () => {
    const res = await postRender(api.url, {
      file: helloTemplate,
      request_data: {
        template_data: { name: 'Ada', items: [], vip: false },
        options: { pdf: { pdfa: 'PDF/A-2b', metadata: { title: 'Greeting for Ada' } } },
      },
    });
    expect(res.status).toBe(200);
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdfXmp(pdf)).toMatch(/pdfaid:part(="|>)2/);
    expect(pdfInfo(pdf).Title).toBe('Greeting for Ada');
  });

  it('400 invalid_request_structure naming a bad PDF option, before any worker', async () => {
    const res = await postRender(api.url, {
      file: helloTemplate,
      request_data: { template_data: {}, options: { pdf: { pdfa: 'PDF/A-2b', quality: 500 } } },
    });
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error_type).toBe('invalid_request_structure');
    expect(body.message).toContain('options.pdf.quality');
  });
});

describe('template errors cross the queue with their type, status and details', () => {
  it('422 template_syntax_error names the faulty tag', async () => {
    const res = await postRender(api.url, {
      file: buildDocx({ body: [p('Dear {{ customer.name }'), p('{% if x %}never closed')] }),
      request_data: { template_data: { customer: { name: 'x' } } },
    });
    expect(res.status).toBe(422);
    const body = await errorOf(res);
    expect(body.error_type).toBe('template_syntax_error');
    const errors = body.details.errors as Array<{ tag: string; context: string; part: string }>;
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors[0].part).toBe('word/document.xml');
    expect(JSON.stringify(errors)).toContain('customer.name');

    // the failed job keeps a readable reason, and its data carries no document bytes
    // The answer comes by reply before BullMQ records the failure: wait for the record.
    const failedJob = async () =>
      (await queue.getFailed()).find(
        (j) => JSON.parse(j.failedReason).error_type === 'template_syntax_error',
      );
    await waitUntil(async () => (await failedJob()) !== undefined, 10_000, 'the failed job');
    const job = await failedJob();
    expect(job).toBeDefined();
    expect(Object.keys(job!.data).sort()).toEqual(
      [
        'admittedAt',
        'filename',
        'imageCount',
        'options',
        'replyKey',
        'requestBytes',
        'requestId',
        'requestKey',
        'templateBytes',
        'templateChecked',
        'templateDigest',
        'templateKey',
      ].sort(),
    );
    expect(job!.attemptsMade).toBe(1); // not retried
    expect(await payloadKeysLeft()).toEqual([]);
  });

  it('422 undefined_variable in strict mode lists the variables', async () => {
    const res = await postRender(api.url, {
      file: helloTemplate,
      request_data: { template_data: { items: [] }, options: { undefined: 'strict' } },
    });
    expect(res.status).toBe(422);
    const body = await errorOf(res);
    expect(body.error_type).toBe('undefined_variable');
    expect(body.details.variables).toEqual(expect.arrayContaining(['name']));
  });

  it('422 template_runtime_error for an expression that fails on the data', async () => {
    const res = await postRender(api.url, {
      file: buildDocx({ body: [p('{% for x in count %}{{ x }}{% endfor %}')] }),
      request_data: { template_data: { count: 5 } },
    });
    expect(res.status).toBe(422);
    expect((await errorOf(res)).error_type).toBe('template_runtime_error');
  });
});

describe('client errors are answered by the API without a worker', () => {
  const okData = { request_data: { template_data: { name: 'x' } } };

  it('400 missing_file', async () => {
    const res = await postRender(api.url, { data: { name: 'x' } });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error_type).toBe('missing_file');
  });

  it('400 invalid_request_structure when the body is not multipart', async () => {
    const res = await fetch(`${api.url}/api/v1/process-template-document`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: {} }),
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error_type).toBe('invalid_request_structure');
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'both data and request_data',
      { data: '{}', request_data: '{"template_data":{}}' },
      'invalid_request_structure',
    ],
    ['malformed JSON', { request_data: '{"template_data": {' }, 'invalid_request_structure'],
    ['data that is not an object', { data: '"text"' }, 'invalid_request_structure'],
    [
      'an unknown top-level field',
      { request_data: { template_data: {}, extra: true } },
      'invalid_request_structure',
    ],
    [
      'an unknown ImageData field',
      { request_data: { template_data: {}, images: { logo: { data: 'iVBORw0KGgo=', dpi: 300 } } } },
      'invalid_request_structure',
    ],
    [
      'a size of the wrong type',
      { request_data: { template_data: {}, images: { logo: { data: 'iVBORw0KGgo=', width_mm: 'wide' } } } },
      'invalid_request_structure',
    ],
    ['neither data nor request_data', {}, 'missing_template_data'],
    ['request_data without template_data', { request_data: { images: {} } }, 'missing_template_data'],
    [
      'template_data that is not an object',
      { request_data: { template_data: 'x' } },
      'missing_template_data',
    ],
  ])('400 for %s', async (_what, fields, errorType) => {
    const res = await postRender(api.url, { file: helloTemplate, ...fields });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error_type).toBe(errorType);
  });

  it('400 invalid_template for a file that is not a .docx', async () => {
    const res = await postRender(api.url, {
      file: Buffer.from('just some text'),
      filename: 'fake.docx',
      ...okData,
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error_type).toBe('invalid_template');
  });

  it('400 image_processing_error names the image, the cause and a suggestion', async () => {
    const res = await postRender(api.url, {
      file: imageTemplate,
      request_data: {
        template_data: {},
        images: { logo: { data: Buffer.from('GIF89a not a png').toString('base64') } },
      },
    });
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error_type).toBe('image_processing_error');
    expect(body.message).toContain('logo');
    expect(body.details).toEqual({
      image_name: 'logo',
      error: expect.any(String),
      error_class: expect.any(String),
      suggestion: expect.any(String),
    });
  });

  it('400 image_processing_error for base64 that does not decode', async () => {
    const res = await postRender(api.url, {
      file: imageTemplate,
      request_data: { template_data: {}, images: { signature: { data: '***not base64***' } } },
    });
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error_type).toBe('image_processing_error');
    expect(body.details.image_name).toBe('signature');
  });

  it('400 invalid_request_structure for a file sent under another field name', async () => {
    const res = await postRender(api.url, {
      file: helloTemplate,
      ...okData,
      extra: (form) => form.append('template', new Blob([helloTemplate]), 'other.docx'),
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error_type).toBe('invalid_request_structure');
  });

  it('413 payload_too_large for a template over MAX_TEMPLATE_BYTES', async () => {
    const res = await postRender(api.url, { file: Buffer.alloc(MAX_TEMPLATE_BYTES + 1, 1), ...okData });
    expect(res.status).toBe(413);
    const body = await errorOf(res);
    expect(body.error_type).toBe('payload_too_large');
    expect(body.details.max_bytes).toBe(MAX_TEMPLATE_BYTES);
  });

  it('413 payload_too_large for request_data over MAX_REQUEST_BYTES', async () => {
    const res = await postRender(api.url, {
      file: helloTemplate,
      request_data: { template_data: { name: 'x'.repeat(MAX_REQUEST_BYTES) } },
    });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).error_type).toBe('payload_too_large');
  });

  it('413 payload_too_large for too many images', async () => {
    const png = solidPng(4, 4, [0, 0, 0]);
    const images = Object.fromEntries(['a', 'b', 'c', 'd'].map((k) => [k, { data: png }]));
    const res = await postRender(api.url, {
      file: imageTemplate,
      request_data: { template_data: {}, images },
    });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).error_type).toBe('payload_too_large');
  });

  it('refuses an image over MAX_IMAGE_PIXELS before decoding it', async () => {
    const res = await postRender(api.url, {
      file: imageTemplate,
      request_data: { template_data: {}, images: { logo: { data: solidPng(2000, 1000, [255, 255, 255]) } } },
    });
    expect([400, 413]).toContain(res.status);
    expect(['payload_too_large', 'image_processing_error']).toContain((await errorOf(res)).error_type);
  });

  it('none of these reached the queue', async () => {
    // 4 renders + 1 with options.pdf + 1 syntax, 1 undefined, 1 runtime error: client errors never became jobs
    // (answers come by reply, a moment before BullMQ records the last job's end: wait for it).
    const ended = async () => {
      const counts = await queue.getJobCounts('completed', 'failed');
      return counts.completed + counts.failed;
    };
    await waitUntil(async () => (await ended()) >= 8, 10_000, 'the jobs’ records').catch(() => undefined);
    expect(await ended()).toBe(8);
    expect(await payloadKeysLeft()).toEqual([]);
    expect(worker.running).toBe(true);
  });
});
