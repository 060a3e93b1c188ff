/**
 * Templates that already passed checkDocxTemplate in this process, by SHA-256 of their bytes.
 * Callers send the same few templates over and over; the check inflates and scans every part
 * (3.5 ms for a Word-made invoice with its 800 KB of styles), hashing the upload costs a tenth of
 * that. Only passes are remembered: identical bytes get the identical verdict, and a failing
 * template is checked again each time (its typed error is built by the check). Bounded, oldest
 * out first.
 */
import { createHash } from 'node:crypto';

export class CheckedTemplates {
  private readonly passed = new Map<string, true>();

  constructor(private readonly capacity = 256) {}

  /** Runs `check` unless these bytes passed it before; remembers a pass. */
  ensure(template: Buffer, check: (template: Buffer) => unknown): void {
    const digest = createHash('sha256').update(template).digest('base64');
    if (this.passed.has(digest)) {
      // Refresh its place: the templates in use stay, one-offs age out.
      this.passed.delete(digest);
      this.passed.set(digest, true);
      return;
    }
    check(template);
    this.passed.set(digest, true);
    if (this.passed.size > this.capacity) this.passed.delete(this.passed.keys().next().value!);
  }

  get size(): number {
    return this.passed.size;
  }
}
