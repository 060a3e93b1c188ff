import {
  BatchItemSchema,
  EnhancedRequestSchema,
  fieldsOf,
  InvalidRequestError,
  JobRequestSchema,
  PayloadTooLargeError,
  PyFloat,
  stringifyDataJson,
} from '@app/contracts';
import { corpusRequest } from '../../../../bench/corpus';
import { parseJobFields } from './job-fields';

const LIMITS = { maxJsonDepth: 16, maxDocuments: 10, maxBatchItems: 5 };
// 1×1 PNG
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const parse = (requestData: unknown, extra: Record<string, unknown> = {}) =>
  parseJobFields({ request_data: JSON.stringify(requestData), ...extra }, LIMITS);

describe('parseJobFields: outputs beyond PDF', () => {
  it('refuses a merged batch of any other format than pdf, naming both fields', () => {
    for (const format of ['docx', 'odt', 'html', 'txt', 'png', 'jpeg']) {
      try {
        parse({ batch: [{ template_data: {} }], output: 'merged', options: { output: format } });
        throw new Error('not refused');
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidRequestError);
        expect((e as InvalidRequestError).details.fields).toEqual(['output', 'options.output']);
        expect((e as InvalidRequestError).message).toContain(`"${format}"`);
      }
    }
    expect(
      parse({ batch: [{ template_data: {} }], output: 'merged', options: { output: 'pdf' } }).output,
    ).toBe('merged');
  });

  it('names zip items by the format: .html, .jpg, and .zip for several pages', () => {
    const names = (options: unknown) =>
      parse({ batch: [{ template_data: {}, filename: 'letter.docx' }], options }).items!.map((i) => i.name);
    expect(names({ output: 'html' })).toEqual(['letter.html']);
    expect(names({ output: 'jpeg' })).toEqual(['letter.jpg']);
    expect(names({ output: 'png', image: { pages: '3' } })).toEqual(['letter.png']);
    expect(names({ output: 'png', image: { pages: '1-2' } })).toEqual(['letter.zip']);
  });
});

describe('parseJobFields', () => {
  it('a plain request is one document; webhook_url comes from the form or request_data', () => {
    const plain = parse({ template_data: { a: 1 } }, { webhook_url: 'https://h.example/x' });
    expect(plain).toMatchObject({
      output: 'single',
      webhookUrl: 'https://h.example/x',
      request: { template_data: { a: 1 } },
    });
    expect(plain.items).toBeUndefined();
    expect(parse({ template_data: {}, webhook_url: 'https://h.example/y' }).webhookUrl).toBe(
      'https://h.example/y',
    );
    expect(() =>
      parse({ template_data: {}, webhook_url: 'https://a/' }, { webhook_url: 'https://b/' }),
    ).toThrow(InvalidRequestError);
    expect(() => parse({ template_data: {}, webhook_url: 42 })).toThrow(InvalidRequestError);
    // legacy `data` works too
    expect(parseJobFields({ data: '{"x": 1}' }, LIMITS)).toMatchObject({
      output: 'single',
      request: { template_data: { x: 1 } },
    });
  });

  it('a 50,000-row statement is one document, its rows as written (the worker sizes its budget)', () => {
    const request = corpusRequest('invoice', { rows: 50_000 });
    const json = JSON.stringify(request);
    expect(json.length).toBeGreaterThan(5_000_000); // within MAX_REQUEST_BYTES (32 MiB)
    const parsed = parseJobFields({ request_data: json }, LIMITS);
    expect(parsed.output).toBe('single');
    expect(parsed.items).toBeUndefined();
    const items = parsed.request.template_data.items as unknown[];
    expect(items).toHaveLength(50_000);
    expect(items[49_999]).toEqual((request.template_data.items as unknown[])[49_999]);
  });

  it('a batch: items get the shared images (their own win), names from filename or index, unique', () => {
    const parsed = parse({
      images: { logo: { data: PNG }, sign: { data: PNG } },
      batch: [
        { template_data: { n: 0 }, filename: 'Ada Lovelace.pdf' },
        { template_data: { n: 1 } },
        { template_data: { n: 2 }, filename: 'ada lovelace' },
        {
          template_data: { n: 3 },
          images: { sign: { data: PNG, width_mm: 20 } },
          filename: '../../etc/passwd',
        },
      ],
    });
    expect(parsed.output).toBe('zip');
    expect(parsed.items!.map((i) => i.name)).toEqual([
      'Ada Lovelace.pdf',
      '1.pdf',
      'ada lovelace-2.pdf',
      'passwd.pdf',
    ]);
    expect(parsed.items![1].request).toEqual({
      template_data: { n: 1 },
      images: { logo: { data: PNG }, sign: { data: PNG } },
    });
    expect(parsed.items![3].request.images!.sign).toEqual({ data: PNG, width_mm: 20 });
    expect(parse({ batch: [{ template_data: {} }], output: 'merged' }).output).toBe('merged');
    // finishing options go with ZIP items (each PDF is finished on its own)
    expect(
      parse({ batch: [{ template_data: {} }], options: { pdf: { watermark: { text: 'DRAFT' } } } }).output,
    ).toBe('zip');
  });

  it('refuses what is wrong before anything is queued', () => {
    expect(() => parse({ batch: Array.from({ length: 6 }, () => ({ template_data: {} })) })).toThrow(
      PayloadTooLargeError,
    );
    for (const bad of [
      { batch: [] },
      { batch: {} },
      { batch: [{ template_data: [] }] },
      { batch: [{ template_data: {}, extra: 1 }] },
      { batch: [{ template_data: {}, __proto__x: 1 }] },
      { batch: [{ template_data: {}, filename: 7 }] },
      { batch: [{ template_data: {}, images: [] }] },
      { batch: [{ template_data: {}, images: { logo: { data: PNG, colour: 'red' } } }] },
      { batch: [{ template_data: {} }], output: 'tar' },
      { template_data: {}, output: 'zip' },
      { batch: [{ template_data: {} }], output: 'merged', options: { output: 'docx' } },
      {
        batch: [{ template_data: {} }],
        output: 'merged',
        options: { pdf: { watermark: { text: 'DRAFT' } } },
      },
      { batch: [{ template_data: {} }], unknown: 1 },
    ]) {
      expect(() => parse(bad)).toThrow(InvalidRequestError);
    }
  });

  it('an own __proto__ key stays data: it never reaches a prototype', () => {
    const parsed = parseJobFields(
      {
        request_data:
          '{"images": {"logo": {"data": "' +
          PNG +
          '"}}, "batch": [{"template_data": {"__proto__": {"polluted": 1}}, "images": {"__proto__": {"data": "' +
          PNG +
          '"}}}]}',
      },
      LIMITS,
    );
    const images = parsed.items![0].request.images!;
    expect(Object.getPrototypeOf(images)).toBe(Object.prototype);
    expect(Object.keys(images).sort()).toEqual(['__proto__', 'logo']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('JSON nested too deep is refused by the render form parser, batch or not', () => {
    let deep: unknown = {};
    for (let i = 0; i < 20; i++) deep = { d: deep };
    expect(() => parse({ batch: [{ template_data: deep }] })).toThrow(/deeper than 16/);
  });

  it('numbers stay as written in a batch and beside it, and image sizes are plain numbers', () => {
    const text =
      '{"template_data": {"rate": 9.0}, "output": "zip", "batch": [' +
      '{"template_data": {"price": 2.0, "qty": 3}, "images": {"logo": {"data": "' +
      PNG +
      '", "width_mm": 20.0}}}]}';
    const parsed = parseJobFields({ request_data: text }, LIMITS);
    const item = parsed.items![0].request;
    expect(item.template_data.price).toBeInstanceOf(PyFloat);
    expect(item.template_data.qty).toBe(3);
    expect(stringifyDataJson(item.template_data)).toBe('{"price":2.0,"qty":3}');
    expect(parsed.request.template_data.rate).toBeInstanceOf(PyFloat);
    expect(item.images!.logo.width_mm).toBe(20);
  });
});

describe('the job fields come from the schemas (JobRequestSchema, BatchItemSchema)', () => {
  it('JobRequestSchema is EnhancedRequestSchema plus batch, output, webhook_url and deliver_to', () => {
    expect(fieldsOf(JobRequestSchema)).toEqual([
      ...fieldsOf(EnhancedRequestSchema),
      'batch',
      'output',
      'webhook_url',
      'deliver_to',
    ]);
  });

  it('refuses a batch item field BatchItemSchema does not declare, naming it', () => {
    expect(() =>
      parseJobFields(
        { request_data: JSON.stringify({ batch: [{ template_data: {}, colour: 'red' }] }) },
        LIMITS,
      ),
    ).toThrow('batch[0] has unknown fields: colour');
    for (const field of fieldsOf(BatchItemSchema))
      expect(() =>
        parseJobFields(
          {
            request_data: JSON.stringify({
              batch: [{ template_data: {}, [field]: field === 'template_data' ? {} : null }],
            }),
          },
          LIMITS,
        ),
      ).not.toThrow();
  });
});
