/**
 * A private PostgreSQL (Debian's postgresql 15) for one test file: a fresh cluster in a temporary
 * directory, listening on 127.0.0.1 and a free port, its Unix socket inside that directory (never
 * in the shared /var/run/postgresql). initdb and postgres refuse to run as root, so as root they
 * run as the `postgres` user (setpriv) in a directory it owns.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess, freePort, sleep, spawnManaged } from '../service-harness';

export const PG_BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';

export interface RunningPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** Stops it (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
  /** SIGKILL to the postmaster and its backends, as the OOM killer would. */
  kill9(): Promise<void>;
  /** Starts it again on the same port and directory (crash recovery replays the WAL). */
  restart(): Promise<void>;
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) =>
    Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** The command line, run as `postgres` when we are root. */
function asPostgres(bin: string, args: string[]): [string, string[]] {
  if (!postgresUser()) return [join(PG_BIN, bin), args];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', join(PG_BIN, bin), ...args]];
}

export async function startPostgres(): Promise<RunningPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'docx-pg-test-'));
  const user = postgresUser();
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  // --no-sync and fsync=off: nothing here must survive a machine crash; a SIGKILLed postgres still
  // finds its committed WAL in the OS's page cache, which is what the crash tests need.
  const [cmd, args] = asPostgres('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const init = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, LANG: 'C.UTF-8' } });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await freePort();
  const spawnServer = (): ManagedProcess => {
    const [c, a] = asPostgres('postgres', [
      '-D',
      data,
      '-p',
      String(port),
      '-h',
      '127.0.0.1',
      '-k',
      dir,
      '-c',
      'fsync=off',
      '-c',
      'max_connections=50',
    ]);
    return spawnManaged(`postgres:${port}`, c, a, { ...process.env, LANG: 'C.UTF-8' });
  };
  const ready = /database system is ready to accept connections/;
  let proc = spawnServer();
  await proc.waitFor(ready, 30_000);
  const kill9 = async () => {
    proc.killGroup('SIGKILL');
    await proc.exited;
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    kill9,
    async restart() {
      if (proc.running) await proc.stop(10_000);
      for (let i = 0; ; i++) {
        proc = spawnServer();
        try {
          await proc.waitFor(ready, 30_000);
          return;
        } catch (e) {
          // The killed backends may hold the shared memory or the port for a moment.
          if (i >= 10) throw e;
          await sleep(300);
        }
      }
    },
    async stop() {
      await proc.stop(10_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
