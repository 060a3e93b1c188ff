/** Converter configuration from the environment, validated up front so a typo fails at start. */
import { chooseAllocator, LIBREOFFICE_ALLOCATORS, type LibreOfficeAllocator } from './allocator';
import { workDirProblem } from './work-dir';

export interface ConverterConfig {
  /** Set: Gotenberg 8 at this address; unset: the embedded LibreOffice pool. */
  gotenbergUrl?: string;
  /** LibreOffice: soffice processes; Gotenberg: requests in flight. Default os.availableParallelism(). */
  instances?: number;
  /** LibreOffice: replace an instance after this many conversions; 0 = never. */
  restartAfter?: number;
  conversionTimeoutMs?: number;
  /** LibreOffice: a start gives up after this long without progress (soffice using no CPU). */
  startTimeoutMs?: number;
  /** LibreOffice: a start gives up after this long in all; default 15 × startTimeoutMs. */
  startMaxMs?: number;
  /** Conversions allowed to wait for a free instance before new ones are refused. */
  maxQueue?: number;
  /** Gotenberg: further attempts after a connection error, 429 or 503. */
  gotenbergRetries?: number;
  /** LibreOffice: the allocator soffice.bin runs with (allocator.ts); default `auto`. */
  allocator?: LibreOfficeAllocator;
  /** LibreOffice: parent of the pool's private directory (work-dir.ts); default /dev/shm or the temporary directory. */
  workDir?: string;
  /** LibreOffice: a table of this many rows or more is converted in parts (split conversion); 0 = never. */
  splitMinRows?: number;
  /** LibreOffice: pages each part of a split conversion aims at. */
  splitPartPages?: number;
  /**
   * LibreOffice: a whole conversion predicted beyond its time is refused up front; its
   * prediction scaled by this percentage (100 as calibrated); 0 = never refused.
   */
  budgetScalePercent?: number;
}

export class ConverterConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid converter configuration: ${problems.join('; ')}`);
    this.name = 'ConverterConfigError';
  }
}

/** Environment variable -> config key, with the accepted range. */
export const CONVERTER_ENV = {
  LIBREOFFICE_INSTANCES: { key: 'instances', min: 1, max: 64 },
  LIBREOFFICE_RESTART_AFTER: { key: 'restartAfter', min: 0, max: 1_000_000 },
  CONVERSION_TIMEOUT_MS: { key: 'conversionTimeoutMs', min: 100, max: 3_600_000 },
  LIBREOFFICE_START_TIMEOUT_MS: { key: 'startTimeoutMs', min: 1_000, max: 600_000 },
  LIBREOFFICE_START_MAX_MS: { key: 'startMaxMs', min: 1_000, max: 3_600_000 },
  CONVERSION_MAX_QUEUE: { key: 'maxQueue', min: 0, max: 1_000_000 },
  GOTENBERG_RETRIES: { key: 'gotenbergRetries', min: 0, max: 10 },
  SPLIT_MIN_ROWS: { key: 'splitMinRows', min: 0, max: 10_000_000 },
  SPLIT_PART_PAGES: { key: 'splitPartPages', min: 2, max: 1_000 },
  CONVERSION_BUDGET_SCALE: { key: 'budgetScalePercent', min: 0, max: 10_000 },
} as const satisfies Record<string, { key: keyof ConverterConfig; min: number; max: number }>;

/**
 * Reads GOTENBERG_URL and the variables of CONVERTER_ENV. Unset or empty means "use the
 * default". Every bad value is reported in one ConverterConfigError.
 */
export function converterConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ConverterConfig {
  const config: ConverterConfig = {};
  const problems: string[] = [];

  const url = env.GOTENBERG_URL?.trim();
  if (url) {
    const problem = checkUrl(url);
    if (problem) problems.push(`GOTENBERG_URL ${problem}, got '${url}'`);
    else config.gotenbergUrl = url.replace(/\/+$/, '');
  }

  for (const [name, { key, min, max }] of Object.entries(CONVERTER_ENV)) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, got '${raw}'`);
    } else {
      (config as Record<string, number>)[key] = value;
    }
  }

  const allocator = env.LIBREOFFICE_ALLOCATOR?.trim();
  if (allocator) {
    if (!(LIBREOFFICE_ALLOCATORS as readonly string[]).includes(allocator)) {
      problems.push(
        `LIBREOFFICE_ALLOCATOR must be one of ${LIBREOFFICE_ALLOCATORS.join(', ')}, got '${allocator}'`,
      );
    } else {
      config.allocator = allocator as LibreOfficeAllocator;
      // Required but not installed: said at start, not at the first conversion.
      if (!config.gotenbergUrl) {
        try {
          chooseAllocator(config.allocator);
        } catch (e) {
          problems.push((e as Error).message);
        }
      }
    }
  }

  const workDir = env.LIBREOFFICE_WORK_DIR?.trim();
  if (workDir) {
    const problem = workDirProblem(workDir);
    if (problem) problems.push(`LIBREOFFICE_WORK_DIR ${problem}, got '${workDir}'`);
    else config.workDir = workDir;
  }

  if (problems.length > 0) throw new ConverterConfigError(problems);
  return config;
}

/** The same ranges for a config built in code (e.g. by the command line). */
export function validateConverterConfig(config: ConverterConfig): void {
  const problems: string[] = [];
  if (config.gotenbergUrl !== undefined) {
    const problem = checkUrl(config.gotenbergUrl);
    if (problem) problems.push(`gotenbergUrl ${problem}, got '${config.gotenbergUrl}'`);
  }
  for (const { key, min, max } of Object.values(CONVERTER_ENV)) {
    const value = config[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      problems.push(`${key} must be a whole number from ${min} to ${max}, got ${value}`);
    }
  }
  if (config.workDir !== undefined) {
    const problem = workDirProblem(config.workDir);
    if (problem) problems.push(`workDir ${problem}, got '${config.workDir}'`);
  }
  if (config.allocator !== undefined && !LIBREOFFICE_ALLOCATORS.includes(config.allocator)) {
    problems.push(
      `allocator must be one of ${LIBREOFFICE_ALLOCATORS.join(', ')}, got ${String(config.allocator)}`,
    );
  }
  if (problems.length > 0) throw new ConverterConfigError(problems);
}

function checkUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL such as http://gotenberg:3000';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must use http or https';
  if (parsed.search || parsed.hash) return 'must not carry a query or fragment';
  return undefined;
}
