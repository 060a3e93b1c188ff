/**
 * Babel's `format_decimal`, `format_currency`, `format_percent` and `format_compact_decimal` over
 * Node's ICU. Without a pattern, Intl.NumberFormat formats as the locale's CLDR pattern does;
 * with one (`"#,##0.00 ¤"`), the pattern decides digits and grouping and the locale gives the
 * symbols. Intl takes no patterns (only options), and no maintained library applies an LDML
 * number pattern with Intl's symbols, so the pattern reader below is ours, after TR35 and
 * Babel's `NumberPattern.apply` (half-even rounding of the exact decimal, currency digits).
 */
import { FormatValueError } from './errors';
import { numberFormat } from './intl-cache';

const MAX_NUMBER_PATTERN_LENGTH = 100;

/** The exact decimal text of a value: numbers as JS prints them (shortest round trip, like Python's repr), or numeric strings. */
function decimalText(filter: string, value: unknown): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new FormatValueError(filter, value, 'not a finite number');
    return String(value);
  }
  if (typeof value === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,4})?\s*$/.test(value))
    return value.trim();
  throw new FormatValueError(filter, value, 'not a number');
}

/** `text` × 10^n, exactly (percent and per-mille scale a decimal, not a float). */
function scaled(text: string, n: number): string {
  if (!n) return text;
  const m = /^([+-]?)(\d*)\.?(\d*)(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return text;
  return `${m[1]}${m[2] || '0'}.${m[3] || '0'}e${Number(m[4] ?? 0) + n}`;
}

type RoundingOptions = Intl.NumberFormatOptions & { roundingMode?: string };

function nf(locale: string, opts: RoundingOptions): Intl.NumberFormat {
  // Babel rounds with decimal's default, ROUND_HALF_EVEN.
  return numberFormat(locale, { roundingMode: 'halfEven', ...opts } as Intl.NumberFormatOptions);
}

function fmt(f: Intl.NumberFormat, text: string): string {
  // Intl formats a numeric string as the exact decimal it spells (ES2023 NumberFormat v3).
  return f.format(text as unknown as number);
}

let currencyCodes: Set<string> | undefined;
/** ISO 4217 codes ICU knows, listed once. */
const currencies = () => (currencyCodes ??= new Set(Intl.supportedValuesOf('currency')));

function checkCurrency(filter: string, value: unknown, currency: unknown): string {
  const code = typeof currency === 'string' ? currency.toUpperCase() : '';
  if (!/^[A-Z]{3}$/.test(code) || !currencies().has(code))
    throw new FormatValueError(
      filter,
      value,
      `unknown currency ${JSON.stringify(currency ?? null)} (use an ISO 4217 code)`,
    );
  return code;
}

/** A currency's own number of decimals (JPY 0, EUR 2, KWD 3), from CLDR's supplemental data. */
export function currencyDigits(code: string): number {
  return (
    numberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2
  );
}

interface Symbols {
  decimal: string;
  group: string;
  minus: string;
  plus: string;
  percent: string;
  digits: string[];
}

const symbolCache = new Map<string, Symbols>();

function symbolsOf(locale: string): Symbols {
  const hit = symbolCache.get(locale);
  if (hit) return hit;
  const parts = new Intl.NumberFormat(locale).formatToParts(-1234567.5);
  const get = (t: string, d: string) => parts.find((p) => p.type === t)?.value ?? d;
  const plain = new Intl.NumberFormat(locale, { useGrouping: false });
  const s: Symbols = {
    decimal: get('decimal', '.'),
    group: get('group', ','),
    minus: get('minusSign', '-'),
    plus:
      new Intl.NumberFormat(locale, { signDisplay: 'always' })
        .formatToParts(1)
        .find((p) => p.type === 'plusSign')?.value ?? '+',
    percent:
      new Intl.NumberFormat(locale, { style: 'percent' })
        .formatToParts(1)
        .find((p) => p.type === 'percentSign')?.value ?? '%',
    digits: [...Array(10).keys()].map((d) => plain.format(d)),
  };
  if (symbolCache.size < 500) symbolCache.set(locale, s);
  return s;
}

interface Affix {
  /** Literal text and symbol markers: `¤`×n, `%`, `‰`, `-`, `+`. */
  tokens: { lit?: string; sym?: string }[];
}

interface NumberPattern {
  pos: [Affix, Affix];
  neg?: [Affix, Affix];
  minInt: number;
  minFrac: number;
  maxFrac: number;
  /** Digits per group: primary (rightmost) and secondary; none when the pattern has no comma. */
  grouping?: [number, number];
  minSig?: number;
  maxSig?: number;
  scale: number;
}

function parseAffix(filter: string, value: unknown, text: string, pattern: string): Affix {
  const tokens: Affix['tokens'] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0)
        throw new FormatValueError(filter, value, `the pattern '${pattern}' has an unclosed quote`);
      tokens.push({ lit: end === i + 1 ? "'" : text.slice(i + 1, end) });
      i = end + 1;
    } else if (c === '¤') {
      let j = i;
      while (text[j] === '¤') j++;
      tokens.push({ sym: text.slice(i, j) });
      i = j;
    } else if (c === '%' || c === '‰' || c === '-' || c === '+') {
      tokens.push({ sym: c });
      i++;
    } else if (c === '*' || c === ';') {
      throw new FormatValueError(
        filter,
        value,
        `the pattern '${pattern}' uses '${c}', which is not supported`,
      );
    } else {
      tokens.push({ lit: c });
      i++;
    }
  }
  return { tokens };
}

/** Splits `prefix number suffix`: the prefix runs to the first unquoted digit character. */
function splitPattern(filter: string, value: unknown, sub: string, pattern: string): [Affix, string, Affix] {
  let i = 0;
  while (i < sub.length && !/[0-9@#.,]/.test(sub[i])) {
    if (sub[i] === "'") {
      const end = sub.indexOf("'", i + 1);
      if (end < 0)
        throw new FormatValueError(filter, value, `the pattern '${pattern}' has an unclosed quote`);
      i = end + 1;
    } else i++;
  }
  let j = i;
  while (j < sub.length && /[0-9@#.,]/.test(sub[j])) j++;
  return [
    parseAffix(filter, value, sub.slice(0, i), pattern),
    sub.slice(i, j),
    parseAffix(filter, value, sub.slice(j), pattern),
  ];
}

const patternCache = new Map<string, NumberPattern>();

function parseNumberPattern(filter: string, value: unknown, pattern: string): NumberPattern {
  const hit = patternCache.get(pattern);
  if (hit) return hit;
  if (pattern.length > MAX_NUMBER_PATTERN_LENGTH)
    throw new FormatValueError(
      filter,
      value,
      `the pattern is longer than ${MAX_NUMBER_PATTERN_LENGTH} characters`,
    );
  const bad = (why: string) => new FormatValueError(filter, value, `the pattern '${pattern}' ${why}`);
  // A ';' inside quotes is literal; the first unquoted one separates the negative subpattern.
  let semi = -1;
  for (let i = 0, q = false; i < pattern.length; i++) {
    if (pattern[i] === "'") q = !q;
    else if (pattern[i] === ';' && !q) {
      semi = i;
      break;
    }
  }
  const posText = semi < 0 ? pattern : pattern.slice(0, semi);
  const [pp, numberPart, ps] = splitPattern(filter, value, posText, pattern);
  if (!numberPart) throw bad('has no digits (#, 0 or @)');
  if (/E/.test(pattern.replace(/'[^']*'/g, '')))
    throw bad("uses scientific notation ('E'), which is not supported");
  const [intPart, fracPart = ''] = numberPart.split('.');
  if (numberPart.split('.').length > 2 || fracPart.includes(',')) throw bad('has a misplaced . or ,');
  if (/[1-9]/.test(numberPart)) throw bad('uses a rounding increment, which is not supported');
  const p: NumberPattern = {
    pos: [pp, ps],
    minInt: (intPart.match(/0/g) ?? []).length,
    minFrac: (fracPart.match(/0/g) ?? []).length,
    maxFrac: fracPart.length,
    scale: 0,
  };
  if (numberPart.includes('@')) {
    if (fracPart) throw bad("mixes '@' with a fraction");
    p.minSig = (numberPart.match(/@/g) ?? []).length;
    p.maxSig = p.minSig + (numberPart.replace(/^[^@]*@+/, '').match(/#/g) ?? []).length;
  }
  const groups = intPart.split(',');
  if (groups.length > 1) {
    const primary = groups[groups.length - 1].length;
    const secondary = groups.length > 2 ? groups[groups.length - 2].length : primary;
    if (!primary || !secondary) throw bad('has an empty group');
    p.grouping = [primary, secondary];
  }
  if (semi >= 0) {
    const [np, , ns] = splitPattern(filter, value, pattern.slice(semi + 1), pattern);
    p.neg = [np, ns];
  }
  const syms = [...pp.tokens, ...ps.tokens].map((t) => t.sym);
  p.scale = syms.includes('%') ? 2 : syms.includes('‰') ? 3 : 0;
  if (patternCache.size < 500) patternCache.set(pattern, p);
  return p;
}

function group(intDigits: string, grouping: [number, number] | undefined, sep: string): string {
  if (!grouping) return intDigits;
  let [size] = grouping;
  let rest = intDigits;
  let out = '';
  while (rest.length > size) {
    out = sep + rest.slice(-size) + out;
    rest = rest.slice(0, -size);
    size = grouping[1];
  }
  return rest + out;
}

export interface ApplyOptions {
  currency?: string;
  /** Fraction digits forced (the currency's own); the pattern's otherwise. */
  fraction?: number;
  groupSeparator: boolean;
  decimalQuantization: boolean;
}

/** Formats `text` (an exact decimal) with a parsed pattern and the locale's symbols. */
function applyPattern(p: NumberPattern, text: string, locale: string, o: ApplyOptions): string {
  const sy = symbolsOf(locale);
  const value = scaled(text, p.scale);
  const negative = /^-/.test(value) && /[1-9]/.test(value);
  const abs = value.replace(/^[+-]/, '');
  let minFrac = o.fraction ?? p.minFrac;
  let maxFrac = o.fraction ?? p.maxFrac;
  if (!o.decimalQuantization) {
    const natural = (Number(abs) % 1 === 0 ? '' : (String(Number(abs)).split('.')[1] ?? '')).length;
    maxFrac = Math.max(maxFrac, Math.min(natural, 20));
  }
  let digits: string;
  if (p.minSig !== undefined) {
    digits = fmt(
      nf('en-US', {
        useGrouping: false,
        minimumSignificantDigits: Math.max(1, Math.min(21, p.minSig)),
        maximumSignificantDigits: Math.max(1, Math.min(21, p.maxSig!)),
      }),
      abs,
    );
  } else {
    minFrac = Math.min(minFrac, 20);
    maxFrac = Math.min(Math.max(maxFrac, minFrac), 20);
    digits = fmt(
      nf('en-US', {
        useGrouping: false,
        minimumIntegerDigits: Math.max(1, Math.min(21, p.minInt)),
        minimumFractionDigits: minFrac,
        maximumFractionDigits: maxFrac,
      }),
      abs,
    );
  }
  const [i, f] = digits.split('.');
  const local = (s: string) => s.replace(/[0-9]/g, (d) => sy.digits[Number(d)]);
  const number =
    local(group(i, o.groupSeparator ? p.grouping : undefined, sy.group)) + (f ? sy.decimal + local(f) : '');
  const [prefix, suffix] = negative && p.neg ? p.neg : p.pos;
  const affix = (a: Affix) =>
    a.tokens
      .map((t) => {
        if (t.lit !== undefined) return t.lit;
        if (t.sym === '%') return sy.percent;
        if (t.sym === '‰') return '‰';
        if (t.sym === '-') return sy.minus;
        if (t.sym === '+') return sy.plus;
        return currencyText(t.sym!.length, o.currency, locale, text);
      })
      .join('');
  const body = affix(prefix) + number + affix(suffix);
  return negative && !p.neg ? sy.minus + body : body;
}

function currencyText(width: number, currency: string | undefined, locale: string, text: string): string {
  if (!currency) return '';
  if (width === 2) return currency;
  const display = width === 3 ? 'name' : width >= 5 ? 'narrowSymbol' : 'symbol';
  const parts = numberFormat(locale, {
    style: 'currency',
    currency,
    currencyDisplay: display,
  }).formatToParts(text as unknown as number);
  return parts.find((x) => x.type === 'currency')?.value ?? currency;
}

function patternArg(filter: string, value: unknown, format: unknown): string | null {
  if (format === null || format === undefined) return null;
  if (typeof format !== 'string' || !format)
    throw new FormatValueError(filter, value, 'format must be a number pattern such as "#,##0.00"');
  return format;
}

export interface NumberFlags {
  groupSeparator: boolean;
  decimalQuantization: boolean;
}

export function formatDecimal(value: unknown, format: unknown, locale: string, flags: NumberFlags): string {
  const filter = 'format_decimal';
  const text = decimalText(filter, value);
  const pattern = patternArg(filter, value, format);
  if (pattern) return applyPattern(parseNumberPattern(filter, value, pattern), text, locale, flags);
  // The locale's decimal pattern, `#,##0.###` in every CLDR locale but its grouping.
  return fmt(
    nf(locale, {
      maximumFractionDigits: flags.decimalQuantization ? 3 : 20,
      useGrouping: flags.groupSeparator ? 'always' : false,
    } as RoundingOptions),
    text,
  );
}

export function formatCurrency(
  value: unknown,
  currency: unknown,
  format: unknown,
  locale: string,
  flags: NumberFlags & { currencyDigits: boolean; formatType: unknown },
): string {
  const filter = 'format_currency';
  const text = decimalText(filter, value);
  const code = checkCurrency(filter, value, currency);
  const pattern = patternArg(filter, value, format);
  const type = flags.formatType ?? 'standard';
  if (type !== 'standard' && type !== 'accounting' && type !== 'name')
    throw new FormatValueError(filter, value, 'format_type must be standard, accounting or name');
  if (pattern)
    return applyPattern(parseNumberPattern(filter, value, pattern), text, locale, {
      ...flags,
      currency: code,
      fraction: flags.currencyDigits ? currencyDigits(code) : undefined,
    });
  const digits = flags.currencyDigits ? currencyDigits(code) : 2;
  return fmt(
    nf(locale, {
      style: 'currency',
      currency: code,
      currencyDisplay: type === 'name' ? 'name' : 'symbol',
      currencySign: type === 'accounting' ? 'accounting' : 'standard',
      minimumFractionDigits: digits,
      maximumFractionDigits: flags.decimalQuantization ? digits : 20,
      useGrouping: flags.groupSeparator ? 'always' : false,
    } as RoundingOptions),
    text,
  );
}

export function formatPercent(value: unknown, format: unknown, locale: string, flags: NumberFlags): string {
  const filter = 'format_percent';
  const text = decimalText(filter, value);
  const pattern = patternArg(filter, value, format);
  if (pattern) return applyPattern(parseNumberPattern(filter, value, pattern), text, locale, flags);
  return fmt(
    nf(locale, {
      style: 'percent',
      maximumFractionDigits: flags.decimalQuantization ? 0 : 20,
      useGrouping: flags.groupSeparator ? 'always' : false,
    } as RoundingOptions),
    text,
  );
}

export function formatCompactDecimal(
  value: unknown,
  formatType: unknown,
  fractionDigits: unknown,
  locale: string,
): string {
  const filter = 'format_compact_decimal';
  const text = decimalText(filter, value);
  const type = formatType ?? 'short';
  if (type !== 'short' && type !== 'long')
    throw new FormatValueError(filter, value, 'format_type must be short or long');
  const fd = fractionDigits ?? 0;
  if (typeof fd !== 'number' || !Number.isInteger(fd) || fd < 0 || fd > 20)
    throw new FormatValueError(filter, value, 'fraction_digits must be an integer from 0 to 20');
  return fmt(nf(locale, { notation: 'compact', compactDisplay: type, maximumFractionDigits: fd }), text);
}
