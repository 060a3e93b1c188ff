/**
 * The formatting and barcode filters through the running service (Redis, a worker with
 * LibreOffice, the API): the request's locale and time zone in each mode (enhanced options, the
 * legacy and v1.6 form fields, the service's DEFAULT_LOCALE / DEFAULT_TIMEZONE), their 400s before
 * queueing, and a filter's 422 crossing the queue with the filter, the value and the tag named.
 */
import PizZip from 'pizzip';
import { buildDocx, messy, p, SPLIT as S } from './support/docx-builder';
import { docxImages } from './support/docx-text';
import {
  buildService,
  ManagedProcess,
  pdfImages,
  pdfText,
  postRender,
  RedisServer,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';

jest.setTimeout(180_000);

let redis: RedisServer;
let worker: ManagedProcess;
let api: RunningApi;

// Word-edited runs: tags split where formatting changed.
const template = buildDocx([
  messy(`Datum: {{ d | ${S}format_date("long") }}`),
  messy(`Beginn: {{ t | format_datetime(${S}"EEEE HH:mm zzzz") }}`),
  p('Summe: {{ total | format_currency("EUR") }}'),
  p('{{ url | qrcode(size_mm=25) }}'),
]);
const data = { d: '2026-11-25', t: '2026-11-25T14:30:00Z', total: 1234.56, url: 'https://example.org/i/42' };
const flat = (pdf: Buffer) => pdfText(pdf).replace(/\s+/g, ' ');

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  // The service's defaults are changed here, so a request that names none shows them.
  const env = testEnv(redis.url, {
    QUEUE_PREFIX: '{formatting}',
    DEFAULT_LOCALE: 'fr_FR',
    DEFAULT_TIMEZONE: 'America/New_York',
  });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
});

afterAll(async () => {
  await stopAll(api, worker);
  await stopAll(redis);
});

describe('locale and time zone of a request', () => {
  it('enhanced mode: options.locale / options.timezone', async () => {
    const res = await postRender(api.url, {
      file: template,
      request_data: { template_data: data, options: { locale: 'de_DE', timezone: 'Europe/Berlin' } },
    });
    expect(res.status).toBe(200);
    const pdf = Buffer.from(await res.arrayBuffer());
    const text = flat(pdf);
    expect(text).toContain('Datum: 25. November 2026');
    expect(text).toContain('Beginn: Mittwoch 15:30 Mitteleuropäische Normalzeit');
    expect(text).toContain('Summe: 1.234,56 €');
    expect(pdfImages(pdf)).toHaveLength(1); // the QR code
  });

  it('legacy form: the form fields locale and timezone', async () => {
    const res = await postRender(api.url, {
      file: template,
      data,
      extra: (form) => {
        form.append('locale', 'ja-JP');
        form.append('timezone', 'Asia/Tokyo');
      },
    });
    expect(res.status).toBe(200);
    // pdftotext puts spaces between CJK glyphs: compared without white space.
    const text = flat(Buffer.from(await res.arrayBuffer())).replace(/\s+/g, '');
    expect(text).toContain('Datum:2026年11月25日');
    expect(text).toContain('Beginn:水曜日23:30日本標準時');
    expect(text).toContain('Summe:€1,234.56');
  });

  it('v1.6 form: locale beside undefined_behavior; a request naming none gets DEFAULT_LOCALE / DEFAULT_TIMEZONE', async () => {
    const v16 = await postRender(api.url, {
      file: template,
      data,
      extra: (form) => {
        form.append('undefined_behavior', 'debug');
        form.append('locale', 'ru_RU');
      },
    });
    expect(v16.status).toBe(200);
    const text = flat(Buffer.from(await v16.arrayBuffer()));
    expect(text).toContain('Datum: 25 ноября 2026 г.');
    expect(text).toContain('Beginn: среда 09:30'); // DEFAULT_TIMEZONE America/New_York
    const plain = await postRender(api.url, { file: template, data });
    expect(flat(Buffer.from(await plain.arrayBuffer()))).toContain('Datum: 25 novembre 2026'); // DEFAULT_LOCALE fr_FR
  });

  it.each([
    [{ request_data: { template_data: data, options: { locale: 'xx_YY' } } }, 'options.locale'],
    [{ request_data: { template_data: data, options: { timezone: 'Mars/Olympus' } } }, 'options.timezone'],
    [{ data, extra: (f: FormData) => f.append('timezone', 'Europe/Atlantis') }, 'timezone'],
    [{ data, extra: (f: FormData) => f.append('locale', '../../etc/passwd') }, 'locale'],
  ])('an unknown locale or time zone is a 400 naming the field (%#)', async (form, field) => {
    const res = await postRender(api.url, { file: template, ...form });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error_type: string; message: string; details: { field: string } };
    expect(body.error_type).toBe('invalid_request_structure');
    expect(body.details.field).toBe(field);
    expect(body.message).toContain(field);
  });
});

describe('filter errors across the queue', () => {
  it('a letter in an EAN is a 422 naming the filter, the value, the reason and the tag', async () => {
    const res = await postRender(api.url, {
      file: buildDocx([p('{{ sku | barcode("ean13", width_mm=40) }}')]),
      request_data: { template_data: { sku: '40063813339A' } },
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error_type: string; message: string; details: { tag: string } };
    expect(body.error_type).toBe('template_runtime_error');
    expect(body.message).toContain('barcode: "40063813339A": cannot be encoded as ean13');
    expect(body.message).toContain('must contain only digits');
    expect(body.details.tag).toBe('{{ sku | barcode("ean13", width_mm=40) }}');
  });

  it('a bad IBAN and a value that is not a date are 422s too', async () => {
    const epc = await postRender(api.url, {
      file: buildDocx([p('{{ pay | epc_qr }}')]),
      request_data: { template_data: { pay: { name: 'A', iban: 'DE89370400440532013001', amount: 5 } } },
    });
    expect(epc.status).toBe(422);
    expect(((await epc.json()) as { message: string }).message).toContain('IBAN checksum is wrong');
    const date = await postRender(api.url, {
      file: template,
      request_data: { template_data: { ...data, d: '25.11.2026' } },
    });
    expect(date.status).toBe(422);
    expect(((await date.json()) as { message: string }).message).toContain(
      'format_date: "25.11.2026": not an ISO 8601 date',
    );
  });

  it('output docx: the code is an inline w:drawing of the size asked for', async () => {
    const res = await postRender(api.url, {
      file: template,
      request_data: { template_data: data, options: { output: 'docx' } },
    });
    expect(res.status).toBe(200);
    const docx = Buffer.from(await res.arrayBuffer());
    const [img] = docxImages(docx);
    expect(img).toMatchObject({ inline: true, exists: true, cx: 25 * 36000, cy: 25 * 36000 });
    expect(new PizZip(docx).file('word/document.xml')!.asText()).toContain(
      'descr="qrcode: https://example.org/i/42"',
    );
  });
});
