/**
 * The converter's settings (GOTENBERG_URL, LIBREOFFICE_*, CONVERSION_*, GOTENBERG_RETRIES, SPLIT_*)
 * and the conversion side's budgets and preparation passes, as settings groups for the loader of
 * libs/config. Read by the worker and the command line, never by the API, which converts nothing.
 */
import { defineSettings, loadSettings, Setting } from '@app/config';
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

const optionalInteger = (minimum: number, maximum: number) =>
  Setting.optional(Setting.integer({ minimum, maximum }));

/** Unset integers keep the converter's own defaults (POOL_DEFAULTS, SPLIT_DEFAULTS, …). */
const variables = {
  GOTENBERG_URL: Setting.optional(Setting.string()),
  LIBREOFFICE_INSTANCES: optionalInteger(1, 64),
  LIBREOFFICE_RESTART_AFTER: optionalInteger(0, 1_000_000),
  CONVERSION_TIMEOUT_MS: optionalInteger(100, 3_600_000),
  LIBREOFFICE_START_TIMEOUT_MS: optionalInteger(1_000, 600_000),
  LIBREOFFICE_START_MAX_MS: optionalInteger(1_000, 3_600_000),
  CONVERSION_MAX_QUEUE: optionalInteger(0, 1_000_000),
  GOTENBERG_RETRIES: optionalInteger(0, 10),
  LIBREOFFICE_ALLOCATOR: Setting.optional(Setting.oneOf(LIBREOFFICE_ALLOCATORS, {})),
  LIBREOFFICE_WORK_DIR: Setting.optional(Setting.string()),
  SPLIT_MIN_ROWS: optionalInteger(0, 10_000_000),
  SPLIT_PART_PAGES: optionalInteger(2, 1_000),
  CONVERSION_BUDGET_SCALE: optionalInteger(0, 10_000),
};

/** Which variable sets each field of ConverterConfig (the slice, and the check of a config built in code). */
const FIELDS = {
  gotenbergUrl: 'GOTENBERG_URL',
  instances: 'LIBREOFFICE_INSTANCES',
  restartAfter: 'LIBREOFFICE_RESTART_AFTER',
  conversionTimeoutMs: 'CONVERSION_TIMEOUT_MS',
  startTimeoutMs: 'LIBREOFFICE_START_TIMEOUT_MS',
  startMaxMs: 'LIBREOFFICE_START_MAX_MS',
  maxQueue: 'CONVERSION_MAX_QUEUE',
  gotenbergRetries: 'GOTENBERG_RETRIES',
  allocator: 'LIBREOFFICE_ALLOCATOR',
  workDir: 'LIBREOFFICE_WORK_DIR',
  splitMinRows: 'SPLIT_MIN_ROWS',
  splitPartPages: 'SPLIT_PART_PAGES',
  budgetScalePercent: 'CONVERSION_BUDGET_SCALE',
} as const satisfies { [K in keyof Required<ConverterConfig>]: keyof typeof variables };

/** The converter: Gotenberg or the LibreOffice pool, its instances, time limits and split conversion. */
export const converterSettings = defineSettings({
  variables,
  check(values) {
    const problems: string[] = [];
    const url = values.GOTENBERG_URL;
    const urlProblem = url === undefined ? undefined : checkUrl(url);
    if (urlProblem) problems.push(`GOTENBERG_URL ${urlProblem} (got '${url}')`);
    const workDir = values.LIBREOFFICE_WORK_DIR;
    const workDirWrong = workDir === undefined ? undefined : workDirProblem(workDir);
    if (workDirWrong) problems.push(`LIBREOFFICE_WORK_DIR ${workDirWrong} (got '${workDir}')`);
    // Required but not installed: said at start, not at the first conversion.
    if (values.LIBREOFFICE_ALLOCATOR && !url) {
      try {
        chooseAllocator(values.LIBREOFFICE_ALLOCATOR);
      } catch (e) {
        problems.push((e as Error).message);
      }
    }
    return problems;
  },
  slice(values): ConverterConfig {
    const config: Record<string, unknown> = {};
    for (const [field, name] of Object.entries(FIELDS)) {
      if (values[name] !== undefined) config[field] = values[name];
    }
    if (values.GOTENBERG_URL) config.gotenbergUrl = values.GOTENBERG_URL.replace(/\/+$/, '');
    return config as ConverterConfig;
  },
});

/**
 * What a document may cost the conversion, and the passes that prepare it for LibreOffice: the
 * worker's and the command line's.
 */
export const conversionSettings = defineSettings({
  variables: {
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
    MAX_TABLE_CELLS: Setting.integer({ minimum: 1, default: 100_000 }),
    /**
     * Table cells one item of an asynchronous job (POST /api/v1/jobs) may hold for PDF output;
     * beyond it the item fails at once with the same typed error (payload_too_large, reason
     * conversion_budget) as the job's failure. Nobody waits on the line, so the budget is what
     * converts within ASYNC_CONVERSION_TIMEOUT_MS: a 50,000-row statement (200,000 cells) in 40 s
     * on the reference machine (bench:bigdocs, 27 Nov 2026), with room. Not more: the fill's peak
     * memory grows with the rows (562 MiB at 50,000).
     */
    ASYNC_MAX_TABLE_CELLS: Setting.integer({ minimum: 1, default: 250_000 }),
    /**
     * The conversion time limit of one item of an asynchronous job (the converter's, then the PDF
     * finishing step's), in place of CONVERSION_TIMEOUT_MS, which is sized to a caller's wait.
     */
    ASYNC_CONVERSION_TIMEOUT_MS: Setting.integer({ minimum: 1000, maximum: 3_600_000, default: 600_000 }),
    /**
     * `on`: before a PDF conversion, every table style of the filled document (conditional formats,
     * tblLook, banding) is written as direct formatting, which LibreOffice imports about twice as
     * fast on long tables and draws the same (docs/table-styles.md). `off`: the styles go to the
     * converter as the template has them. A .docx output always keeps its styles.
     */
    RESOLVE_TABLE_STYLES: Setting.onOff({ default: 'on' }),
    /**
     * `on`: before a PDF conversion, the styles no part of the filled document uses and Word's
     * latent styles are left out of it: LibreOffice imports every style, a quarter of a one-page
     * Word-made invoice's conversion, and draws the same (docs/conversion.md). `off`: the style
     * sheet goes to the converter whole. A .docx output always keeps every style.
     */
    PRUNE_UNUSED_STYLES: Setting.onOff({ default: 'on' }),
  },
  slice: (v) => ({
    tableCells: v.MAX_TABLE_CELLS,
    asyncTableCells: v.ASYNC_MAX_TABLE_CELLS,
    asyncConversionTimeoutMs: v.ASYNC_CONVERSION_TIMEOUT_MS,
    resolveTableStyles: v.RESOLVE_TABLE_STYLES === 'on',
    pruneUnusedStyles: v.PRUNE_UNUSED_STYLES === 'on',
  }),
});

/** The converter's settings from `env` alone (the command line's lint, tools). */
export function converterConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ConverterConfig {
  return loadSettings({ converter: converterSettings }, env).converter;
}

/** The same checks for a config built in code: each field is read as its variable would be. */
export function validateConverterConfig(config: ConverterConfig): void {
  const env: Record<string, string> = {};
  for (const [field, name] of Object.entries(FIELDS)) {
    const value = config[field as keyof ConverterConfig];
    if (value !== undefined) env[name] = String(value);
  }
  loadSettings({ converter: converterSettings }, env);
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
