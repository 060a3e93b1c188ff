/**
 * Fills that would hold the worker's event loop for long run on worker threads instead.
 *
 * A fill is synchronous: the corpus invoice fills at ~50 ms per 1,000 rows on this project's
 * 2-core machine (bench/fill-scale.bench.ts), so a 50,000-row statement held the loop ~2.4 s,
 * idle, and longer beside LibreOffice. Meanwhile BullMQ cannot renew the lock of any job this
 * worker holds (every WORKER_LOCK_DURATION_MS / 2), heartbeats and replies wait, and a lock that
 * lapses hands the job to another worker while this one still runs it. On a thread the loop
 * stays free.
 *
 * Hand-written over node:worker_threads rather than a pool library (piscina): the worker's own
 * concurrency already bounds the tasks, so this is one thread per concurrency slot started on
 * first use, a queue, and a thread that dies taken out, no more.
 */
import { decodeFailure } from '@app/contracts';
import type { FillJob, OffLoopFill } from '@app/pipeline';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface FillTask {
  id: number;
  template: Uint8Array;
  requestJson: string;
  /** The output, fill options and preparation settings (plain data: libs/pipeline's FillJob). */
  job: FillJob;
}

export interface FillAnswer {
  id: number;
  docx?: Buffer;
  /** A typed error's body (encodeFailure). */
  failure?: string;
  /** Anything else, as text. */
  crash?: string;
}

interface Pending {
  task: FillTask;
  resolve: (docx: Buffer) => void;
  reject: (e: Error) => void;
}

/**
 * The thread's entry: the compiled fill-thread.js beside this file in dist/; when this file runs
 * as TypeScript (Jest, tsx), fill-thread.ts loaded through tsx's require hook.
 */
function threadEntry(): { file: string; execArgv?: string[] } {
  const js = join(__dirname, 'fill-thread.js');
  // The process's own Node options are inherited (execArgv unset).
  if (existsSync(js)) return { file: js };
  return { file: join(__dirname, 'fill-thread.ts'), execArgv: ['--require', require.resolve('tsx/cjs')] };
}

export class FillPool implements OffLoopFill {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private started = 0;
  private nextId = 1;
  private closed = false;

  /**
   * `threads`: at most this many fills at once (the worker's concurrency). No per-thread heap
   * limit (node:worker_threads' resourceLimits): on Node 24 a thread that reaches it aborts the
   * whole process ("FATAL ERROR: Reached heap limit", seen with 64 MB on Node 24.21.0) instead of
   * dying alone as on Node 20, so it would turn one oversized fill into a lost worker. Fills are
   * bounded before they start instead (MAX_TABLE_CELLS, the request limits).
   */
  constructor(private readonly threads: number) {
    if (!Number.isInteger(threads) || threads < 1) throw new Error(`threads must be ≥ 1, got ${threads}`);
  }

  /** Threads running now (started and not dead). */
  get size(): number {
    return this.started;
  }

  /**
   * The filled .docx, its output's preparation done (libs/pipeline's fillDocument); rejects with
   * the typed error the fill or a preparation pass would have thrown.
   */
  fill(template: Buffer, requestJson: string, job: FillJob): Promise<Buffer> {
    if (this.closed) return Promise.reject(new Error('the fill pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ task: { id: this.nextId++, template, requestJson, job }, resolve, reject });
      this.dispatch();
    });
  }

  /** Ends the threads; fills in progress are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('the fill pool is closed'));
    const all = [...this.idle.splice(0), ...this.busy.keys()];
    await Promise.all(all.map((w) => w.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length) {
      const thread = this.idle.pop() ?? (this.started < this.threads ? this.spawn() : undefined);
      if (!thread) return;
      const pending = this.queue.shift() as Pending;
      this.busy.set(thread, pending);
      thread.postMessage(pending.task);
    }
  }

  private spawn(): Worker {
    const { file, execArgv } = threadEntry();
    const thread = new Worker(file, execArgv ? { execArgv } : {});
    // Never what keeps the process alive: a fill in progress is awaited by its job.
    thread.unref();
    this.started++;
    thread.on('message', (answer: FillAnswer) => {
      const pending = this.busy.get(thread);
      this.busy.delete(thread);
      if (!this.closed) this.idle.push(thread);
      if (pending) {
        if (answer.docx) {
          const u8 = answer.docx as Uint8Array;
          pending.resolve(Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength));
        } else if (answer.failure) pending.reject(decodeFailure(answer.failure));
        else pending.reject(new Error(`the fill failed: ${answer.crash ?? 'no answer'}`));
      }
      this.dispatch();
    });
    const lost = (reason: string) => {
      const pending = this.busy.get(thread);
      this.busy.delete(thread);
      const i = this.idle.indexOf(thread);
      if (i >= 0) this.idle.splice(i, 1);
      this.started--;
      pending?.reject(new Error(`the fill thread ${reason}`));
      if (!this.closed) this.dispatch();
    };
    thread.on('error', (e) => lost(`failed: ${e.message}`));
    thread.on('exit', (code) => {
      if (this.busy.has(thread) || this.idle.includes(thread)) lost(`exited (code ${code})`);
    });
    return thread;
  }
}
