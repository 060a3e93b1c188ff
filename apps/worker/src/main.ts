/**
 * A worker: takes RenderJobs from the BullMQ queue and runs them through the engine (libs/engine) and the
 * configured PDF converter (Gotenberg when GOTENBERG_URL is set, else an embedded LibreOffice
 * pool). Run as many as you like; each registers a heartbeat so the API knows one is alive.
 * SIGTERM finishes the jobs in hand before exiting; a worker killed outright loses nothing, as
 * its jobs stall and another worker takes them over.
 *
 * Operating it: JSON log lines (pino; each job's lines carry the API's request id), and a small
 * HTTP listener on WORKER_HTTP_PORT with /metrics, /health/live and /health/ready. With each
 * heartbeat the worker also publishes whether its converter is healthy, for the API's readiness.
 */
import 'reflect-metadata';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { closeSync, openSync, utimesSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import {
  type ConverterConfig,
  ConverterConfigError,
  converterConfigFromEnv,
  type ConverterHealth,
  createConverter,
  type PdfConverter,
} from '@app/converters';
import { ConfigurationError, loadConfig, ServiceConfig } from '@app/config';
import { pinoOptions } from '@app/logging';
import { converterHealthKey, heartbeatKey } from '@app/contracts';
import { beat, unregister } from '@app/contracts';
import pino from 'pino';
import { jobContext } from './job-context';
import { createRenderProcessor } from './render.processor';
import { createWorkerHttpServer, listen, type WorkerReadiness } from './worker-http';
import { WorkerMetrics } from './worker-metrics';

/** converter.health() has its own timeouts; this bounds a call that hangs anyway. */
const HEALTH_CHECK_TIMEOUT_MS = 10_000;

function touch(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    try {
      closeSync(openSync(file, 'a'));
    } catch {
      // health file is optional
    }
  }
}

async function warmUp(converter: PdfConverter, timeoutMs: number): Promise<ConverterHealth | undefined> {
  const deadline = Date.now() + timeoutMs;
  let health: ConverterHealth | undefined;
  while (Date.now() < deadline) {
    health = await converter.health().catch(() => undefined);
    if (health?.healthy && health.ready > 0) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return health;
}

async function main(): Promise<void> {
  let config: ServiceConfig;
  let converterConfig: ConverterConfig;
  try {
    config = loadConfig();
    converterConfig = converterConfigFromEnv(process.env);
  } catch (e) {
    console.error(e instanceof ConfigurationError || e instanceof ConverterConfigError ? e.message : e);
    process.exit(1);
  }
  const workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const logger = pino(pinoOptions(config, 'worker')).child({ workerId });
  const log = (message: string) => logger.info(message);
  const converter = createConverter(converterConfig, {
    // Restarts, crashes, Gotenberg retries; inside a job they carry its request id.
    log: (message) => logger.warn({ component: 'converter', ...jobContext.getStore() }, message),
  });
  const concurrency = config.WORKER_CONCURRENCY ?? converter.capacity;
  log(`converter ${converter.name} (capacity ${converter.capacity}), concurrency ${concurrency}`);

  // Converter health: refreshed with each heartbeat, read by /health/ready, the metrics and the API.
  let converterHealth: ConverterHealth | undefined;
  let checking: Promise<void> | undefined;
  const refreshConverterHealth = () =>
    (checking ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<ConverterHealth>((resolve) => {
        timer = setTimeout(
          () =>
            resolve({
              healthy: false,
              instances: converter.capacity,
              ready: 0,
              detail: 'health check timed out',
            }),
          HEALTH_CHECK_TIMEOUT_MS,
        );
      });
      const health = await Promise.race([
        converter.health().catch((e: unknown): ConverterHealth => ({
          healthy: false,
          instances: converter.capacity,
          ready: 0,
          detail: String(e),
        })),
        timeout,
      ]);
      clearTimeout(timer);
      if (converterHealth?.healthy !== health.healthy) {
        logger[health.healthy ? 'info' : 'warn'](
          { converterHealth: health },
          `converter ${health.healthy ? 'healthy' : 'unhealthy'}`,
        );
      }
      converterHealth = health;
    })().finally(() => (checking = undefined)));

  const metrics = new WorkerMetrics();
  metrics.watchConverter(converter, () => converterHealth?.healthy);

  let lastError = 0;
  const logRedisError = (e: unknown) => {
    if (Date.now() - lastError < 5000) return;
    lastError = Date.now();
    logger.warn(`redis: ${e instanceof Error ? e.message : String(e)}`);
  };
  const retryStrategy = (times: number) => Math.min(100 * times, 2000);
  // One connection for payloads and heartbeats; BullMQ's worker makes its own blocking one.
  const redis = new Redis(config.REDIS_URL, {
    retryStrategy,
    maxRetriesPerRequest: null,
    connectionName: 'docx-worker',
  });
  redis.on('error', logRedisError);

  const names = { prefix: config.QUEUE_PREFIX, name: config.QUEUE_NAME };
  const processor = createRenderProcessor({
    redis,
    converter,
    workerId,
    payloadTtlMs: config.payloadTtlMs,
    // No conversion outlives the caller's wait: each gets what is left of JOB_TIMEOUT_MS.
    convertTimeoutMs: converterConfig.conversionTimeoutMs,
    jobTimeoutMs: config.JOB_TIMEOUT_MS,
    maxTableCells: config.MAX_TABLE_CELLS,
    maxLoopIterations: config.MAX_LOOP_ITERATIONS,
    imageLimits: {
      maxImages: config.MAX_IMAGES,
      maxImageBytes: config.MAX_IMAGE_BYTES,
      maxImagePixels: config.MAX_IMAGE_PIXELS,
    },
    logger,
    metrics,
  });
  const worker = new Worker(names.name, processor, {
    connection: { url: config.REDIS_URL, retryStrategy, maxRetriesPerRequest: null },
    prefix: names.prefix,
    concurrency,
    lockDuration: config.WORKER_LOCK_DURATION_MS,
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
    maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
    autorun: false,
  });
  worker.on('error', logRedisError);
  worker.on('stalled', (jobId) =>
    logger.warn({ jobId }, `job ${jobId} stalled (its worker died); handed to another worker`),
  );

  // Heartbeat: only while this worker can take jobs. The converter's health rides along in a
  // second registry, so the API's readiness can tell "no worker" from "no working converter".
  const key = heartbeatKey(names);
  const convertersKey = converterHealthKey(names);
  let stopping = false;
  let taking = false;
  const heartbeat = async () => {
    if (stopping) return;
    // Not awaited: a slow health check must not delay the heartbeat past its TTL. What is
    // published below is the last finished check, at most one interval old.
    void refreshConverterHealth();
    try {
      await beat(redis, key, workerId, config.HEARTBEAT_TTL_MS);
      if (converterHealth?.healthy) await beat(redis, convertersKey, workerId, config.HEARTBEAT_TTL_MS);
      else await unregister(redis, convertersKey, workerId);
      touch(config.WORKER_ALIVE_FILE);
    } catch (e) {
      logRedisError(e);
    }
  };

  const readiness = (): WorkerReadiness => {
    const checks: WorkerReadiness['checks'] = {
      worker:
        taking && !stopping
          ? { status: 'up' }
          : { status: 'down', reason: stopping ? 'stopping' : 'starting' },
      redis: { status: redis.status === 'ready' ? 'up' : 'down' },
      converter: converterHealth?.healthy
        ? { status: 'up', ready: converterHealth.ready, instances: converterHealth.instances }
        : { status: 'down', ...(converterHealth?.detail ? { detail: converterHealth.detail } : {}) },
    };
    const failed = Object.keys(checks).filter((k) => checks[k].status === 'down');
    return { ready: failed.length === 0, failed, checks };
  };
  // Up before the converter warms up: liveness and metrics answer during the warm-up.
  const http = createWorkerHttpServer({ registry: metrics.registry, readiness });
  try {
    const address = await listen(http, config.WORKER_HTTP_PORT, config.HOST);
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    logger.info({ port: address.port }, `metrics and health on http://${host}:${address.port}`);
  } catch (e) {
    logger.fatal(
      `cannot listen on ${config.HOST}:${config.WORKER_HTTP_PORT} for metrics and health (${String(e)}); ` +
        'set WORKER_HTTP_PORT to a free port, or 0 for any',
    );
    await converter.close().catch(() => undefined);
    process.exit(1);
  }
  const timer = setInterval(() => void heartbeat(), config.HEARTBEAT_INTERVAL_MS);

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: finishing the jobs in hand`);
    clearInterval(timer);
    await unregister(redis, key, workerId).catch(() => undefined);
    await unregister(redis, convertersKey, workerId).catch(() => undefined);
    await worker.close(); // waits for active jobs
    await converter.close().catch((e: unknown) => logger.warn(`converter close: ${String(e)}`));
    redis.disconnect();
    http.close();
    log('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // Register only once the converter can work, so the first job does not wait for LibreOffice
  // to start; give up waiting after CONVERTER_WARMUP_MS (jobs then report the converter's error).
  const warm = await warmUp(converter, config.CONVERTER_WARMUP_MS);
  converterHealth = warm;
  logger.info(
    { converterHealth: warm ?? { healthy: false } },
    warm?.healthy
      ? `converter healthy (${warm.ready} of ${warm.instances} instances ready)`
      : `converter not healthy after CONVERTER_WARMUP_MS: ${warm?.detail ?? 'no answer'}`,
  );
  void worker.run().catch((e: unknown) => {
    logger.fatal(`worker stopped: ${String(e)}`);
    process.exit(1);
  });
  await worker.waitUntilReady().catch(logRedisError);
  taking = true;
  await heartbeat();
  log(`ready (id ${workerId}, queue ${names.prefix}:${names.name})`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
