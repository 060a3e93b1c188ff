import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import type { LibreOfficeExport } from './pdf-options';

export const DEFAULT_SOFFICE = '/usr/lib/libreoffice/program/soffice.bin';
/** Debian's interpreter: its dist-packages hold python3-uno (a pyenv or venv python does not). */
export const DEFAULT_PYTHON = '/usr/bin/python3';
export const DEFAULT_BRIDGE_SCRIPT = join(__dirname, 'uno_bridge.py');

export interface LibreOfficeInstanceOptions {
  /** Slot number in the pool, for messages. */
  slot: number;
  /** Private directory (0700) the instance's profile and temporary files go under. */
  workDir: string;
  /**
   * The start gives up after this long without progress (soffice used no CPU: stopped, blocked)
   * or after this much CPU without an answer (spinning); uno_bridge.py's Office.start.
   */
  startTimeoutMs: number;
  /** The start gives up after this long in all, progress or not; default startTimeoutMs. */
  startMaxMs?: number;
  sofficePath?: string;
  pythonPath?: string;
  bridgeScript?: string;
  /** A library soffice.bin (not the bridge) is started with in LD_PRELOAD: the allocator. */
  preload?: string;
}

/**
 * Why an instance could not do what was asked. `crashed`: soffice or the bridge died (the pool
 * retries the conversion once elsewhere); `timeout`: no answer in time, the instance was killed;
 * `failed`: LibreOffice answered with an error (bad document), the instance is fine.
 */
export class InstanceError extends Error {
  constructor(
    readonly kind: 'start' | 'crashed' | 'timeout' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'InstanceError';
  }
}

/** What the bridge found in one part of a long table (split/): see uno_bridge.py's find_cut. */
export interface PartLayout {
  /** Pages exported: the part's share of the whole document. */
  pages?: number | null;
  /** First data row of the page after them (counted from the part's first data row). */
  cutRow?: number | null;
  /** Rows on the page before the cut, to predict where later parts start. */
  rowsPerPage?: number | null;
  /** The lead rows did not end page 1: change them by this many, nothing was exported. */
  leadShift?: number;
  /**
   * Where the first of those rows stands on its page (1/100 mm down the page) when the page does
   * not start at a row: the next part's lead is put there (PartRequest.leadTop); null otherwise.
   */
  leadTop?: number | null;
}

/** How the bridge is to treat a part of a long table: which table, its repeated header rows. */
export interface PartRequest {
  table: number;
  headerRows: number;
  /** Rows of the page before the part, filling a first page that is not exported. */
  lead: number;
  /** Where the first lead row is put on that page (PartLayout.leadTop); unset: at its top. */
  leadTop?: number;
  /** The table a cut is looked for in (a later long table than `table`), and its header rows. */
  cutTable?: number;
  cutHeaderRows?: number;
  /** The cut table's rows that are the document's; empty rows after them only pad it (docx-parts.ts). */
  cutRows?: number;
  /** The document's last part: every page is exported, no cut is looked for. */
  last: boolean;
}

interface Reply extends PartLayout {
  id?: number;
  ok?: boolean;
  error?: string;
  crashed?: boolean;
  ms?: number;
  ready?: boolean;
  /** A start still under way (once a second): time since launch and soffice's CPU time so far. */
  starting?: boolean;
  elapsed_ms?: number;
  cpu_ms?: number;
  pid?: number;
  event?: string;
  code?: number;
}

interface Pending {
  resolve: (reply: Reply) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

type State = 'new' | 'starting' | 'ready' | 'dead';

/** stderr is kept only for error messages; a bounded tail is enough and cannot grow. */
const STDERR_TAIL = 4096;

/**
 * One soffice.bin driven by one uno_bridge.py. The bridge runs in a process group of its own
 * with soffice inside it, so `kill()` takes both down with one signal, even when soffice is
 * stopped or stuck in a call.
 */
export class LibreOfficeInstance {
  readonly slot: number;
  /** Conversions this instance answered (success or document error), for restart-after-K. */
  conversions = 0;
  /** soffice.bin's pid once started. */
  pid?: number;
  /** Why the instance stopped (crash, timeout kill), for logs. */
  endReason?: string;
  /** Once started: wall-clock time from spawn to soffice's first UNO answer, and soffice's CPU time meanwhile. */
  startMs?: number;
  startCpuMs?: number;
  /** While starting: soffice's CPU time so far (the bridge's last progress line). */
  startingCpuMs?: number;
  private state: State = 'new';
  private child?: ChildProcessWithoutNullStreams;
  private dir?: string;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderrTail = '';
  private exitWaiters: Array<() => void> = [];
  private gone = false;
  private exitListener?: (instance: LibreOfficeInstance) => void;
  private startHandlers?: {
    ready: (reply: Reply) => void;
    progress: (reply: Reply) => void;
    exit: (reason: string) => void;
  };

  constructor(private readonly options: LibreOfficeInstanceOptions) {
    this.slot = options.slot;
  }

  get alive(): boolean {
    return this.state === 'starting' || this.state === 'ready';
  }

  get ready(): boolean {
    return this.state === 'ready';
  }

  /** pid of the bridge, which is also the process group id of bridge + soffice. */
  get bridgePid(): number | undefined {
    return this.child?.pid;
  }

  /** Called once when the processes are gone for any reason other than kill(). */
  onExit(listener: (instance: LibreOfficeInstance) => void): void {
    this.exitListener = listener;
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('a LibreOffice instance starts only once');
    this.state = 'starting';
    const o = this.options;
    this.dir = await mkdtemp(join(o.workDir, `instance-${o.slot}-`));
    const profile = join(this.dir, 'profile');
    const tmp = join(this.dir, 'tmp');
    await mkdir(tmp);
    // A unique pipe name per start: a dying predecessor may still hold the old one.
    const pipe = `docxpdf_${process.pid}_${o.slot}_${randomBytes(6).toString('hex')}`;
    const startMaxMs = Math.max(o.startMaxMs ?? o.startTimeoutMs, o.startTimeoutMs);
    const spawnedAt = performance.now();
    const child = spawn(
      o.pythonPath ?? DEFAULT_PYTHON,
      [
        o.bridgeScript ?? DEFAULT_BRIDGE_SCRIPT,
        '--soffice',
        o.sofficePath ?? DEFAULT_SOFFICE,
        '--profile',
        profile,
        '--pipe',
        pipe,
        '--start-timeout',
        String(o.startTimeoutMs / 1000),
        '--start-max',
        String(startMaxMs / 1000),
        ...(o.preload ? ['--preload', o.preload] : []),
      ],
      {
        // Own process group (kill(-pid) reaches soffice too, never us); LibreOffice's own
        // temporary files go under the instance directory, removed with it even after SIGKILL.
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, TMPDIR: tmp, PYTHONUNBUFFERED: '1' },
      },
    );
    this.child = child;

    const ready = new Promise<void>((resolve, reject) => {
      const fail = (message: string) => {
        stopTimers();
        reject(new InstanceError('start', `LibreOffice instance ${o.slot} did not start: ${message}`));
      };
      // The bridge enforces the start timeouts itself; these only catch a stuck bridge: silent
      // for a start timeout (it reports progress once a second), or past the start's maximum.
      const stuck = () => {
        fail(`the bridge gave no sign of progress within ${o.startTimeoutMs} ms${this.stderrSuffix()}`);
        void this.kill();
      };
      let timer = setTimeout(stuck, o.startTimeoutMs + 2000);
      const cap = setTimeout(() => {
        fail(`no answer within ${startMaxMs} ms${this.stderrSuffix()}`);
        void this.kill();
      }, startMaxMs + 2000);
      const stopTimers = () => {
        clearTimeout(timer);
        clearTimeout(cap);
      };
      this.startHandlers = {
        progress: (reply) => {
          this.startingCpuMs = reply.cpu_ms;
          clearTimeout(timer);
          timer = setTimeout(stuck, o.startTimeoutMs + 2000);
        },
        ready: (reply) => {
          stopTimers();
          if (reply.ready && typeof reply.pid === 'number') {
            this.pid = reply.pid;
            this.startMs = Math.round(performance.now() - spawnedAt);
            this.startCpuMs = reply.cpu_ms;
            this.state = 'ready';
            resolve();
          } else {
            fail(`${reply.error ?? 'unknown error'}${this.stderrSuffix()}`);
          }
        },
        exit: (code) => fail(`the bridge exited with code ${code}${this.stderrSuffix()}`),
      };
    });

    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    child.stdin.on('error', () => undefined); // EPIPE when the bridge died: reported via exit
    createInterface({ input: child.stdout }).on('line', (line) => this.onLine(line));
    child.on('error', (err) =>
      this.onGone(`could not run ${o.pythonPath ?? DEFAULT_PYTHON}: ${err.message}`),
    );
    child.on('exit', (code, signal) => {
      // Wait for stdout to drain so a last answer is still read; do not wait forever for it.
      const done = () => this.onGone(`the bridge exited (${signal ?? `code ${code}`})`);
      const fallback = setTimeout(done, 500);
      child.once('close', () => {
        clearTimeout(fallback);
        done();
      });
    });

    try {
      await ready;
    } finally {
      this.startHandlers = undefined;
    }
  }

  /**
   * Converts `inPath` (.docx) to `outPath` (.pdf) as `exportSpec` says (refresh, properties,
   * filter data: libreOfficeExport()'s); kills the instance when `timeoutMs` passes.
   */
  async convert(
    inPath: string,
    outPath: string,
    exportSpec: LibreOfficeExport,
    timeoutMs: number,
    part?: PartRequest,
  ): Promise<PartLayout> {
    const reply = await this.request(
      { in: inPath, out: outPath, ...exportSpec, ...(part ? { part } : {}) },
      timeoutMs,
    );
    this.conversions++;
    if (!reply.ok) {
      throw new InstanceError('failed', reply.error ?? 'unknown LibreOffice error');
    }
    return {
      pages: reply.pages,
      cutRow: reply.cutRow,
      rowsPerPage: reply.rowsPerPage,
      leadShift: reply.leadShift,
      leadTop: reply.leadTop,
    };
  }

  /** One UNO round trip: tells a responsive soffice from a hung one. */
  async ping(timeoutMs: number): Promise<void> {
    const reply = await this.request({ cmd: 'ping' }, timeoutMs);
    if (!reply.ok) throw new InstanceError('failed', reply.error ?? 'ping failed');
  }

  /** SIGKILLs bridge and soffice (one process group) and removes the instance directory. */
  async kill(): Promise<void> {
    const child = this.child;
    this.state = 'dead'; // at once: whoever looks before the exit event must not reuse it
    if (child?.pid !== undefined && !this.gone && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.exitWaiters.push(resolve));
      this.exitListener = undefined; // a deliberate kill is not a crash
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // ESRCH: already gone
      }
      await exited;
    }
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }

  private request(body: Record<string, unknown>, timeoutMs: number): Promise<Reply> {
    if (this.state !== 'ready' || !this.child) {
      return Promise.reject(new InstanceError('crashed', `LibreOffice instance ${this.slot} is not running`));
    }
    const id = this.nextId++;
    const child = this.child;
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.endReason = `no answer within ${timeoutMs} ms (hung), killed`;
        reject(
          new InstanceError(
            'timeout',
            `LibreOffice instance ${this.slot} gave no answer within ${timeoutMs} ms and was killed`,
          ),
        );
        void this.kill();
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      child.stdin.write(JSON.stringify({ id, ...body }) + '\n');
    });
  }

  private onLine(line: string): void {
    let reply: Reply;
    try {
      reply = JSON.parse(line) as Reply;
    } catch {
      this.stderrTail = (this.stderrTail + `\n[stdout] ${line}`).slice(-STDERR_TAIL);
      return;
    }
    if (reply.ready !== undefined) {
      this.startHandlers?.ready(reply);
      return;
    }
    if (reply.starting) {
      this.startHandlers?.progress(reply);
      return;
    }
    if (reply.event === 'exited') {
      this.stderrTail += `\nsoffice exited with code ${reply.code}`;
      return;
    }
    if (reply.id === undefined) return;
    const p = this.pending.get(reply.id);
    if (!p) return; // answer after a timeout: the instance is being killed anyway
    this.pending.delete(reply.id);
    clearTimeout(p.timer);
    if (!reply.ok && reply.crashed) {
      // The bridge exits right after this answer; no one may pick the instance up meanwhile.
      this.endReason = `soffice crashed: ${reply.error}`;
      void this.kill();
      p.reject(new InstanceError('crashed', `LibreOffice instance ${this.slot} crashed: ${reply.error}`));
    } else {
      p.resolve(reply);
    }
  }

  private onGone(reason: string): void {
    if (this.gone) return; // 'error' and 'exit' can both report the same end
    this.gone = true;
    const wasUp = this.state !== 'dead';
    this.state = 'dead';
    this.endReason ??= `${reason}${this.stderrSuffix()}`;
    this.startHandlers?.exit(reason);
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(
        new InstanceError(
          'crashed',
          `LibreOffice instance ${this.slot} died: ${reason}${this.stderrSuffix()}`,
        ),
      );
    }
    for (const resolve of this.exitWaiters.splice(0)) resolve();
    const listener = this.exitListener;
    this.exitListener = undefined;
    if (wasUp && listener) listener(this);
  }

  private stderrSuffix(): string {
    const tail = this.stderrTail.trim();
    return tail ? ` (stderr: ${tail.slice(-500)})` : '';
  }
}
