/**
 * Worker liveness, and the converter the workers run. Each worker keeps an entry in a sorted set
 * (heartbeatKey) whose score is the moment its heartbeat expires, and a second entry in another
 * (converterHealthKey) while its converter is healthy; each set expires too, so when every worker
 * is gone nothing is left. Times come from Redis (TIME, in lua/registry-*.lua), so clocks of the
 * hosts do not matter. The converter's kind and version sit beside them (converterInfoKey) with
 * the heartbeat's TTL. Every key is in the queue's hash slot: works on Redis Cluster.
 */
import {
  converterHealthKey,
  type ConverterInfo,
  converterInfoKey,
  heartbeatKey,
  type QueueNames,
} from '@app/contracts';
import type { RedisConnection as Redis } from './redis-connection';
import { RedisScript } from './redis-script';

const BEAT = RedisScript.file('registry-beat');
const COUNT = RedisScript.file('registry-count');

/** Registers (or refreshes) `workerId` in the set `key` for `ttlMs`. */
export async function beat(redis: Redis, key: string, workerId: string, ttlMs: number): Promise<void> {
  await BEAT.run(redis, [key], [workerId, String(ttlMs)]);
}

/** Removes `workerId` from the set `key` at once (graceful shutdown). */
export async function unregister(redis: Redis, key: string, workerId: string): Promise<void> {
  await redis.zrem(key, workerId);
}

/** Number of workers of the set `key` whose heartbeat has not expired. */
export async function liveWorkers(redis: Redis, key: string): Promise<number> {
  return Number(await COUNT.run(redis, [key], []));
}

/** The registry of one queue: the workers write it (WorkerRegistration), the API reads it. */
export class WorkerRegistry {
  private readonly heartbeats: string;
  private readonly converters: string;
  private readonly info: string;

  constructor(
    private readonly redis: Redis,
    names: QueueNames,
  ) {
    this.heartbeats = heartbeatKey(names);
    this.converters = converterHealthKey(names);
    this.info = converterInfoKey(names);
  }

  /**
   * One heartbeat of `workerId`, for `ttlMs`: alive, in the healthy converters' set or out of it,
   * and the converter's kind and version published.
   */
  async beat(workerId: string, ttlMs: number, converter: { healthy: boolean; info: ConverterInfo }) {
    await beat(this.redis, this.heartbeats, workerId, ttlMs);
    if (converter.healthy) await beat(this.redis, this.converters, workerId, ttlMs);
    else await unregister(this.redis, this.converters, workerId);
    await this.redis.set(this.info, JSON.stringify(converter.info), 'PX', ttlMs);
  }

  /** Leaves both sets at once (graceful shutdown), so the API stops counting this worker. */
  async leave(workerId: string): Promise<void> {
    await unregister(this.redis, this.heartbeats, workerId).catch(() => undefined);
    await unregister(this.redis, this.converters, workerId).catch(() => undefined);
  }

  /** Workers whose heartbeat has not expired. */
  liveWorkers(): Promise<number> {
    return liveWorkers(this.redis, this.heartbeats);
  }

  /** Workers whose converter reported healthy with their last heartbeat. */
  healthyConverters(): Promise<number> {
    return liveWorkers(this.redis, this.converters);
  }

  /** The converter the workers published with their heartbeat; null if none did (or it is unreadable). */
  async converterInfo(): Promise<ConverterInfo | null> {
    const text = await this.redis.get(this.info);
    if (!text) return null;
    try {
      const info = JSON.parse(text) as Partial<ConverterInfo>;
      return typeof info.kind === 'string' && typeof info.version === 'string'
        ? { kind: info.kind, version: info.version }
        : null;
    } catch {
      return null;
    }
  }
}
