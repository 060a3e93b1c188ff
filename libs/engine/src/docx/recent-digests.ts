/**
 * Byte strings that passed a costly check in this process, remembered by SHA-256 (hashing costs a
 * small fraction of any check worth remembering). Callers send the same templates and logos over
 * and over; identical bytes get the identical verdict, so only passes are remembered, and a
 * failing input is checked again each time (its typed error is built by the check). Bounded,
 * least recently used out first.
 */
import { createHash } from 'node:crypto';

export class RecentDigests {
  private readonly passed = new Set<string>();

  constructor(private readonly capacity = 256) {}

  private static digest(bytes: Uint8Array): string {
    return createHash('sha256').update(bytes).digest('base64');
  }

  /** True if these bytes passed before (and refreshes their place). */
  has(bytes: Uint8Array): boolean {
    const digest = RecentDigests.digest(bytes);
    if (!this.passed.has(digest)) return false;
    this.passed.delete(digest);
    this.passed.add(digest);
    return true;
  }

  add(bytes: Uint8Array): void {
    if (this.capacity < 1) return;
    this.passed.add(RecentDigests.digest(bytes));
    if (this.passed.size > this.capacity) this.passed.delete(this.passed.values().next().value!);
  }

  /** Runs `check` unless these bytes passed it before; remembers a pass. */
  ensure<T extends Uint8Array>(bytes: T, check: (bytes: T) => unknown): void {
    if (this.has(bytes)) return;
    check(bytes);
    this.add(bytes);
  }

  get size(): number {
    return this.passed.size;
  }
}
