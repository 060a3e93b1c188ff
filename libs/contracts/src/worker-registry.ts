/**
 * Worker liveness. Each worker keeps an entry in one sorted set (`{prefix}:{queue}-workers`) whose
 * score is the moment its heartbeat expires; the set itself expires too, so when every worker is
 * gone nothing is left. Times come from Redis (TIME), so clocks of the hosts do not matter. One
 * key in the queue's hash slot: works on Redis Cluster.
 */
import type { RedisConnection as Redis } from './redis-connection';
import { RedisScript } from './redis-script';

const BEAT = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`);

const COUNT = new RedisScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], now, '+inf')`);

/** Registers (or refreshes) `workerId` for `ttlMs`. */
export async function beat(redis: Redis, key: string, workerId: string, ttlMs: number): Promise<void> {
  await BEAT.run(redis, [key], [workerId, String(ttlMs)]);
}

/** Removes `workerId` at once (graceful shutdown). */
export async function unregister(redis: Redis, key: string, workerId: string): Promise<void> {
  await redis.zrem(key, workerId);
}

/** Number of workers whose heartbeat has not expired. */
export async function liveWorkers(redis: Redis, key: string): Promise<number> {
  return Number(await COUNT.run(redis, [key], []));
}
