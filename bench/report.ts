/** What every benchmark prints: the machine and the run, and samples as median and range. */
import * as os from 'node:os';

import { peakRssMb } from '../test/support/hostile-process';

/** One line naming the machine and the run, printed before any figure. */
export function machineLine(): string {
  const cpus = os.cpus();
  return (
    `${cpus[0]?.model ?? 'unknown CPU'}, ${cpus.length} cores, Node ${process.version}, ` +
    `${new Date().toISOString()}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`
  );
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function summarize(xs: readonly number[]): Summary {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length };
}

/** A duration in ms: one decimal below 100 ms. */
export function ms(x: number): string {
  return x >= 100 ? x.toFixed(0) : x.toFixed(1);
}

/** `12.3 ms (10.1–15.0)`: median, then the range. */
export function formatMs(s: Summary): string {
  return `${ms(s.median)} ms (${ms(s.min)}–${ms(s.max)})`;
}

export function elapsedMs(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Peak resident set size of this process's own memory so far, in MiB (Linux: VmHWM). Not
 * getrusage's maxRSS: Linux carries the parent's peak into it across execve, so a child of a large
 * process (a Jest worker of ~450 MB) reported its parent's peak as its own.
 */
export function peakRssMiB(): number {
  return peakRssMb(process.pid);
}
