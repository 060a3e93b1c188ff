/**
 * A memory probe for the leak check of the end-to-end tests. Installed only when the process was
 * started with --expose-gc (the test harness does so; the images and `npm start` do not): then
 * SIGWINCH forces a full garbage collection and writes one line to stderr,
 * `memory-probe {"rss":…,"heapTotal":…,"heapUsed":…,"external":…,"arrayBuffers":…,"heapPhysical":…}`
 * (bytes; heapPhysical: the V8 heap's resident part, so that RSS less it is what lives outside it).
 * SIGWINCH because its default action is to be ignored (a stray one does nothing, with or without
 * the probe) and NestJS' shutdown hooks do not take it (they take SIGUSR2, and SIGUSR1 starts the
 * inspector).
 */
import { getHeapStatistics } from 'node:v8';

export const MEMORY_PROBE_SIGNAL = 'SIGWINCH';
export const MEMORY_PROBE_PREFIX = 'memory-probe ';

export function installMemoryProbe(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return false;
  process.on(MEMORY_PROBE_SIGNAL, () => {
    gc();
    // A second collection after the callbacks the first one queued (FinalizationRegistry,
    // weak references, freed external buffers) have run.
    setImmediate(() => {
      gc();
      const figures = { ...process.memoryUsage(), heapPhysical: getHeapStatistics().total_physical_size };
      process.stderr.write(`${MEMORY_PROBE_PREFIX}${JSON.stringify(figures)}\n`);
    });
  });
  return true;
}
