/**
 * The memory allocator soffice.bin runs with. glibc's malloc makes LibreOffice slower with every
 * document it converts: on the corpus invoice (its logo image) one instance went from 74 to 96 CPU
 * ms per document over 200 conversions, and a profile of the aged process shows malloc,
 * _int_malloc and malloc_consolidate growing from 19 % to 25 % of its time (a fragmented heap).
 * jemalloc, preloaded into soffice.bin alone, keeps it flat and is faster from the first document:
 * 62–67 ms over the same 200, the 500-row invoice 419–430 against 567–590 ms, the contract 230
 * against 258 ms (docs/conversion.md, "LibreOffice's allocator"). Debian ships it as libjemalloc2.
 *
 * `auto` (the default) uses jemalloc when it is installed and glibc's malloc otherwise; `jemalloc`
 * requires it (the worker refuses to start without it); `system` never preloads anything.
 */
import { existsSync } from 'node:fs';

export const LIBREOFFICE_ALLOCATORS = ['auto', 'jemalloc', 'system'] as const;
export type LibreOfficeAllocator = (typeof LIBREOFFICE_ALLOCATORS)[number];

/** What an instance is started with: the allocator in use and the library to preload, if any. */
export interface AllocatorChoice {
  allocator: 'jemalloc' | 'system';
  preload?: string;
}

/** Debian's multiarch directories (libjemalloc2), then the usual places of a source build. */
function jemallocCandidates(): string[] {
  const triplet = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' }[process.arch as string];
  return [
    ...(triplet ? [`/usr/lib/${triplet}/libjemalloc.so.2`] : []),
    '/usr/lib64/libjemalloc.so.2',
    '/usr/lib/libjemalloc.so.2',
    '/usr/local/lib/libjemalloc.so.2',
  ];
}

/** The installed jemalloc library, or undefined. */
export function findJemalloc(exists: (path: string) => boolean = existsSync): string | undefined {
  return jemallocCandidates().find((path) => exists(path));
}

/**
 * Resolves a setting to what instances start with; throws when `jemalloc` is asked for and missing.
 * `auto` keeps glibc's malloc in a worker run under libfaketime (a host's skewed clock, simulated):
 * libfaketime and jemalloc both hook soffice.bin's first clock calls, and it never starts.
 */
export function chooseAllocator(
  setting: LibreOfficeAllocator = 'auto',
  exists: (path: string) => boolean = existsSync,
  preloaded: string = process.env.LD_PRELOAD ?? '',
): AllocatorChoice {
  if (setting === 'system') return { allocator: 'system' };
  if (setting === 'auto' && /libfaketime/.test(preloaded)) return { allocator: 'system' };
  const preload = findJemalloc(exists);
  if (preload) return { allocator: 'jemalloc', preload };
  if (setting === 'jemalloc') {
    throw new Error(
      `LIBREOFFICE_ALLOCATOR=jemalloc, but libjemalloc.so.2 is in none of ${jemallocCandidates().join(', ')} ` +
        '(Debian: apt-get install libjemalloc2)',
    );
  }
  return { allocator: 'system' };
}
