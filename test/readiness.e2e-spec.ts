/**
 * Ready means ready: `npm start` answers /health-check only once a worker has registered, so the
 * first request sent the moment it answers gets its PDF; and a deployed API holds a request for
 * NO_WORKER_WAIT_MS while no worker is alive (workers restarting) instead of refusing it at once.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildService,
  ENTRY,
  freePort,
  ManagedProcess,
  NODE_ARGS,
  pdfText,
  postRender,
  RedisServer,
  RunningApi,
  spawnManaged,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';
import { descendants } from './support/hostile-process';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '..');
const invoice = {
  file: readFileSync(join(ROOT, 'examples', 'invoice.docx')),
  request_data: readFileSync(join(ROOT, 'examples', 'invoice-request.json'), 'utf8'),
};

beforeAll(() => buildService());

describe('npm start (scripts/start.js)', () => {
  let start: ManagedProcess | undefined;
  afterAll(async () => {
    if (start?.running) {
      start.child.kill('SIGTERM'); // start.js stops the API, the worker and Redis in order
      await start.exited;
    }
  });

  it('answers /health-check only once a worker is registered: the first request gets its PDF', async () => {
    const port = await freePort();
    const { REDIS_URL: _ignored, ...env } = testEnv('unused');
    start = spawnManaged('start', process.execPath, [join(ROOT, 'scripts', 'start.js')], {
      ...env,
      PORT: String(port),
      LOG_FORMAT: 'json',
      NO_WORKER_WAIT_MS: '0', // no hold: only the start order can make the first request succeed
    });
    const url = `http://127.0.0.1:${port}`;
    let polls = 0;
    for (;;) {
      if (!start.running) throw new Error(`npm start exited:\n${start.output()}`);
      polls++;
      const ok = await fetch(`${url}/health-check`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const res = await postRender(url, invoice);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(pdfText(Buffer.from(await res.arrayBuffer()))).toContain('INV-');
    expect(polls).toBeGreaterThan(1); // it was polled while starting, not found already up
    expect(start.output()).toMatch(/\[worker\][^\n]*ready \(id /);
    // The API and the worker run with Node's arguments of scripts/build.js, the images' too.
    const pid = start.child.pid!;
    const children = descendants(pid)
      .filter((p) => p.ppid === pid)
      .map((p) => p.cmdline);
    expect(children).toContainEqual([process.execPath, ...NODE_ARGS.worker, ENTRY.worker]);
    expect(children).toContainEqual([process.execPath, ...NODE_ARGS.api, ENTRY.api]);
    // Webhooks are signed with a key npm start keeps in a file of its own, never printed.
    const keyFile = join(env.REDIS_DATA_DIR!, '.webhook-secret');
    const key = readFileSync(keyFile, 'utf8').trim();
    expect(key).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(start.output()).toContain(`Webhook signing key:    in ${keyFile}`);
    expect(start.output()).not.toContain(key.slice('whsec_'.length));
    // Stored templates: a supervised local PostgreSQL, and an admin key kept the same way, which
    // the API has stored (it lists templates) and the banner names but never prints.
    expect(start.output()).toMatch(
      /\[start\] local PostgreSQL on postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres/,
    );
    const adminKeyFile = join(env.REDIS_DATA_DIR!, '.admin-key');
    const adminKey = readFileSync(adminKeyFile, 'utf8').trim();
    expect(statSync(adminKeyFile).mode & 0o777).toBe(0o600);
    expect(start.output()).toContain(`Admin API key:          in ${adminKeyFile}`);
    expect(start.output()).not.toContain(adminKey.slice('dpk_'.length));
    const list = await fetch(`${url}/api/v1/templates`, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(list.status).toBe(200);
  });
});

describe('NO_WORKER_WAIT_MS', () => {
  let redis: RedisServer;
  let api: RunningApi | undefined;
  let worker: ManagedProcess | undefined;
  afterEach(async () => {
    await stopAll(api, worker);
    api = worker = undefined;
  });
  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterAll(async () => stopAll(redis));

  it('holds a request while no worker is alive, and renders it once one registers', async () => {
    const env = testEnv(redis.url, { QUEUE_PREFIX: '{hold}', NO_WORKER_WAIT_MS: '60000' });
    api = await startApi(env);
    const pending = postRender(api.url, invoice);
    worker = await startWorker(env);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(pdfText(Buffer.from(await res.arrayBuffer()))).toContain('INV-');
  });

  it('answers 503 service_unavailable when no worker registers within the hold', async () => {
    const env = testEnv(redis.url, { QUEUE_PREFIX: '{hold2}', NO_WORKER_WAIT_MS: '300' });
    api = await startApi(env);
    const res = await postRender(api.url, invoice);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      error_type: 'service_unavailable',
      details: { live_workers: 0 },
    });
  });
});
