import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, rmdir, unlink } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';

import { isTypedError } from '@app/contracts';
import { WaitQueue } from './wait-queue';
import { type AllocatorChoice, chooseAllocator, type LibreOfficeAllocator } from './allocator';
import { defaultWorkDir } from './work-dir';
import { ConversionFailedError } from './errors';
import {
  InstanceError,
  LibreOfficeInstance,
  type PartLayout,
  type PartRequest,
} from './libreoffice-instance';
import { type ExportTarget, libreOfficeExport, type LibreOfficeExport } from './pdf-options';
import {
  looksLikePdf,
  queueFullError,
  type ConvertOptions,
  type ConverterHealth,
  type ConverterStats,
  type PdfConverter,
} from './pdf-converter';

export interface LibreOfficePoolOptions {
  /** Long-running soffice processes; default os.availableParallelism(). */
  instances?: number;
  /**
   * Replace an instance after this many conversions (LibreOffice keeps memory); 0 = never. Default
   * POOL_DEFAULTS.restartAfter for the allocator the instances run with.
   */
  restartAfter?: number;
  /** Per conversion, counted from the moment an instance takes it (queue time excluded). */
  conversionTimeoutMs?: number;
  /**
   * A start gives up after this long without progress (soffice used no CPU) or after this much
   * CPU without answering; a starved soffice that keeps making progress is waited for.
   */
  startTimeoutMs?: number;
  /** A start gives up after this long in all, progress or not; default 15 × startTimeoutMs. */
  startMaxMs?: number;
  /** Starts that may run at once; default startsAtOnce(): one per idle core, at least one. */
  maxStartsAtOnce?: number;
  /** Conversions allowed to wait for a free instance; one more is refused at once. */
  maxQueue?: number;
  /** health() pings idle instances; one that does not answer in this time is replaced. */
  healthTimeoutMs?: number;
  /** Parent of the pool's private directory; default defaultWorkDir() (/dev/shm when roomy, work-dir.ts). */
  tmpDir?: string;
  sofficePath?: string;
  pythonPath?: string;
  bridgeScript?: string;
  /** The allocator soffice.bin runs with (allocator.ts): `auto` (default), `jemalloc`, `system`. */
  allocator?: LibreOfficeAllocator;
  /** Told about restarts, crashes and start failures (one line each); default: silent. */
  log?: (message: string) => void;
}

/** The PDF a conversion wrote; empty when there is none (reported as `no_output`). */
function readPdf(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch {
    return Buffer.alloc(0);
  }
}

/**
 * Removes a job's directory: its two known files, then the directory (a recursive rm stats and
 * lists first); recursively only if something else was left in it. Never rejects.
 */
async function removeJobDir(dir: string, files: string[]): Promise<void> {
  await Promise.all(files.map((file) => unlink(file).catch(() => undefined)));
  await rmdir(dir).catch(() => rm(dir, { recursive: true, force: true }).catch(() => undefined));
}

/**
 * Where attempt `attempt` of a job exports. A retry never writes where the crashed attempt did: a
 * SIGKILLed soffice leaves LibreOffice's lock file (`.~lock.out.pdf#`) there, and the next
 * instance's export then aborts (IOException 0x11b, Io Abort) as if the document were at fault.
 */
function outPathOf(dir: string, attempt: number): string {
  return join(dir, attempt === 1 ? 'out.pdf' : `out-${attempt}.pdf`);
}

export const POOL_DEFAULTS = {
  /**
   * Conversions before an instance is replaced, by allocator. A restart costs ~0.56 s of CPU and a
   * cold first conversion (+45 ms on the corpus invoice), so it is worth doing only as often as
   * LibreOffice needs it. With glibc's malloc it slows with every document (74 → 96 CPU ms per
   * invoice over 200): 200. With jemalloc one instance stayed at 56.6–58.2 ms and grew from 172 to
   * 221 MiB over 1,000 invoices, and held 243–284 MiB over 300 mixed documents (invoice, 500-row
   * invoice, contract): 1,000, about 1 % of its CPU instead of 5 % (docs/conversion.md).
   */
  restartAfter: { jemalloc: 1000, system: 200 },
  conversionTimeoutMs: 30_000,
  startTimeoutMs: 20_000,
  /**
   * startMaxMs = this × startTimeoutMs (300 s by default). A start needs ~1 s of CPU at any
   * load; its wall-clock time was ~1 s on a quiet 2-core machine and 13–17 s at a load of 16
   * there, and more than 20 s on the user's slower host (docs/conversion.md, "Starved machine").
   */
  startMaxFactor: 15,
  maxQueue: 100,
  /** A ping is one UNO round trip (~1 ms); a soffice that cannot answer in 5 s is hung. */
  healthTimeoutMs: 5_000,
} as const;

/** Backoff between attempts to start an instance that failed to start. */
const START_RETRY_MIN_MS = 1_000;
const START_RETRY_MAX_MS = 30_000;

/**
 * How much slower than on an idle machine things run now: the 1-minute load average per core,
 * at least 1. Health pings wait that much longer before they call an instance hung.
 */
export function loadFactor(): number {
  return Math.max(1, loadavg()[0] / availableParallelism());
}

/**
 * Starts that may run at once: one per idle core (cores less the 1-minute load average), at
 * least one. Where the service's own CPU share is what is scarce, sibling starts only take CPU
 * from each other and the first instance, which conversions wait for, comes up later (1.0 against
 * 3.2 s measured); among many other tasks one at a time only delays the second instance
 * (docs/conversion.md, "Starved machine").
 */
export function startsAtOnce(): number {
  return Math.max(1, Math.floor(availableParallelism() - loadavg()[0]));
}

type SlotState = 'starting' | 'idle' | 'busy' | 'down';

interface Slot {
  readonly index: number;
  state: SlotState;
  instance?: LibreOfficeInstance;
  /** Conversions done in this slot over all its instances. */
  served: number;
  /** The running launch(), so close() can wait for it. */
  launching?: Promise<void>;
  lastError?: string;
  startFailures: number;
  retryTimer?: NodeJS.Timeout;
  /** When the retry timer fires (Date.now() clock), for the Retry-After of converter_unavailable. */
  retryAt?: number;
}

/** A part's PDF (its share of the pages) and where the bridge found the next part must start. */
export interface PartResult extends PartLayout {
  pdf: Buffer;
}

/** One row of `describe()`: what each slot runs now. */
export interface SlotInfo {
  slot: number;
  state: SlotState;
  pid?: number;
  bridgePid?: number;
  served: number;
  /** The running instance's start: spawn to first UNO answer, and soffice's CPU time meanwhile. */
  startMs?: number;
  startCpuMs?: number;
  lastError?: string;
}

/**
 * N long-running LibreOffice instances behind one bounded wait queue, supervised in the manner
 * of Gotenberg's LibreOffice module: start timeout, restart after K conversions, restart on
 * crash or hang (per-conversion timeout kills the stuck instance), a crash during a conversion
 * retried once on another instance. Instances start on `start()` (createConverter calls it) or
 * on the first conversion.
 */
export class LibreOfficePool implements PdfConverter {
  readonly name = 'libreoffice';
  readonly capacity: number;
  /** jemalloc when it is preloaded into every soffice.bin, else `system` (glibc's malloc). */
  readonly allocator: AllocatorChoice['allocator'];
  private readonly preload?: string;
  /** Where the pool's private directory goes (profiles, LibreOffice's temporary files, jobs). */
  readonly workParent: string;
  get setup(): string {
    return `allocator ${this.allocator}, work dir ${this.workParent}`;
  }
  /** Conversions after which an instance is replaced; 0 = never. */
  readonly restartAfter: number;
  /** A conversion's timeout when the call names none. */
  readonly conversionTimeoutMs: number;
  private readonly startTimeoutMs: number;
  private readonly startMaxMs: number;
  /** Starts running now, and those waiting for their turn (startsAtOnce). */
  private startsRunning = 0;
  private readonly startTurns: Array<() => void> = [];
  /** The last successful start's wall-clock time: what the next one is expected to take. */
  private lastStartMs?: number;
  private readonly maxQueue: number;
  private readonly slots: Slot[];
  private readonly waiters: WaitQueue<Slot>;
  private workDir?: Promise<string>;
  private started?: Promise<void>;
  private closed = false;
  private closing?: Promise<void>;
  private counters = { conversions: 0, failures: 0, restarts: 0 };
  /** Job directories being removed, so close() can wait for them. */
  private readonly removals = new Set<Promise<void>>();
  /** kill() of replaced instances still running, so close() can wait for them. */
  private readonly dying = new Set<Promise<void>>();
  private readonly log: (message: string) => void;

  constructor(private readonly options: LibreOfficePoolOptions = {}) {
    this.capacity = options.instances ?? availableParallelism();
    this.conversionTimeoutMs = options.conversionTimeoutMs ?? POOL_DEFAULTS.conversionTimeoutMs;
    this.startTimeoutMs = options.startTimeoutMs ?? POOL_DEFAULTS.startTimeoutMs;
    this.startMaxMs = Math.max(
      options.startMaxMs ?? this.startTimeoutMs * POOL_DEFAULTS.startMaxFactor,
      this.startTimeoutMs,
    );
    this.maxQueue = options.maxQueue ?? POOL_DEFAULTS.maxQueue;
    this.waiters = new WaitQueue<Slot>(this.maxQueue, (jobId?: string) =>
      queueFullError(this.name, this.maxQueue, jobId),
    );
    this.log = options.log ?? (() => undefined);
    ({ allocator: this.allocator, preload: this.preload } = chooseAllocator(options.allocator));
    this.restartAfter = options.restartAfter ?? POOL_DEFAULTS.restartAfter[this.allocator];
    this.workParent = options.tmpDir ?? defaultWorkDir();
    if (!Number.isInteger(this.capacity) || this.capacity < 1) {
      throw new RangeError(`instances must be a positive integer, got ${this.capacity}`);
    }
    this.slots = Array.from({ length: this.capacity }, (_, index) => ({
      index,
      state: 'starting' as SlotState, // until start(); convert() always calls start() first
      served: 0,
      startFailures: 0,
    }));
  }

  /**
   * Starts every instance; resolves when each has started or failed, rejects only when none
   * started. Idempotent. Failed instances keep being retried in the background.
   */
  start(): Promise<void> {
    if (this.closed) return Promise.reject(this.closedError());
    this.started ??= (async () => {
      await this.privateDir();
      await Promise.allSettled(this.slots.map((slot) => this.launch(slot)));
      if (!this.slots.some((s) => s.state === 'idle' || s.state === 'busy')) {
        throw this.unavailableError();
      }
    })();
    return this.started;
  }

  async convert(docx: Buffer, options: ConvertOptions = {}): Promise<Buffer> {
    return (await this.run(docx, options)).pdf;
  }

  /**
   * One part of a long table (split/split-converter.ts): the bridge exports the pages before the
   * last page the part's rows reach and says which row starts that page. No cut found: an empty
   * `pdf` and no `cutRow`.
   */
  async convertPart(docx: Buffer, options: ConvertOptions, part: PartRequest): Promise<PartResult> {
    return this.run(docx, options, part);
  }

  /**
   * The document through another export filter than PDF (ODT, HTML, text:
   * outputs/document-formats.ts), on the same instances, with the same refresh and properties.
   * The bytes as LibreOffice wrote them; an empty file is a `no_output` failure.
   */
  async convertTo(docx: Buffer, target: ExportTarget, options: ConvertOptions = {}): Promise<Buffer> {
    return (await this.run(docx, options, undefined, target)).pdf;
  }

  private async run(
    docx: Buffer,
    options: ConvertOptions,
    part?: PartRequest,
    target?: ExportTarget,
  ): Promise<PartResult> {
    const jobId = options.jobId;
    const timeoutMs = options.timeoutMs ?? this.conversionTimeoutMs;
    if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs must be a positive number, got ${timeoutMs}`);
    try {
      if (this.closed) throw this.closedError();
      // Not awaited: a conversion waits for the first free instance, not for all of them.
      this.start().catch(() => undefined);
      // The job's files are written and read synchronously: a few hundred microseconds of the
      // worker's loop for an invoice against seven round trips to libuv's thread pool. Their
      // removal goes on in the background (close() waits for it): on a disk it waits for the
      // journal (1.7 ms per job in a profile under load), which no caller needs to wait for.
      const dir = mkdtempSync(join(await this.privateDir(), 'job-'));
      const inPath = join(dir, 'in.docx');
      try {
        writeFileSync(inPath, docx);
        const { layout, outPath } = await this.runOnInstance(
          inPath,
          dir,
          target ? { ...libreOfficeExport(options.pdf), target } : libreOfficeExport(options.pdf),
          timeoutMs,
          jobId,
          part,
        );
        if (part && !layout.pages) {
          this.counters.conversions++;
          return { pdf: Buffer.alloc(0), ...layout };
        }
        const pdf = readPdf(outPath);
        if (target ? pdf.length === 0 : !looksLikePdf(pdf)) {
          throw new ConversionFailedError(
            `LibreOffice reported success but wrote no ${target ? target.filter : 'PDF'}`,
            {
              backend: 'libreoffice',
              reason: 'no_output',
              ...(jobId ? { jobId } : {}),
            },
          );
        }
        this.counters.conversions++;
        return { pdf, ...layout };
      } finally {
        // A retry's files (and the lock file a killed soffice left) go with removeJobDir's
        // recursive fallback.
        const removal = removeJobDir(dir, [inPath, outPathOf(dir, 1)]).finally(() =>
          this.removals.delete(removal),
        );
        this.removals.add(removal);
      }
    } catch (e) {
      this.counters.failures++;
      if (isTypedError(e)) throw e;
      // File system trouble (disk full, tmp removed): still a conversion failure to the caller.
      throw new ConversionFailedError(`PDF conversion failed: ${(e as Error).message}`, {
        backend: 'libreoffice',
        reason: 'io_error',
        ...(jobId ? { jobId } : {}),
      });
    }
  }

  /**
   * Pings every idle instance over UNO (a hung one is killed and replaced). Healthy when no
   * instance failed to start and at least one is up: an instance being recycled after K
   * conversions does not make the pool unhealthy.
   */
  async health(): Promise<ConverterHealth> {
    const instances = this.capacity;
    if (this.closed) return { healthy: false, instances, ready: 0, detail: 'closed' };
    if (!this.started) return { healthy: false, instances, ready: 0, detail: 'not started' };
    await Promise.all(this.slots.filter((s) => s.state === 'idle').map((slot) => this.pingSlot(slot)));
    const up = this.slots.filter((s) => s.state === 'idle' || s.state === 'busy');
    const down = this.slots.filter((s) => s.state === 'down');
    const starting = this.slots.filter((s) => s.state === 'starting');
    const healthy = down.length === 0 && up.length > 0;
    const notes = [
      ...down.map((s) => `instance ${s.index} down: ${s.lastError ?? 'not started'}`),
      ...starting.map((s) => {
        const cpu = s.instance?.startingCpuMs;
        return `instance ${s.index} starting${cpu === undefined ? '' : ` (soffice ${cpu} ms CPU so far)`}`;
      }),
    ];
    return { healthy, instances, ready: up.length, ...(notes.length ? { detail: notes.join('; ') } : {}) };
  }

  stats(): ConverterStats {
    return {
      ...this.counters,
      queueLength: this.waiters.length,
      busy: this.slots.filter((s) => s.state === 'busy').length,
      instances: this.capacity,
    };
  }

  /** What each slot runs now (pids for tests and diagnostics). */
  describe(): SlotInfo[] {
    return this.slots.map((s) => ({
      slot: s.index,
      state: s.state,
      pid: s.instance?.ready ? s.instance.pid : undefined,
      bridgePid: s.instance?.alive ? s.instance.bridgePid : undefined,
      served: s.served,
      ...(s.instance?.ready ? { startMs: s.instance.startMs, startCpuMs: s.instance.startCpuMs } : {}),
      ...(s.lastError ? { lastError: s.lastError } : {}),
    }));
  }

  /** Stops every process (process-group SIGKILL) and removes profiles and temporary files. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      this.waiters.rejectAll(this.closedError());
      for (const slot of this.slots) clearTimeout(slot.retryTimer);
      for (const turn of this.startTurns.splice(0)) turn();
      await Promise.all(this.slots.map((s) => s.instance?.kill()));
      await Promise.all(this.slots.map((s) => s.launching));
      await Promise.all(this.dying);
      await Promise.all(this.removals);
      if (this.workDir) {
        const dir = await this.workDir.catch(() => undefined);
        if (dir) await rm(dir, { recursive: true, force: true });
      }
    })();
    return this.closing;
  }

  // --- conversion on one instance, with one retry after a crash -------------------------------

  /** Converts `inPath`, writing each attempt's PDF in `dir` (outPathOf). */
  private async runOnInstance(
    inPath: string,
    dir: string,
    exportSpec: LibreOfficeExport,
    timeoutMs: number,
    jobId?: string,
    part?: PartRequest,
  ): Promise<{ layout: PartLayout; outPath: string }> {
    const ctx = { backend: 'libreoffice', ...(jobId ? { jobId } : {}) };
    for (let attempt = 1; ; attempt++) {
      const slot = await this.acquire(attempt > 1, jobId);
      const instance = slot.instance!;
      const outPath = outPathOf(dir, attempt);
      try {
        const layout = await instance.convert(inPath, outPath, exportSpec, timeoutMs, part);
        slot.served++;
        return { layout, outPath };
      } catch (e) {
        if (!(e instanceof InstanceError)) throw e;
        if (e.kind === 'crashed' && attempt === 1) continue; // retry once, on a fresh instance
        if (e.kind === 'timeout') {
          throw new ConversionFailedError(
            `LibreOffice did not finish the conversion within ${timeoutMs} ms; the instance was restarted`,
            { ...ctx, reason: 'timeout', timeoutMs },
          );
        }
        if (e.kind === 'crashed') {
          throw new ConversionFailedError(`LibreOffice crashed twice converting the document: ${e.message}`, {
            ...ctx,
            reason: 'crashed',
          });
        }
        slot.served++;
        throw new ConversionFailedError(`LibreOffice could not convert the document: ${e.message}`, {
          ...ctx,
          reason: 'libreoffice_error',
          error: e.message,
        });
      } finally {
        this.release(slot, instance);
      }
    }
  }

  private async pingSlot(slot: Slot): Promise<void> {
    slot.state = 'busy';
    const instance = slot.instance!;
    try {
      // On a starved machine a round trip waits for CPU too: a healthy instance must not be
      // killed for the load.
      const timeoutMs = (this.options.healthTimeoutMs ?? POOL_DEFAULTS.healthTimeoutMs) * loadFactor();
      await instance.ping(Math.round(timeoutMs));
    } catch (e) {
      slot.lastError = (e as Error).message;
    } finally {
      this.release(slot, instance, false);
    }
  }

  // --- slots and the wait queue ----------------------------------------------------------------

  private acquire(priority: boolean, jobId?: string): Promise<Slot> {
    if (this.closed) return Promise.reject(this.closedError());
    const idle = this.slots.find((s) => s.state === 'idle');
    if (idle) {
      idle.state = 'busy';
      return Promise.resolve(idle);
    }
    if (this.started && this.slots.every((s) => s.state === 'down')) {
      // Nothing will come free: fail now (a 503 with Retry-After at the API). The next start
      // keeps its backoff: restarting on every request was a tight loop of doomed starts on a
      // starved machine.
      return Promise.reject(this.unavailableError(jobId));
    }
    return this.waiters.wait(jobId, priority);
  }

  /** Back to idle, or replaced when dead or worn out. */
  private release(slot: Slot, instance: LibreOfficeInstance, counts = true): void {
    if (this.closed || slot.instance !== instance) return;
    if (!instance.ready) {
      this.replace(slot, instance.endReason ?? 'it stopped');
    } else if (counts && this.restartAfter > 0 && instance.conversions >= this.restartAfter) {
      this.replace(slot, `it did ${instance.conversions} conversions (restart after ${this.restartAfter})`);
    } else {
      slot.state = 'idle';
      this.dispatch();
    }
  }

  private dispatch(): void {
    while (this.waiters.length > 0) {
      const slot = this.slots.find((s) => s.state === 'idle');
      if (!slot) return;
      slot.state = 'busy';
      this.waiters.handOver(slot);
    }
  }

  private replace(slot: Slot, why: string): void {
    this.counters.restarts++;
    const old = slot.instance;
    this.log(`LibreOffice instance ${slot.index} (pid ${old?.pid ?? '?'}) is replaced: ${why}`);
    slot.instance = undefined;
    if (old) {
      const dying = old.kill().finally(() => this.dying.delete(dying));
      this.dying.add(dying);
    }
    void this.launch(slot);
  }

  private launch(slot: Slot): Promise<void> {
    const run = this.launchInstance(slot).finally(() => {
      if (slot.launching === run) slot.launching = undefined;
    });
    slot.launching = run;
    return run;
  }

  /** Waits until fewer than startsAtOnce() starts run; the caller must call endStart() after. */
  private async startTurn(): Promise<void> {
    while (!this.closed && this.startsRunning >= (this.options.maxStartsAtOnce ?? startsAtOnce())) {
      await new Promise<void>((resolve) => this.startTurns.push(resolve));
    }
    this.startsRunning++;
  }

  private endStart(): void {
    this.startsRunning--;
    this.startTurns.shift()?.();
  }

  private async launchInstance(slot: Slot): Promise<void> {
    if (this.closed) return;
    slot.state = 'starting';
    const workDir = await this.privateDir();
    await this.startTurn();
    try {
      await this.startInstance(slot, workDir);
    } finally {
      this.endStart();
    }
  }

  private async startInstance(slot: Slot, workDir: string): Promise<void> {
    if (this.closed) return;
    const instance = new LibreOfficeInstance({
      slot: slot.index,
      workDir,
      startTimeoutMs: this.startTimeoutMs,
      startMaxMs: this.startMaxMs,
      sofficePath: this.options.sofficePath,
      pythonPath: this.options.pythonPath,
      bridgeScript: this.options.bridgeScript,
      preload: this.preload,
    });
    slot.instance = instance;
    instance.onExit(() => {
      // Died while idle (killed from outside, crashed on its own): replace it now. A death
      // during a conversion or a ping is handled when that call fails and releases the slot.
      if (slot.instance === instance && slot.state === 'idle') {
        this.replace(slot, instance.endReason ?? 'it died while idle');
      }
    });
    try {
      await instance.start();
    } catch (e) {
      if (slot.instance !== instance) return;
      slot.instance = undefined;
      slot.state = 'down';
      slot.lastError = (e as Error).message;
      slot.startFailures++;
      this.log(
        `LibreOffice instance ${slot.index} failed to start (${slot.startFailures}×): ${slot.lastError}`,
      );
      await instance.kill();
      if (this.closed) return;
      if (this.slots.every((s) => s.state === 'down')) {
        this.waiters.rejectAll(this.unavailableError());
      }
      const delay = Math.min(START_RETRY_MAX_MS, START_RETRY_MIN_MS * 2 ** (slot.startFailures - 1));
      slot.retryAt = Date.now() + delay;
      slot.retryTimer = setTimeout(() => this.retryNow(slot), delay);
      slot.retryTimer.unref(); // a pool waiting to retry must not keep the process alive
      return;
    }
    if (this.closed || slot.instance !== instance) {
      await instance.kill();
      return;
    }
    slot.startFailures = 0;
    slot.lastError = undefined;
    this.lastStartMs = instance.startMs;
    if ((instance.startMs ?? 0) > this.startTimeoutMs) {
      const [load] = loadavg();
      this.log(
        `LibreOffice instance ${slot.index} started slowly: ${instance.startMs} ms ` +
          `(soffice ${instance.startCpuMs ?? '?'} ms CPU; load ${load.toFixed(1)} on ${availableParallelism()} cores)`,
      );
    }
    slot.state = 'idle';
    this.dispatch();
  }

  private retryNow(slot: Slot): void {
    if (this.closed || slot.state !== 'down') return;
    clearTimeout(slot.retryTimer);
    slot.retryTimer = undefined;
    slot.retryAt = undefined;
    void this.launch(slot);
  }

  private privateDir(): Promise<string> {
    // mkdtemp creates the directory with mode 0700: documents and profiles stay private.
    this.workDir ??= mkdtemp(join(this.workParent, 'docx-pdf-lo-'));
    return this.workDir;
  }

  private closedError(): ConversionFailedError {
    return new ConversionFailedError('The LibreOffice converter is closed', {
      backend: 'libreoffice',
      reason: 'converter_closed',
      retryable: true,
    });
  }

  private unavailableError(jobId?: string): ConversionFailedError {
    const reasons = [...new Set(this.slots.map((s) => s.lastError).filter(Boolean))];
    return new ConversionFailedError(
      `No LibreOffice instance could be started: ${reasons.join('; ') || 'unknown'}`,
      {
        backend: 'libreoffice',
        reason: 'converter_unavailable',
        retryable: true,
        retryAfterMs: this.retryAfterMs(),
        ...(jobId ? { jobId } : {}),
      },
    );
  }

  /**
   * When an instance may be up: the next start attempt (after its backoff) plus what the last
   * successful start took (the start timeout when none has succeeded yet).
   */
  private retryAfterMs(): number {
    const now = Date.now();
    const next = Math.min(...this.slots.map((s) => (s.retryAt ?? now) - now));
    return Math.max(0, next) + (this.lastStartMs ?? this.startTimeoutMs);
  }
}
