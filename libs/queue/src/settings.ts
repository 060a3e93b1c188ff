/**
 * The settings of Redis, the render queue and its admission, and asynchronous jobs (results and
 * webhooks), as settings groups for the loader of libs/config. Read by the API and the workers.
 */
import { defineSettings, Setting } from '@app/config';
import type { QueueNames, RedisTarget } from '@app/contracts';

const MiB = 1024 * 1024;

/** One `host:port` (an IPv6 host in brackets), then more after commas. */
const CLUSTER_NODE = String.raw`\s*(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}\s*`;
const CLUSTER_NODES_PATTERN = new RegExp(`^${CLUSTER_NODE}(?:,${CLUSTER_NODE})*$`);

function redisTarget(url: string, clusterNodes: string | undefined): RedisTarget {
  if (!clusterNodes) return { url };
  const nodes = clusterNodes.split(',').map((node) => {
    const colon = node.trim().lastIndexOf(':');
    const host = node
      .trim()
      .slice(0, colon)
      .replace(/^\[(.*)\]$/, '$1');
    return { host, port: Number(node.trim().slice(colon + 1)) };
  });
  return { url, clusterNodes: nodes };
}

/** Where Redis is, and how long the API's commands may take. */
export const redisSettings = defineSettings({
  variables: {
    REDIS_URL: Setting.string({
      default: 'redis://127.0.0.1:6379',
      pattern: /^rediss?:\/\/.+/,
      message: 'REDIS_URL must be a redis:// or rediss:// URL',
    }),
    /**
     * A Redis Cluster instead of one Redis: some of its nodes as `host:port,host:port,…` (the
     * others are discovered). REDIS_URL then only lends its user, password and TLS (rediss://).
     */
    REDIS_CLUSTER_NODES: Setting.optional(
      Setting.string({
        pattern: CLUSTER_NODES_PATTERN,
        message:
          'REDIS_CLUSTER_NODES must be host:port pairs separated by commas, e.g. redis-0:6379,redis-1:6379',
      }),
    ),
    /**
     * The API's Redis commands fail after this long (answered 503), so a Redis that is stalled but
     * still connected does not hold requests. Not applied to the blocking connection of the reply list (BLPOP).
     */
    REDIS_COMMAND_TIMEOUT_MS: Setting.integer({ minimum: 100, default: 2_000 }),
  },
  check: (v) =>
    redisTarget(v.REDIS_URL, v.REDIS_CLUSTER_NODES)
      .clusterNodes?.filter(({ port }) => port < 1 || port > 65535)
      .map(({ port }) => `REDIS_CLUSTER_NODES: port ${port} is out of range`) ?? [],
  slice: (v) => ({
    target: redisTarget(v.REDIS_URL, v.REDIS_CLUSTER_NODES),
    commandTimeoutMs: v.REDIS_COMMAND_TIMEOUT_MS,
  }),
});

/** The render queue: its keys, how long a caller waits, retries, and when the API refuses work. */
export const queueSettings = defineSettings({
  variables: {
    /**
     * BullMQ key prefix. It must hold a Redis Cluster hash tag (`{…}`) so that the queue's keys and
     * the payload keys land in one slot and the service runs unchanged on a cluster.
     */
    QUEUE_PREFIX: Setting.string({
      default: '{docx}',
      pattern: /^[^{}]*\{[^{}]+\}[^{}]*$/,
      message: 'QUEUE_PREFIX must contain one Redis Cluster hash tag, e.g. {docx}',
    }),
    QUEUE_NAME: Setting.string({
      default: 'render',
      pattern: /^[A-Za-z0-9_-]+$/,
      message: 'QUEUE_NAME may hold letters, digits, _ and - only',
    }),
    /** How long the API waits for a worker's result before answering 504 (milliseconds). */
    JOB_TIMEOUT_MS: Setting.integer({ minimum: 100, default: 60_000 }),
    /** How long the template, images and result stay in Redis at most (default: timeout + 60 s). */
    PAYLOAD_TTL_MS: Setting.optional(Setting.integer({ minimum: 1000 })),
    /** Jobs waiting for a worker beyond which the API answers 503 at once. */
    MAX_WAITING_JOBS: Setting.integer({ minimum: 1, default: 100 }),
    /**
     * While no worker is alive (a deployment rolling, a worker restarting), how long a request is
     * held waiting for one before the API answers 503 (milliseconds; 0 answers at once).
     */
    NO_WORKER_WAIT_MS: Setting.integer({ minimum: 0, maximum: 60_000, default: 5000 }),
    /** Value of the Retry-After header of 503 answers (seconds). */
    RETRY_AFTER_SECONDS: Setting.integer({ minimum: 1, default: 5 }),
    /** Attempts per job for retryable failures (converter outages); user errors are never retried. */
    JOB_ATTEMPTS: Setting.integer({ minimum: 1, maximum: 10, default: 3 }),
    /** First retry delay; doubles on each further attempt (milliseconds). */
    JOB_BACKOFF_MS: Setting.integer({ minimum: 0, default: 1000 }),
  },
  slice: (v) => ({
    names: { prefix: v.QUEUE_PREFIX, name: v.QUEUE_NAME } satisfies QueueNames,
    jobTimeoutMs: v.JOB_TIMEOUT_MS,
    payloadTtlMs: v.PAYLOAD_TTL_MS ?? v.JOB_TIMEOUT_MS + 60_000,
    attempts: v.JOB_ATTEMPTS,
    backoffMs: v.JOB_BACKOFF_MS,
    maxWaitingJobs: v.MAX_WAITING_JOBS,
    noWorkerWaitMs: v.NO_WORKER_WAIT_MS,
    retryAfterSeconds: v.RETRY_AFTER_SECONDS,
  }),
});

/** Asynchronous jobs (POST /api/v1/jobs): their results, their webhooks and result deliveries (deliver_to). */
export const jobSettings = defineSettings({
  variables: {
    /**
     * Key that signs webhooks (Standard Webhooks): `whsec_` then base64 (of 24 random bytes or
     * more). Without it, a job that asks for a webhook is refused (400 invalid_webhook_url).
     */
    WEBHOOK_SECRET: Setting.optional(
      Setting.string({
        pattern: /^(?:whsec_)?[A-Za-z0-9+/]+={0,2}$/,
        message: 'WEBHOOK_SECRET must be whsec_ followed by base64 (of at least 24 random bytes)',
      }),
    ),
    /** Delivery attempts per webhook (BullMQ attempts, exponential backoff from WEBHOOK_BACKOFF_MS). */
    WEBHOOK_RETRIES: Setting.integer({ minimum: 1, maximum: 20, default: 5 }),
    /** First delay between webhook attempts; doubles on each further attempt (milliseconds). */
    WEBHOOK_BACKOFF_MS: Setting.integer({ minimum: 0, default: 2000 }),
    /** Time limit of one webhook attempt, connection to last byte (milliseconds). */
    WEBHOOK_TIMEOUT_MS: Setting.integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
    /**
     * Hosts (`host` or `host:port`, IPv6 in brackets, comma-separated) a webhook may reach even when
     * they resolve to loopback or private addresses. Empty: only public addresses.
     */
    WEBHOOK_ALLOWED_HOSTS: Setting.string({ default: '' }),
    /** PUT attempts per result delivery (deliver_to; BullMQ attempts, exponential backoff from DELIVERY_BACKOFF_MS). */
    DELIVERY_RETRIES: Setting.integer({ minimum: 1, maximum: 20, default: 5 }),
    /** First delay between delivery attempts; doubles on each further attempt (milliseconds). */
    DELIVERY_BACKOFF_MS: Setting.integer({ minimum: 0, default: 2000 }),
    /** Time limit of one PUT, connection to last byte (milliseconds): results may be large. */
    DELIVERY_TIMEOUT_MS: Setting.integer({ minimum: 100, maximum: 600_000, default: 120_000 }),
    /**
     * Hosts (`host` or `host:port`, IPv6 in brackets, comma-separated) deliver_to may reach even
     * when they resolve to loopback or private addresses (an in-cluster MinIO). Empty: only public addresses.
     */
    DELIVERY_ALLOWED_HOSTS: Setting.string({ default: '' }),
    /**
     * The service's public address (`https://docs.example.com`), for the absolute result_url of
     * webhooks; without it, the submitting request's own scheme and Host.
     */
    PUBLIC_BASE_URL: Setting.optional(
      Setting.string({
        pattern: /^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/,
        message: 'PUBLIC_BASE_URL must be an http(s) URL without query',
      }),
    ),
    /** How long an asynchronous job's result (and status) stays readable once finished (seconds). */
    RESULT_TTL_S: Setting.integer({ minimum: 1, default: 3600 }),
    /** Largest result (PDF, or the ZIP or merged PDF of a batch) an asynchronous job may keep in Redis. */
    MAX_RESULT_BYTES: Setting.integer({ minimum: 1, default: 100 * MiB }),
  },
  slice: (v) => ({
    webhookSecret: v.WEBHOOK_SECRET,
    webhookRetries: v.WEBHOOK_RETRIES,
    webhookBackoffMs: v.WEBHOOK_BACKOFF_MS,
    webhookTimeoutMs: v.WEBHOOK_TIMEOUT_MS,
    webhookAllowedHosts: v.WEBHOOK_ALLOWED_HOSTS,
    deliveryRetries: v.DELIVERY_RETRIES,
    deliveryBackoffMs: v.DELIVERY_BACKOFF_MS,
    deliveryTimeoutMs: v.DELIVERY_TIMEOUT_MS,
    deliveryAllowedHosts: v.DELIVERY_ALLOWED_HOSTS,
    publicBaseUrl: v.PUBLIC_BASE_URL,
    resultTtlS: v.RESULT_TTL_S,
    maxResultBytes: v.MAX_RESULT_BYTES,
  }),
});
