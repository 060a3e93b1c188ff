/**
 * The MCP tools' own decisions, through the SDK's Client over an in-memory transport, against a
 * stand-in for the REST API (the typed client's fetch): what a big result, a failed or a slow job,
 * a typed error and an unreachable service become. The real service: test/mcp.e2e-spec.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DocumentServiceClient } from '@docx-pdf/client';
import { createMcpServer } from './tools';

const SERVICE = 'http://service.internal:8000';
const PUBLIC = 'https://documents.example.com';
const PDF = Buffer.from('%PDF-1.7 a stand-in document of forty bytes');

type Route = (request: Request) => Response | Promise<Response>;
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const jobStatus = (status: string, extra: object = {}) => ({
  job_id: 'j1',
  status,
  progress: { done: status === 'completed' ? 1 : 0, total: 1 },
  created_at: '2026-11-28T07:00:00Z',
  finished_at: null,
  expires_at: '2026-11-28T08:00:00Z',
  ...extra,
});
const ACCEPTED = json(202, {
  job_id: 'j1',
  status: 'queued',
  status_url: `${SERVICE}/api/v1/jobs/j1`,
  result_url: `${SERVICE}/api/v1/jobs/j1/result`,
});

async function connect(
  routes: Record<string, Route>,
  settings = { inlineMaxBytes: 1024, renderWaitMs: 5_000 },
) {
  const fetchStandIn = (async (input: Request) => {
    const route = routes[`${input.method} ${new URL(input.url).pathname}`];
    if (!route) throw new TypeError('fetch failed');
    return route(input);
  }) as typeof fetch;
  const server = createMcpServer({
    client: new DocumentServiceClient({ baseUrl: SERVICE, fetch: fetchStandIn }),
    settings,
    publicUrl: (url) => url.replace(SERVICE, PUBLIC),
    version: 'test',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'spec', version: '1' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

const TEMPLATE = {
  template_base64: Buffer.from('PK stand-in docx').toString('base64'),
  data: { name: 'Ada' },
};
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

describe('the MCP tools', () => {
  it('attach a small result and link it at the public address', async () => {
    const mcp = await connect({
      'POST /api/v1/jobs': () => ACCEPTED.clone(),
      'GET /api/v1/jobs/j1': () =>
        json(200, jobStatus('completed', { result_url: `${SERVICE}/api/v1/jobs/j1/result` })),
      'GET /api/v1/jobs/j1/result': () =>
        new Response(PDF, { headers: { 'content-type': 'application/pdf' } }),
    });
    const result = await mcp.call('render_document', TEMPLATE);
    await mcp.close();
    expect(result.isError).toBeFalsy();
    expect(result.content.slice(1)).toEqual([
      {
        type: 'resource_link',
        uri: `${PUBLIC}/api/v1/jobs/j1/result`,
        name: 'j1',
        mimeType: 'application/pdf',
      },
      {
        type: 'resource',
        resource: {
          uri: `${PUBLIC}/api/v1/jobs/j1/result`,
          mimeType: 'application/pdf',
          blob: PDF.toString('base64'),
        },
      },
    ]);
  });

  it('give a result over MCP_INLINE_MAX_BYTES by its URL only', async () => {
    const mcp = await connect(
      {
        'POST /api/v1/jobs': () => ACCEPTED.clone(),
        'GET /api/v1/jobs/j1': () =>
          json(200, jobStatus('completed', { result_url: `${SERVICE}/api/v1/jobs/j1/result` })),
        'GET /api/v1/jobs/j1/result': () =>
          new Response(PDF, { headers: { 'content-type': 'application/pdf' } }),
      },
      { inlineMaxBytes: PDF.length - 1, renderWaitMs: 5_000 },
    );
    const result = await mcp.call('render_document', TEMPLATE);
    await mcp.close();
    expect(result.content.map((c) => c.type)).toEqual(['text', 'resource_link']);
    expect(text(result)).toContain('too big to attach');
  });

  it('answer a failed job with its typed error, and a slow one with its status', async () => {
    const error = {
      status: 'error',
      error_type: 'undefined_variable',
      message: 'name is undefined',
      details: {},
    };
    const failed = await connect({
      'POST /api/v1/jobs': () => ACCEPTED.clone(),
      'GET /api/v1/jobs/j1': () => json(200, jobStatus('failed', { error })),
    });
    const result = await failed.call('render_document', TEMPLATE);
    await failed.close();
    expect(result.isError).toBe(true);
    expect(JSON.parse(text(result))).toEqual(error);

    const slow = await connect(
      {
        'POST /api/v1/jobs': () => ACCEPTED.clone(),
        'GET /api/v1/jobs/j1': () => json(200, jobStatus('active')),
      },
      { inlineMaxBytes: 1024, renderWaitMs: 0 },
    );
    const pending = await slow.call('render_document', TEMPLATE);
    await slow.close();
    expect(pending.isError).toBeFalsy();
    expect(JSON.parse(text(pending))).toMatchObject({ job_id: 'j1', status: 'active' });
  });

  it("pass the service's error body on, and name an unreachable service", async () => {
    const body = {
      status: 'error',
      error_type: 'payload_too_large',
      message: 'too big',
      details: { limit: 1 },
    };
    const mcp = await connect({ 'POST /api/v1/inspect-template': () => json(413, body) });
    const refused = await mcp.call('inspect_template', { template_base64: TEMPLATE.template_base64 });
    const unreachable = await mcp.call('lint_template', { template_base64: TEMPLATE.template_base64 });
    await mcp.close();
    expect(refused.isError).toBe(true);
    expect(JSON.parse(text(refused))).toEqual(body);
    expect(unreachable.isError).toBe(true);
    expect(JSON.parse(text(unreachable))).toMatchObject({
      status: 'error',
      error_type: 'service_unavailable',
    });
  });

  it('send a stored template by its id', async () => {
    let form: FormData | undefined;
    const mcp = await connect(
      {
        'POST /api/v1/jobs': async (request) => {
          form = await request.formData();
          return ACCEPTED.clone();
        },
        'GET /api/v1/jobs/j1': () => json(200, jobStatus('active')),
      },
      { inlineMaxBytes: 1024, renderWaitMs: 0 },
    );
    await mcp.call('render_document', { template_id: 'tpl_42', data: { name: 'Ada' }, output: 'docx' });
    await mcp.close();
    expect(form?.get('template_id')).toBe('tpl_42');
    expect(form?.get('file')).toBeNull();
    expect(JSON.parse(String(form?.get('request_data')))).toEqual({
      template_data: { name: 'Ada' },
      options: { output: 'docx' },
    });
  });
});
