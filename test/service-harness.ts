/**
 * Runs the real service for the end-to-end tests and the benchmark: a private redis-server on a
 * free loopback port (no persistence), worker processes and the API process, all built from
 * dist/ (scripts/build.js). Each process runs in its own process group, so stopping or killing
 * one also ends the LibreOffice processes it started; every process started here is ended by
 * stopAll() (and, as a last resort, when the test process exits).
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { MEMORY_PROBE_PREFIX, MEMORY_PROBE_SIGNAL } from '@app/logging';

const scripts = require('../scripts/build.js') as {
  build: (o?: { force?: boolean; quiet?: boolean }) => boolean;
  ENTRY: { api: string; worker: string };
  NODE_ARGS: { api: string[]; worker: string[] };
  ROOT: string;
};
const { build, ROOT } = scripts;
/** The service's built entry points and Node's arguments for each (scripts/build.js). */
export const { ENTRY, NODE_ARGS } = scripts;

const started = new Set<ManagedProcess>();

process.on('exit', () => {
  for (const p of started) p.killGroup('SIGKILL');
});

export function buildService(): void {
  build({ quiet: true });
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A child process with its output kept line by line, in a process group of its own. */
export class ManagedProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;
  private listeners: Array<() => void> = [];

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
    private readonly echo = process.env.SERVICE_TEST_VERBOSE === '1',
  ) {
    started.add(this);
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? null : 0);
        started.delete(this);
        this.notify();
        resolve(code);
      });
    });
    for (const stream of [child.stdout, child.stderr]) {
      let pending = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        pending += chunk;
        const parts = pending.split('\n');
        pending = parts.pop() ?? '';
        for (const line of parts) {
          this.lines.push(line);
          if (this.echo) console.log(`[${this.name}] ${line}`);
        }
        this.notify();
      });
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  output(): string {
    return this.lines.join('\n');
  }

  private notify(): void {
    for (const l of this.listeners.splice(0)) l();
  }

  /** Resolves with the first line (from `from` on) matching `pattern`. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000, from = 0): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.lines.slice(from).find((l) => pattern.test(l));
      if (line !== undefined) return line;
      if (!this.running) throw new Error(`${this.name} exited before printing ${pattern}:\n${this.output()}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`${this.name} did not print ${pattern} within ${timeoutMs} ms:\n${this.output()}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.listeners.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Signals the whole process group (the process and e.g. its soffice children). */
  killGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.pid, signal);
    } catch {
      // already gone
    }
  }

  /** SIGTERM, then SIGKILL to the group after `graceMs`. Resolves once it has exited. */
  async stop(graceMs = 15_000): Promise<void> {
    if (this.running) {
      try {
        process.kill(this.pid, 'SIGTERM');
      } catch {
        // gone
      }
      const timer = setTimeout(() => this.killGroup('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
    this.killGroup('SIGKILL'); // leftovers of the group, if any
  }
}

export function spawnManaged(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): ManagedProcess {
  const child = spawn(command, args, {
    cwd: ROOT,
    env,
    detached: true, // own process group: killGroup() reaches its children too
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new ManagedProcess(name, child);
}

export class RedisServer {
  private constructor(
    readonly port: number,
    public proc: ManagedProcess,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(port?: number): Promise<RedisServer> {
    const p = port ?? (await freePort());
    const server = new RedisServer(p, RedisServer.spawn(p));
    await server.waitReady();
    return server;
  }

  private static spawn(port: number): ManagedProcess {
    return spawnManaged(
      `redis:${port}`,
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'no',
      ],
      process.env,
    );
  }

  private async waitReady(): Promise<void> {
    await this.proc.waitFor(/Ready to accept connections/, 10_000);
  }

  client(): Redis {
    return new Redis(this.url, { maxRetriesPerRequest: 1, lazyConnect: false });
  }

  async stop(): Promise<void> {
    await this.proc.stop(5_000);
  }

  /** Starts a new, empty redis-server on the same port (as after a crash without persistence). */
  async restart(): Promise<void> {
    await this.stop();
    for (let i = 0; ; i++) {
      this.proc = RedisServer.spawn(this.port);
      try {
        await this.waitReady();
        return;
      } catch (e) {
        if (i >= 10) throw e;
        await sleep(300); // the port may linger for a moment
      }
    }
  }
}

/** Settings that keep tests fast and light on the 2-core machine. */
export function testEnv(redisUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    LANG: 'C.UTF-8',
    REDIS_URL: redisUrl,
    LIBREOFFICE_INSTANCES: '1',
    WORKER_CONCURRENCY: '1',
    HEARTBEAT_INTERVAL_MS: '500',
    HEARTBEAT_TTL_MS: '2000',
    WORKER_LOCK_DURATION_MS: '4000',
    WORKER_STALLED_INTERVAL_MS: '1000',
    JOB_BACKOFF_MS: '200',
    RETRY_AFTER_SECONDS: '2',
    // Most tests want the 503 for "no worker" at once; the hold has its own test.
    NO_WORKER_WAIT_MS: '0',
    WORKER_ALIVE_FILE: `/tmp/docx-worker-test-${process.pid}.alive`,
    // Any free port for each worker's metrics/health listener: several workers run side by side.
    WORKER_HTTP_PORT: '0',
    // npm start's private Redis keeps its append-only file here, not in the checkout's .redis-aof/:
    // test runs side by side must not share one file, nor leave test jobs for the next npm start.
    REDIS_DATA_DIR: join(tmpdir(), `docx-redis-test-${process.pid}`),
    ...extra,
  };
}

/**
 * The tests' Node flag for the API and the workers, before the arguments `npm start` gives them
 * (NODE_ARGS in scripts/build.js): --expose-gc installs their memory probe
 * (libs/logging/src/memory-probe.ts), which memoryAfterGc() reads.
 */
const TEST_NODE_FLAGS = ['--expose-gc'];

export async function startWorker(env: NodeJS.ProcessEnv, name = 'worker'): Promise<ManagedProcess> {
  const proc = spawnManaged(
    name,
    process.execPath,
    [...TEST_NODE_FLAGS, ...NODE_ARGS.worker, ENTRY.worker],
    env,
  );
  await proc.waitFor(/\bready \(id /, 60_000);
  return proc;
}

/**
 * Base URL of a started worker's HTTP listener (/metrics, /health/live, /health/ready), from the
 * line it logs once listening (WORKER_HTTP_PORT=0 picks any free port).
 */
export async function workerHttpUrl(worker: ManagedProcess): Promise<string> {
  const line = await worker.waitFor(/metrics and health on http:\/\//, 30_000);
  const url = /(http:\/\/[^\s"]+)/.exec(line)![1];
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//127.0.0.1:');
}

export interface RunningApi {
  url: string;
  proc: ManagedProcess;
}

export async function startApi(env: NodeJS.ProcessEnv, name = 'api'): Promise<RunningApi> {
  const port = await freePort();
  const proc = spawnManaged(name, process.execPath, [...TEST_NODE_FLAGS, ...NODE_ARGS.api, ENTRY.api], {
    ...env,
    PORT: String(port),
    HOST: '127.0.0.1',
  });
  const url = `http://127.0.0.1:${port}`;
  // Ready once it answers (whatever LOG_LEVEL lets it print).
  await waitUntil(
    async () => {
      if (!proc.running) throw new Error(`${name} exited:\n${proc.output()}`);
      return fetch(`${url}/health-check`).then(
        (r) => r.ok,
        () => false,
      );
    },
    30_000,
    `${name} to answer on ${url}`,
  );
  return { url, proc };
}

/** process.memoryUsage() of a service process, in bytes. */
export interface MemoryFigures {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** The V8 heap's resident part (v8.getHeapStatistics().total_physical_size). */
  heapPhysical: number;
}

/**
 * Memory of a running API or worker right after a forced full garbage collection: signals its
 * memory probe and reads the line the probe writes.
 */
export async function memoryAfterGc(proc: ManagedProcess): Promise<MemoryFigures> {
  const from = proc.lines.length;
  process.kill(proc.pid, MEMORY_PROBE_SIGNAL);
  const line = await proc.waitFor(new RegExp(`^${MEMORY_PROBE_PREFIX}`), 30_000, from);
  return JSON.parse(line.slice(MEMORY_PROBE_PREFIX.length)) as MemoryFigures;
}

/**
 * A fresh redis-server and a client for the tests of the enclosing file or describe: started
 * before all of them, stopped after. Read `.server` and `.client` inside the tests.
 */
export function redisForTests(): { readonly server: RedisServer; readonly client: Redis } {
  const state = {} as { server: RedisServer; client: Redis };
  beforeAll(async () => {
    state.server = await RedisServer.start();
    state.client = state.server.client();
  });
  afterAll(async () => {
    state.client?.disconnect();
    await stopAll(state.server);
  });
  return state;
}

export async function stopAll(
  ...procs: Array<ManagedProcess | RedisServer | RunningApi | undefined>
): Promise<void> {
  await Promise.all(
    procs.map((p) => {
      if (!p) return undefined;
      if (p instanceof ManagedProcess || p instanceof RedisServer) return p.stop();
      return p.proc.stop();
    }),
  );
}

export interface RenderForm {
  file?: Buffer;
  filename?: string;
  data?: string | object;
  request_data?: string | object;
  /** Further form parts, e.g. an unexpected file field. */
  extra?: (form: FormData) => void;
}

export function renderForm(f: RenderForm): FormData {
  const form = new FormData();
  if (f.file) form.append('file', new Blob([f.file]), f.filename ?? 'template.docx');
  if (f.data !== undefined) form.append('data', typeof f.data === 'string' ? f.data : JSON.stringify(f.data));
  if (f.request_data !== undefined) {
    form.append(
      'request_data',
      typeof f.request_data === 'string' ? f.request_data : JSON.stringify(f.request_data),
    );
  }
  f.extra?.(form);
  return form;
}

export const RENDER_PATH = '/api/v1/process-template-document';

export function postRender(baseUrl: string, f: RenderForm, signal?: AbortSignal): Promise<Response> {
  return fetch(`${baseUrl}${RENDER_PATH}`, { method: 'POST', body: renderForm(f), signal });
}

/** Text of a PDF (poppler's pdftotext). */
export function pdfText(pdf: Buffer): string {
  const r = spawnSync('pdftotext', ['-enc', 'UTF-8', '-', '-'], { input: pdf });
  if (r.status !== 0) throw new Error(`pdftotext failed: ${r.stderr.toString()}`);
  return r.stdout.toString('utf8');
}

/** Images of a PDF as `pdfimages -list` reports them (width and height in pixels). */
export function pdfImages(pdf: Buffer): Array<{ width: number; height: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'pdfimages-'));
  const file = join(dir, 'in.pdf');
  writeFileSync(file, pdf);
  const r = spawnSync('pdfimages', ['-list', file]);
  rmSync(dir, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`pdfimages failed: ${r.stderr.toString()}`);
  return r.stdout
    .toString('utf8')
    .split('\n')
    .slice(2)
    .filter((l) => l.trim())
    .map((l) => l.trim().split(/\s+/))
    .filter((cols) => cols[2] === 'image')
    .map((cols) => ({ width: Number(cols[3]), height: Number(cols[4]) }));
}

export async function waitUntil(
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}

/** A job's status once it has completed or failed (GET /api/v1/jobs/{id} polled). */
export async function jobFinished<T extends { status: string }>(
  apiUrl: string,
  id: string,
  timeoutMs: number,
): Promise<T> {
  let last: T | undefined;
  await waitUntil(
    async () => {
      const res = await fetch(`${apiUrl}/api/v1/jobs/${id}`);
      if (res.status !== 200) throw new Error(`GET /api/v1/jobs/${id} answered ${res.status}`);
      last = (await res.json()) as T;
      return last.status === 'completed' || last.status === 'failed';
    },
    timeoutMs,
    `job ${id} to finish`,
  );
  return last!;
}

/**
 * A solid-colour RGB PNG, as base64. Written here with node:zlib rather than pngjs, whose
 * encoder is slow under Jest (seconds for a large image).
 */
export function solidPng(width: number, height: number, rgb: [number, number, number]): string {
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]).toString('base64');
}
