/**
 * A starved machine on demand, for the starved-start test and bench:starved: busy-loop child
 * processes at the caller's nice (equal priority with LibreOffice, as the other work on a shared
 * host is), each in a session of its own, bounded in count and in time. Each hog also ends itself after `maxMs`, so one left
 * behind by a killed test dies on its own; `stop()` and process exit kill them sooner.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { readFileSync } from 'node:fs';

/** More would only make the machine unusable for everyone sharing it. */
export const MAX_HOGS = 16 * availableParallelism();

export interface CpuHogs {
  readonly count: number;
  /** Kills `n` of the hogs (all when omitted) and waits until they are gone. */
  stop(n?: number): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHooked = false;

function killAllNow(): void {
  for (const hog of running) {
    try {
      hog.kill('SIGKILL');
    } catch {
      // gone already
    }
  }
}

/** Starts `count` busy loops that each exit by themselves after `maxMs`. */
export function startCpuHogs(count: number, maxMs: number): CpuHogs {
  if (!Number.isInteger(count) || count < 0 || count > MAX_HOGS) {
    throw new RangeError(`hogs must be 0–${MAX_HOGS}, got ${count}`);
  }
  if (!(maxMs > 0 && maxMs <= 15 * 60_000))
    throw new RangeError(`maxMs must be at most 15 min, got ${maxMs}`);
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', killAllNow);
  }
  const hogs: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    const hog = spawn(
      process.execPath,
      ['-e', `const end = Date.now() + ${Math.round(maxMs)}; while (Date.now() < end) {}`],
      // A session of its own each, as independent work has: with the kernel's autogroup
      // scheduling (/proc/sys/kernel/sched_autogroup_enabled) CPU is shared between sessions
      // first, and hogs of one session would weigh together as much as one LibreOffice
      // instance (the pool starts each in a session of its own): 15 of them slowed a start
      // only from 1.0 to 2.7 s.
      { stdio: 'ignore', detached: true },
    );
    running.add(hog);
    hog.once('exit', () => running.delete(hog));
    hogs.push(hog);
  }
  return {
    get count() {
      return hogs.filter((h) => h.exitCode === null && h.signalCode === null).length;
    },
    async stop(n = hogs.length) {
      const victims = hogs.filter((h) => h.exitCode === null && h.signalCode === null).slice(0, n);
      await Promise.all(
        victims.map(
          (hog) =>
            new Promise<void>((resolve) => {
              hog.once('exit', () => resolve());
              try {
                hog.kill('SIGKILL');
              } catch {
                resolve();
              }
            }),
        ),
      );
    },
  };
}

/**
 * Waits until the 1-minute load average reaches `target`, polling every second, for `timeoutMs`
 * at most. Returns the load average reached (below `target` when the time ran out).
 */
export async function waitForLoad(target: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [load] = loadavg();
    if (load >= target || Date.now() >= deadline) return load;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Runnable tasks right now (the 4th field of /proc/loadavg, `running/total`): the load average unsmoothed. */
export function runnableNow(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[3].split('/')[0]);
}
