/** Command-line options of the benchmarks: `--iterations 200`, `--check`. */

function raw(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
}

/** A text option, or the fallback when it is absent. */
export function stringArg(name: string, fallback: string): string {
  return raw(name) ?? fallback;
}

/**
 * A positive integer option, or the fallback when it is absent. An option whose fallback is 0
 * (0 meaning "the service's default", as --concurrency) takes 0 too, and so does one whose 0
 * skips a section (`{ zeroSkips: true }`, as --stored-requests 0).
 */
export function intArg(name: string, fallback: number, how: { zeroSkips?: boolean } = {}): number {
  const text = raw(name);
  if (text === undefined) return fallback;
  const n = Number(text);
  const least = fallback === 0 || how.zeroSkips ? 0 : 1;
  if (!Number.isInteger(n) || n < least) {
    throw new Error(`--${name} needs a ${least === 0 ? 'non-negative' : 'positive'} integer`);
  }
  return n;
}

/** A positive number option (fractions allowed), or the fallback when it is absent. */
export function numberArg(name: string, fallback: number): number {
  const text = raw(name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number`);
  return n;
}

/** A flag such as `--check`. */
export function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}
