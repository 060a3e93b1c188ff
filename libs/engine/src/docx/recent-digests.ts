/**
 * What this process remembers about byte strings it has seen, keyed by SHA-256 of the bytes
 * (hashing costs a small fraction of any work worth remembering). Callers send the same templates
 * and logos over and over; identical bytes get the identical verdict or compile. Bounded by
 * entries and, optionally, by a weight per entry; least recently used out first.
 */
import { createHash } from 'node:crypto';

export function digestOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64');
}

export class DigestLru<V> {
  private readonly entries = new Map<string, { value: V; weight: number }>();
  private weight = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxWeight = Infinity,
  ) {}

  /** The value kept for this digest (and refreshes its place). */
  get(digest: string): V | undefined {
    const entry = this.entries.get(digest);
    if (!entry) return undefined;
    this.entries.delete(digest);
    this.entries.set(digest, entry);
    return entry.value;
  }

  /** Keeps a value not kept yet; false when it is not kept (there already, too heavy, no room). */
  set(digest: string, value: V, weight = 0): boolean {
    if (this.entries.has(digest) || weight > this.maxWeight || this.maxEntries < 1) return false;
    this.entries.set(digest, { value, weight });
    this.weight += weight;
    while (this.entries.size > this.maxEntries || this.weight > this.maxWeight) {
      const [oldest, evicted] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.weight -= evicted.weight;
    }
    return true;
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Byte strings that passed a costly check. Only passes are remembered: a failing input is checked
 * again each time (its typed error is built by the check).
 */
export class RecentDigests {
  private readonly passed: DigestLru<true>;

  constructor(capacity = 256) {
    this.passed = new DigestLru(capacity);
  }

  /** Runs `check` unless these bytes passed it before; remembers a pass. Returns their digest. */
  ensure<T extends Uint8Array>(bytes: T, check: (bytes: T) => unknown): string {
    const digest = digestOf(bytes);
    if (this.passed.get(digest)) return digest;
    check(bytes);
    this.passed.set(digest, true);
    return digest;
  }

  get size(): number {
    return this.passed.size;
  }
}
