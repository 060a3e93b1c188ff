import { chooseAllocator, findJemalloc } from './allocator';

const only =
  (...present: string[]) =>
  (path: string) =>
    present.includes(path);

describe('chooseAllocator', () => {
  const debian = process.arch === 'arm64' ? '/usr/lib/aarch64-linux-gnu' : '/usr/lib/x86_64-linux-gnu';

  it('preloads jemalloc by default when it is installed, else runs glibc malloc', () => {
    expect(chooseAllocator('auto', only(`${debian}/libjemalloc.so.2`))).toEqual({
      allocator: 'jemalloc',
      preload: `${debian}/libjemalloc.so.2`,
    });
    expect(chooseAllocator(undefined, only('/usr/local/lib/libjemalloc.so.2'))).toEqual({
      allocator: 'jemalloc',
      preload: '/usr/local/lib/libjemalloc.so.2',
    });
    expect(chooseAllocator('auto', only())).toEqual({ allocator: 'system' });
  });

  it('never preloads with `system`, even when jemalloc is installed', () => {
    expect(chooseAllocator('system', only(`${debian}/libjemalloc.so.2`))).toEqual({ allocator: 'system' });
  });

  it('keeps glibc malloc under libfaketime with `auto` (the two deadlock soffice.bin), not when asked', () => {
    const installed = only(`${debian}/libjemalloc.so.2`);
    const faketime = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
    expect(chooseAllocator('auto', installed, faketime)).toEqual({ allocator: 'system' });
    expect(chooseAllocator('auto', installed, '/usr/lib/other.so')).toEqual({
      allocator: 'jemalloc',
      preload: `${debian}/libjemalloc.so.2`,
    });
    expect(chooseAllocator('jemalloc', installed, faketime)).toEqual({
      allocator: 'jemalloc',
      preload: `${debian}/libjemalloc.so.2`,
    });
  });

  it('refuses `jemalloc` when it is not installed, saying where it looked and what to install', () => {
    expect(() => chooseAllocator('jemalloc', only())).toThrow(
      /libjemalloc\.so\.2 is in none of .*apt-get install libjemalloc2/,
    );
  });

  // That this machine has it (the set-up installs libjemalloc2) is checked where LibreOffice runs:
  // test/libreoffice-pool.e2e-spec.ts.
  it('finds the library in the first place that has it, or nowhere', () => {
    expect(findJemalloc(only('/usr/lib64/libjemalloc.so.2', '/usr/local/lib/libjemalloc.so.2'))).toBe(
      '/usr/lib64/libjemalloc.so.2',
    );
    expect(findJemalloc(only('/opt/libjemalloc.so.2'))).toBeUndefined();
  });
});
