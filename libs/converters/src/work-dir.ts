/**
 * Where the LibreOffice pool keeps its private directory: each instance's profile and TMPDIR
 * (LibreOffice writes and removes temporary files on every conversion) and each job's .docx and
 * PDF. On a disk file system these are journal work (a profile of the worker at 4 callers put
 * 1.7 ms of wall time per job in a synchronous unlink and rmdir), and LibreOffice itself converts
 * faster on tmpfs. Two instances on the corpus invoice, 80 documents each way, 24 Nov 2026:
 * /dev/shm 28.6–29.0 documents/s and 58–59 CPU ms per document against /tmp's 26.3–26.7 and
 * 61–62 (docs/conversion.md).
 *
 * The default is /dev/shm when it is a writable tmpfs with room to spare (a container's default
 * 64 MiB is not: a few large PDFs in flight would fill it), else the system's temporary directory.
 * LIBREOFFICE_WORK_DIR names another directory (any tmpfs mount, or a disk when memory is tight).
 * The pool's directory is private (mode 0700) wherever it is.
 */
import { accessSync, constants, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';

const SHM_DIR = '/dev/shm';
/** Free space /dev/shm needs to be chosen by default. */
export const MIN_SHM_FREE_BYTES = 512 * 1024 * 1024;

/** tmpfs' magic number in statfs(2)'s f_type. */
const TMPFS_MAGIC = 0x01021994;

type Statfs = (path: string) => { type: number; bavail: number; bsize: number };

/** /dev/shm if it is a writable tmpfs with MIN_SHM_FREE_BYTES free, else os.tmpdir(). */
export function defaultWorkDir(
  statfs: Statfs = statfsSync,
  writable: (path: string) => boolean = isWritable,
): string {
  try {
    const s = statfs(SHM_DIR);
    if (s.type === TMPFS_MAGIC && s.bavail * s.bsize >= MIN_SHM_FREE_BYTES && writable(SHM_DIR))
      return SHM_DIR;
  } catch {
    // no /dev/shm (not Linux): the temporary directory
  }
  return tmpdir();
}

function isWritable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why `dir` cannot hold the pool's directory, or undefined when it can. */
export function workDirProblem(dir: string): string | undefined {
  if (!dir.startsWith('/')) return 'must be an absolute path';
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return undefined;
  } catch (e) {
    return `is not a writable directory (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
  }
}
