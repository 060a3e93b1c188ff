import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { parseAllowedHosts, refusedRange } from './caller-url';
import { checkWebhookUrl, deliverWebhook, InvalidWebhookUrlError, webhookHeaders } from './webhooks';

const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const NONE = parseAllowedHosts('');

/** A resolver answering from a table (what DNS would say for these names). */
const dns =
  (table: Record<string, string[]>) =>
  async (host: string): Promise<Array<{ address: string; family: number }>> => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

async function reason(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidWebhookUrlError);
    return (e as InvalidWebhookUrlError).details.reason;
  }
  return 'accepted';
}

describe('refusedRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:a00:1', 'private'],
  ])('%s is refused (%s)', (address, range) => {
    expect(refusedRange(address)).toBe(range);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(refusedRange(address)).toBeNull();
    },
  );
});

describe('checkWebhookUrl', () => {
  const resolve = dns({
    'hooks.example.com': ['93.184.215.14'],
    'intranet.example.com': ['10.0.0.7'],
    'mixed.example.com': ['93.184.215.14', '192.168.0.2'],
    'v6.example.com': ['fd00::5'],
    localhost: ['127.0.0.1', '::1'],
  });

  it('accepts http and https URLs whose every address is public', async () => {
    expect(await reason(checkWebhookUrl('https://hooks.example.com/x?y=1', NONE, resolve))).toBe('accepted');
    expect(await reason(checkWebhookUrl('http://8.8.8.8:8080/', NONE, resolve))).toBe('accepted');
  });

  it('refuses other schemes, credentials, non-URLs and names that do not resolve', async () => {
    expect(await reason(checkWebhookUrl('ftp://hooks.example.com/', NONE, resolve))).toBe(
      'scheme_not_allowed',
    );
    expect(await reason(checkWebhookUrl('file:///etc/passwd', NONE, resolve))).toBe('scheme_not_allowed');
    expect(await reason(checkWebhookUrl('gopher://hooks.example.com/', NONE, resolve))).toBe(
      'scheme_not_allowed',
    );
    expect(await reason(checkWebhookUrl('https://u:p@hooks.example.com/', NONE, resolve))).toBe(
      'credentials',
    );
    expect(await reason(checkWebhookUrl('hooks.example.com/x', NONE, resolve))).toBe('not_a_url');
    expect(await reason(checkWebhookUrl('https://nowhere.example.com/', NONE, resolve))).toBe('unresolvable');
    const long = `https://hooks.example.com/${'a'.repeat(2100)}`;
    expect(await reason(checkWebhookUrl(long, NONE, resolve))).toBe('too_long');
  });

  it('refuses a name with any private address, IP literals in every notation, and loopback', async () => {
    for (const url of [
      'http://intranet.example.com/',
      'http://mixed.example.com/',
      'http://v6.example.com/',
      'http://localhost:8080/',
      'http://127.1/',
      'http://2130706433/',
      'http://0x7f000001/',
      'http://[::1]/',
      'http://[::ffff:7f00:1]/',
      'http://[::ffff:10.0.0.1]/',
      'http://[fe80::1%25eth0]/',
    ]) {
      const r = await reason(checkWebhookUrl(url, NONE, resolve));
      // the zone-id form is not even a valid URL for Node
      expect([url, r === 'address_not_allowed' || r === 'not_a_url']).toEqual([url, true]);
    }
  });

  it('WEBHOOK_ALLOWED_HOSTS exempts a host, or a host on one port only', async () => {
    const allowed = parseAllowedHosts(' Localhost , 127.0.0.1:9000,[::1]:9001 ');
    expect(await reason(checkWebhookUrl('http://localhost:1234/', allowed, resolve))).toBe('accepted');
    expect(await reason(checkWebhookUrl('http://127.0.0.1:9000/', allowed, resolve))).toBe('accepted');
    expect(await reason(checkWebhookUrl('http://127.0.0.1:9002/', allowed, resolve))).toBe(
      'address_not_allowed',
    );
    expect(await reason(checkWebhookUrl('http://[::1]:9001/', allowed, resolve))).toBe('accepted');
    expect(await reason(checkWebhookUrl('http://[::1]:9002/', allowed, resolve))).toBe('address_not_allowed');
    expect(await reason(checkWebhookUrl('http://intranet.example.com/', allowed, resolve))).toBe(
      'address_not_allowed',
    );
  });
});

describe('webhookHeaders', () => {
  it('signs per Standard Webhooks: the package verifies it', () => {
    const body = JSON.stringify({ type: 'job.completed', data: { job_id: 'x' } });
    const headers = webhookHeaders(SECRET, 'msg_x', body);
    expect(headers['webhook-id']).toBe('msg_x');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(SECRET).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(SECRET).verify(`${body} `, headers)).toThrow();
  });
});

describe('deliverWebhook (a loopback receiver)', () => {
  let server: Server;
  let port = 0;
  const seen: Array<{ headers: Record<string, unknown>; body: string }> = [];
  let answer: (res: import('node:http').ServerResponse) => void = (res) => res.writeHead(200).end('ok');

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
        answer(res);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const input = (over: Partial<Parameters<typeof deliverWebhook>[0]> = {}) => ({
    url: `http://127.0.0.1:${port}/hook`,
    id: 'msg_1',
    body: '{"type":"job.completed"}',
    secret: SECRET,
    timeoutMs: 2000,
    allowed: parseAllowedHosts(`127.0.0.1:${port}`),
    ...over,
  });

  it('POSTs the signed body; 2xx is delivered', async () => {
    answer = (res) => res.writeHead(204).end();
    expect(await deliverWebhook(input())).toEqual({ outcome: 'delivered', status: 204 });
    const last = seen.at(-1)!;
    expect(last.body).toBe('{"type":"job.completed"}');
    expect(new Webhook(SECRET).verify(last.body, last.headers as Record<string, string>)).toBeTruthy();
  });

  it('a non-2xx answer, a redirect (not followed) and silence are failures to retry', async () => {
    answer = (res) => res.writeHead(500).end('no');
    expect(await deliverWebhook(input())).toMatchObject({ outcome: 'failed', status: 500 });
    const before = seen.length;
    answer = (res) => res.writeHead(302, { location: 'http://169.254.169.254/' }).end();
    expect(await deliverWebhook(input())).toMatchObject({ outcome: 'failed', status: 302 });
    expect(seen.length).toBe(before + 1);
    answer = () => undefined; // never answers
    const t0 = Date.now();
    expect(await deliverWebhook(input({ timeoutMs: 300 }))).toMatchObject({ outcome: 'failed' });
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('refuses at delivery a name that now resolves to a private address (DNS rebinding), without connecting', async () => {
    const before = seen.length;
    const rebound = dns({ 'hooks.example.com': ['127.0.0.1'] });
    const result = await deliverWebhook(
      input({ url: `http://hooks.example.com:${port}/hook`, allowed: NONE, resolve: rebound }),
    );
    expect(result).toMatchObject({ outcome: 'refused' });
    expect(seen.length).toBe(before);
  });

  it('connects to the address it checked, not to a second resolution', async () => {
    answer = (res) => res.writeHead(200).end();
    // hooks.test resolves (once, through the given resolver) to the loopback receiver, allowed by host:port.
    const result = await deliverWebhook(
      input({
        url: `http://hooks.test:${port}/hook`,
        allowed: parseAllowedHosts(`hooks.test:${port}`),
        resolve: dns({ 'hooks.test': ['127.0.0.1'] }),
      }),
    );
    expect(result).toEqual({ outcome: 'delivered', status: 200 });
    expect(seen.at(-1)!.headers.host).toBe(`hooks.test:${port}`);
  });
});
