import { tmpdir } from 'node:os';
import { defaultWorkDir, MIN_SHM_FREE_BYTES, workDirProblem } from './work-dir';

const TMPFS = 0x01021994;
const EXT4 = 0xef53;
const fs = (type: number, freeBytes: number) => () => ({ type, bavail: freeBytes / 4096, bsize: 4096 });
const yes = () => true;

describe('defaultWorkDir', () => {
  it('is /dev/shm when it is a writable tmpfs with room to spare', () => {
    expect(defaultWorkDir(fs(TMPFS, 24 * 2 ** 30), yes)).toBe('/dev/shm');
    expect(defaultWorkDir(fs(TMPFS, MIN_SHM_FREE_BYTES), yes)).toBe('/dev/shm');
  });

  it("is the temporary directory for a container's 64 MiB /dev/shm, a disk, a read-only or missing one", () => {
    expect(defaultWorkDir(fs(TMPFS, 64 * 2 ** 20), yes)).toBe(tmpdir());
    expect(defaultWorkDir(fs(EXT4, 24 * 2 ** 30), yes)).toBe(tmpdir());
    expect(defaultWorkDir(fs(TMPFS, 24 * 2 ** 30), () => false)).toBe(tmpdir());
    const missing = () => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    };
    expect(defaultWorkDir(missing, yes)).toBe(tmpdir());
  });
});

describe('workDirProblem', () => {
  it('accepts a writable absolute directory and says what is wrong with anything else', () => {
    expect(workDirProblem(tmpdir())).toBeUndefined();
    expect(workDirProblem('relative/dir')).toBe('must be an absolute path');
    expect(workDirProblem('/no/such/dir')).toBe('is not a writable directory (ENOENT)');
  });
});
