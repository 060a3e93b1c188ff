/**
 * A Lua script run by its SHA-1 (EVALSHA), loaded with EVAL the first time a server does not
 * know it (NOSCRIPT: first use, a restarted Redis, another node of a cluster). EVAL would send
 * the script's text with every call; the API runs one on every request.
 */
import { createHash } from 'node:crypto';
import type { RedisConnection as Redis } from './redis-connection';

export class RedisScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
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
