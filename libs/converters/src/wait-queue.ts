/**
 * Callers waiting for a converter's slot (a LibreOffice instance, a Gotenberg request in flight):
 * first come, first served, at most `max` of them, so a flood is refused at once (converter_queue_full)
 * instead of waiting past its deadline. A priority caller (the pool's health check) goes first
 * and is never refused.
 */
export class WaitQueue<T> {
  private readonly waiters: Array<{ resolve: (value: T) => void; reject: (error: Error) => void }> = [];

  constructor(
    private readonly max: number,
    /** The error of a caller refused because `max` wait already. */
    private readonly full: (jobId?: string) => Error,
  ) {}

  get length(): number {
    return this.waiters.length;
  }

  /** Resolves with what handOver() passes; refused at once when full (unless `priority`). */
  wait(jobId?: string, priority = false): Promise<T> {
    if (!priority && this.waiters.length >= this.max) return Promise.reject(this.full(jobId));
    return new Promise<T>((resolve, reject) => {
      if (priority) this.waiters.unshift({ resolve, reject });
      else this.waiters.push({ resolve, reject });
    });
  }

  /** Hands `value` to the caller waiting longest; false when nobody waits. */
  handOver(value: T): boolean {
    const next = this.waiters.shift();
    next?.resolve(value);
    return next !== undefined;
  }

  /** Fails every waiting caller with `error`. */
  rejectAll(error: Error): void {
    for (const w of this.waiters.splice(0)) w.reject(error);
  }
}
