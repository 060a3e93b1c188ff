/**
 * The formatting and barcode filters of the dialect, with Babel's names and arguments
 * (`babel.dates`, `babel.numbers`) so that docxtpl users recognise them:
 *
 *   {{ invoice.date | format_date("long") }}            {{ total | format_currency("EUR") }}
 *   {{ ts | format_datetime("EEEE, dd.MM.yyyy HH:mm", tzinfo="Europe/Berlin", locale="de_DE") }}
 *   {{ url | qrcode(size_mm=30, ecc="M") }}             {{ sku | barcode("ean13", width_mm=40) }}
 *   {{ payment | epc_qr(size_mm=40) }}
 *
 * `locale` and `tzinfo` default to the request's (options.locale / options.timezone, or the form
 * fields locale / timezone), else to the service's DEFAULT_LOCALE / DEFAULT_TIMEZONE.
 */
import { arg, type FilterFn } from '../runtime/filters';
import type { RenderState } from '../runtime/ops';
import { ImageRef, isDict, PyFloat, Undefined, type Value } from '../runtime/values';
import {
  BARCODE_TYPES,
  drawBarcode,
  epcPayload,
  MAX_BARCODE_PIXELS_PER_DOCUMENT,
  MAX_BARCODES_PER_DOCUMENT,
  sideArg,
} from './barcodes';
import { formatDate, formatDatetime, formatTime } from './dates';
import { FormatValueError } from './errors';
import { parseLocale, parseTimeZone } from './locale';
import { formatCompactDecimal, formatCurrency, formatDecimal, formatPercent } from './numbers';
import {
  NUM2WORDS_FORMS,
  NUM2WORDS_LANGS,
  num2words,
  num2wordsLang,
  Num2WordsError,
  parseDecimalString,
  type Num2WordsForm,
  type PyNumber,
} from './num2words';
import { strftimeFilter } from './strftime';

/** A template value as plain JSON for the formatters (a Python float `2.0` is the number 2). */
function plain(v: Value): unknown {
  if (v instanceof PyFloat) return v.value;
  if (Array.isArray(v)) return v.map(plain);
  if (isDict(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: plain(v[k]), enumerable: true });
    return out;
  }
  return v;
}

function localeOf(st: RenderState, filter: string, value: Value, raw: Value): string {
  if (raw === null || raw instanceof Undefined) return st.format.locale;
  const tag = parseLocale(raw);
  if (!tag) throw new FormatValueError(filter, plain(value), `unknown locale ${JSON.stringify(plain(raw))}`);
  return tag;
}

function zoneOf(st: RenderState, filter: string, value: Value, raw: Value): string {
  if (raw === null || raw instanceof Undefined) return st.format.timezone;
  const zone = parseTimeZone(raw);
  if (!zone)
    throw new FormatValueError(filter, plain(value), `unknown time zone ${JSON.stringify(plain(raw))}`);
  return zone;
}

function flag(v: Value): boolean {
  return v !== false && v !== null && v !== 0 && !(v instanceof Undefined);
}

/** Undefined input prints as any missing value does (nothing, or the undefined mode's marker). */
function missing(st: RenderState, v: Value): boolean {
  st.use(v);
  return v instanceof Undefined;
}

function mmArg(v: Value): unknown {
  return v instanceof PyFloat ? v.value : v;
}

/** A drawn code as an inline picture; the same code twice in a document is one picture. */
function placeCode(
  st: RenderState,
  key: string,
  draw: () => ReturnType<typeof drawBarcode>,
  filter: string,
  value: Value,
): ImageRef {
  const hit = st.barcodes.get(key);
  if (hit) return hit;
  if (st.barcodes.size >= MAX_BARCODES_PER_DOCUMENT)
    throw new FormatValueError(
      filter,
      plain(value),
      `more than ${MAX_BARCODES_PER_DOCUMENT} different codes in one document (limit)`,
    );
  const img = draw();
  st.barcodePixels += img.widthPx * img.heightPx;
  if (st.barcodePixels > MAX_BARCODE_PIXELS_PER_DOCUMENT)
    throw new FormatValueError(
      filter,
      plain(value),
      `the document's codes would take more than ${MAX_BARCODE_PIXELS_PER_DOCUMENT / 1e6} million pixels together at 300 dpi (limit): fewer or smaller codes`,
    );
  const ref = new ImageRef(img.name, img);
  st.barcodes.set(key, ref);
  return ref;
}

function codeText(filter: string, v: Value): string {
  const p = plain(v);
  if (typeof p === 'string') return p;
  if (typeof p === 'number' && Number.isInteger(p) && p >= 0) return String(p);
  throw new FormatValueError(filter, p, 'must be text or a whole number');
}

/** A template value as Python's num2words receives it: int, float, or a string it reads as a Decimal. */
function pyNumberOf(filter: string, v: Value): PyNumber {
  if (v instanceof PyFloat) return { kind: 'float', float: v.value };
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new FormatValueError(filter, v, 'must be a finite number');
    return Number.isInteger(v) ? { kind: 'int', int: BigInt(v) } : { kind: 'float', float: v };
  }
  if (typeof v === 'string') {
    const d = parseDecimalString(v);
    if (d) return d;
  }
  throw new FormatValueError(filter, plain(v), 'must be a number, or a number written in digits ("1234.56")');
}

/** Python's num2words(number, ordinal=False, lang='en', to='cardinal', currency='EUR', cents=True, separator). */
function num2wordsFilter(st: RenderState, v: Value, a: Value[], k: Record<string, Value>): Value {
  const f = 'num2words';
  if (missing(st, v)) return v;
  const x = pyNumberOf(f, v);
  const langArg = plain(arg(a, k, 1, 'lang', 'en'));
  const lang = typeof langArg === 'string' ? num2wordsLang(langArg) : undefined;
  if (!lang)
    throw new FormatValueError(
      f,
      plain(v),
      `unknown lang ${JSON.stringify(langArg)} (known: ${NUM2WORDS_LANGS.join(', ')})`,
    );
  const ordinalFlag = flag(arg(a, k, 0, 'ordinal', false));
  const toArg = plain(arg(a, k, 2, 'to', 'cardinal'));
  if (typeof toArg !== 'string' || !(NUM2WORDS_FORMS as readonly string[]).includes(toArg))
    throw new FormatValueError(
      f,
      plain(v),
      `unknown to=${JSON.stringify(toArg)} (known: ${NUM2WORDS_FORMS.join(', ')})`,
    );
  const currency = k.currency === undefined ? 'EUR' : plain(k.currency);
  if (typeof currency !== 'string')
    throw new FormatValueError(f, plain(v), 'currency must be a code like "EUR"');
  const separator = k.separator === undefined ? undefined : plain(k.separator);
  try {
    return num2words(x, {
      lang,
      to: ordinalFlag ? 'ordinal' : (toArg as Num2WordsForm),
      currency,
      cents: flag(k.cents ?? true),
      separator: separator === undefined ? undefined : String(separator),
    });
  } catch (e) {
    if (e instanceof Num2WordsError || e instanceof RangeError)
      throw new FormatValueError(f, plain(v), e.message);
    throw e;
  }
}

const ROMAN: [number, string][] = [
  [1000, 'M'],
  [900, 'CM'],
  [500, 'D'],
  [400, 'CD'],
  [100, 'C'],
  [90, 'XC'],
  [50, 'L'],
  [40, 'XL'],
  [10, 'X'],
  [9, 'IX'],
  [5, 'V'],
  [4, 'IV'],
  [1, 'I'],
];

/** `n | to_roman` (Python's roman.toRoman, as docxtpl users register it): a dozen lines, no library. */
function toRoman(st: RenderState, v: Value): Value {
  if (missing(st, v)) return v;
  const p = plain(v);
  const n = typeof p === 'string' && /^\s*\d+\s*$/.test(p) ? Number(p) : p;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 3999)
    throw new FormatValueError('to_roman', p, 'must be a whole number from 1 to 3999');
  let rest = n;
  let out = '';
  for (const [value, letters] of ROMAN) for (; rest >= value; rest -= value) out += letters;
  return out;
}

/** The formatting filters, which environment.ts adds to every render's environment. */
export const FORMAT_FILTERS: Record<string, FilterFn> = {
  num2words: num2wordsFilter,
  to_roman: toRoman,
  dateformat: (st, v, a, k) => strftimeFilter(st, 'dateformat', v, a, k),
  datetimeformat: (st, v, a, k) => strftimeFilter(st, 'datetimeformat', v, a, k),
  format_date: (st, v, a, k) => {
    if (missing(st, v)) return v;
    return formatDate(
      plain(v),
      plain(arg(a, k, 0, 'format', 'medium')),
      localeOf(st, 'format_date', v, arg(a, k, 1, 'locale', null)),
    );
  },
  format_datetime: (st, v, a, k) => {
    if (missing(st, v)) return v;
    const f = 'format_datetime';
    return formatDatetime(
      plain(v),
      plain(arg(a, k, 0, 'format', 'medium')),
      zoneOf(st, f, v, arg(a, k, 1, 'tzinfo', null)),
      localeOf(st, f, v, arg(a, k, 2, 'locale', null)),
    );
  },
  format_time: (st, v, a, k) => {
    if (missing(st, v)) return v;
    const f = 'format_time';
    return formatTime(
      plain(v),
      plain(arg(a, k, 0, 'format', 'medium')),
      zoneOf(st, f, v, arg(a, k, 1, 'tzinfo', null)),
      localeOf(st, f, v, arg(a, k, 2, 'locale', null)),
    );
  },
  format_decimal: (st, v, a, k) => {
    if (missing(st, v)) return v;
    return formatDecimal(
      plain(v),
      plain(arg(a, k, 0, 'format', null)),
      localeOf(st, 'format_decimal', v, arg(a, k, 1, 'locale', null)),
      {
        decimalQuantization: flag(arg(a, k, 2, 'decimal_quantization', true)),
        groupSeparator: flag(arg(a, k, 3, 'group_separator', true)),
      },
    );
  },
  format_currency: (st, v, a, k) => {
    if (missing(st, v)) return v;
    const f = 'format_currency';
    const currency = arg(a, k, 0, 'currency', null);
    if (currency === null || currency instanceof Undefined)
      throw new FormatValueError(f, plain(v), 'needs a currency, e.g. format_currency("EUR")');
    return formatCurrency(
      plain(v),
      plain(currency),
      plain(arg(a, k, 1, 'format', null)),
      localeOf(st, f, v, arg(a, k, 2, 'locale', null)),
      {
        currencyDigits: flag(arg(a, k, 3, 'currency_digits', true)),
        formatType: plain(arg(a, k, 4, 'format_type', 'standard')),
        decimalQuantization: flag(arg(a, k, 5, 'decimal_quantization', true)),
        groupSeparator: flag(arg(a, k, 6, 'group_separator', true)),
      },
    );
  },
  format_percent: (st, v, a, k) => {
    if (missing(st, v)) return v;
    return formatPercent(
      plain(v),
      plain(arg(a, k, 0, 'format', null)),
      localeOf(st, 'format_percent', v, arg(a, k, 1, 'locale', null)),
      {
        decimalQuantization: flag(arg(a, k, 2, 'decimal_quantization', true)),
        groupSeparator: flag(arg(a, k, 3, 'group_separator', true)),
      },
    );
  },
  format_compact_decimal: (st, v, a, k) => {
    if (missing(st, v)) return v;
    return formatCompactDecimal(
      plain(v),
      plain(arg(a, k, 0, 'format_type', 'short')),
      plain(arg(a, k, 2, 'fraction_digits', 0)),
      localeOf(st, 'format_compact_decimal', v, arg(a, k, 1, 'locale', null)),
    );
  },
  qrcode: (st, v, a, k) => {
    if (missing(st, v)) return v;
    const f = 'qrcode';
    const text = codeText(f, v);
    const size = mmArg(arg(a, k, 0, 'size_mm', 30));
    const ecc = plain(arg(a, k, 1, 'ecc', 'M'));
    if (typeof ecc !== 'string' || !/^[LMQH]$/.test(ecc))
      throw new FormatValueError(f, plain(v), 'ecc must be L, M, Q or H');
    const widthMm = checkMm(f, v, 'size_mm', size);
    return placeCode(
      st,
      JSON.stringify(['qrcode', text, widthMm, ecc]),
      () => drawBarcode({ filter: f, type: 'qrcode', text, widthMm, eclevel: ecc, value: plain(v) }),
      f,
      v,
    );
  },
  barcode: (st, v, a, k) => {
    if (missing(st, v)) return v;
    const f = 'barcode';
    const type = plain(arg(a, k, 0, 'type', null));
    if (typeof type !== 'string' || !Object.prototype.hasOwnProperty.call(BARCODE_TYPES, type.toLowerCase()))
      throw new FormatValueError(
        f,
        plain(v),
        `unknown barcode type ${JSON.stringify(type)} (one of ${Object.keys(BARCODE_TYPES).join(', ')})`,
      );
    const t = type.toLowerCase();
    const text = codeText(f, v);
    const twoD = BARCODE_TYPES[t].twoD;
    const widthMm = checkMm(f, v, 'width_mm', mmArg(arg(a, k, 1, 'width_mm', twoD ? 30 : 50)));
    const h = mmArg(arg(a, k, 2, 'height_mm', twoD ? null : 15));
    const heightMm = h === null ? undefined : checkMm(f, v, 'height_mm', h);
    const human = flag(arg(a, k, 3, 'text', true));
    return placeCode(
      st,
      JSON.stringify([t, text, widthMm, heightMm ?? null, human]),
      () => drawBarcode({ filter: f, type: t, text, widthMm, heightMm, humanText: human, value: plain(v) }),
      f,
      v,
    );
  },
  epc_qr: (st, v, a, k) => {
    if (missing(st, v)) return v;
    const f = 'epc_qr';
    const payload = epcPayload(plain(v));
    const widthMm = checkMm(f, v, 'size_mm', mmArg(arg(a, k, 0, 'size_mm', 40)));
    // EPC069-12 prescribes error correction level M.
    return placeCode(
      st,
      JSON.stringify(['epc', payload, widthMm]),
      () =>
        drawBarcode({
          filter: f,
          type: 'qrcode',
          text: payload,
          widthMm,
          eclevel: 'M',
          eci: false,
          value: plain(v),
        }),
      f,
      v,
    );
  },
};

function checkMm(filter: string, v: Value, name: string, mm: unknown): number {
  return sideArg(filter, plain(v), name, mm);
}
