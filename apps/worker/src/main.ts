/**
 * A worker: takes RenderJobs from the BullMQ queue and runs them through libs/rendering and the
 * configured PDF converter (Gotenberg when GOTENBERG_URL is set, else an embedded LibreOffice
 * pool). Run as many as you like; each registers a heartbeat so the API knows one is alive.
 * SIGTERM finishes the jobs in hand before exiting; a worker killed outright loses nothing, as
 * its jobs stall and another worker takes them over.
 */
import 'reflect-metadata';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { closeSync, openSync, utimesSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import {
  converterConfigFromEnv,
  ConverterConfigError,
  createConverter,
  type ConverterConfig,
  type ConverterHealth,
  type PdfConverter,
} from '@app/rendering/convert';
import { ConfigurationError, loadConfig, ServiceConfig } from '../../api/src/config/service-config';
import { heartbeatKey } from '../../api/src/queue/render-job';
import { beat, unregister } from '../../api/src/queue/worker-registry';
import { createRenderProcessor } from './render.processor';

function log(message: string): void {
  console.log(`${new Date().toISOString()} [worker ${process.pid}] ${message}`);
}

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
  const converter = createConverter(converterConfig);
  const concurrency = config.WORKER_CONCURRENCY ?? converter.capacity;
  log(`converter ${converter.name} (capacity ${converter.capacity}), concurrency ${concurrency}`);

  let lastError = 0;
  const logRedisError = (e: unknown) => {
    if (Date.now() - lastError < 5000) return;
    lastError = Date.now();
    log(`redis: ${e instanceof Error ? e.message : String(e)}`);
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
    // no conversion outlives the caller's wait
    convertTimeoutMs: Math.min(
      converterConfig.conversionTimeoutMs ?? config.JOB_TIMEOUT_MS,
      config.JOB_TIMEOUT_MS,
    ),
    maxLoopIterations: config.MAX_LOOP_ITERATIONS,
    imageLimits: {
      maxImages: config.MAX_IMAGES,
      maxImageBytes: config.MAX_IMAGE_BYTES,
      maxImagePixels: config.MAX_IMAGE_PIXELS,
    },
    log,
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
  worker.on('stalled', (jobId) => log(`job ${jobId} stalled (its worker died); handed to another worker`));

  // Heartbeat: only while this worker can take jobs.
  const key = heartbeatKey(names);
  let stopping = false;
  const heartbeat = async () => {
    if (stopping) return;
    try {
      await beat(redis, key, workerId, config.HEARTBEAT_TTL_MS);
      touch(config.WORKER_ALIVE_FILE);
    } catch (e) {
      logRedisError(e);
    }
  };
  const timer = setInterval(() => void heartbeat(), config.HEARTBEAT_INTERVAL_MS);

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: finishing the jobs in hand`);
    clearInterval(timer);
    await unregister(redis, key, workerId).catch(() => undefined);
    await worker.close(); // waits for active jobs
    await converter.close().catch((e: unknown) => log(`converter close: ${String(e)}`));
    redis.disconnect();
    log('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // Register only once the converter can work, so the first job does not wait for LibreOffice
  // to start; give up waiting after CONVERTER_WARMUP_MS (jobs then report the converter's error).
  const warm = await warmUp(converter, config.CONVERTER_WARMUP_MS);
  log(`converter health: ${JSON.stringify(warm ?? { healthy: false })}`);
  void worker.run().catch((e: unknown) => {
    log(`worker stopped: ${String(e)}`);
    process.exit(1);
  });
  await worker.waitUntilReady().catch(logRedisError);
  await heartbeat();
  log(`ready (id ${workerId}, queue ${names.prefix}:${names.name})`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
