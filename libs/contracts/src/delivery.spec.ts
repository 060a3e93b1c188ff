import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseAllowedHosts } from './caller-url';
import { checkDeliveryUrls, InvalidDeliverToError, parseDeliverTo, putResult, shownUrl } from './delivery';
import { parseJobFields } from './request/job-fields';

const SIGNED = 'https://bucket.s3.example.com/out/a.pdf?X-Amz-Signature=abc123&X-Amz-Expires=600';

function reasonOf(f: () => unknown): string {
  try {
    f();
    return 'accepted';
  } catch (e) {
    if (!(e instanceof InvalidDeliverToError)) throw e;
    return String(e.details.reason);
  }
}

describe('parseDeliverTo', () => {
  const single = { output: 'single' as const };
  const batch = { output: 'zip' as const, itemCount: 2 };

  it('takes a URL with headers, and one URL per item of a ZIP batch', () => {
    expect(parseDeliverTo({ url: SIGNED, headers: { 'x-ms-blob-type': 'BlockBlob' } }, single)).toEqual({
      mode: 'whole',
      targets: [{ url: SIGNED, headers: { 'x-ms-blob-type': 'BlockBlob' } }],
    });
    expect(parseDeliverTo({ items: [{ url: SIGNED }, { url: SIGNED }] }, batch).targets).toHaveLength(2);
  });

  it('refuses a bad shape, and items that are not one per item of a ZIP batch', () => {
    expect(reasonOf(() => parseDeliverTo('https://x.example/', single))).toBe('invalid_structure');
    expect(reasonOf(() => parseDeliverTo({ url: 42 }, single))).toBe('invalid_structure');
    expect(reasonOf(() => parseDeliverTo({ url: SIGNED, method: 'POST' }, single))).toBe('invalid_structure');
    expect(reasonOf(() => parseDeliverTo({ url: SIGNED, headers: { a: 1 } }, single))).toBe(
      'invalid_structure',
    );
    expect(reasonOf(() => parseDeliverTo({ items: [{ url: SIGNED }] }, batch))).toBe('items_count_mismatch');
    expect(reasonOf(() => parseDeliverTo({ items: [{ url: SIGNED }] }, single))).toBe(
      'items_need_a_zip_batch',
    );
    expect(
      reasonOf(() =>
        parseDeliverTo({ items: [{ url: SIGNED }, { url: SIGNED }] }, { ...batch, output: 'merged' }),
      ),
    ).toBe('items_need_a_zip_batch');
    expect(reasonOf(() => parseDeliverTo({ items: [{ url: SIGNED }, { nope: 1 }] }, batch))).toBe(
      'invalid_structure',
    );
  });

  it.each([
    [{ 'x-a': 'one\r\nInjected: yes' }, 'invalid_header_value'],
    [{ 'x-a': 'one\nInjected: yes' }, 'invalid_header_value'],
    [{ 'bad name': 'v' }, 'invalid_header_name'],
    [{ 'x-a\r\nInjected': 'v' }, 'invalid_header_name'],
    [{ Host: 'internal' }, 'header_not_allowed'],
    [{ connection: 'close' }, 'header_not_allowed'],
    [{ 'Keep-Alive': '5' }, 'header_not_allowed'],
    [{ 'Transfer-Encoding': 'chunked' }, 'header_not_allowed'],
    [{ TE: 'trailers' }, 'header_not_allowed'],
    [{ Trailer: 'x' }, 'header_not_allowed'],
    [{ Upgrade: 'h2c' }, 'header_not_allowed'],
    [{ 'Proxy-Authorization': 'Basic x' }, 'header_not_allowed'],
    [{ 'Content-Length': '1' }, 'header_not_allowed'],
    [{ 'x-a': '1', 'X-A': '2' }, 'duplicate_header'],
    [Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`x-h${i}`, 'v'])), 'too_many_headers'],
    [{ 'x-big': 'v'.repeat(9000) }, 'headers_too_large'],
  ])('refuses the headers %j (%s)', (headers, reason) => {
    expect(reasonOf(() => parseDeliverTo({ url: SIGNED, headers }, single))).toBe(reason);
  });

  it('comes from request_data.deliver_to through the job parser', () => {
    const limits = { maxJsonDepth: 64, maxDocuments: 10, maxPdfExtraBytes: 1_000_000, maxBatchItems: 10 };
    const parsed = parseJobFields(
      {
        request_data: JSON.stringify({
          batch: [{ template_data: { a: 1 } }, { template_data: { a: 2 } }],
          deliver_to: { items: [{ url: SIGNED }, { url: SIGNED, headers: { 'x-b': 'c' } }] },
        }),
      },
      limits,
    );
    expect(parsed.deliverTo?.mode).toBe('items');
    expect(() =>
      parseJobFields(
        {
          request_data: JSON.stringify({
            template_data: {},
            deliver_to: { url: SIGNED, headers: { Host: 'x' } },
          }),
        },
        limits,
      ),
    ).toThrow(InvalidDeliverToError);
  });
});

describe('delivery URLs', () => {
  const resolve = async (host: string) =>
    host === 'bucket.s3.example.com'
      ? [{ address: '52.1.2.3', family: 4 }]
      : [{ address: '10.0.0.5', family: 4 }];

  it("are checked as callers' URLs, and never shown with their query", async () => {
    const none = parseAllowedHosts('');
    await expect(
      checkDeliveryUrls({ mode: 'whole', targets: [{ url: SIGNED }] }, none, resolve),
    ).resolves.toBe(undefined);
    const refused = checkDeliveryUrls(
      {
        mode: 'items',
        targets: [{ url: SIGNED }, { url: 'https://intranet.example/x?X-Amz-Signature=s3cr3t' }],
      },
      none,
      resolve,
    );
    await expect(refused).rejects.toMatchObject({
      errorType: 'invalid_deliver_to',
      details: { reason: 'address_not_allowed', field: 'deliver_to.items[1].url', range: 'private' },
    });
    const error = await refused.catch((e: InvalidDeliverToError) => JSON.stringify(e.toBody()));
    expect(error).not.toContain('s3cr3t');
    expect(shownUrl(SIGNED)).toBe('https://bucket.s3.example.com/out/a.pdf');
  });
});

describe('putResult', () => {
  let server: Server;
  let port: number;
  const seen: Array<{ method?: string; url?: string; headers: IncomingMessage['headers']; body: Buffer }> =
    [];
  let answer = 200;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) });
        res.statusCode = answer;
        if (answer === 307) res.setHeader('location', 'http://127.0.0.1:1/elsewhere');
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const put = (url: string, allowed = `127.0.0.1:${port}`) =>
    putResult({
      target: { url, headers: { 'x-ms-blob-type': 'BlockBlob' } },
      field: 'deliver_to.url',
      body: Buffer.from('%PDF-1.7 body'),
      contentType: 'application/pdf',
      timeoutMs: 5000,
      allowed: parseAllowedHosts(allowed),
    });

  it("PUTs the body with its type, length and the caller's headers; a redirect is not followed", async () => {
    answer = 200;
    const url = `http://127.0.0.1:${port}/b/a.pdf?X-Amz-Signature=abc`;
    await expect(put(url)).resolves.toEqual({ outcome: 'delivered', status: 200 });
    expect(seen.at(-1)).toMatchObject({
      method: 'PUT',
      url: '/b/a.pdf?X-Amz-Signature=abc',
      headers: { 'content-type': 'application/pdf', 'content-length': '13', 'x-ms-blob-type': 'BlockBlob' },
    });
    expect(seen.at(-1)?.body.toString()).toBe('%PDF-1.7 body');
    answer = 307;
    const before = seen.length;
    await expect(put(url)).resolves.toMatchObject({ outcome: 'failed', status: 307 });
    expect(seen.length).toBe(before + 1);
  });

  it('refuses, without connecting, a URL that no longer passes the check', async () => {
    const before = seen.length;
    await expect(put(`http://127.0.0.1:${port}/b/a.pdf?sig=1`, '')).resolves.toMatchObject({
      outcome: 'refused',
    });
    expect(seen.length).toBe(before);
  });
});
