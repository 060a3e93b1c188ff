/**
 * Stored templates with versions, API keys and namespaces (issue 38, docs/templates.md), against
 * the real API with a private Redis and PostgreSQL (test/support/postgres.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildDocx, p } from './support/docx-builder';
import { startPostgres, type RunningPostgres } from './support/postgres';
import { buildService, RedisServer, RunningApi, startApi, stopAll, testEnv } from './service-harness';

jest.setTimeout(120_000);

let redis: RedisServer;
let pg: RunningPostgres;
let api: RunningApi;
const ADMIN_KEY = `dpk_${'a'.repeat(43)}`;

const hello = (greeting: string) => buildDocx({ body: [p(`${greeting} {{ name }}!`)] });
const broken = buildDocx({ body: [p('{% for x in items %}never closed')] });

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

async function call(method: string, path: string, key?: string, body?: FormData | object): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  let payload: FormData | string | undefined;
  if (body instanceof FormData) payload = body;
  else if (body) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(`${api.url}${path}`, { method, headers, body: payload });
  const text = res.headers.get('content-type')?.startsWith('application/json') ? await res.text() : '';
  return {
    status: res.status,
    body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    headers: res.headers,
  };
}

function templateForm(file: Buffer, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  form.append('file', new Blob([file]), 'template.docx');
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

async function newKey(namespace: string, scopes: string[]): Promise<string> {
  const r = await call('POST', '/api/v1/keys', ADMIN_KEY, { namespace, scopes });
  expect(r.status).toBe(201);
  return r.body.key as string;
}

const keys: Record<string, string> = {};

beforeAll(async () => {
  buildService();
  [redis, pg] = await Promise.all([RedisServer.start(), startPostgres()]);
  const dir = mkdtempSync(join(tmpdir(), 'templates-e2e-'));
  const adminKeyFile = join(dir, '.admin-key');
  writeFileSync(adminKeyFile, `${ADMIN_KEY}\n`, { mode: 0o600 });
  api = await startApi(testEnv(redis.url, { DATABASE_URL: pg.url, ADMIN_KEY_FILE: adminKeyFile }));
  keys.writer = await newKey('acme', ['templates:write', 'templates:read', 'render']);
  keys.reader = await newKey('acme', ['templates:read']);
  keys.renderer = await newKey('acme', ['render']);
  keys.other = await newKey('globex', ['templates:write', 'templates:read', 'render']);
});

afterAll(async () => {
  await stopAll(api, redis);
  await pg?.stop();
});

describe('the life cycle: create, version, publish, roll back, delete', () => {
  let id: string;

  it('creates a template: version 1, published, with lint and inspection', async () => {
    const r = await call(
      'POST',
      '/api/v1/templates',
      keys.writer,
      templateForm(hello('Hello'), {
        name: 'invoice',
        description: 'The invoice',
        labels: '["billing","2026"]',
        sample_data: '{"name":"Ada"}',
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: 'invoice',
      version: { number: 1, digest: expect.stringMatching(/^[0-9a-f]{64}$/), created_at: expect.any(String) },
      published: true,
      lint: { success: true, errors: [] },
      inspection: { variables: expect.arrayContaining([expect.objectContaining({ path: 'name' })]) },
    });
    id = r.body.template_id as string;
  });

  it('adds versions: a broken one is stored but not published, a good one with publish=true is', async () => {
    const bad = await call(
      'POST',
      `/api/v1/templates/${id}/versions`,
      keys.writer,
      templateForm(broken, { publish: 'true' }),
    );
    expect(bad.status).toBe(201);
    expect(bad.body).toMatchObject({ version: { number: 2 }, published: false, lint: { success: false } });
    const good = await call(
      'POST',
      `/api/v1/templates/${id}/versions`,
      keys.writer,
      templateForm(hello('Hi'), { publish: 'true' }),
    );
    expect(good.body).toMatchObject({ version: { number: 3 }, published: true });
    const unpublished = await call(
      'POST',
      `/api/v1/templates/${id}/versions`,
      keys.writer,
      templateForm(hello('Hey')),
    );
    expect(unpublished.body).toMatchObject({ version: { number: 4 }, published: false });
    const detail = await call('GET', `/api/v1/templates/${id}`, keys.reader);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      current_version: 3,
      labels: ['billing', '2026'],
      sample_data: { name: 'Ada' },
    });
    expect((detail.body.versions as Array<{ number: number }>).map((v) => v.number)).toEqual([1, 2, 3, 4]);
    expect(detail.body.versions).toContainEqual(
      expect.objectContaining({ number: 1, size: hello('Hello').length, created_by: expect.any(String) }),
    );
  });

  it('returns each version’s .docx as uploaded', async () => {
    const res = await fetch(`${api.url}/api/v1/templates/${id}/versions/3/file`, {
      headers: { authorization: `Bearer ${keys.reader}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-template-version')).toBe('3');
    expect(Buffer.from(await res.arrayBuffer()).equals(hello('Hi'))).toBe(true);
  });

  it('rolls back by publishing an older version', async () => {
    const r = await call('POST', `/api/v1/templates/${id}/versions/1/publish`, keys.writer);
    expect(r.status).toBe(200);
    expect(r.body.current_version).toBe(1);
    expect(
      (await call('POST', `/api/v1/templates/${id}/versions/9/publish`, keys.writer)).body.error_type,
    ).toBe('template_not_found');
  });

  it('lists by name prefix and label, page by page', async () => {
    for (const name of ['invoice-b', 'invoice-c', 'letter']) {
      await call(
        'POST',
        '/api/v1/templates',
        keys.writer,
        templateForm(hello('Hi'), { name, labels: 'billing' }),
      );
    }
    const first = await call('GET', '/api/v1/templates?name=invoice&limit=2', keys.reader);
    expect((first.body.templates as Array<{ name: string }>).map((t) => t.name)).toEqual([
      'invoice',
      'invoice-b',
    ]);
    const second = await call(
      'GET',
      `/api/v1/templates?name=invoice&limit=2&cursor=${first.body.next_cursor as string}`,
      keys.reader,
    );
    expect((second.body.templates as Array<{ name: string }>).map((t) => t.name)).toEqual(['invoice-c']);
    expect(second.body.next_cursor).toBeNull();
    const byLabel = await call('GET', '/api/v1/templates?label=2026', keys.reader);
    expect((byLabel.body.templates as Array<{ name: string }>).map((t) => t.name)).toEqual(['invoice']);
  });

  it('deletes: then every route answers 404 template_not_found', async () => {
    const del = await fetch(`${api.url}/api/v1/templates/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${keys.writer}` },
    });
    expect(del.status).toBe(204);
    for (const [method, path] of [
      ['GET', `/api/v1/templates/${id}`],
      ['GET', `/api/v1/templates/${id}/versions/1/file`],
      ['POST', `/api/v1/templates/${id}/versions/1/publish`],
      ['DELETE', `/api/v1/templates/${id}`],
    ]) {
      const r = await call(method, path, keys.writer);
      expect([path, r.status, r.body.error_type]).toEqual([path, 404, 'template_not_found']);
    }
    const list = await call('GET', '/api/v1/templates?name=invoice', keys.reader);
    expect((list.body.templates as Array<{ name: string }>).map((t) => t.name)).not.toContain('invoice');
  });
});

describe('namespaces', () => {
  it('another namespace’s template answers exactly as a missing one, on every route', async () => {
    const mine = await call(
      'POST',
      '/api/v1/templates',
      keys.writer,
      templateForm(hello('Hi'), { name: 'secret' }),
    );
    const id = mine.body.template_id as string;
    const missing = '00000000-0000-4000-8000-000000000000';
    const routes = (t: string): Array<[string, string, FormData?]> => [
      ['GET', `/api/v1/templates/${t}`],
      ['GET', `/api/v1/templates/${t}/versions/1/file`],
      ['POST', `/api/v1/templates/${t}/versions`, templateForm(hello('x'))],
      ['POST', `/api/v1/templates/${t}/versions/1/publish`],
      ['DELETE', `/api/v1/templates/${t}`],
    ];
    const foreign = await Promise.all(routes(id).map(([m, path, body]) => call(m, path, keys.other, body)));
    const absent = await Promise.all(
      routes(missing).map(([m, path, body]) => call(m, path, keys.other, body)),
    );
    expect(foreign.map((r) => [r.status, r.body])).toEqual(
      absent.map((r) => [r.status, { ...r.body, message: expect.any(String) }]),
    );
    expect(new Set(foreign.map((r) => r.status))).toEqual(new Set([404]));
    // Nothing of it leaks into the other namespace's list; and the owner still has it whole.
    const list = await call('GET', '/api/v1/templates', keys.other);
    expect(list.body.templates).toEqual([]);
    const still = await call('GET', `/api/v1/templates/${id}`, keys.reader);
    expect((still.body.versions as unknown[]).length).toBe(1);
  });
});

describe('keys and scopes', () => {
  it('missing, malformed or unknown key: 401 unauthorized', async () => {
    for (const key of [undefined, 'dpk_unknown']) {
      const r = await call('GET', '/api/v1/templates', key);
      expect([r.status, r.body.error_type]).toEqual([401, 'unauthorized']);
    }
    const res = await fetch(`${api.url}/api/v1/templates`, { headers: { authorization: 'Basic abc' } });
    expect(res.status).toBe(401);
  });

  it('each scope is refused where it does not reach: 403 forbidden', async () => {
    const cases: Array<[string, string, string, FormData | object | undefined]> = [
      [keys.reader, 'POST', '/api/v1/templates', templateForm(hello('x'), { name: 'n' })],
      [keys.renderer, 'GET', '/api/v1/templates', undefined],
      [keys.renderer, 'POST', '/api/v1/templates', templateForm(hello('x'), { name: 'n' })],
      [keys.writer, 'POST', '/api/v1/keys', { namespace: 'acme', scopes: ['admin'] }],
    ];
    for (const [key, method, path, body] of cases) {
      const r = await call(method, path, key, body);
      expect([path, r.status, r.body.error_type]).toEqual([path, 403, 'forbidden']);
    }
  });

  it('POST /api/v1/keys refuses a bad namespace or scope with 400', async () => {
    const r = await call('POST', '/api/v1/keys', ADMIN_KEY, { namespace: 'Acme!', scopes: ['root'] });
    expect(r.status).toBe(400);
  });

  it('npm run keys creates a working key, shown once', () => {
    const r = spawnSync(
      process.execPath,
      [
        require.resolve('tsx/cli'),
        'apps/cli/src/keys.ts',
        'create',
        '--scopes',
        'templates:read',
        '--namespace',
        'globex',
        '--json',
      ],
      { cwd: join(__dirname, '..'), env: { ...process.env, DATABASE_URL: pg.url }, encoding: 'utf8' },
    );
    expect([r.status, r.stderr]).toEqual([0, '']);
    const made = JSON.parse(r.stdout) as { key: string; scopes: string[] };
    expect(made.scopes).toEqual(['templates:read']);
    return call('GET', '/api/v1/templates', made.key).then((list) => expect(list.status).toBe(200));
  });

  it('the keys are in PostgreSQL as hashes only', async () => {
    const { Client } = await import('pg');
    const c = new Client({ connectionString: pg.url });
    await c.connect();
    const dump = JSON.stringify((await c.query('SELECT * FROM api_keys')).rows);
    await c.end();
    for (const key of Object.values(keys)) expect(dump).not.toContain(key.slice(4));
  });
});
