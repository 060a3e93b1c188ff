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
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { createConverter, defaultWorkDir, splitMinRowsOf, warmPageRenderer } from '@app/converters';
import { ConfigurationError } from '@app/config';
import { installMemoryProbe, pinoOptions } from '@app/logging';
import pino from 'pino';
import type { ConverterInfo } from '@app/contracts';
import { connectRedis, createRenderWorker, onRedisError } from '@app/queue';
import { ConverterHealthMonitor } from './converter-health';
import { converterVersion } from './converter-version';
import { FillPool } from './fill/fill-pool';
import { jobContext } from './job-context';
import { WorkerRegistration } from './registration';
import { createRenderProcessor } from './render.processor';
import { createAsyncWorkers } from './jobs/async-workers';
import { createWorkerHttpServer, listen, type WorkerReadiness } from './worker-http';
import { WorkerMetrics } from './worker-metrics';
import { loadWorkerSettings, type WorkerSettings } from './settings';
import { startTelemetry, stopTelemetry } from '@app/telemetry';
import {
  loadSigningProfiles,
  profileNamed,
  signPdf,
  SigningProfileError,
  type SigningProfile,
} from '@app/signing';
import type { SignRequest } from '@app/pipeline';

function settingsOrExit(): WorkerSettings {
  try {
    return loadWorkerSettings();
  } catch (e) {
    console.error(e instanceof ConfigurationError ? e.message : e);
    process.exit(1);
  }
}

/** The operator's signing profiles (docs/signing.md); one that cannot be loaded stops the worker, named. */
async function signingProfilesOrExit(settings: WorkerSettings): Promise<Map<string, SigningProfile>> {
  try {
    return await loadSigningProfiles({ ...settings.signing, env: process.env });
  } catch (e) {
    // SigningProfileError names the profile and never carries its password or key.
    console.error(
      e instanceof SigningProfileError ? e.message : `signing profiles cannot be loaded: ${String(e)}`,
    );
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const settings = settingsOrExit();
  const signingProfiles = await signingProfilesOrExit(settings);
  const { converter: converterConfig, conversion } = settings;
  installMemoryProbe(); // only under --expose-gc (the e2e tests' leak check)
  // Traces only when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces").
  const tracing = startTelemetry('docgen-worker');
  const workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const logger = pino(pinoOptions(settings.logging, 'worker')).child({ workerId });
  const log = (message: string) => logger.info(message);
  if (signingProfiles.size) log(`signing profiles: ${[...signingProfiles.keys()].join(', ')}`);
  const converter = createConverter(converterConfig, {
    // Restarts, crashes, Gotenberg retries; inside a job they carry its request id.
    log: (message) => logger.warn({ component: 'converter', ...jobContext.getStore() }, message),
  });
  // Which converter and version, published with each heartbeat for the API's GET /version.
  const converterInfo: ConverterInfo = { kind: converter.name, version: 'unknown' };
  void converterVersion(converter, converterConfig).then((version) => (converterInfo.version = version));
  // One job more than the converter runs at once: that job is filled (and its payload read) while
  // the others convert, so no LibreOffice instance waits for a fill between two documents.
  const concurrency = settings.worker.concurrency ?? converter.capacity + 1;
  if (tracing) log('traces on: spans are exported over OTLP');
  log(
    `converter ${converter.name} (capacity ${converter.capacity}${converter.setup ? `, ${converter.setup}` : ''}), concurrency ${concurrency}`,
  );
  const converterHealth = new ConverterHealthMonitor(converter, logger);
  const metrics = new WorkerMetrics();
  metrics.watchConverter(converter, () => converterHealth.health?.healthy);

  let lastError = 0;
  const logRedisError = (e: unknown) => {
    if (Date.now() - lastError < 5000) return;
    lastError = Date.now();
    logger.warn(`redis: ${e instanceof Error ? e.message : String(e)}`);
  };
  // One connection for payloads and heartbeats; BullMQ's worker makes its own blocking one.
  const redis = connectRedis(settings.redis.target, {
    maxRetriesPerRequest: null,
    connectionName: 'docx-worker',
  });
  onRedisError(redis, logRedisError);

  // BullMQ's own connection (it duplicates it for its blocking reads).
  const queueRedis = connectRedis(settings.redis.target, {
    maxRetriesPerRequest: null,
    connectionName: 'docx-worker-queue',
  });
  onRedisError(queueRedis, logRedisError);

  const names = settings.queue.names;
  // One fill thread per job this worker runs at once, started on the first large request.
  const fillPool = new FillPool(concurrency);
  const processor = createRenderProcessor({
    worker: { id: workerId, redis, logger, metrics },
    converter,
    budget: {
      payloadTtlMs: settings.queue.payloadTtlMs,
      // No conversion outlives the caller's wait: each gets what is left of JOB_TIMEOUT_MS.
      convertTimeoutMs: converterConfig.conversionTimeoutMs,
      jobTimeoutMs: settings.queue.jobTimeoutMs,
      // An asynchronous job's item: nobody waits on the line (ASYNC_CONVERSION_TIMEOUT_MS).
      asyncConvertTimeoutMs: conversion.asyncConversionTimeoutMs,
    },
    // RESOLVE_TABLE_STYLES: table styles as direct formatting before a PDF conversion.
    resolveTableStyles: conversion.resolveTableStyles,
    // Long tables in a style that shades every cell are resolved too, so that they can be split.
    resolveAllTableStylesFromRows: splitMinRowsOf(converterConfig),
    // PRUNE_UNUSED_STYLES: the style sheet without what the document does not use.
    pruneUnusedStyles: conversion.pruneUnusedStyles,
    limits: {
      maxTableCells: conversion.tableCells,
      asyncMaxTableCells: conversion.asyncTableCells,
      maxPdfExtraBytes: settings.limits.pdfExtraBytes,
      maxImageOutputPixels: settings.limits.imageOutputPixels,
      ...settings.limits.render,
    },
    // Worked out once here: defaultWorkDir() stats the file systems on each call.
    finishTmpDir: converterConfig.workDir ?? defaultWorkDir(),
    // options.pdf.signature: the named profile's key signs, last (docs/signing.md).
    ...(signingProfiles.size > 0
      ? {
          sign: (pdf: Buffer, request: SignRequest, timeoutMs: number | undefined) =>
            signPdf(
              pdf,
              profileNamed(signingProfiles, request.profile),
              request,
              timeoutMs ? { timeoutMs } : {},
            ),
        }
      : {}),
    fillThreads: { pool: fillPool, minRequestBytes: settings.worker.fillThreadMinBytes },
  });
  const worker = createRenderWorker(processor, {
    names,
    connection: queueRedis,
    concurrency,
    lockDuration: settings.worker.lockDurationMs,
    stalledInterval: settings.worker.stalledIntervalMs,
    maxStalledCount: settings.worker.maxStalledCount,
  });
  worker.on('error', logRedisError);
  worker.on('stalled', (jobId) =>
    logger.warn({ jobId }, `job ${jobId} stalled (its worker died); handed to another worker`),
  );
  // Asynchronous jobs' parents and webhook deliveries (POST /api/v1/jobs).
  const asyncWorkers = createAsyncWorkers({
    settings,
    redis,
    queueRedis,
    logger,
    metrics,
    onError: logRedisError,
    render: processor,
    itemConcurrency: concurrency,
  });

  const registration = new WorkerRegistration({
    redis,
    names,
    workerId,
    ttlMs: settings.worker.heartbeatTtlMs,
    intervalMs: settings.worker.heartbeatIntervalMs,
    aliveFile: settings.worker.aliveFile,
    converterHealth,
    converterInfo,
    onError: logRedisError,
  });
  let stopping = false;
  let taking = false;
  const readiness = (): WorkerReadiness => {
    const health = converterHealth.health;
    const checks: WorkerReadiness['checks'] = {
      worker:
        taking && !stopping
          ? { status: 'up' }
          : { status: 'down', reason: stopping ? 'stopping' : 'starting' },
      redis: { status: redis.status === 'ready' ? 'up' : 'down' },
      converter: health?.healthy
        ? { status: 'up', ready: health.ready, instances: health.instances }
        : { status: 'down', ...(health?.detail ? { detail: health.detail } : {}) },
    };
    const failed = Object.keys(checks).filter((k) => checks[k].status === 'down');
    return { ready: failed.length === 0, failed, checks };
  };
  // Up before the converter warms up: liveness and metrics answer during the warm-up.
  const http = createWorkerHttpServer({ registry: metrics.registry, readiness });
  try {
    const address = await listen(http, settings.worker.httpPort, settings.worker.host);
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    logger.info({ port: address.port }, `metrics and health on http://${host}:${address.port}`);
  } catch (e) {
    logger.fatal(
      `cannot listen on ${settings.worker.host}:${settings.worker.httpPort} for metrics and health (${String(e)}); ` +
        'set WORKER_HTTP_PORT to a free port, or 0 for any',
    );
    await converter.close().catch(() => undefined);
    process.exit(1);
  }

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: finishing the jobs in hand`);
    await registration.stop();
    await Promise.all([worker.close(), asyncWorkers.close()]); // waits for active jobs
    await fillPool.close();
    await converter.close().catch((e: unknown) => logger.warn(`converter close: ${String(e)}`));
    redis.disconnect();
    queueRedis.disconnect();
    http.close();
    await stopTelemetry().catch(() => undefined); // the last spans
    log('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // Register only once the converter can work; give up waiting after CONVERTER_WARMUP_MS
  // (jobs then report the converter's error).
  // PDFium (PNG page images) loads alongside; without it PNG is drawn by poppler.
  const pageRenderer = warmPageRenderer().catch((e: unknown) =>
    logger.warn(`page renderer warm-up: ${String(e)}; PNG page images will be drawn by poppler`),
  );
  const warm = await converterHealth.warmUp(settings.worker.converterWarmupMs);
  await pageRenderer;
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
  asyncWorkers.run();
  await worker.waitUntilReady().catch(logRedisError);
  taking = true;
  await registration.start();
  log(`ready (id ${workerId}, queue ${names.prefix}:${names.name})`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
