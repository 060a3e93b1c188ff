/**
 * The MCP server (libs/mcp, docs/mcp.md) driven by the SDK's own Client over both transports:
 * stdio (`npm run mcp`'s entry under tsx, calling the service at SERVICE_URL) and Streamable HTTP
 * at the API's /mcp. Against the real service (Redis, PostgreSQL for stored templates and API keys,
 * one worker with LibreOffice, the API). Both clients carry an API key: stdio through
 * SERVICE_API_KEY, HTTP through its Authorization header.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  buildService,
  ManagedProcess,
  pdfText,
  RedisServer,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';
import { startPostgres, type RunningPostgres } from './support/postgres';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..');
const LETTER = readFileSync(join(ROOT, 'examples', 'letter.docx'));
const TOOLS = ['get_job', 'inspect_template', 'lint_template', 'list_templates', 'render_document'];

let redis: RedisServer;
let pg: RunningPostgres;
let worker: ManagedProcess;
let api: RunningApi;
let keyDir: string;
let templateId: string;
const ADMIN_KEY = `dpk_${randomBytes(32).toString('base64url')}`;
const clients: Record<'stdio' | 'http', Client> = {} as never;

beforeAll(async () => {
  buildService();
  [redis, pg] = await Promise.all([RedisServer.start(), startPostgres()]);
  keyDir = mkdtempSync(join(tmpdir(), 'mcp-e2e-'));
  writeFileSync(join(keyDir, '.admin-key'), ADMIN_KEY, { mode: 0o600 });
  // Small limits, so that an MCP message over its bound is small too: 100 kB in base64 + 4 KiB + 64 KiB.
  const env = testEnv(redis.url, {
    RESULT_TTL_S: '600',
    MAX_TEMPLATE_BYTES: '100000',
    MAX_REQUEST_BYTES: '4096',
    DATABASE_URL: pg.url,
    ADMIN_KEY_FILE: join(keyDir, '.admin-key'),
  });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
  // The letter stored once, in the admin key's namespace: list_templates and render by id see it.
  const upload = new FormData();
  upload.append('file', new Blob([LETTER]), 'letter.docx');
  upload.append('name', 'letter');
  const created = await fetch(`${api.url}/api/v1/templates`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
    body: upload,
  });
  expect(created.status).toBe(201);
  templateId = ((await created.json()) as { template_id: string }).template_id;
  clients.stdio = new Client({ name: 'e2e-stdio', version: '1' });
  clients.http = new Client({ name: 'e2e-http', version: '1' });
  await Promise.all([
    clients.stdio.connect(
      new StdioClientTransport({
        command: join(ROOT, 'node_modules', '.bin', 'tsx'),
        args: [join(ROOT, 'apps', 'mcp', 'src', 'main.ts')],
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          SERVICE_URL: api.url,
          SERVICE_API_KEY: ADMIN_KEY,
        },
        stderr: 'pipe',
      }),
    ),
    clients.http.connect(
      new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${ADMIN_KEY}` } },
      }),
    ),
  ]);
});

afterAll(async () => {
  await Promise.all(Object.values(clients).map((c) => c.close()));
  await stopAll(api, worker, redis);
  await pg?.stop();
  if (keyDir) rmSync(keyDir, { recursive: true, force: true });
});

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  const first = result.content.find((c) => c.type === 'text');
  if (!first || first.type !== 'text') throw new Error(`no text in ${JSON.stringify(result)}`);
  return first.text;
}

describe.each(['stdio', 'http'] as const)('over %s', (transport) => {
  const client = () => clients[transport];

  it('lists its tools', async () => {
    const { tools } = await client().listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const render = tools.find((t) => t.name === 'render_document')!;
    expect(Object.keys(render.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['template_base64', 'template_resource', 'template_id', 'data', 'output']),
    );
  });

  it('lints and inspects a template', async () => {
    const template_base64 = LETTER.toString('base64');
    const lint = await call(client(), 'lint_template', { template_base64 });
    expect(lint.isError).toBeFalsy();
    expect(JSON.parse(textOf(lint))).toMatchObject({ success: true });
    const inspection = await call(client(), 'inspect_template', {
      template_resource: { uri: 'file:///letter.docx', blob: template_base64 },
    });
    expect(inspection.isError).toBeFalsy();
    expect(
      Object.keys(
        (JSON.parse(textOf(inspection)) as { skeleton: { template_data: object } }).skeleton.template_data,
      ),
    ).toEqual(expect.arrayContaining(['name', 'sender', 'items']));
  });

  it("renders a letter from an agent's request, and get_job follows its job", async () => {
    // "Write to Ada from ACME Widgets about the blue widget and the gear assembly": the agent
    // inspects the template, fills the skeleton from the user's words and renders.
    const template_base64 = LETTER.toString('base64');
    const { skeleton } = JSON.parse(
      textOf(await call(client(), 'inspect_template', { template_base64 })),
    ) as {
      skeleton: { template_data: Record<string, unknown> };
    };
    const sender = `ACME Widgets via ${transport}`;
    const data = {
      ...skeleton.template_data,
      name: 'Ada',
      sender,
      date: '2026-11-28',
      items: ['Widget, blue', 'Gear assembly'],
    };
    const result = await call(client(), 'render_document', { template_base64, data });
    expect(result.isError).toBeFalsy();
    const link = result.content.find((c) => c.type === 'resource_link');
    const attached = result.content.find((c) => c.type === 'resource');
    if (link?.type !== 'resource_link' || attached?.type !== 'resource' || !('blob' in attached.resource))
      throw new Error(`no result resources: ${JSON.stringify(result)}`);
    expect(attached.resource.mimeType).toBe('application/pdf');
    const pdf = Buffer.from(attached.resource.blob, 'base64');
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = pdfText(pdf).replace(/\s+/g, ' ');
    expect(text).toContain('Ada');
    expect(text).toContain(sender);
    // The link is the job's result URL at the service, readable by the agent's host.
    expect(link.uri).toMatch(new RegExp(`^${api.url}/api/v1/jobs/[^/]+/result$`));
    const downloaded = Buffer.from(await (await fetch(link.uri)).arrayBuffer());
    expect(downloaded.equals(pdf)).toBe(true);

    const job_id = /\/jobs\/([^/]+)\/result$/.exec(link.uri)![1];
    const status = await call(client(), 'get_job', { job_id, include_result: false });
    expect(JSON.parse(textOf(status))).toMatchObject({ job_id, status: 'completed', result_url: link.uri });
  });

  it('answers a typed error body as an error result', async () => {
    const result = await call(client(), 'render_document', {
      template_base64: Buffer.from('not a word document').toString('base64'),
      data: {},
    });
    expect(result.isError).toBe(true);
    expect(JSON.parse(textOf(result))).toMatchObject({ status: 'error', error_type: 'invalid_template' });
    const missing = await call(client(), 'inspect_template', {});
    expect(missing.isError).toBe(true);
    expect(JSON.parse(textOf(missing))).toMatchObject({ status: 'error', error_type: 'missing_file' });
    const unknownJob = await call(client(), 'get_job', { job_id: 'no-such-job' });
    expect(JSON.parse(textOf(unknownJob))).toMatchObject({ error_type: 'job_not_found' });
  });

  it("lists the key's stored templates as GET /api/v1/templates answers, and renders one by template_id", async () => {
    const rest = (await (
      await fetch(`${api.url}/api/v1/templates`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
    ).json()) as { templates: Array<{ template_id: string }> };
    const result = await call(client(), 'list_templates');
    expect(result.isError).toBeFalsy();
    const listed = JSON.parse(textOf(result)) as typeof rest;
    expect(listed).toEqual(rest);
    expect(listed.templates.map((t) => t.template_id)).toContain(templateId);

    const sender = `Stored letter via ${transport}`;
    const rendered = await call(client(), 'render_document', {
      template_id: templateId,
      data: { name: 'Grace', sender, date: '2026-11-28', items: ['Compiler'] },
    });
    expect(rendered.isError).toBeFalsy();
    const attached = rendered.content.find((c) => c.type === 'resource');
    if (attached?.type !== 'resource' || !('blob' in attached.resource))
      throw new Error(`no result resource: ${JSON.stringify(rendered)}`);
    expect(pdfText(Buffer.from(attached.resource.blob, 'base64')).replace(/\s+/g, ' ')).toContain(sender);
  });
});

it('/mcp takes POST only (stateless): GET is a typed 405', async () => {
  const res = await fetch(`${api.url}/mcp`);
  expect(res.status).toBe(405);
  expect(await res.json()).toMatchObject({ status: 'error', error_type: 'method_not_allowed' });
});

it('/mcp refuses a message over its bound with the typed 413', async () => {
  const limit = Math.ceil((100_000 * 4) / 3) + 4096 + 64 * 1024;
  const res = await fetch(`${api.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { padding: 'x'.repeat(limit) },
    }),
  });
  expect(res.status).toBe(413);
  expect(await res.json()).toMatchObject({
    status: 'error',
    error_type: 'payload_too_large',
    details: { limit },
  });
});
