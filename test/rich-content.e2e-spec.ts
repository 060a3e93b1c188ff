/**
 * Rich content end to end: through the service (real Redis, worker, API and LibreOffice) and
 * through the command line, sub-documents and `{{p body | html }}` included.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { buildDocx, p, table } from './support/docx-builder';
import {
  buildService,
  ManagedProcess,
  pdfText,
  postRender,
  RedisServer,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..');
const annex = buildDocx([
  p('Annex: terms and conditions', { style: 'Heading1' }),
  table([['clause 1', 'agreed']]),
]);
const template = buildDocx({
  body: [p('Report for {{ name }}'), p('{{p body | html }}'), p('{{p annex }}'), p('The end')],
});

describe('through the service', () => {
  let redis: RedisServer;
  let worker: ManagedProcess;
  let api: RunningApi;

  beforeAll(async () => {
    buildService();
    redis = await RedisServer.start();
    const env = testEnv(redis.url, {
      QUEUE_PREFIX: '{rich}',
      MAX_SUBDOCUMENTS: '2',
      RICH_MAX_NESTING_DEPTH: '20',
    });
    [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
  });
  afterAll(async () => {
    await stopAll(api, worker);
    await stopAll(redis);
  });

  it('renders {{p body | html }} and a sub-document to PDF', async () => {
    const res = await postRender(api.url, {
      file: template,
      request_data: {
        template_data: {
          name: 'Ada',
          body: '<h1>Summary</h1><p>All <b>good</b>, see <a href="https://example.com">the site</a>.</p><ul><li>alpha</li><li>beta</li></ul>',
        },
        documents: { annex: { data: annex.toString('base64') } },
      },
    });
    expect(res.status).toBe(200);
    const text = pdfText(Buffer.from(await res.arrayBuffer()));
    expect(text).toContain('Report for Ada');
    expect(text).toContain('All good, see the site.');
    expect(text).toMatch(/•\s*alpha/);
    expect(text).toContain('Annex: terms and conditions');
    expect(text).toContain('clause 1');
    expect(text.indexOf('clause 1')).toBeLessThan(text.indexOf('The end'));
  });

  it('renders | html in legacy mode (data)', async () => {
    const res = await postRender(api.url, {
      file: template,
      data: { name: 'Legacy', body: '<p><a href="mailto:a@example.com">mail</a></p>' },
    });
    expect(res.status).toBe(200);
    expect(pdfText(Buffer.from(await res.arrayBuffer()))).toContain('mail');
  });

  it('answers a bad sub-document with 400 naming its key', async () => {
    const res = await postRender(api.url, {
      file: template,
      request_data: {
        template_data: { body: '' },
        documents: { annex: { data: Buffer.from('not a docx').toString('base64') } },
      },
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error_type: string; details: Record<string, unknown> };
    expect(body.error_type).toBe('invalid_template');
    expect(body.details.document).toBe('annex');
  });

  it('answers too many sub-documents with 413 and too deep HTML with 422', async () => {
    const three = Object.fromEntries(['a', 'b', 'c'].map((k) => [k, { data: annex.toString('base64') }]));
    const many = await postRender(api.url, {
      file: template,
      request_data: { template_data: {}, documents: three },
    });
    expect(many.status).toBe(413);
    const deep = await postRender(api.url, {
      file: template,
      request_data: {
        template_data: { body: '<div>'.repeat(10_000) },
        documents: { annex: { data: annex.toString('base64') } },
      },
    });
    expect(deep.status).toBe(422);
    expect(((await deep.json()) as { details: Record<string, unknown> }).details.reason).toBe(
      'nesting_too_deep',
    );
  });
});

describe('through the command line', () => {
  it('accepts documents in REQUEST.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rich-cli-'));
    try {
      writeFileSync(join(dir, 'tpl.docx'), template);
      writeFileSync(
        join(dir, 'req.json'),
        JSON.stringify({
          template_data: { name: 'CLI', body: '<p><i>html</i></p>' },
          documents: { annex: { data: annex.toString('base64') } },
        }),
      );
      const res = spawnSync(
        join(ROOT, 'node_modules/.bin/tsx'),
        [
          join(ROOT, 'apps/cli/src/main.ts'),
          join(dir, 'tpl.docx'),
          join(dir, 'req.json'),
          join(dir, 'out.docx'),
        ],
        {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: 120_000,
        },
      );
      expect(res.stderr).toBe('');
      expect(res.status).toBe(0);
      const xml = new PizZip(readFileSync(join(dir, 'out.docx'))).file('word/document.xml')!.asText();
      expect(xml).toContain('<w:i/><w:iCs/></w:rPr><w:t xml:space="preserve">html');
      expect(xml).toContain('Annex: terms and conditions');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
