/**
 * Process inspection for the fault and hostile-input tests: memory of a process from
 * /proc/<pid>/status, the LibreOffice processes a worker started, and whether its pool is in
 * the middle of a conversion. Linux only (the service's target).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A field of /proc/<pid>/status in kB (VmRSS: resident now, VmHWM: peak since start or reset). */
export function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} for pid ${pid}`);
  return Number(m[1]);
}

export const rssMb = (pid: number): number => procStatusKb(pid, 'VmRSS') / 1024;
export const peakRssMb = (pid: number): number => procStatusKb(pid, 'VmHWM') / 1024;

/** Resets VmHWM to the current RSS (`echo 5 > /proc/<pid>/clear_refs`), to measure one peak. */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

interface ProcInfo {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string[];
}

function processes(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so split at the last ')'
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      out.push({ pid: Number(name), ppid, comm, cmdline });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Every process below `root` (children, grandchildren, …). */
export function descendants(root: number): ProcInfo[] {
  const all = processes();
  const found: ProcInfo[] = [];
  const frontier = [root];
  while (frontier.length) {
    const parent = frontier.pop()!;
    for (const p of all) {
      if (p.ppid === parent) {
        found.push(p);
        frontier.push(p.pid);
      }
    }
  }
  return found;
}

/** The soffice.bin processes a worker's LibreOffice pool runs (one per instance). */
export function sofficePids(workerPid: number): number[] {
  return descendants(workerPid)
    .filter((p) => p.comm === 'soffice.bin')
    .map((p) => p.pid);
}

/** The pool's private directory (parent of each instance's profile), from the bridges' arguments. */
function poolDirs(workerPid: number): string[] {
  const dirs = new Set<string>();
  for (const p of descendants(workerPid)) {
    const i = p.cmdline.indexOf('--profile');
    if (i >= 0 && p.cmdline[i + 1]) dirs.add(dirname(dirname(p.cmdline[i + 1])));
  }
  return [...dirs];
}

/** True while the worker's pool has a document handed to LibreOffice (a job directory holds in.docx). */
export function converting(workerPid: number): boolean {
  return poolDirs(workerPid).some((dir) => {
    try {
      return readdirSync(dir).some((d) => d.startsWith('job-') && existsSync(join(dir, d, 'in.docx')));
    } catch {
      return false;
    }
  });
}
