/**
 * Babel's `format_date`, `format_datetime` and `format_time` over Node's ICU: the named formats
 * (`short`, `medium`, `long`, `full`) are ICU's dateStyle/timeStyle, which are CLDR's; an LDML
 * pattern (`"EEEE, dd.MM.yyyy"`) is read field by field.
 *
 * Luxon parses ISO 8601, converts between IANA zones and gives each textual field (month and
 * weekday names in format or stand-alone form, eras, zone names) from Intl. No library formats an
 * LDML pattern from Intl's data (Luxon's tokens differ from LDML's: `E`, `D`, `S`, `Z` mean other
 * things), so the pattern tokenizer and the numeric fields are written here, after TR35.
 */
import { DateTime } from 'luxon';
import { FormatValueError } from './errors';
import { dateTimeFormat, numberFormat } from './intl-cache';

export type DateStyle = 'short' | 'medium' | 'long' | 'full';
const STYLES = new Set<string>(['short', 'medium', 'long', 'full']);

/** The longest pattern accepted: a document's date is a few dozen characters. */
const MAX_DATE_PATTERN_LENGTH = 200;

type Kind = 'date' | 'datetime' | 'time';

interface Parsed {
  dt: DateTime;
  kind: Kind;
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;
const TIME_RE = /^\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;

/**
 * An ISO 8601 date (`2026-11-25`), date-time (`2026-11-25T14:30:00`, `…Z`, `…+01:00`) or, for
 * format_time, a time (`14:30`). A date-time without an offset is UTC, as Babel takes a naive one.
 */
function parseIsoValue(filter: string, value: unknown, allowTime: boolean): Parsed {
  if (typeof value !== 'string')
    throw new FormatValueError(filter, value, 'not an ISO 8601 date or date-time string');
  const s = value.trim();
  let kind: Kind | undefined;
  let text = s;
  if (DATE_RE.test(s)) kind = 'date';
  else if (DATETIME_RE.test(s)) {
    kind = 'datetime';
    text = s.replace(' ', 'T');
  } else if (allowTime && TIME_RE.test(s)) {
    kind = 'time';
    text = `2000-01-01T${s}`;
  }
  if (!kind) throw new FormatValueError(filter, value, 'not an ISO 8601 date or date-time string');
  const dt = DateTime.fromISO(text, { zone: 'UTC', setZone: true });
  if (!dt.isValid) throw new FormatValueError(filter, value, `not a valid date (${dt.invalidExplanation})`);
  return { dt, kind };
}

/** The zone name Intl accepts for the value's zone (Luxon's fixed offsets are not IANA names). */
function intlZone(dt: DateTime): string {
  if (dt.zone.type === 'iana') return dt.zoneName ?? 'UTC';
  const off = dt.offset;
  if (off === 0) return 'UTC';
  // Etc/GMT zones have POSIX's inverted sign and whole hours only.
  if (off % 60 === 0) return `Etc/GMT${off > 0 ? '-' : '+'}${Math.abs(off / 60)}`;
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

function styled(dt: DateTime, locale: string, opts: Intl.DateTimeFormatOptions): string {
  return dateTimeFormat(locale, { ...opts, timeZone: intlZone(dt) }).format(dt.toJSDate());
}

/** A number as the locale writes digits (Arabic-Indic in ar-EG), zero-padded to `min` digits. */
function num(locale: string, n: number, min: number): string {
  return numberFormat(locale, { useGrouping: false, minimumIntegerDigits: Math.min(min, 21) }).format(n);
}

function zoneText(dt: DateTime, locale: string, style: Intl.DateTimeFormatOptions['timeZoneName']): string {
  const parts = dateTimeFormat(locale, {
    timeZone: intlZone(dt),
    timeZoneName: style,
  }).formatToParts(dt.toJSDate());
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? '';
}

/** ISO 8601 offsets: x/X (X writes Z for UTC), per TR35's widths. */
function isoOffset(offsetMin: number, count: number, zForZero: boolean): string {
  if (zForZero && offsetMin === 0) return 'Z';
  const sign = offsetMin < 0 ? '-' : '+';
  const a = Math.abs(offsetMin);
  const hh = String(Math.floor(a / 60)).padStart(2, '0');
  const mm = String(a % 60).padStart(2, '0');
  if (count === 1) return mm === '00' ? sign + hh : sign + hh + mm;
  if (count === 2 || count === 4) return sign + hh + mm;
  return `${sign}${hh}:${mm}`;
}

const LUXON_TEXT: Record<string, (string | undefined)[]> = {
  // index = count - 1; undefined = width not supported
  G: ['G', 'G', 'G', 'GG', 'GGGGG'],
  E: ['EEE', 'EEE', 'EEE', 'EEEE', 'EEEEE'],
  e: [undefined, undefined, 'EEE', 'EEEE', 'EEEEE'],
  c: [undefined, undefined, 'ccc', 'cccc', 'ccccc'],
  a: ['a', 'a', 'a'],
};

/** Regions whose first week needs 4 days (CLDR weekData minDays); 1 elsewhere. Intl's weekInfo lost minimalDays in newer V8. */
const MIN_DAYS_4 = new Set(
  'AD AN AT AX BE BG CH CZ DE DK EE ES FI FJ FO FR GB GF GG GI GP GR HU IE IM IS IT JE LI LT LU MC MQ NL NO PL PT RE RU SE SJ SK SM VA'.split(
    ' ',
  ),
);

interface WeekInfo {
  /** 0 = Monday … 6 = Sunday, as Python's weekday(). */
  firstDay: number;
  minimalDays: number;
}

function weekInfo(locale: string): WeekInfo {
  const loc = new Intl.Locale(locale) as Intl.Locale & {
    getWeekInfo?: () => { firstDay: number; minimalDays?: number };
    weekInfo?: { firstDay: number; minimalDays?: number };
  };
  const info = loc.getWeekInfo?.() ?? loc.weekInfo;
  const region = loc.maximize().region ?? '';
  return {
    firstDay: ((info?.firstDay ?? 1) + 6) % 7,
    minimalDays: info?.minimalDays ?? (MIN_DAYS_4.has(region) ? 4 : 1),
  };
}

/** The locale's week of the year (`w`), computed as Babel's DateTimeFormat.get_week_number does. */
function weekOfYear(dt: DateTime, locale: string): number {
  const { firstDay, minimalDays } = weekInfo(locale);
  const week = (doy: number, dow: number) => {
    const first = (((dow - firstDay - doy + 1) % 7) + 7) % 7;
    let n = Math.floor((doy + first - 1) / 7);
    if (7 - first >= minimalDays) n += 1;
    return n;
  };
  const n = week(dt.ordinal, dt.weekday - 1);
  if (n > 0) return n;
  const prev = dt.minus({ days: dt.ordinal }); // the last day of the previous year
  return week(prev.ordinal, prev.weekday - 1);
}

/** The locale's day of the week as a number (`e`, `c`): 1 is the locale's first day. */
function localWeekday(dt: DateTime, locale: string): number {
  return ((((dt.weekday - 1 - weekInfo(locale).firstDay) % 7) + 7) % 7) + 1;
}

const MONTH_WIDTH = { 3: 'short', 4: 'long', 5: 'narrow' } as const;

/**
 * A month name in the format context (`MMMM`: Russian "ноября") or stand-alone (`LLLL`: "ноябрь").
 * Intl has no such choice: a month formatted beside a day is the format form, alone the
 * stand-alone one. Where the locale writes a month beside a day as digits (ja "11月25日" splits
 * into "11" and "月", cs "25. 11."), CLDR's format name is the stand-alone one, which we take.
 */
function monthText(dt: DateTime, locale: string, count: 3 | 4 | 5, standalone: boolean): string {
  const month = MONTH_WIDTH[count];
  const timeZone = intlZone(dt);
  const date = dt.toJSDate();
  if (!standalone) {
    const part = dateTimeFormat(locale, { timeZone, day: 'numeric', month })
      .formatToParts(date)
      .find((p) => p.type === 'month')?.value;
    if (part && !/^\p{Nd}+$/u.test(part)) return part;
  }
  return dateTimeFormat(locale, { timeZone, month }).format(date);
}

function field(dt: DateTime, locale: string, letter: string, count: number): string | undefined {
  if ((letter === 'M' || letter === 'L') && count >= 3 && count <= 5)
    return monthText(dt, locale, count as 3 | 4 | 5, letter === 'L');
  const luxon = LUXON_TEXT[letter]?.[count - 1];
  if (luxon) return dt.toFormat(luxon);
  const n = (v: number, min = count) => num(locale, v, min);
  switch (letter) {
    case 'y':
      return count === 2 ? n(dt.year % 100, 2) : n(dt.year);
    case 'u':
      return n(dt.year);
    case 'Q':
    case 'q':
      return count <= 2 ? n(dt.quarter) : undefined;
    case 'M':
    case 'L':
      return count <= 2 ? n(dt.month) : undefined;
    case 'w':
      return count <= 2 ? n(weekOfYear(dt, locale)) : undefined;
    case 'd':
      return count <= 2 ? n(dt.day) : undefined;
    case 'D':
      return count <= 3 ? n(dt.ordinal) : undefined;
    case 'e':
    case 'c':
      return count <= 2 ? n(localWeekday(dt, locale)) : undefined;
    case 'h':
      return count <= 2 ? n(dt.hour % 12 || 12) : undefined;
    case 'H':
      return count <= 2 ? n(dt.hour) : undefined;
    case 'K':
      return count <= 2 ? n(dt.hour % 12) : undefined;
    case 'k':
      return count <= 2 ? n(dt.hour || 24) : undefined;
    case 'm':
      return count <= 2 ? n(dt.minute) : undefined;
    case 's':
      return count <= 2 ? n(dt.second) : undefined;
    case 'S': {
      const digits = String(dt.millisecond).padStart(3, '0').padEnd(count, '0').slice(0, count);
      return [...digits].map((d) => n(Number(d), 1)).join('');
    }
    case 'A':
      return n(((dt.hour * 60 + dt.minute) * 60 + dt.second) * 1000 + dt.millisecond);
    case 'z':
      return count <= 3
        ? zoneText(dt, locale, 'short')
        : count === 4
          ? zoneText(dt, locale, 'long')
          : undefined;
    case 'Z':
      if (count <= 3) return isoOffset(dt.offset, 2, false);
      if (count === 4) return zoneText(dt, locale, 'longOffset');
      return count === 5 ? isoOffset(dt.offset, 3, true) : undefined;
    case 'O':
      return count === 1
        ? zoneText(dt, locale, 'shortOffset')
        : count === 4
          ? zoneText(dt, locale, 'longOffset')
          : undefined;
    case 'v':
      return count === 1
        ? zoneText(dt, locale, 'shortGeneric')
        : count === 4
          ? zoneText(dt, locale, 'longGeneric')
          : undefined;
    case 'V':
      return count === 2 ? intlZone(dt) : undefined;
    case 'x':
    case 'X':
      return count <= 5 ? isoOffset(dt.offset, count, letter === 'X') : undefined;
    default:
      return undefined;
  }
}

/**
 * An LDML date pattern (TR35 "Date Format Patterns"): runs of one ASCII letter are fields, text in
 * single quotes is literal (`''` is an apostrophe), anything else is literal as it stands.
 */
function formatDatePattern(
  filter: string,
  value: unknown,
  dt: DateTime,
  locale: string,
  pattern: string,
): string {
  if (pattern.length > MAX_DATE_PATTERN_LENGTH)
    throw new FormatValueError(
      filter,
      value,
      `the pattern is longer than ${MAX_DATE_PATTERN_LENGTH} characters`,
    );
  const local = dt.setLocale(locale);
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "'") {
      if (pattern[i + 1] === "'") {
        out += "'";
        i += 2;
        continue;
      }
      const end = pattern.indexOf("'", i + 1);
      if (end < 0)
        throw new FormatValueError(filter, value, `the pattern '${pattern}' has an unclosed quote`);
      // Inside quotes, '' is an apostrophe too.
      let j = i + 1;
      let lit = '';
      for (;;) {
        const q = pattern.indexOf("'", j);
        if (q < 0)
          throw new FormatValueError(filter, value, `the pattern '${pattern}' has an unclosed quote`);
        lit += pattern.slice(j, q);
        if (pattern[q + 1] === "'") {
          lit += "'";
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      out += lit;
      continue;
    }
    if (/[A-Za-z]/.test(c)) {
      let j = i;
      while (pattern[j] === c) j++;
      const count = j - i;
      const text = field(local, locale, c, count);
      if (text === undefined)
        throw new FormatValueError(
          filter,
          value,
          `the pattern field '${c.repeat(count)}' in '${pattern}' is not supported`,
        );
      out += text;
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

function formatArg(filter: string, value: unknown, format: unknown): string {
  if (typeof format !== 'string' || !format)
    throw new FormatValueError(filter, value, 'format must be short, medium, long, full or a date pattern');
  return format;
}

/** Babel's format_date: a date-time's own calendar date, no zone conversion (Babel's `.date()`). */
export function formatDate(value: unknown, format: unknown, locale: string): string {
  const filter = 'format_date';
  const { dt } = parseIsoValue(filter, value, false);
  const f = formatArg(filter, value, format);
  if (STYLES.has(f)) return styled(dt, locale, { dateStyle: f as DateStyle });
  return formatDatePattern(filter, value, dt, locale, f);
}

/** Babel's format_datetime: converted to `timezone` (a value without offset is UTC). */
export function formatDatetime(value: unknown, format: unknown, timezone: string, locale: string): string {
  const filter = 'format_datetime';
  const { dt } = parseIsoValue(filter, value, false);
  const f = formatArg(filter, value, format);
  const z = dt.setZone(timezone);
  if (STYLES.has(f)) return styled(z, locale, { dateStyle: f as DateStyle, timeStyle: f as DateStyle });
  return formatDatePattern(filter, value, z, locale, f);
}

/**
 * Babel's format_time: a date-time is converted to `timezone`; a bare time (`14:30`) is shown as
 * it is, as Babel shows a naive `time`.
 */
export function formatTime(value: unknown, format: unknown, timezone: string, locale: string): string {
  const filter = 'format_time';
  const { dt, kind } = parseIsoValue(filter, value, true);
  const f = formatArg(filter, value, format);
  const z = kind === 'time' ? dt : dt.setZone(timezone);
  if (STYLES.has(f)) return styled(z, locale, { timeStyle: f as DateStyle });
  return formatDatePattern(filter, value, z, locale, f);
}
