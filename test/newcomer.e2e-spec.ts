/**
 * The newcomer's path, as found by following the README: every file an example names exists, the
 * README's own curl commands work against the running service, and the usual first mistakes get
 * an answer that says how to fix them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildService,
  freePort,
  ManagedProcess,
  pdfText,
  RedisServer,
  RENDER_PATH,
  RunningApi,
  spawnManaged,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
} from './service-harness';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The shell blocks of the README. */
const SHELL_BLOCKS = [...README.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].map((m) => m[1]);
/** The README's curl commands, each joined into one line. */
const CURLS = SHELL_BLOCKS.flatMap((b) => b.replace(/\\\n\s*/g, ' ').split('\n')).filter((l) =>
  l.trimStart().startsWith('curl '),
);

let redis: RedisServer;
let api: RunningApi;
let worker: ManagedProcess;
let dir: string;

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, { QUEUE_PREFIX: '{newcomer}' });
  [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  dir = mkdtempSync(join(tmpdir(), 'newcomer-'));
});
afterAll(async () => {
  await stopAll(api, worker, redis);
  rmSync(dir, { recursive: true, force: true });
});

describe('the README', () => {
  it('names only files the repository has', () => {
    const named = SHELL_BLOCKS.flatMap((b) => [
      ...[...b.matchAll(/=[@<]([^\s"'{]+)/g)].map((m) => m[1]),
      ...[...b.matchAll(/npm run render -- (examples\/\S+) (examples\/\S+)/g)].flatMap((m) => [m[1], m[2]]),
    ]);
    expect(named.length).toBeGreaterThanOrEqual(4);
    for (const file of named) expect([file, existsSync(join(ROOT, file))]).toEqual([file, true]);
  });

  it('has curl examples that return PDFs from the running service', () => {
    expect(CURLS.length).toBeGreaterThanOrEqual(2);
    for (const line of CURLS) {
      const out = join(dir, 'out');
      const command = line
        .replace('http://localhost:8000', api.url)
        .replace(/ -o \S+/, '')
        .replace(/^curl /, `curl -o ${out} -w "%{http_code}" `);
      const status = execFileSync('bash', ['-c', command], { cwd: ROOT, encoding: 'utf8' });
      expect([line, status]).toEqual([line, '200']);
      const body = readFileSync(out);
      if (line.includes('process-template-document') || /-o \S+\.pdf/.test(line))
        expect([line, pdfText(body).length > 20]).toEqual([line, true]);
      else expect([line, JSON.parse(body.toString('utf8'))]).toEqual([line, expect.any(Object)]);
    }
  });
});

describe('first mistakes', () => {
  const curl = (...args: string[]) => {
    const res = spawnSync('curl', ['-sS', '-w', '\n%{http_code}', ...args], { cwd: ROOT, encoding: 'utf8' });
    const lines = res.stdout.trimEnd().split('\n');
    const status = Number(lines.pop());
    return { status, body: JSON.parse(lines.join('\n')) as Record<string, unknown> };
  };

  it("-F data=@file.json (a file where text belongs) says to send it with '<'", () => {
    for (const order of [
      ['-F', 'file=@examples/letter.docx', '-F', 'data=@examples/letter-data.json'],
      ['-F', 'data=@examples/letter-data.json', '-F', 'file=@examples/letter.docx'],
    ]) {
      const { status, body } = curl(...order, `${api.url}${RENDER_PATH}`);
      expect(status).toBe(400);
      expect(body.error_type).toBe('invalid_request_structure');
      expect(body.message).toMatch(/'data' must be text.*data=<file\.json/);
    }
  });

  it("-F template=@x.docx says the template goes in the field 'file'", () => {
    const { status, body } = curl(
      '-F',
      'template=@examples/letter.docx',
      '-F',
      'data=<examples/letter-data.json',
      `${api.url}${RENDER_PATH}`,
    );
    expect(status).toBe(400);
    expect(body.message).toMatch(/'template'.*in the field 'file'/);
  });

  it('GET on the POST endpoint is 405 with Allow: POST', async () => {
    const res = await fetch(`${api.url}${RENDER_PATH}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toMatchObject({ status: 'error', error_type: 'method_not_allowed' });
    const missing = await fetch(`${api.url}/api/v1/no-such-thing`);
    expect(missing.status).toBe(404);
  });

  it('logs the address it is bound to', async () => {
    expect(api.proc.output()).toContain(`listening on ${api.url} `);
    const port = await freePort();
    const everywhere = spawnManaged(
      'api-0.0.0.0',
      process.execPath,
      [join(ROOT, 'dist/apps/api/src/main.js')],
      {
        ...testEnv(redis.url, { QUEUE_PREFIX: '{newcomer}' }),
        PORT: String(port),
        HOST: '0.0.0.0',
      },
    );
    try {
      await waitUntil(async () => /listening on/.test(everywhere.output()), 30_000, 'the API to listen');
      expect(everywhere.output()).toContain(`listening on http://0.0.0.0:${port} (all interfaces)`);
    } finally {
      await everywhere.stop();
    }
  });
});
