/**
 * Stored templates with versions, API keys and namespaces (issue 38, docs/templates.md), against
 * the real API with a private Redis and PostgreSQL (test/support/postgres.ts).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import PizZip from 'pizzip';
import { API_PATHS } from '@app/contracts';
import { readDeck } from '@app/engine';
import { buildDocx, p } from './support/docx-builder';
import { withExternalLink } from './support/external-link';
import { startPostgres, type RunningPostgres } from './support/postgres';
import { redisDump } from './support/secrets';
import {
  buildService,
  jobFinished,
  ManagedProcess,
  pdfText,
  RedisServer,
  RunningApi,
  solidPng,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';

jest.setTimeout(120_000);

let redis: RedisServer;
let pg: RunningPostgres;
let api: RunningApi;
let worker: ManagedProcess;
const ADMIN_KEY = `dpk_${'a'.repeat(43)}`;
const BOARD_PASSWORD = 'board-password-templates-e2e';

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
  const env = testEnv(redis.url, {
    DATABASE_URL: pg.url,
    ADMIN_KEY_FILE: adminKeyFile,
    WEBHOOK_SECRET: '',
    BULL_BOARD_USER: 'ops',
    BULL_BOARD_PASSWORD: BOARD_PASSWORD,
  });
  [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  keys.writer = await newKey('acme', ['templates:write', 'templates:read', 'render']);
  keys.reader = await newKey('acme', ['templates:read']);
  keys.renderer = await newKey('acme', ['render']);
  keys.other = await newKey('globex', ['templates:write', 'templates:read', 'render']);
});

afterAll(async () => {
  await stopAll(api, worker);
  await stopAll(redis);
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

  it('npm run keys creates a working key, shown once', async () => {
    // Not spawnSync: a blocked event loop lets the API close this test's idle keep-alive sockets.
    const r = await promisify(execFile)(
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
    expect(r.stderr).toBe('');
    const made = JSON.parse(r.stdout) as { key: string; scopes: string[] };
    expect(made.scopes).toEqual(['templates:read']);
    expect(made.key).toMatch(/^dpk_[A-Za-z0-9_-]{43}$/);
    expect((await call('GET', '/api/v1/templates', made.key)).status).toBe(200);
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

describe('rendering by id', () => {
  let id: string;
  const data = JSON.stringify({ template_data: { name: 'Ada' } });

  function byId(fields: Record<string, string>, file?: Buffer): FormData {
    const form = new FormData();
    if (file) form.append('file', new Blob([file]), 't.docx');
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    return form;
  }

  async function render(fields: Record<string, string>, key?: string, file?: Buffer) {
    return fetch(`${api.url}/api/v1/process-template-document`, {
      method: 'POST',
      headers: key ? { authorization: `Bearer ${key}` } : {},
      body: byId(fields, file),
    });
  }

  beforeAll(async () => {
    const created = await call(
      'POST',
      '/api/v1/templates',
      keys.writer,
      templateForm(hello('Hello'), { name: 'greeting' }),
    );
    id = created.body.template_id as string;
    await call('POST', `/api/v1/templates/${id}/versions`, keys.writer, templateForm(hello('Goodbye')));
  });

  it('the synchronous endpoint renders the current version, or the one named, and says which', async () => {
    const current = await render({ template_id: id, request_data: data }, keys.renderer);
    expect(current.status).toBe(200);
    expect(current.headers.get('x-template-version')).toBe('1');
    expect(pdfText(Buffer.from(await current.arrayBuffer()))).toContain('Hello Ada!');
    const second = await render(
      { template_id: id, template_version: '2', request_data: data },
      keys.renderer,
    );
    expect(second.headers.get('x-template-version')).toBe('2');
    expect(pdfText(Buffer.from(await second.arrayBuffer()))).toContain('Goodbye Ada!');
  });

  it('exactly one of file and template_id; by id needs a key of the namespace', async () => {
    const both = await render({ template_id: id, request_data: data }, keys.renderer, hello('x'));
    expect(both.status).toBe(400);
    expect(((await both.json()) as { details: { fields: string[] } }).details.fields).toEqual([
      'file',
      'template_id',
    ]);
    const neither = await render({ request_data: data }, keys.renderer);
    expect(neither.status).toBe(400);
    expect(((await neither.json()) as { details: { fields: string[] } }).details.fields).toEqual([
      'file',
      'template_id',
    ]);
    expect((await render({ template_id: id, request_data: data })).status).toBe(401);
    expect((await render({ template_id: id, request_data: data }, keys.reader)).status).toBe(403);
    const foreign = await render({ template_id: id, request_data: data }, keys.other);
    expect([foreign.status, ((await foreign.json()) as { error_type: string }).error_type]).toEqual([
      404,
      'template_not_found',
    ]);
    // The specification's upload path stays open without a key.
    expect((await render({ request_data: data }, undefined, hello('Hi'))).status).toBe(200);
  });

  it('jobs and batches by id: template_version in the job status', async () => {
    const res = await fetch(`${api.url}/api/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.renderer}` },
      body: byId({ template_id: id, template_version: '2', request_data: data }),
    });
    expect(res.status).toBe(202);
    const { job_id } = (await res.json()) as { job_id: string };
    const done = await jobFinished<{ status: string; template_version?: number; template_id?: string }>(
      api.url,
      job_id,
      60_000,
    );
    expect(done).toMatchObject({ status: 'completed', template_version: 2, template_id: id });
    const result = await fetch(`${api.url}/api/v1/jobs/${job_id}/result`);
    expect(pdfText(Buffer.from(await result.arrayBuffer()))).toContain('Goodbye Ada!');

    const batch = JSON.stringify({
      batch: [{ template_data: { name: 'Ann' } }, { template_data: { name: 'Bob' } }],
      output: 'merged',
    });
    const merged = await render({ template_id: id, request_data: batch }, keys.renderer);
    expect(merged.status).toBe(200);
    const text = pdfText(Buffer.from(await merged.arrayBuffer()));
    expect(text).toContain('Hello Ann!');
    expect(text).toContain('Hello Bob!');
  });

  it('lint and inspect by id, within the namespace', async () => {
    const lint = (key: string) =>
      fetch(`${api.url}/api/v1/lint-docx-template`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: byId({ template_id: id, options: '{"response_format":"json"}' }),
      });
    const report = await lint(keys.renderer);
    expect(report.status).toBe(200);
    expect(((await report.json()) as { success: boolean }).success).toBe(true);
    expect((await lint(keys.other)).status).toBe(404);
    const inspect = (key: string) =>
      fetch(`${api.url}/api/v1/inspect-template`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: byId({ template_id: id, template_version: '2' }),
      });
    const inspection = await inspect(keys.renderer);
    expect(inspection.headers.get('x-template-version')).toBe('2');
    expect(JSON.stringify(await inspection.json())).toContain('"name"');
    expect((await inspect(keys.other)).status).toBe(404);
  });

  it('keys never reach the logs, Redis or the job records', async () => {
    const client = redis.client();
    const everything = await redisDump(client);
    client.disconnect();
    const haystack = [everything, api.proc.output(), worker.output()].join('\n');
    expect(everything.length).toBeGreaterThan(0);
    for (const key of [ADMIN_KEY, ...Object.values(keys)]) expect(haystack).not.toContain(key.slice(4));
  });

  /** The render queue's description line on Bull Board (the board's own queue-list call). */
  const boardDatabaseLine = async (): Promise<string | undefined> => {
    const res = await fetch(`${api.url}${API_PATHS.board}/api/queues`, {
      headers: { authorization: `Basic ${Buffer.from(`ops:${BOARD_PASSWORD}`).toString('base64')}` },
    });
    expect(res.status).toBe(200);
    const { queues } = (await res.json()) as { queues: { name: string; description?: string }[] };
    return queues.find((q) => q.name.endsWith('render'))?.description;
  };

  it('PostgreSQL down: uploads still render, by id answers 503 with Retry-After; then it recovers', async () => {
    expect(await boardDatabaseLine()).toMatch(/^Stored templates: PostgreSQL up \(checked/);
    await pg.kill9();
    try {
      const upload = await render({ request_data: data }, keys.renderer, hello('Still'));
      expect(upload.status).toBe(200);
      expect(pdfText(Buffer.from(await upload.arrayBuffer()))).toContain('Still Ada!');
      const stored = await render({ template_id: id, request_data: data }, keys.renderer);
      expect(stored.status).toBe(503);
      expect(Number(stored.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await call('GET', '/api/v1/templates', keys.reader)).status).toBe(503);
      const ready = (await (await fetch(`${api.url}/health/ready`)).json()) as {
        status: string;
        checks: { database?: { status: string } };
      };
      expect(ready).toMatchObject({ status: 'ok', checks: { database: { status: 'down' } } });
      expect(await (await fetch(`${api.url}/metrics`)).text()).toMatch(/^docgen_database_up 0$/m);
      expect(await boardDatabaseLine()).toMatch(/^Stored templates: PostgreSQL DOWN/);
    } finally {
      await pg.restart();
    }
    const again = await render({ template_id: id, request_data: data }, keys.renderer);
    expect(again.status).toBe(200);
    expect(await (await fetch(`${api.url}/metrics`)).text()).toMatch(/^docgen_database_up 1$/m);
  });

  it('a deleted template renders no more: 404 template_not_found', async () => {
    await call('DELETE', `/api/v1/templates/${id}`, keys.writer);
    const gone = await render({ template_id: id, request_data: data }, keys.renderer);
    expect([gone.status, ((await gone.json()) as { error_type: string }).error_type]).toEqual([
      404,
      'template_not_found',
    ]);
  });
});

describe('workbooks and decks stored (issue 41): upload, render by id to their own format and PDF, lint and inspect by id', () => {
  const WORKBOOK = readFileSync(join(__dirname, 'fixtures/spreadsheets/price-list.calc.xlsx'));
  const DECK = readFileSync(join(__dirname, 'fixtures/slides/deck.impress.pptx'));
  const PRICES = {
    template_data: {
      customer: 'ACME',
      issued: '2026-03-15',
      vip: true,
      currency: 'EUR',
      items: [
        { name: 'Apple', qty: 2, price: 1.5 },
        { name: 'Plum', qty: 10, price: 12 },
      ],
    },
  };
  const SLIDES = {
    template_data: {
      title: 'Quarterly review',
      customer: { name: 'ACME' },
      date: '2026-03-15',
      rows: [{ name: 'Apples', price: '1.50' }],
      items: [
        { name: 'Alpha', price: 10, photo: 'red' },
        { name: 'Beta', price: 20, photo: 'red' },
      ],
      closing: true,
    },
    images: { red: { data: solidPng(40, 30, [255, 0, 0]) } },
  };
  const ids: Record<'workbook' | 'deck', string> = { workbook: '', deck: '' };

  async function byId(
    path: string,
    fields: Record<string, string>,
  ): Promise<{ status: number; type: string; body: Buffer; version: string | null }> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    const res = await fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.renderer}` },
      body: form,
    });
    return {
      status: res.status,
      type: res.headers.get('content-type') ?? '',
      body: Buffer.from(await res.arrayBuffer()),
      version: res.headers.get('x-template-version'),
    };
  }

  const renderById = (id: string, request: object, output: string) =>
    byId('/api/v1/process-template-document', {
      template_id: id,
      request_data: JSON.stringify({ ...request, options: { output } }),
    });

  it('uploads a workbook and a deck: version 1, published, linted and inspected by sheet and cell, by slide', async () => {
    const workbook = await call(
      'POST',
      '/api/v1/templates',
      keys.writer,
      templateForm(WORKBOOK, { name: 'price list' }),
    );
    expect(workbook.status).toBe(201);
    expect(workbook.body).toMatchObject({
      version: { number: 1 },
      published: true,
      lint: {
        success: true,
        errors: [],
        summary: { parts: expect.arrayContaining(['xl/worksheets/sheet1.xml']) },
      },
    });
    const wbLoops = (
      workbook.body.inspection as {
        loops: { iterable: string; placement: string; location: { sheet?: string } }[];
      }
    ).loops;
    expect(wbLoops).toContainEqual(
      expect.objectContaining({
        iterable: 'items',
        placement: 'tr',
        location: expect.objectContaining({ cell: 'A4' }),
      }),
    );
    ids.workbook = workbook.body.template_id as string;

    const deck = await call(
      'POST',
      '/api/v1/templates',
      keys.writer,
      templateForm(DECK, { name: 'review deck' }),
    );
    expect(deck.status).toBe(201);
    expect(deck.body).toMatchObject({
      version: { number: 1 },
      published: true,
      lint: { success: true, errors: [] },
    });
    const deckLoops = (
      deck.body.inspection as {
        loops: { iterable: string; placement: string; location: { slide?: number } }[];
      }
    ).loops;
    expect(deckLoops).toContainEqual(
      expect.objectContaining({
        iterable: 'items',
        placement: 'slide',
        location: expect.objectContaining({ slide: 2 }),
      }),
    );
    ids.deck = deck.body.template_id as string;

    // A second version of the deck whose slide loop never closes: stored, linted, not published.
    const zip = new PizZip(DECK);
    zip.file(
      'ppt/slides/slide2.xml',
      zip.file('ppt/slides/slide2.xml')!.asText().replace('{%slide endfor %}', ''),
    );
    const broken = await call(
      'POST',
      `/api/v1/templates/${ids.deck}/versions`,
      keys.writer,
      templateForm(zip.generate({ type: 'nodebuffer' }), { publish: 'true' }),
    );
    expect(broken.status).toBe(201);
    expect(broken.body).toMatchObject({ version: { number: 2 }, published: false, lint: { success: false } });
    const errors = (broken.body.lint as { errors: { location: { slide?: number } }[] }).errors;
    expect(errors.map((e) => e.location.slide)).toEqual([2]);

    // The detail names each version's format; each version's file comes back in it.
    const detail = await call('GET', `/api/v1/templates/${ids.deck}`, keys.reader);
    expect((detail.body.versions as { media_type: string }[]).map((v) => v.media_type)).toEqual([
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ]);
    const file = await fetch(`${api.url}/api/v1/templates/${ids.workbook}/versions/1/file`, {
      headers: { authorization: `Bearer ${keys.reader}` },
    });
    expect(file.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    expect(file.headers.get('content-disposition')).toContain('template-v1.xlsx');
    expect(Buffer.from(await file.arrayBuffer()).equals(WORKBOOK)).toBe(true);
  });

  it('renders the stored workbook by id to .xlsx and to PDF (Calc recalculates the total)', async () => {
    const xlsx = await renderById(ids.workbook, PRICES, 'xlsx');
    expect([xlsx.status, xlsx.type, xlsx.version]).toEqual([
      200,
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      '1',
    ]);
    const sheet = new PizZip(xlsx.body).file('xl/worksheets/sheet1.xml')!.asText();
    expect(sheet).toContain('Plum');
    expect(sheet).not.toContain('{{');
    const pdf = await renderById(ids.workbook, PRICES, 'pdf');
    expect([pdf.status, pdf.type]).toEqual([200, 'application/pdf']);
    const text = pdfText(pdf.body);
    expect(text).toContain('Price list for ACME');
    expect(text).toContain('Plum');
    // Calc recalculated the grown SUM over the repeated rows: 2 × 1.50 + 10 × 12.00.
    expect(text).toContain('123.00');
  });

  it('a stored workbook with an external link: the render by id drops it and names it in the Warning header', async () => {
    const created = await call(
      'POST',
      '/api/v1/templates',
      keys.writer,
      templateForm(withExternalLink(WORKBOOK), { name: 'linked price list' }),
    );
    expect(created.status).toBe(201);
    const form = new FormData();
    form.append('template_id', created.body.template_id as string);
    form.append('request_data', JSON.stringify({ ...PRICES, options: { output: 'xlsx' } }));
    const res = await fetch(`${api.url}/api/v1/process-template-document`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.renderer}` },
      body: form,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('warning')).toBe('299 - "dropped external link (externalLink1.xml)"');
    expect(res.headers.get('content-disposition')).toContain('linked price list.xlsx');
    expect(
      new PizZip(Buffer.from(await res.arrayBuffer())).file('xl/externalLinks/externalLink1.xml'),
    ).toBeNull();
  });

  it('renders the stored deck by id to .pptx and to PDF: one slide per item of the slide loop', async () => {
    const pptx = await renderById(ids.deck, SLIDES, 'pptx');
    expect([pptx.status, pptx.type, pptx.version]).toEqual([
      200,
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      '1',
    ]);
    const slides = readDeck(pptx.body);
    expect(slides.map((s) => s.paragraphs.filter((p) => p.startsWith('Product:')))).toEqual([
      [],
      ['Product: Alpha'],
      ['Product: Beta'],
      [],
    ]);
    const pdf = await renderById(ids.deck, SLIDES, 'pdf');
    expect([pdf.status, pdf.type]).toEqual([200, 'application/pdf']);
    const dir = mkdtempSync(join(tmpdir(), 'templates-deck-'));
    writeFileSync(join(dir, 'deck.pdf'), pdf.body);
    expect(execFileSync('pdfinfo', [join(dir, 'deck.pdf')]).toString()).toMatch(/^Pages:\s+4$/m);
    const text = pdfText(pdf.body);
    expect(text).toContain('Quarterly review');
    expect(text).toContain('Product: Beta');
  });

  it('lints and inspects each by id and version, located by sheet and cell or by slide', async () => {
    const lint = await byId('/api/v1/lint-docx-template', {
      template_id: ids.deck,
      template_version: '2',
      options: '{"response_format":"json"}',
    });
    expect([lint.status, lint.version]).toEqual([200, '2']);
    const report = JSON.parse(lint.body.toString()) as {
      success: boolean;
      errors: { location: { part: string; slide: number } }[];
    };
    expect(report.success).toBe(false);
    expect(report.errors[0].location).toMatchObject({ part: 'ppt/slides/slide2.xml', slide: 2 });
    const inspectDeck = await byId('/api/v1/inspect-template', { template_id: ids.deck });
    const deck = JSON.parse(inspectDeck.body.toString()) as {
      variables: { path: string; locations: { slide: number }[] }[];
    };
    expect(deck.variables.find((v) => v.path === 'items[].name')!.locations.map((l) => l.slide)).toEqual([
      2, 2,
    ]);
    const lintWorkbook = await byId('/api/v1/lint-docx-template', {
      template_id: ids.workbook,
      options: '{"response_format":"json"}',
    });
    expect((JSON.parse(lintWorkbook.body.toString()) as { success: boolean }).success).toBe(true);
    const inspectWorkbook = await byId('/api/v1/inspect-template', { template_id: ids.workbook });
    const workbook = JSON.parse(inspectWorkbook.body.toString()) as {
      variables: { path: string; locations: { cell: string }[] }[];
    };
    expect(workbook.variables.find((v) => v.path === 'items[].name')!.locations.map((l) => l.cell)).toEqual([
      'A5',
    ]);
  });
});

describe('REQUIRE_API_KEY=true', () => {
  let strict: RunningApi;
  beforeAll(async () => {
    strict = await startApi(
      testEnv(redis.url, { DATABASE_URL: pg.url, REQUIRE_API_KEY: 'true' }),
      'api-strict',
    );
  });
  afterAll(() => stopAll(strict));

  it('the specification’s endpoints need a key with render too', async () => {
    const upload = (key?: string) => {
      const form = new FormData();
      form.append('file', new Blob([hello('Hi')]), 't.docx');
      form.append('request_data', JSON.stringify({ template_data: { name: 'Ada' } }));
      return fetch(`${strict.url}/api/v1/process-template-document`, {
        method: 'POST',
        headers: key ? { authorization: `Bearer ${key}` } : {},
        body: form,
      });
    };
    const inspect = (key?: string) => {
      const form = new FormData();
      form.append('file', new Blob([hello('Hi')]), 't.docx');
      return fetch(`${strict.url}/api/v1/inspect-template`, {
        method: 'POST',
        headers: key ? { authorization: `Bearer ${key}` } : {},
        body: form,
      });
    };
    expect((await upload()).status).toBe(401);
    expect((await upload(keys.reader)).status).toBe(403);
    const ok = await upload(keys.renderer);
    expect(ok.status).toBe(200);
    expect(pdfText(Buffer.from(await ok.arrayBuffer()))).toContain('Hi Ada!');
    expect((await inspect()).status).toBe(401);
    expect((await inspect(keys.renderer)).status).toBe(200);
  });
});
