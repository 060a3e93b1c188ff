/**
 * Where the service's Redis is: one server (REDIS_URL), or seed nodes of a Redis Cluster
 * (REDIS_CLUSTER_NODES). Configuration only; connections are libs/queue's (connectRedis).
 */
export interface RedisTarget {
  url: string;
  clusterNodes?: Array<{ host: string; port: number }>;
}
