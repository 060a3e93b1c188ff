/**
 * Locales and time zones of the formatting filters: Babel's spelling (`de_DE`) and BCP 47's
 * (`de-DE`) both name a locale; Node's ICU (full-icu) holds the data.
 */

/** The locale and time zone a render formats with unless a filter names its own. */
export interface FormatDefaults {
  /** BCP 47 tag, checked (`parseLocale`). */
  locale: string;
  /** IANA zone name, checked (`parseTimeZone`). */
  timezone: string;
}

export const DEFAULT_FORMAT_DEFAULTS: FormatDefaults = { locale: 'en-US', timezone: 'UTC' };

const regionNames = new Intl.DisplayNames('en', { type: 'region', fallback: 'none' });
const languageNames = new Intl.DisplayNames('en', { type: 'language', fallback: 'none' });
const cache = new Map<string, string | null>();

/**
 * `de_DE`, `de-DE`, `zh_Hans_CN`, `sr-Latn-RS` → the canonical BCP 47 tag; null when the text is
 * not a locale ICU knows: malformed, or an unknown language or region. ICU itself falls back
 * silently (`xx-YY` formats as the default locale), so the language and region are checked here.
 */
export function parseLocale(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 50) return null;
  const hit = cache.get(raw);
  if (hit !== undefined) return hit;
  let tag: string | null = null;
  try {
    const [canonical] = Intl.getCanonicalLocales(raw.replace(/_/g, '-'));
    const loc = new Intl.Locale(canonical);
    const knownLanguage =
      Intl.DateTimeFormat.supportedLocalesOf([loc.language], { localeMatcher: 'lookup' }).length > 0 &&
      languageNames.of(loc.language) !== undefined;
    // ZZ, AA, QM–QZ and XA–XZ are "unknown" and private-use codes: ICU names ZZ all the same.
    const knownRegion =
      loc.region === undefined ||
      (!/^(AA|Q[M-Z]|X[A-Z]|ZZ)$/.test(loc.region) && regionNames.of(loc.region) !== undefined);
    if (knownLanguage && knownRegion) tag = canonical;
  } catch {
    tag = null;
  }
  if (cache.size < 1000) cache.set(raw, tag);
  return tag;
}

/** An IANA zone name (`Europe/Berlin`, `UTC`) ICU knows, canonical; null otherwise. */
export function parseTimeZone(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 64) return null;
  // Offsets such as `+01:00` are accepted by recent ICU but not by Babel/pytz: names only.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(raw)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: raw }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
