#!/usr/bin/env node
/**
 * `npm start`: the whole service on this machine, in one command.
 *
 *   1. builds dist/ when a source changed (scripts/build.js);
 *   2. starts a private redis-server on a free loopback port, with an append-only file
 *      (.redis-aof/, fsync every second), unless REDIS_URL is set;
 *   3. starts a private PostgreSQL (Debian's postgresql 15) on a free loopback port, its cluster in
 *      .postgres/ of the data directory, unless DATABASE_URL is set; it keeps the stored templates
 *      and the API keys (docs/templates.md). On the first start an admin key is made and kept in
 *      .admin-key (mode 0600); the banner names the file, never the key;
 *   4. starts one worker (embedded LibreOffice pool, or Gotenberg if GOTENBERG_URL is set), and
 *      once it has registered, the API on PORT (default 8000);
 *   5. prints the address and a curl example; Ctrl-C (or SIGTERM) stops everything, API first,
 *      then the worker (which finishes the jobs in hand), then Redis.
 *
 * It supervises what it started: a part that dies (the OOM killer, a crash) is started again
 * with backoff and a log line, while the rest keeps serving: the API answers 503 with
 * Retry-After while no worker is alive, and BullMQ's stalled-job check hands the jobs a dead
 * worker held to the restarted one. Only a part that keeps crashing right after its start makes
 * it give up, saying so. LibreOffice instances are restarted by the worker's pool itself.
 *
 * For operating it locally: Bull Board is turned on with random credentials (printed; set
 * BULL_BOARD_USER / BULL_BOARD_PASSWORD to choose them), logs are pretty-printed (LOG_FORMAT=json
 * for the production format), and the worker's metrics listener takes WORKER_HTTP_PORT (default
 * 9464, or any free port when 9464 is taken).
 *
 * Every variable of docs/configuration.md applies; scripts/ensure-deps.sh (npm's prestart)
 * installs redis-server, LibreOffice and the fonts when they are missing.
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const net = require('node:net');
const { chownSync, existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { build, ENTRY, NODE_ARGS, ROOT } = require('./build.js');

const children = [];
let stopping = false;

/**
 * Supervision: a part (Redis, the worker, the API) that exits on its own is started again, after
 * RESTART_MIN_MS doubling up to RESTART_MAX_MS; a part that ran STABLE_MS resets the delay. One
 * that crashed GIVE_UP_AFTER times in a row, each within STABLE_MS of its start, is broken (a bad
 * setting, a missing binary, a port taken): restarting it for ever would hide that, so everything
 * stops with the reason and its last lines. LibreOffice is restarted by the worker's own pool.
 */
const RESTART_MIN_MS = 500;
const RESTART_MAX_MS = 15_000;
const STABLE_MS = 30_000;
const GIVE_UP_AFTER = 5;

function log(message) {
  console.log(`[start] ${message}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Whether `port` can be listened on (on every interface, as the worker will). */
function portFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

/**
 * Starts a supervised part: each incarnation in its own process group (so Ctrl-C reaches only us,
 * and we stop the parts in order), restarted when it exits unless we are stopping.
 */
function run(name, command, args, env) {
  const entry = { name, command, args, env, child: undefined, exited: true, waiters: [], restarts: 0 };
  entry.fastCrashes = 0;
  entry.delay = RESTART_MIN_MS;
  entry.tail = [];
  spawnPart(entry);
  children.push(entry);
  return entry;
}

function spawnPart(entry) {
  const { name } = entry;
  const child = spawn(entry.command, entry.args, {
    cwd: ROOT,
    env: entry.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  entry.child = child;
  entry.exited = false;
  entry.startedAt = Date.now();
  for (const stream of [child.stdout, child.stderr]) {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop();
      for (const line of parts) {
        console.log(`[${name}] ${line}`);
        entry.tail.push(line);
        if (entry.tail.length > 5) entry.tail.shift();
        for (const w of entry.waiters.slice()) if (w.pattern.test(line)) w.resolve();
      }
    });
  }
  child.on('error', (e) => log(`${name} could not be started: ${e.message}`));
  child.on('exit', (code, signal) => {
    if (entry.child !== child) return;
    entry.exited = true;
    if (!stopping) onUnexpectedExit(entry, signal || `code ${code}`);
  });
}

/** Restarts a part that exited on its own, or gives up after GIVE_UP_AFTER fast crashes. */
function onUnexpectedExit(entry, how) {
  const ranMs = Date.now() - entry.startedAt;
  if (ranMs >= STABLE_MS) {
    entry.fastCrashes = 0;
    entry.delay = RESTART_MIN_MS;
  }
  entry.fastCrashes++;
  if (entry.fastCrashes >= GIVE_UP_AFTER) {
    const why =
      `${entry.name} exited ${entry.fastCrashes} times in a row within ${STABLE_MS / 1000} s of starting ` +
      `(last: ${how}); giving up, it will not run as configured`;
    log(why);
    if (entry.tail.length) log(`its last lines:\n  ${entry.tail.join('\n  ')}`);
    for (const w of entry.waiters.slice()) w.reject(new Error(why));
    void shutdown(1);
    return;
  }
  const delay = entry.delay;
  entry.delay = Math.min(RESTART_MAX_MS, entry.delay * 2);
  entry.restarts++;
  log(
    `${entry.name} exited unexpectedly (${how}) after ${(ranMs / 1000).toFixed(1)} s; ` +
      `restarting it in ${delay} ms (restart ${entry.restarts})`,
  );
  entry.timer = setTimeout(() => {
    entry.timer = undefined;
    if (stopping) return;
    spawnPart(entry);
  }, delay);
}

/** Resolves when a line of `entry` (of any incarnation) matches `pattern`. */
function waitForLine(entry, pattern, timeoutMs) {
  return new Promise((resolve, reject) => {
    const waiter = { pattern };
    const done = () => {
      clearTimeout(timer);
      entry.waiters.splice(entry.waiters.indexOf(waiter), 1);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`${entry.name} not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    waiter.resolve = () => (done(), resolve());
    waiter.reject = (e) => (done(), reject(e));
    entry.waiters.push(waiter);
  });
}

function stop(entry, timeoutMs) {
  if (!entry) return Promise.resolve();
  clearTimeout(entry.timer);
  if (entry.exited) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      log(`${entry.name} did not stop in ${timeoutMs} ms; killing it`);
      try {
        process.kill(-entry.child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }, timeoutMs);
    entry.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      process.kill(entry.child.pid, 'SIGTERM');
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}

async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  log('stopping…');
  const byName = (n) => children.find((c) => c.name === n);
  await stop(byName('api'), 10_000);
  await stop(byName('worker'), 60_000);
  await stop(byName('redis'), 5_000);
  await stop(byName('postgres'), 15_000);
  log('stopped');
  process.exit(code);
}

const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';

/** A PostgreSQL program's command line: as the `postgres` user when we are root (initdb and postgres refuse root). */
function asPostgres(program, args) {
  const bin = join(PG_BIN, program);
  if (process.getuid?.() !== 0) return [bin, args];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', bin, ...args]];
}

/**
 * The local PostgreSQL's cluster in `dir` (made by initdb on the first start, owned by `postgres`
 * when we are root), started supervised on a free loopback port with its Unix socket in `dir`.
 * Resolves with its URL once it accepts connections.
 */
async function startPostgres(dir, env) {
  const data = join(dir, 'data');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.getuid?.() === 0) {
    const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  if (!existsSync(join(data, 'PG_VERSION'))) {
    const [cmd, args] = asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
    const init = spawnSync(cmd, args, { encoding: 'utf8', env: { ...env, LANG: 'C.UTF-8' } });
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
    log(`made a PostgreSQL cluster in ${data}`);
  }
  const port = await freePort();
  const [cmd, args] = asPostgres('postgres', ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir]);
  const pg = run('postgres', cmd, args, { ...env, LANG: 'C.UTF-8' });
  await waitForLine(pg, /database system is ready to accept connections/, 60_000);
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}

async function main() {
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  // Last resort if we die without a shutdown: take the children along.
  process.on('exit', () => {
    for (const c of children) {
      if (c.child && !c.exited) {
        try {
          process.kill(-c.child.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  });

  build();
  const env = { ...process.env, PORT: process.env.PORT || '8000' };
  // Readable logs in a terminal; production keeps the JSON default.
  env.LOG_FORMAT ||= 'pretty';
  if (process.stdout.isTTY && !env.NO_COLOR) env.FORCE_COLOR ||= '1';
  // Bull Board on, with credentials nobody else knows unless they were chosen.
  if (!env.BULL_BOARD_USER || !env.BULL_BOARD_PASSWORD) {
    env.BULL_BOARD_USER = 'admin';
    env.BULL_BOARD_PASSWORD = randomBytes(18).toString('base64url');
  }
  // Webhooks work out of the box: without WEBHOOK_SECRET, a secret kept in .webhook-secret (made
  // once, mode 0600) signs them, the same across restarts; the banner names the file, never the key.
  const dataDir = env.REDIS_DATA_DIR || ROOT;
  mkdirSync(dataDir, { recursive: true });
  let webhookSecretNote = 'WEBHOOK_SECRET (from the environment)';
  if (!env.WEBHOOK_SECRET) {
    const file = join(dataDir, '.webhook-secret');
    if (!existsSync(file)) {
      writeFileSync(file, `whsec_${randomBytes(24).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    }
    env.WEBHOOK_SECRET = readFileSync(file, 'utf8').trim();
    webhookSecretNote = `in ${file} (set WEBHOOK_SECRET to choose it)`;
  }
  if (!env.WORKER_HTTP_PORT) env.WORKER_HTTP_PORT = String((await portFree(9464)) ? 9464 : await freePort());

  if (!env.REDIS_URL && !env.REDIS_CLUSTER_NODES) {
    const port = await freePort();
    // REDIS_DATA_DIR (dataDir): where the append-only file lives (default: the checkout).
    // Supervised: a restarted Redis comes back on the same port and reads the append-only file.
    const redis = run(
      'redis',
      'redis-server',
      // An append-only file (fsync every second) in .redis-aof/: accepted jobs (POST /api/v1/jobs)
      // survive a restart of Redis and of `npm start`.
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--dir',
        dataDir,
        '--appenddirname',
        '.redis-aof',
      ],
      process.env,
    );
    await waitForLine(redis, /Ready to accept connections/, 15_000);
    env.REDIS_URL = `redis://127.0.0.1:${port}`;
    log(`local Redis on ${env.REDIS_URL} (append-only file in ${join(dataDir, '.redis-aof')})`);
  } else {
    log(`using Redis at ${env.REDIS_CLUSTER_NODES || env.REDIS_URL.replace(/\/\/[^@/]*@/, '//***@')}`);
  }

  // Stored templates and API keys (docs/templates.md): a local PostgreSQL unless DATABASE_URL is set.
  // Its URL goes to .database-url too, for `npm run keys` beside a running `npm start`.
  if (!env.DATABASE_URL) {
    env.DATABASE_URL = await startPostgres(join(dataDir, '.postgres'), process.env);
    writeFileSync(join(dataDir, '.database-url'), `${env.DATABASE_URL}\n`, { mode: 0o600 });
    log(`local PostgreSQL on ${env.DATABASE_URL} (cluster in ${join(dataDir, '.postgres')})`);
  } else {
    log(`using PostgreSQL at ${env.DATABASE_URL.replace(/\/\/[^@/]*@/, '//***@')}`);
  }
  // An admin key on the first start, kept in .admin-key (mode 0600): the API stores its hash at
  // start (ADMIN_KEY_FILE); the banner names the file, never the key.
  const adminKeyFile = join(dataDir, '.admin-key');
  if (!existsSync(adminKeyFile)) {
    writeFileSync(adminKeyFile, `dpk_${randomBytes(32).toString('base64url')}\n`, {
      mode: 0o600,
      flag: 'wx',
    });
  }
  env.ADMIN_KEY_FILE = adminKeyFile;

  // The API opens its port only once a worker has registered: whoever polls /health-check and
  // then posts (a conformance run, a deploy script) gets a PDF, not 503 "No worker is running".
  const worker = run('worker', process.execPath, [...NODE_ARGS.worker, ENTRY.worker], env);
  await waitForLine(worker, /\bready \(id /, 120_000);
  const api = run('api', process.execPath, [...NODE_ARGS.api, ENTRY.api], env);
  await waitForLine(api, /listening on http/, 60_000);

  const base = `http://localhost:${env.PORT}`;
  console.log(`
  The service is running: ${base}

    curl ${base}/health-check
    curl ${base}/health/ready

  API docs (Swagger UI):  ${base}/docs
  Bull Board:             ${base}/admin/queues
                          user ${env.BULL_BOARD_USER}, password ${env.BULL_BOARD_PASSWORD}
  Webhook signing key:    ${webhookSecretNote}
  Admin API key:          in ${adminKeyFile} (stored templates: docs/templates.md)
  Metrics:                ${base}/metrics (API), http://localhost:${env.WORKER_HTTP_PORT}/metrics (worker)

    curl -sS -o invoice.pdf \\
      -F file=@examples/invoice.docx \\
      -F "request_data=<examples/invoice-request.json" \\
      ${base}/api/v1/process-template-document

  Ctrl-C stops everything.
`);
}

main().catch((e) => {
  console.error(`[start] ${e && e.message ? e.message : e}`);
  void shutdown(1);
});
