/**
 * Intl formatters kept by locale and options: building one costs far more than formatting with
 * it, and a table of 2,000 rows formats 2,000 values with the same few. Bounded: past 500
 * formatters of one kind, new ones are built and not kept.
 */
const LIMIT = 500;
const numberFormats = new Map<string, Intl.NumberFormat>();
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();

function kept<F>(cache: Map<string, F>, key: string, make: () => F): F {
  let f = cache.get(key);
  if (!f) {
    f = make();
    if (cache.size < LIMIT) cache.set(key, f);
  }
  return f;
}

export function numberFormat(locale: string, opts: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  return kept(numberFormats, `${locale}|${JSON.stringify(opts)}`, () => new Intl.NumberFormat(locale, opts));
}

export function dateTimeFormat(locale: string, opts: Intl.DateTimeFormatOptions = {}): Intl.DateTimeFormat {
  return kept(
    dateTimeFormats,
    `${locale}|${JSON.stringify(opts)}`,
    () => new Intl.DateTimeFormat(locale, opts),
  );
}
