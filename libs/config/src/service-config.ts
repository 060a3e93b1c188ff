/**
 * The service's configuration, read from environment variables and validated once at start-up
 * (API and worker alike), so a wrong value stops the process with a message naming the variable
 * instead of failing later on a request. docs/configuration.md lists every variable. One loader
 * (loadConfig) for everything, the converter's variables included; callers read it by group
 * (http, redis, queue, limits, worker, converter).
 *
 * Kept free of NestJS so the worker and the unit tests load it as it is.
 */
import 'reflect-metadata';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  validateSync,
  ValidationError,
} from 'class-validator';

import { type ConverterConfig, converterConfigFromEnv } from './converter-config';
import {
  type QueueNames,
  type RedisTarget,
  UNDEFINED_MODES,
  type UndefinedMode,
  WORKER_HTTP_PORT_DEFAULT,
} from '@app/contracts';

const MiB = 1024 * 1024;

/** One `host:port` (an IPv6 host in brackets), then more after commas. */
const CLUSTER_NODE = String.raw`\s*(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):\d{1,5}\s*`;
const CLUSTER_NODES_PATTERN = new RegExp(`^${CLUSTER_NODE}(?:,${CLUSTER_NODE})*$`);

export class ServiceConfig {
  /** HTTP port of the API. */
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 8000;

  /** Address the API listens on. */
  @IsString()
  HOST = '0.0.0.0';

  @IsString()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';

  /**
   * A Redis Cluster instead of one Redis: some of its nodes as `host:port,host:port,…` (the
   * others are discovered). REDIS_URL then only lends its user, password and TLS (rediss://).
   */
  @IsString()
  @Matches(CLUSTER_NODES_PATTERN, {
    message:
      'REDIS_CLUSTER_NODES must be host:port pairs separated by commas, e.g. redis-0:6379,redis-1:6379',
  })
  @IsOptional()
  REDIS_CLUSTER_NODES?: string;

  /**
   * The API's Redis commands fail after this long (answered 503), so a Redis that is stalled but
   * still connected does not hold requests. Not applied to the blocking connection of the reply list (BLPOP).
   */
  @IsInt()
  @Min(100)
  REDIS_COMMAND_TIMEOUT_MS = 2_000;

  /**
   * BullMQ key prefix. It must hold a Redis Cluster hash tag (`{…}`) so that the queue's keys and
   * the payload keys land in one slot and the service runs unchanged on a cluster.
   */
  @IsString()
  @Matches(/^[^{}]*\{[^{}]+\}[^{}]*$/, {
    message: 'QUEUE_PREFIX must contain one Redis Cluster hash tag, e.g. {docx}',
  })
  QUEUE_PREFIX = '{docx}';

  @IsString()
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'QUEUE_NAME may hold letters, digits, _ and - only' })
  QUEUE_NAME = 'render';

  /** How long the API waits for a worker's result before answering 504 (milliseconds). */
  @IsInt()
  @Min(100)
  JOB_TIMEOUT_MS = 60_000;

  /** How long the template, images and result stay in Redis at most (default: timeout + 60 s). */
  @IsInt()
  @Min(1000)
  @IsOptional()
  PAYLOAD_TTL_MS?: number;

  /** Jobs waiting for a worker beyond which the API answers 503 at once. */
  @IsInt()
  @Min(1)
  MAX_WAITING_JOBS = 100;

  /**
   * While no worker is alive (a deployment rolling, a worker restarting), how long a request is
   * held waiting for one before the API answers 503 (milliseconds; 0 answers at once).
   */
  @IsInt()
  @Min(0)
  @Max(60_000)
  NO_WORKER_WAIT_MS = 5000;

  /** Value of the Retry-After header of 503 answers (seconds). */
  @IsInt()
  @Min(1)
  RETRY_AFTER_SECONDS = 5;

  /** Items a batch (request_data.batch) may hold; checked before anything is queued. */
  @IsInt()
  @Min(1)
  @Max(100_000)
  MAX_BATCH_ITEMS = 1000;

  /**
   * Key that signs webhooks (Standard Webhooks): `whsec_` then base64 (of 24 random bytes or
   * more). Without it, a job that asks for a webhook is refused (400 invalid_webhook_url).
   */
  @IsString()
  @Matches(/^(?:whsec_)?[A-Za-z0-9+/]+={0,2}$/, {
    message: 'WEBHOOK_SECRET must be whsec_ followed by base64 (of at least 24 random bytes)',
  })
  @IsOptional()
  WEBHOOK_SECRET?: string;

  /** Delivery attempts per webhook (BullMQ attempts, exponential backoff from WEBHOOK_BACKOFF_MS). */
  @IsInt()
  @Min(1)
  @Max(20)
  WEBHOOK_RETRIES = 5;

  /** First delay between webhook attempts; doubles on each further attempt (milliseconds). */
  @IsInt()
  @Min(0)
  WEBHOOK_BACKOFF_MS = 2000;

  /** Time limit of one webhook attempt, connection to last byte (milliseconds). */
  @IsInt()
  @Min(100)
  @Max(120_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  /**
   * Hosts (`host` or `host:port`, IPv6 in brackets, comma-separated) a webhook may reach even when
   * they resolve to loopback or private addresses. Empty: only public addresses.
   */
  @IsString()
  WEBHOOK_ALLOWED_HOSTS = '';

  /**
   * The service's public address (`https://docs.example.com`), for the absolute result_url of
   * webhooks; without it, the submitting request's own scheme and Host.
   */
  @IsString()
  @Matches(/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/, {
    message: 'PUBLIC_BASE_URL must be an http(s) URL without query',
  })
  @IsOptional()
  PUBLIC_BASE_URL?: string;

  /** How long an asynchronous job's result (and status) stays readable once finished (seconds). */
  @IsInt()
  @Min(1)
  RESULT_TTL_S = 3600;

  /** Largest result (PDF, or the ZIP or merged PDF of a batch) an asynchronous job may keep in Redis. */
  @IsInt()
  @Min(1)
  MAX_RESULT_BYTES = 100 * MiB;

  /** Attempts per job for retryable failures (converter outages); user errors are never retried. */
  @IsInt()
  @Min(1)
  @Max(10)
  JOB_ATTEMPTS = 3;

  /** First retry delay; doubles on each further attempt (milliseconds). */
  @IsInt()
  @Min(0)
  JOB_BACKOFF_MS = 1000;

  @IsInt()
  @Min(1)
  MAX_TEMPLATE_BYTES = 10 * MiB;

  /** Largest `data` / `request_data` form field (images travel inside it as base64). */
  @IsInt()
  @Min(1024)
  MAX_REQUEST_BYTES = 32 * MiB;

  @IsInt()
  @Min(0)
  MAX_IMAGES = 20;

  /**
   * Largest decoded file in options.pdf: each PDF to prepend or append, each attachment, the
   * Factur-X XML (docs/pdf.md). They travel inside request_data, so MAX_REQUEST_BYTES bounds
   * their sum.
   */
  @IsInt()
  @Min(1024)
  MAX_PDF_EXTRA_BYTES = 10 * MiB;

  /** Largest decoded image. */
  @IsInt()
  @Min(1)
  MAX_IMAGE_BYTES = 5 * MiB;

  /** Largest width × height of one image. */
  @IsInt()
  @Min(1)
  MAX_IMAGE_PIXELS = 25_000_000;

  /**
   * Largest sum of width × height over the page images one request asks for (options.output png
   * or jpeg; docs/outputs.md): refused with 413 before the fill from the template's page size,
   * and again from the PDF's pages before drawing. 200 M: about 225 A4 pages at 96 dpi, 23 at 300.
   */
  @IsInt()
  @Min(1)
  MAX_IMAGE_OUTPUT_PIXELS = 200_000_000;

  /**
   * Deepest nesting of objects and arrays in `data` / `request_data` (the outermost object is
   * level 1). Deeper JSON is refused with 400 before anything walks it recursively.
   */
  @IsInt()
  @Min(2)
  @Max(1000)
  MAX_JSON_DEPTH = 64;

  /** Characters of one HTML or Markdown value (`| html`, `| markdown`); more: 413. */
  @IsInt()
  @Min(1)
  RICH_MAX_MARKUP_CHARS = 500_000;

  /** Deepest nesting of elements in HTML / Markdown values; deeper: 422. */
  @IsInt()
  @Min(2)
  @Max(1000)
  RICH_MAX_NESTING_DEPTH = 100;

  /** Cells (rows × columns) of one table from HTML / Markdown; more: 422. */
  @IsInt()
  @Min(1)
  RICH_MAX_TABLE_CELLS = 10_000;

  /** Sub-documents (`request_data.documents`) of one request; more: 413. */
  @IsInt()
  @Min(0)
  MAX_SUBDOCUMENTS = 10;

  /** Iterations all loops of one document may run together (engine default when unset). */
  @IsInt()
  @Min(1)
  @IsOptional()
  MAX_LOOP_ITERATIONS?: number;

  /**
   * Table cells a filled document may hold for PDF output in a synchronous request (413
   * `payload_too_large`, reason `conversion_budget`, right after the fill, instead of a timeout
   * a minute later). Sized to what converts within the default JOB_TIMEOUT_MS of 60 s with long
   * tables converted in parts on the pool's instances, measured end to end on the 2-core
   * reference machine with LibreOffice 25.2 (27 Nov 2026, bench:bigdocs): the statement at 10,000
   * rows (40,004 cells) in 11.2 s, at 24,990 rows (99,960 cells) in 21.1 s, so about twice that
   * when the other instance is busy; change the two together. Asynchronous jobs have their own,
   * larger budget (ASYNC_MAX_TABLE_CELLS).
   */
  @IsInt()
  @Min(1)
  MAX_TABLE_CELLS = 100_000;

  /**
   * Table cells one item of an asynchronous job (POST /api/v1/jobs) may hold for PDF output;
   * beyond it the item fails at once with the same typed error (payload_too_large, reason
   * conversion_budget) as the job's failure. Nobody waits on the line, so the budget is what
   * converts within ASYNC_CONVERSION_TIMEOUT_MS: a 50,000-row statement (200,000 cells) in 40 s
   * on the reference machine (bench:bigdocs, 27 Nov 2026), with room. Not more: the fill's peak
   * memory grows with the rows (562 MiB at 50,000).
   */
  @IsInt()
  @Min(1)
  ASYNC_MAX_TABLE_CELLS = 250_000;

  /**
   * The conversion time limit of one item of an asynchronous job (the converter's, then the PDF
   * finishing step's), in place of CONVERSION_TIMEOUT_MS, which is sized to a caller's wait.
   */
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  ASYNC_CONVERSION_TIMEOUT_MS = 600_000;

  /**
   * Requests whose JSON (template_data, images) is at least this many bytes are filled on a
   * worker thread instead of the worker's event loop, which a fill holds for its whole length
   * (~50 ms per 1,000 table rows: 2.4 s for 50,000 on the reference machine), delaying the
   * renewal of every job lock the worker holds. Smaller ones stay on the loop: a thread adds
   * about 1.5 ms to a 20-row invoice's 4.7 ms. The default (256 KiB) is a ~2,000-row table.
   */
  @IsInt()
  @Min(0)
  FILL_THREAD_MIN_BYTES = 256 * 1024;

  /**
   * `on`: before a PDF conversion, every table style of the filled document (conditional formats,
   * tblLook, banding) is written as direct formatting, which LibreOffice imports about twice as
   * fast on long tables and draws the same (docs/table-styles.md). `off`: the styles go to the
   * converter as the template has them. A .docx output always keeps its styles.
   */
  @IsIn(['on', 'off'])
  RESOLVE_TABLE_STYLES: 'on' | 'off' = 'on';

  get tableStylesResolved(): boolean {
    return this.RESOLVE_TABLE_STYLES === 'on';
  }

  /**
   * `on`: before a PDF conversion, the styles no part of the filled document uses and Word's
   * latent styles are left out of it: LibreOffice imports every style, a quarter of a one-page
   * Word-made invoice's conversion, and draws the same (docs/conversion.md). `off`: the style
   * sheet goes to the converter whole. A .docx output always keeps every style.
   */
  @IsIn(['on', 'off'])
  PRUNE_UNUSED_STYLES: 'on' | 'off' = 'on';

  get unusedStylesPruned(): boolean {
    return this.PRUNE_UNUSED_STYLES === 'on';
  }

  /** Undefined-variable behaviour when the request does not choose one. */
  @IsIn(UNDEFINED_MODES)
  DEFAULT_UNDEFINED: UndefinedMode = 'empty';

  /**
   * Locale of the formatting filters (format_date, format_currency, …) when the request does not
   * name one (options.locale, or the form field locale): Babel's `de_DE` or BCP 47's `de-DE`.
   */
  @IsString()
  DEFAULT_LOCALE = 'en_US';

  /** IANA time zone format_datetime and format_time show times in when the request names none. */
  @IsString()
  DEFAULT_TIMEZONE = 'UTC';

  /** Jobs one worker process runs at once (default: the converter's capacity). */
  @IsInt()
  @Min(1)
  @IsOptional()
  WORKER_CONCURRENCY?: number;

  /** A job's lock lasts this long without renewal; a killed worker's job is re-run after it. */
  @IsInt()
  @Min(1000)
  WORKER_LOCK_DURATION_MS = 10_000;

  /** How often workers look for jobs whose lock expired (stalled jobs). */
  @IsInt()
  @Min(500)
  WORKER_STALLED_INTERVAL_MS = 5_000;

  /** Times a job may stall (its worker died) before it fails. */
  @IsInt()
  @Min(0)
  WORKER_MAX_STALLED_COUNT = 2;

  /** A starting worker waits this long at most for its converter before taking jobs. */
  @IsInt()
  @Min(0)
  CONVERTER_WARMUP_MS = 60_000;

  @IsInt()
  @Min(100)
  HEARTBEAT_INTERVAL_MS = 2_000;

  /** A worker whose last heartbeat is older than this counts as dead. */
  @IsInt()
  @Min(500)
  HEARTBEAT_TTL_MS = 10_000;

  /** File a worker touches on each heartbeat, for container health checks. */
  @IsString()
  WORKER_ALIVE_FILE = '/tmp/docx-worker.alive';

  @IsIn(['error', 'warn', 'log', 'debug'])
  LOG_LEVEL: 'error' | 'warn' | 'log' | 'debug' = 'log';

  /**
   * `json` (one JSON object per line, for log collectors) or `pretty` (coloured, for a terminal;
   * needs the dev dependency pino-pretty). `npm start` chooses `pretty`.
   */
  @IsIn(['json', 'pretty'])
  LOG_FORMAT: 'json' | 'pretty' = 'json';

  /** Port of each worker's HTTP listener (metrics and health); 0 picks a free port. */
  @IsInt()
  @Min(0)
  @Max(65535)
  WORKER_HTTP_PORT = WORKER_HTTP_PORT_DEFAULT;

  /** Bull Board login. The board is off unless both user and password are set. */
  @IsString()
  @Matches(/^[^:]+$/, { message: 'BULL_BOARD_USER may not contain a colon (HTTP basic auth)' })
  @IsOptional()
  BULL_BOARD_USER?: string;

  @IsString()
  @IsOptional()
  BULL_BOARD_PASSWORD?: string;

  /** `on`: the API serves the template playground at /playground; `off`: it answers 404. */
  @IsIn(['on', 'off'])
  PLAYGROUND: 'on' | 'off' = 'on';

  get playgroundEnabled(): boolean {
    return this.PLAYGROUND === 'on';
  }

  get redisTarget(): RedisTarget {
    if (!this.REDIS_CLUSTER_NODES) return { url: this.REDIS_URL };
    const clusterNodes = this.REDIS_CLUSTER_NODES.split(',').map((node) => {
      const colon = node.trim().lastIndexOf(':');
      const host = node
        .trim()
        .slice(0, colon)
        .replace(/^\[(.*)\]$/, '$1');
      return { host, port: Number(node.trim().slice(colon + 1)) };
    });
    return { url: this.REDIS_URL, clusterNodes };
  }

  /**
   * The engine's limits as the service applies them, for the worker and the command line alike
   * (so that what renders on the command line also renders through the service). Plain data in
   * the shape of the engine's RenderOptions; this library does not import the engine.
   */
  get renderLimits() {
    return {
      maxLoopIterations: this.MAX_LOOP_ITERATIONS,
      imageLimits: {
        maxImages: this.MAX_IMAGES,
        maxImageBytes: this.MAX_IMAGE_BYTES,
        maxImagePixels: this.MAX_IMAGE_PIXELS,
      },
      richLimits: {
        maxMarkupChars: this.RICH_MAX_MARKUP_CHARS,
        maxNestingDepth: this.RICH_MAX_NESTING_DEPTH,
        maxTableCells: this.RICH_MAX_TABLE_CELLS,
        maxDocuments: this.MAX_SUBDOCUMENTS,
        maxDocumentBytes: this.MAX_TEMPLATE_BYTES,
      },
    };
  }

  get payloadTtlMs(): number {
    return this.PAYLOAD_TTL_MS ?? this.JOB_TIMEOUT_MS + 60_000;
  }

  /** Whether Bull Board is mounted: only with both credentials, never open to anyone. */
  get boardEnabled(): boolean {
    return Boolean(this.BULL_BOARD_USER && this.BULL_BOARD_PASSWORD);
  }

  // --- the groups ------------------------------------------------------------------------------

  /** The API's listener. */
  get http() {
    return { port: this.PORT, host: this.HOST };
  }

  get redis() {
    return { target: this.redisTarget, commandTimeoutMs: this.REDIS_COMMAND_TIMEOUT_MS };
  }

  /** The render queue, as the API uses it. */
  get queue() {
    const names: QueueNames = { prefix: this.QUEUE_PREFIX, name: this.QUEUE_NAME };
    return {
      names,
      jobTimeoutMs: this.JOB_TIMEOUT_MS,
      payloadTtlMs: this.payloadTtlMs,
      attempts: this.JOB_ATTEMPTS,
      backoffMs: this.JOB_BACKOFF_MS,
      maxWaitingJobs: this.MAX_WAITING_JOBS,
      noWorkerWaitMs: this.NO_WORKER_WAIT_MS,
      retryAfterSeconds: this.RETRY_AFTER_SECONDS,
    };
  }

  /** What one request may hold: the API's checks, and the engine's limits for the worker and CLI. */
  get limits() {
    return {
      templateBytes: this.MAX_TEMPLATE_BYTES,
      requestBytes: this.MAX_REQUEST_BYTES,
      jsonDepth: this.MAX_JSON_DEPTH,
      subdocuments: this.MAX_SUBDOCUMENTS,
      tableCells: this.MAX_TABLE_CELLS,
      asyncTableCells: this.ASYNC_MAX_TABLE_CELLS,
      render: this.renderLimits,
    };
  }

  /** A worker process: how many jobs, locks and stalls, heartbeats, its HTTP listener. */
  get worker() {
    return {
      concurrency: this.WORKER_CONCURRENCY,
      lockDurationMs: this.WORKER_LOCK_DURATION_MS,
      fillThreadMinBytes: this.FILL_THREAD_MIN_BYTES,
      stalledIntervalMs: this.WORKER_STALLED_INTERVAL_MS,
      maxStalledCount: this.WORKER_MAX_STALLED_COUNT,
      converterWarmupMs: this.CONVERTER_WARMUP_MS,
      heartbeatIntervalMs: this.HEARTBEAT_INTERVAL_MS,
      heartbeatTtlMs: this.HEARTBEAT_TTL_MS,
      aliveFile: this.WORKER_ALIVE_FILE,
      httpPort: this.WORKER_HTTP_PORT,
    };
  }

  /**
   * The converter's variables (GOTENBERG_URL, LIBREOFFICE_*, CONVERSION_*, GOTENBERG_RETRIES),
   * read from the same environment on first use: by the worker and the command line, never by
   * the API, which converts nothing. Throws ConverterConfigError naming every wrong one.
   */
  get converter(): ConverterConfig {
    let converter = CONVERTERS.get(this);
    if (!converter) {
      converter = converterConfigFromEnv(ENVS.get(this) ?? process.env);
      CONVERTERS.set(this, converter);
    }
    return converter;
  }
}

/** Kept beside each config, not in it: its own keys are the variables (ALL_KEYS below). */
const ENVS = new WeakMap<ServiceConfig, NodeJS.ProcessEnv>();
const CONVERTERS = new WeakMap<ServiceConfig, ConverterConfig>();

/** Integer variables without a default. */
const OPTIONAL_INTEGER_KEYS = ['PAYLOAD_TTL_MS', 'MAX_LOOP_ITERATIONS', 'WORKER_CONCURRENCY'];
/** String variables without a default. */
const OPTIONAL_STRING_KEYS = [
  'REDIS_CLUSTER_NODES',
  'BULL_BOARD_USER',
  'BULL_BOARD_PASSWORD',
  'WEBHOOK_SECRET',
  'PUBLIC_BASE_URL',
];
/** Every variable, and those read as integers. */
const ALL_KEYS = [
  ...new Set([...Object.keys(new ServiceConfig()), ...OPTIONAL_INTEGER_KEYS, ...OPTIONAL_STRING_KEYS]),
];
const INTEGER_KEYS = new Set([
  ...Object.entries(new ServiceConfig())
    .filter(([, v]) => typeof v === 'number')
    .map(([k]) => k),
  ...OPTIONAL_INTEGER_KEYS,
]);

/**
 * Names of every environment variable this schema reads, for tools that check other places
 * (deployment manifests, docs) against it. The converter's variables live in libs/converters.
 */
export const SERVICE_ENV_VARS: readonly string[] = Object.freeze([...ALL_KEYS]);

export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigurationError';
  }
}

/**
 * Reads the configuration from `env`; throws ConfigurationError listing every wrong variable.
 * An empty variable counts as unset.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const config = new ServiceConfig();
  ENVS.set(config, env);
  const target = config as unknown as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of ALL_KEYS) {
    const raw = env[key]?.trim();
    if (raw === undefined || raw === '') continue;
    if (INTEGER_KEYS.has(key)) {
      if (!/^[+-]?\d+$/.test(raw.replace(/_/g, ''))) {
        problems.push(`${key} must be an integer (got '${raw}')`);
        continue;
      }
      target[key] = Number(raw.replace(/_/g, ''));
    } else {
      target[key] = raw;
    }
  }
  const errors = validateSync(config, { forbidUnknownValues: false });
  problems.push(...flatten(errors).map((e) => `${e.name}: ${e.message} (got '${String(e.value)}')`));
  if (config.REDIS_CLUSTER_NODES && CLUSTER_NODES_PATTERN.test(config.REDIS_CLUSTER_NODES)) {
    for (const { port } of config.redisTarget.clusterNodes ?? []) {
      if (port < 1 || port > 65535) problems.push(`REDIS_CLUSTER_NODES: port ${port} is out of range`);
    }
  }
  if (!knownLocale(config.DEFAULT_LOCALE))
    problems.push(
      `DEFAULT_LOCALE: not a locale ICU knows (got '${config.DEFAULT_LOCALE}'), e.g. en_US or de-DE`,
    );
  if (!knownTimeZone(config.DEFAULT_TIMEZONE))
    problems.push(
      `DEFAULT_TIMEZONE: not an IANA time zone (got '${config.DEFAULT_TIMEZONE}'), e.g. UTC or Europe/Berlin`,
    );
  if (config.HEARTBEAT_TTL_MS <= config.HEARTBEAT_INTERVAL_MS) {
    problems.push('HEARTBEAT_TTL_MS must be greater than HEARTBEAT_INTERVAL_MS');
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return config;
}

/** A first check of DEFAULT_LOCALE (the engine checks language and region fully at each render). */
function knownLocale(raw: string): boolean {
  try {
    const [tag] = Intl.getCanonicalLocales(raw.replace(/_/g, '-'));
    return Intl.DateTimeFormat.supportedLocalesOf([tag], { localeMatcher: 'lookup' }).length === 1;
  } catch {
    return false;
  }
}

function knownTimeZone(raw: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(raw)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: raw });
    return true;
  } catch {
    return false;
  }
}

function flatten(errors: ValidationError[]): { name: string; message: string; value: unknown }[] {
  return errors.flatMap((e) =>
    Object.values(e.constraints ?? {}).map((message) => ({ name: e.property, message, value: e.value })),
  );
}
