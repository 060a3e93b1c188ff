/**
 * A worker's settings: its own (jobs at once, locks, heartbeats, fill threads, its HTTP listener)
 * and the groups of the libraries it runs, loaded once in main.ts.
 */
import { defineSettings, HOST_SETTING, loadSettings, Setting, type SettingsOf } from '@app/config';
import { limitSettings, WORKER_HTTP_PORT_DEFAULT } from '@app/contracts';
import { conversionSettings, converterSettings } from '@app/converters';
import { loggingSettings } from '@app/logging';
import { jobSettings, queueSettings, redisSettings } from '@app/queue';
import { signingSettings } from '@app/signing';

export const workerSettings = defineSettings({
  variables: {
    /** Jobs one worker process runs at once (default: the converter's capacity + 1). */
    WORKER_CONCURRENCY: Setting.optional(Setting.integer({ minimum: 1 })),
    /** A job's lock lasts this long without renewal; a killed worker's job is re-run after it. */
    WORKER_LOCK_DURATION_MS: Setting.integer({ minimum: 1000, default: 10_000 }),
    /** How often workers look for jobs whose lock expired (stalled jobs). */
    WORKER_STALLED_INTERVAL_MS: Setting.integer({ minimum: 500, default: 5_000 }),
    /** Times a job may stall (its worker died) before it fails. */
    WORKER_MAX_STALLED_COUNT: Setting.integer({ minimum: 0, default: 2 }),
    /** A starting worker waits this long at most for its converter before taking jobs. */
    CONVERTER_WARMUP_MS: Setting.integer({ minimum: 0, default: 60_000 }),
    HEARTBEAT_INTERVAL_MS: Setting.integer({ minimum: 100, default: 2_000 }),
    /** A worker whose last heartbeat is older than this counts as dead. */
    HEARTBEAT_TTL_MS: Setting.integer({ minimum: 500, default: 10_000 }),
    /** File a worker touches on each heartbeat, for container health checks. */
    WORKER_ALIVE_FILE: Setting.string({ default: '/tmp/docx-worker.alive' }),
    /**
     * Requests whose JSON (template_data, images) is at least this many bytes are filled on a
     * worker thread instead of the worker's event loop, which a fill holds for its whole length
     * (~50 ms per 1,000 table rows: 2.4 s for 50,000 on the reference machine), delaying the
     * renewal of every job lock the worker holds. Smaller ones stay on the loop: a thread adds
     * about 1.5 ms to a 20-row invoice's 4.7 ms. The default (256 KiB) is a ~2,000-row table.
     */
    FILL_THREAD_MIN_BYTES: Setting.integer({ minimum: 0, default: 256 * 1024 }),
    /** Port of each worker's HTTP listener (metrics and health); 0 picks a free port. */
    WORKER_HTTP_PORT: Setting.integer({ minimum: 0, maximum: 65535, default: WORKER_HTTP_PORT_DEFAULT }),
    /** Address of that listener (the API's too). */
    HOST: HOST_SETTING,
  },
  check: (v) =>
    v.HEARTBEAT_TTL_MS <= v.HEARTBEAT_INTERVAL_MS
      ? ['HEARTBEAT_TTL_MS must be greater than HEARTBEAT_INTERVAL_MS']
      : [],
  slice: (v) => ({
    concurrency: v.WORKER_CONCURRENCY,
    lockDurationMs: v.WORKER_LOCK_DURATION_MS,
    stalledIntervalMs: v.WORKER_STALLED_INTERVAL_MS,
    maxStalledCount: v.WORKER_MAX_STALLED_COUNT,
    converterWarmupMs: v.CONVERTER_WARMUP_MS,
    heartbeatIntervalMs: v.HEARTBEAT_INTERVAL_MS,
    heartbeatTtlMs: v.HEARTBEAT_TTL_MS,
    aliveFile: v.WORKER_ALIVE_FILE,
    fillThreadMinBytes: v.FILL_THREAD_MIN_BYTES,
    httpPort: v.WORKER_HTTP_PORT,
    host: v.HOST,
  }),
});

export const WORKER_SETTINGS = {
  worker: workerSettings,
  redis: redisSettings,
  queue: queueSettings,
  jobs: jobSettings,
  limits: limitSettings,
  conversion: conversionSettings,
  converter: converterSettings,
  logging: loggingSettings,
  signing: signingSettings,
};

export type WorkerSettings = SettingsOf<typeof WORKER_SETTINGS>;

export function loadWorkerSettings(env: NodeJS.ProcessEnv = process.env): WorkerSettings {
  return loadSettings(WORKER_SETTINGS, env);
}
