/**
 * Compiled templates kept between renders in one process (the worker), by SHA-256 of the
 * template's bytes. Callers send the same few templates over and over; compiling one (lexing its
 * XML, parsing every tag, the compile passes) is about half of a small document's fill (8 of
 * 17 ms for the Word-made corpus invoice at 20 rows). What is kept is what compiling produced and
 * no request changes: each templated part's compiled parts and the module's compile-time flags.
 *
 * Identical bytes compile identically, so a hit is exact; only successful compiles are kept (a
 * template with errors is compiled again and reports them again). The compiled parts are shared
 * by every later render, so they are frozen when kept: a render that tried to change one would
 * throw instead of leaking one request's data into the next. Bounded by entries and by the
 * templated XML they came from (a proxy for their memory), least recently used out first.
 */
import { createHash } from 'node:crypto';
import type { Part } from './parts';

export interface CompiledTemplate {
  /** Each templated part's compiled parts (docxtemplater's postparsed), by part name. */
  readonly parts: ReadonlyMap<string, readonly Part[]>;
  /** The Jinja module's compile-time findings a render needs. */
  readonly gridsMayChange: boolean;
  readonly tagCount: number;
  /** Characters of templated XML compiled (the size bound counts these). */
  readonly xmlChars: number;
}

export interface CompiledTemplatesLimits {
  /** Templates kept (default 32). */
  maxEntries: number;
  /** Characters of templated XML kept across all entries (default 16 M, ~3–5× that in memory). */
  maxXmlChars: number;
}

export const DEFAULT_COMPILED_TEMPLATES_LIMITS: CompiledTemplatesLimits = {
  maxEntries: 32,
  maxXmlChars: 16_000_000,
};

function deepFreeze(value: unknown, seen: Set<object>): void {
  if (value === null || typeof value !== 'object' || seen.has(value)) return;
  seen.add(value);
  const children = value instanceof Map ? [...value.values()] : Object.values(value);
  for (const v of children) deepFreeze(v, seen);
  Object.freeze(value);
}

export class CompiledTemplates {
  private readonly entries = new Map<string, CompiledTemplate>();
  private xmlChars = 0;
  private readonly limits: CompiledTemplatesLimits;
  hits = 0;
  misses = 0;

  constructor(limits: Partial<CompiledTemplatesLimits> = {}) {
    this.limits = { ...DEFAULT_COMPILED_TEMPLATES_LIMITS, ...limits };
  }

  /** The key of a template: SHA-256 of its bytes (0.1 ms for a 40 KB .docx). */
  static keyOf(template: Buffer): string {
    return createHash('sha256').update(template).digest('base64');
  }

  get(key: string): CompiledTemplate | undefined {
    const entry = this.entries.get(key);
    if (!entry) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Refresh its place: templates in use stay, one-offs age out.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: CompiledTemplate): void {
    if (this.entries.has(key) || entry.xmlChars > this.limits.maxXmlChars || this.limits.maxEntries < 1)
      return;
    deepFreeze(entry, new Set());
    this.entries.set(key, entry);
    this.xmlChars += entry.xmlChars;
    while (this.entries.size > this.limits.maxEntries || this.xmlChars > this.limits.maxXmlChars) {
      const [oldest, evicted] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.xmlChars -= evicted.xmlChars;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
