/**
 * CPU time by process, read from Linux's /proc/<pid>/stat (user + system): where a throughput gap
 * goes when LibreOffice, the bridge, the worker, the API, Redis and the benchmark's own client share
 * the machine's cores. CPU time, unlike throughput, does not move with the other tenants' load much,
 * so it tells which process a change made cheaper. Elsewhere than Linux it reads nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export type CpuSnapshot = Map<number, { role: string; ms: number }>;

/** Clock ticks per second of /proc's times (USER_HZ; 100 nearly everywhere). */
const TICK_MS = (() => {
  try {
    return 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  } catch {
    return 10;
  }
})();

/**
 * CPU used so far by every process still running. `known` names the processes the caller started
 * (pid → role); the rest are told by command line: the UNO bridge, LibreOffice (soffice.bin), or
 * `other` (other tenants, kernel threads).
 */
export function cpuSnapshot(known: Record<number, string>): CpuSnapshot | undefined {
  if (!existsSync('/proc/self/stat')) return undefined;
  const out: CpuSnapshot = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces), from field 3 on: utime is 14, stime 15.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      let role = known[pid];
      if (!role) {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        // The bridge's arguments name soffice too: look for it first.
        role = cmd.includes('uno_bridge') ? 'UNO bridge' : cmd.includes('soffice') ? 'LibreOffice' : 'other';
      }
      out.set(pid, { role, ms });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * CPU ms used by each role between two snapshots. A process started in between counts from zero;
 * one that ended in between is missing (its time is lost, not misassigned).
 */
export function cpuUsed(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const byRole = new Map<string, number>();
  for (const [pid, now] of after) {
    const used = now.ms - (before.get(pid)?.ms ?? 0);
    if (used > 0) byRole.set(now.role, (byRole.get(now.role) ?? 0) + used);
  }
  return byRole;
}

/** `LibreOffice 201.3, worker 17.9, …; total 251.0` (CPU ms per document), largest first. */
export function formatCpu(perDocument: ReadonlyMap<string, number>): string {
  const sorted = [...perDocument].sort((a, b) => b[1] - a[1]);
  const total = sorted.reduce((sum, [, ms]) => sum + ms, 0);
  return `${sorted.map(([role, ms]) => `${role} ${ms.toFixed(1)}`).join(', ')}; total ${total.toFixed(1)}`;
}
