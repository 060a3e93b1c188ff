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
import type { ShouldContainRule } from './join-uncorrupt';
import type { Part } from './parts';
import { DigestLru, digestOf } from './recent-digests';

export interface CompiledTemplate {
  /** Each templated part's compiled parts (docxtemplater's postparsed), by part name. */
  readonly parts: ReadonlyMap<string, readonly Part[]>;
  /** The Jinja module's compile-time finding a render needs: column tags may change a grid. */
  readonly gridsMayChange: boolean;
  /** Characters of templated XML compiled (the size bound counts these). */
  readonly xmlChars: number;
  /** What rendering without docxtemplater's compile needs (render-compiled.ts). */
  readonly render: RenderContext;
}

/** docxtemplater's findings at compile that a render of the kept parts needs (render-compiled.ts). */
export interface RenderContext {
  /** Each templated part's content type, from [Content_Types].xml. */
  readonly contentTypes: ReadonlyMap<string, string | undefined>;
  /** docxtemplater's corruption rules for Word (its fileTypeConfig.tagShouldContain). */
  readonly tagShouldContain: readonly ShouldContainRule[];
  /** The XML documents docxtemplater parsed and writes back on render, as it serialises them. */
  readonly xmlDocuments: ReadonlyMap<string, string>;
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
  private readonly entries: DigestLru<CompiledTemplate>;
  hits = 0;
  misses = 0;

  constructor(limits: Partial<CompiledTemplatesLimits> = {}) {
    const l = { ...DEFAULT_COMPILED_TEMPLATES_LIMITS, ...limits };
    this.entries = new DigestLru(l.maxEntries, l.maxXmlChars);
  }

  /** The key of a template: SHA-256 of its bytes (0.1 ms for a 40 KB .docx). */
  static keyOf(template: Buffer): string {
    return digestOf(template);
  }

  get(key: string): CompiledTemplate | undefined {
    const entry = this.entries.get(key);
    if (entry) this.hits++;
    else this.misses++;
    return entry;
  }

  set(key: string, entry: CompiledTemplate): void {
    if (this.entries.set(key, entry, entry.xmlChars)) deepFreeze(entry, new Set());
  }

  get size(): number {
    return this.entries.size;
  }
}
