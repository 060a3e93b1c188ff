/**
 * `dateformat` and `datetimeformat`: the strftime filters docxtpl users register themselves
 * (`def datetimeformat(value, format='%H:%M / %d-%m-%Y'): return value.strftime(format)`), for
 * JSON's dates: an ISO 8601 string, or a number of seconds since 1970 (Unix time).
 *
 *   {{ invoice.date | dateformat('%d.%m.%Y') }}    {{ signed_at | datetimeformat('%d %B %Y, %H:%M') }}
 *
 * The directives are Python's strftime on Linux (glibc, C locale: English names), `%-d` and the
 * like included. An ISO value is written as it reads (no change of zone: `…T10:00+02:00` is 10:00,
 * `%z` is +0200); a value without an offset has none (`%z` and `%Z` are empty, as in Python). A Unix
 * time is the wall time in the request's time zone (options.timezone), as Python's
 * datetime.fromtimestamp gives the server's.
 */
import { DateTime } from 'luxon';
import { arg } from '../runtime/filters';
import type { RenderState } from '../runtime/ops';
import { PyFloat, Undefined, type Value } from '../runtime/values';
import { FormatValueError } from './errors';

/** The defaults of the definitions public templates were written for (docs/formatting.md). */
export const STRFTIME_DEFAULTS = { dateformat: '%Y-%m-%d', datetimeformat: '%H:%M / %d-%m-%Y' } as const;
const MAX_FORMAT_LENGTH = 200;

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME_RE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;

interface Moment {
  dt: DateTime;
  /** False for a naive value: %z and %Z print nothing. */
  aware: boolean;
  utc: boolean;
}

function momentOf(filter: string, v: Value, zone: string): Moment {
  if (typeof v === 'number' || v instanceof PyFloat) {
    const secs = typeof v === 'number' ? v : v.value;
    const dt = DateTime.fromMillis(Math.round(secs * 1000), { zone });
    if (!Number.isFinite(secs) || !dt.isValid)
      throw new FormatValueError(filter, secs, 'not a valid Unix time');
    return { dt, aware: false, utc: false };
  }
  if (typeof v !== 'string')
    throw new FormatValueError(
      filter,
      v instanceof Undefined ? null : v,
      'must be an ISO 8601 date or date-time, or a Unix time',
    );
  const s = v.trim();
  if (!DATE_RE.test(s) && !DATETIME_RE.test(s))
    throw new FormatValueError(
      filter,
      v,
      'not an ISO 8601 date (2026-11-28) or date-time (2026-11-28T14:30:00)',
    );
  const offset = /(Z|[+-]\d{2}(:?\d{2})?)$/i.exec(s.length > 10 ? s : '');
  const dt = DateTime.fromISO(s.replace(' ', 'T'), { zone: 'UTC', setZone: true });
  if (!dt.isValid) throw new FormatValueError(filter, v, `not a valid date (${dt.invalidExplanation})`);
  return { dt, aware: !!offset, utc: !!offset && /^z$/i.test(offset[1]) };
}

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const pad = (n: number, w: number, c = '0') => String(n).padStart(w, c);

function offsetText(m: Moment, colon: boolean): string {
  if (!m.aware) return '';
  const o = m.dt.offset;
  const a = Math.abs(o);
  return `${o < 0 ? '-' : '+'}${pad(Math.floor(a / 60), 2)}${colon ? ':' : ''}${pad(a % 60, 2)}`;
}

/** Week of the year with weeks starting on `first` (0 Sunday, 1 Monday), as %U and %W count. */
function weekNumber(dt: DateTime, first: 0 | 1): number {
  const wday = dt.weekday % 7; // 0 = Sunday
  return Math.floor((dt.ordinal + 6 - ((wday - first + 7) % 7)) / 7);
}

/** One directive, or undefined for one strftime does not know (written as it stands). */
function directive(m: Moment, c: string, noPad: boolean): string | undefined {
  const dt = m.dt;
  const p = (n: number, w: number, ch = '0') => (noPad ? String(n) : pad(n, w, ch));
  const hour12 = dt.hour % 12 === 0 ? 12 : dt.hour % 12;
  switch (c) {
    case 'a':
      return DAYS[dt.weekday - 1].slice(0, 3);
    case 'A':
      return DAYS[dt.weekday - 1];
    case 'b':
    case 'h':
      return MONTHS[dt.month - 1].slice(0, 3);
    case 'B':
      return MONTHS[dt.month - 1];
    case 'c':
      return `${format(m, '%a %b %e %H:%M:%S %Y')}`;
    case 'C':
      return p(Math.floor(dt.year / 100), 2);
    case 'd':
      return p(dt.day, 2);
    case 'D':
    case 'x':
      return format(m, '%m/%d/%y');
    case 'e':
      return p(dt.day, 2, ' ');
    case 'f':
      return pad(dt.millisecond * 1000, 6);
    case 'F':
      return format(m, '%Y-%m-%d');
    case 'G':
      return String(dt.weekYear);
    case 'g':
      return p(dt.weekYear % 100, 2);
    case 'H':
      return p(dt.hour, 2);
    case 'I':
      return p(hour12, 2);
    case 'j':
      return p(dt.ordinal, 3);
    case 'k':
      return p(dt.hour, 2, ' ');
    case 'l':
      return p(hour12, 2, ' ');
    case 'm':
      return p(dt.month, 2);
    case 'M':
      return p(dt.minute, 2);
    case 'n':
      return '\n';
    case 'p':
      return dt.hour < 12 ? 'AM' : 'PM';
    case 'P':
      return dt.hour < 12 ? 'am' : 'pm';
    case 'r':
      return format(m, '%I:%M:%S %p');
    case 'R':
      return format(m, '%H:%M');
    case 'S':
      return p(dt.second, 2);
    case 't':
      return '\t';
    case 'T':
    case 'X':
      return format(m, '%H:%M:%S');
    case 'u':
      return String(dt.weekday);
    case 'U':
      return p(weekNumber(dt, 0), 2);
    case 'V':
      return p(dt.weekNumber, 2);
    case 'w':
      return String(dt.weekday % 7);
    case 'W':
      return p(weekNumber(dt, 1), 2);
    case 'y':
      return p(dt.year % 100, 2);
    case 'Y':
      return String(dt.year);
    case 'z':
      return offsetText(m, false);
    case 'Z':
      // Python names a fixed offset "UTC" or "UTC+02:00".
      return !m.aware ? '' : m.utc || dt.offset === 0 ? 'UTC' : `UTC${offsetText(m, true)}`;
    case '%':
      return '%';
  }
  return undefined;
}

function format(m: Moment, fmt: string): string {
  return fmt.replace(
    /%(-?)(.)/gs,
    (whole, dash: string, c: string) => directive(m, c, dash === '-') ?? whole,
  );
}

/** `value | dateformat(format)` and `value | datetimeformat(format)`. */
export function strftimeFilter(
  st: RenderState,
  filter: keyof typeof STRFTIME_DEFAULTS,
  v: Value,
  a: Value[],
  k: Record<string, Value>,
): Value {
  st.use(v);
  // Empty input prints nothing, as the public definitions' `if not value: return ""` does.
  if (v instanceof Undefined || v === null || v === '') return v instanceof Undefined ? v : '';
  const fmtArg = arg(a, k, 0, 'format', STRFTIME_DEFAULTS[filter]);
  const fmt = fmtArg instanceof Undefined || fmtArg === null ? STRFTIME_DEFAULTS[filter] : fmtArg;
  if (typeof fmt !== 'string')
    throw new FormatValueError(filter, v, 'the format must be a strftime string like "%d.%m.%Y"');
  if (fmt.length > MAX_FORMAT_LENGTH)
    throw new FormatValueError(filter, v, `the format is longer than ${MAX_FORMAT_LENGTH} characters`);
  return format(momentOf(filter, v, st.format.timezone), fmt);
}
