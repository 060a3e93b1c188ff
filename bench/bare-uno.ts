/**
 * The conversion floor: uno_bridge.py driven directly over stdio, one warm LibreOffice, fixed
 * paths, no pool (no queue, no temporary directory per job, no supervision). What no service can
 * beat on this machine with this LibreOffice.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  DEFAULT_BRIDGE_SCRIPT,
  DEFAULT_PYTHON,
  DEFAULT_SOFFICE,
  findJemalloc,
  libreOfficeExport,
  type LibreOfficeExport,
} from '@app/converters';

/**
 * What the service asks of LibreOffice for a request without PDF options (lossless images; fields
 * and indexes refreshed when the document has any): a floor that makes the same PDF.
 */
export const SERVICE_EXPORT: LibreOfficeExport = libreOfficeExport({});

export interface BareReply {
  ok: boolean;
  ms?: number;
  /** loadComponentFromURL (import) and storeToURL (PDF export), measured inside the bridge. */
  load_ms?: number;
  export_ms?: number;
  error?: string;
}

export interface BareBridge {
  /** `exportOptions`: what the pool sends for a request's PDF options (libreOfficeExport); none by default. */
  convert(inPath: string, outPath: string, exportOptions?: LibreOfficeExport): Promise<BareReply>;
  stop(): void;
}

/**
 * Starts a bridge whose profile and temporary files live in `dir`. `soffice` and `python` may name
 * another LibreOffice and its pyuno (a version under test). `preload`: the allocator, as the
 * service's pool starts soffice by default (jemalloc when installed), so the floor is the same
 * LibreOffice the service runs; pass null for glibc's malloc.
 */
export async function startBareBridge(
  dir: string,
  soffice = DEFAULT_SOFFICE,
  python = DEFAULT_PYTHON,
  preload: string | null = findJemalloc() ?? null,
): Promise<BareBridge> {
  const child = spawn(
    python,
    [
      DEFAULT_BRIDGE_SCRIPT,
      '--soffice',
      soffice,
      '--profile',
      join(dir, 'profile'),
      '--pipe',
      `bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`,
      '--start-timeout',
      '60',
      ...(preload ? ['--preload', preload] : []),
    ],
    { detached: true, stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, TMPDIR: dir } },
  );
  const lines = createInterface({ input: child.stdout });
  const next = () =>
    new Promise<Record<string, unknown>>((resolve) => lines.once('line', (l) => resolve(JSON.parse(l))));
  // The bridge reports its start's progress (`starting`, every second) before `ready` or a failure.
  let ready = await next();
  while (ready.starting) ready = await next();
  if (!ready.ready) throw new Error(`bare bridge did not start: ${JSON.stringify(ready)}`);
  let id = 0;
  return {
    async convert(inPath: string, outPath: string, exportOptions?: LibreOfficeExport) {
      const answer = next();
      child.stdin.write(
        JSON.stringify({ id: ++id, cmd: 'convert', in: inPath, out: outPath, ...exportOptions }) + '\n',
      );
      const reply = (await answer) as unknown as BareReply;
      if (!reply.ok) throw new Error(`bare bridge: ${JSON.stringify(reply)}`);
      return reply;
    },
    stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    },
  };
}
