/**
 * Connections to the service's Redis, the same way for the API, the workers and Bull Board: one
 * server (REDIS_URL), or a Redis Cluster (REDIS_CLUSTER_NODES) through ioredis' Cluster client.
 * On a cluster every key of the service lies in one slot (the hash tag of QUEUE_PREFIX), so
 * BullMQ's Lua scripts and our MULTI and EVAL calls run unchanged. Only libs/queue imports
 * ioredis (eslint.config.mjs): the apps hold these connections and hand them to the stores.
 */
import type { RedisTarget } from '@app/contracts';
import { Cluster, Redis, type RedisOptions } from 'ioredis';

export type RedisConnection = Redis | Cluster;

/** User, password and TLS of a redis:// or rediss:// URL, for a cluster's node connections. */
function credentialsOf(url: string): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  const u = new URL(url);
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * Reconnect quickly and forever, every ≤ 2 s: the API keeps answering 503 and the worker keeps
 * its jobs until Redis is back. The default of every connection the service makes.
 */
function reconnectForever(times: number): number {
  return Math.min(100 * times, 2000);
}

/**
 * A new connection with these options (reconnecting forever unless `retryStrategy` says
 * otherwise). On a cluster, `retryStrategy` paces both the
 * reconnection to the seed nodes and to a lost node (a restarted master comes back on its
 * address with its slots), and `enableOfflineQueue` applies to the cluster as a whole; the other
 * options go to each node's connection.
 */
export function connectRedis(target: RedisTarget, given: RedisOptions = {}): RedisConnection {
  const options: RedisOptions = { retryStrategy: reconnectForever, ...given };
  if (!target.clusterNodes) return new Redis(target.url, options);
  const { retryStrategy, enableOfflineQueue, ...nodeOptions } = options;
  return new Cluster(target.clusterNodes, {
    clusterRetryStrategy: retryStrategy,
    clusterNodeRetryStrategy: retryStrategy,
    enableOfflineQueue,
    redisOptions: { ...credentialsOf(target.url), ...nodeOptions },
  });
}

/**
 * Calls `handler` on the connection's errors; on a cluster also on errors of single nodes (a
 * lost master), which ioredis reports as 'node error' rather than 'error'.
 */
export function onRedisError(connection: RedisConnection, handler: (e: unknown) => void): void {
  connection.on('error', handler);
  if (connection instanceof Cluster) connection.on('node error', handler);
}

/**
 * Calls `handler` when a connection closes (it reconnects by itself), on a cluster also when a
 * node drops out: the moments after which Redis may come back without the data it had.
 */
export function onRedisConnectionLost(connection: RedisConnection, handler: () => void): void {
  connection.on('close', handler);
  if (connection instanceof Cluster) connection.on('-node', handler);
}
