/**
 * The cases of the Babel differential test (test/formatting-babel.e2e-spec.ts): one list, run by
 * Babel (test/support/babel_format.py, Debian's python3-babel) and by our filters.
 */
export interface BabelCase {
  fn:
    | 'format_date'
    | 'format_datetime'
    | 'format_time'
    | 'format_decimal'
    | 'format_currency'
    | 'format_percent';
  value: string | number;
  args: (string | null)[];
  kwargs: { locale: string; tzinfo?: string };
}

/** 21 locales: Latin, Cyrillic, CJK, Devanagari, Arabic and Hangul scripts. */
export const BABEL_LOCALES = [
  'en_US',
  'en_GB',
  'de_DE',
  'de_CH',
  'fr_FR',
  'fr_CH',
  'es_ES',
  'it_IT',
  'pt_BR',
  'nl_NL',
  'pl_PL',
  'sv_SE',
  'tr_TR',
  'cs_CZ',
  'ru_RU',
  'uk_UA',
  'ja_JP',
  'zh_CN',
  'ko_KR',
  'hi_IN',
  'ar_EG',
] as const;

const DATE = '2026-11-25';
const DATETIME = '2026-11-25T14:30:05Z';

export function babelCases(): BabelCase[] {
  const cases: BabelCase[] = [];
  for (const locale of BABEL_LOCALES) {
    const add = (fn: BabelCase['fn'], value: string | number, args: (string | null)[], tz?: string) =>
      cases.push({ fn, value, args, kwargs: { locale, ...(tz ? { tzinfo: tz } : {}) } });
    for (const f of [
      'short',
      'medium',
      'long',
      'full',
      'd MMMM y',
      'EEEE, dd.MM.yyyy',
      'LLLL y',
      'EEE d MMM yy',
      'QQ/yyyy',
      'D',
    ])
      add('format_date', DATE, [f]);
    add('format_date', '2026-03-01', ['d MMMM y']);
    for (const f of ['short', 'medium', 'dd.MM.yyyy HH:mm', "yyyy-MM-dd'T'HH:mm:ssXXX", 'h:mm a'])
      add('format_datetime', DATETIME, [f], 'Europe/Berlin');
    add('format_datetime', '2026-07-01T23:15:00+02:00', ['dd.MM.yyyy HH:mm'], 'America/New_York');
    for (const f of ['short', 'medium', 'HH:mm:ss', 'h:mm a'])
      add('format_time', DATETIME, [f], 'Asia/Tokyo');
    for (const v of [1234567.891, -0.5, 0.125, 1000, 2.5, 3.5]) add('format_decimal', v, [null]);
    for (const f of ['#,##0.00', '#,##0.###', '0.0', '#,##,##0.00', '000000'])
      add('format_decimal', 1234567.891, [f]);
    add('format_decimal', -1234.5, ['#,##0.00;(#,##0.00)']);
    add('format_decimal', 0.5, ['#.##']);
    add('format_decimal', 1234.5678, ['@@@']);
    for (const c of ['EUR', 'USD', 'JPY', 'KWD', 'CHF', 'GBP']) add('format_currency', 1234.5, [c]);
    add('format_currency', -1234.5, ['EUR']);
    for (const c of ['EUR', 'JPY', 'KWD']) add('format_currency', 1234.5, [c, '#,##0.00 ¤']);
    add('format_currency', 1234.5, ['EUR', '¤¤ #,##0.00']);
    for (const v of [0.256, 1.5, -0.07]) add('format_percent', v, [null]);
    add('format_percent', 0.12345, ['#,##0.0%']);
  }
  return cases;
}
