/**
 * The one way the service runs Lua: a script of libs/queue/src/lua/ (RedisScript.file), run by
 * its SHA-1 (EVALSHA) and loaded with EVAL the first time a server does not know it (NOSCRIPT:
 * first use, a restarted Redis, another node of a cluster). EVAL would send the script's text
 * with every call; the API runs one on every request.
 *
 * The scripts are .lua files read once at load, beside this module: scripts/build.js copies
 * files that are not TypeScript into dist/ unchanged, so the built service finds them there.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisConnection as Redis } from './redis-connection';

export class RedisScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  /** The script `lua/<name>.lua` of this library. */
  static file(name: string): RedisScript {
    return new RedisScript(readFileSync(join(__dirname, 'lua', `${name}.lua`), 'utf8'));
  }

  async run(
    redis: Redis,
    keys: readonly string[],
    args: ReadonlyArray<string | Buffer | number>,
  ): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (e) {
      if (!/NOSCRIPT/.test((e as Error).message ?? '')) throw e;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}
