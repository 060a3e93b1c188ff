/**
 * Numbers in words as Python's num2words writes them (the library docxtpl users register as a
 * filter: `{{ total | num2words(lang='ru', to='currency', currency='RUB') }}`), in the languages
 * invoices and contracts need: en, ru, vi, es, fr, pl, de.
 *
 * The words come from n2words, chosen by measurement against Python's num2words
 * (docs/formatting.md#num2words). What is written here is only what no library does: Python's
 * argument rules (an int amount is cents), its currency phrases and plural forms, its digit-by-digit
 * decimals, its English commas and years. Where num2words is plainly wrong (Vietnamese negatives,
 * decimals that lose a zero) the words are right instead; docs/formatting.md lists each difference.
 */
import * as de from 'n2words/de-DE';
import * as en from 'n2words/en-GB';
import * as es from 'n2words/es-ES';
import * as fr from 'n2words/fr-FR';
import * as pl from 'n2words/pl-PL';
import * as ru from 'n2words/ru-RU';
import * as vi from 'n2words/vi-VN';

export const NUM2WORDS_LANGS = ['en', 'ru', 'vi', 'es', 'fr', 'pl', 'de'] as const;
export type Num2WordsLang = (typeof NUM2WORDS_LANGS)[number];
export const NUM2WORDS_FORMS = ['cardinal', 'ordinal', 'currency', 'year'] as const;
export type Num2WordsForm = (typeof NUM2WORDS_FORMS)[number];

const LIB = { en, ru, vi, es, fr, pl, de };

/** A number as Python holds it: an int, a float, or a Decimal (from a string). */
export type PyNumber =
  | { kind: 'int'; int: bigint }
  | { kind: 'float'; float: number }
  | { kind: 'decimal'; sign: 1 | -1; digits: string; scale: number };

/** A refusal, worded for the template's author; the filter adds its name and the value. */
export class Num2WordsError extends Error {}

// num2words' words for the decimal point and minus, and its currency phrases (its CURRENCY_FORMS,
// separators and minus words, 0.5.10): facts of its output, not code.
const POINT: Record<Num2WordsLang, string> = {
  en: 'point',
  ru: 'запятая',
  vi: 'phẩy',
  es: 'punto',
  fr: 'virgule',
  pl: 'przecinek',
  de: 'Komma',
};
const MINUS: Record<Num2WordsLang, string> = {
  en: 'minus',
  ru: 'минус',
  vi: 'âm',
  es: 'menos',
  fr: 'moins',
  pl: 'minus',
  de: 'minus',
};
const SEPARATOR: Record<Num2WordsLang, string> = {
  en: ',',
  ru: ',',
  vi: ',',
  es: ' con',
  fr: ' et',
  pl: ',',
  de: ' und',
};
type Forms = [string[], string[]];
const CURRENCY_FORMS: Record<Num2WordsLang, Record<string, Forms>> = {
  en: {
    AUD: [
      ['dollar', 'dollars'],
      ['cent', 'cents'],
    ],
    CAD: [
      ['dollar', 'dollars'],
      ['cent', 'cents'],
    ],
    EUR: [
      ['euro', 'euro'],
      ['cent', 'cents'],
    ],
    GBP: [
      ['pound sterling', 'pounds sterling'],
      ['penny', 'pence'],
    ],
    INR: [
      ['rupee', 'rupees'],
      ['paisa', 'paise'],
    ],
    MXN: [
      ['peso', 'pesos'],
      ['cent', 'cents'],
    ],
    NOK: [
      ['krone', 'kroner'],
      ['øre', 'øre'],
    ],
    PLN: [
      ['zloty', 'zlotys', 'zlotu'],
      ['grosz', 'groszy'],
    ],
    RON: [
      ['leu', 'lei'],
      ['ban', 'bani'],
    ],
    RUB: [
      ['rouble', 'roubles'],
      ['kopek', 'kopeks'],
    ],
    SEK: [
      ['krona', 'kronor'],
      ['öre', 'öre'],
    ],
    USD: [
      ['dollar', 'dollars'],
      ['cent', 'cents'],
    ],
  },
  ru: {
    RUB: [
      ['рубль', 'рубля', 'рублей'],
      ['копейка', 'копейки', 'копеек'],
    ],
    EUR: [
      ['евро', 'евро', 'евро'],
      ['цент', 'цента', 'центов'],
    ],
    USD: [
      ['доллар', 'доллара', 'долларов'],
      ['цент', 'цента', 'центов'],
    ],
  },
  // num2words 0.5.10 has no Vietnamese currency; the đồng has no subunit in use.
  vi: {
    VND: [
      ['đồng', 'đồng'],
      ['xu', 'xu'],
    ],
  },
  es: {
    EUR: [
      ['euro', 'euros'],
      ['céntimo', 'céntimos'],
    ],
    ESP: [
      ['peseta', 'pesetas'],
      ['céntimo', 'céntimos'],
    ],
    USD: [
      ['dolar', 'dólares'],
      ['centavo', 'centavos'],
    ],
    PEN: [
      ['sol', 'soles'],
      ['céntimo', 'céntimos'],
    ],
  },
  fr: {
    EUR: [
      ['euro', 'euros'],
      ['centime', 'centimes'],
    ],
    USD: [
      ['dollar', 'dollars'],
      ['cent', 'cents'],
    ],
    FRF: [
      ['franc', 'francs'],
      ['centime', 'centimes'],
    ],
    GBP: [
      ['livre', 'livres'],
      ['penny', 'pence'],
    ],
    CNY: [
      ['yuan', 'yuans'],
      ['fen', 'jiaos'],
    ],
  },
  pl: {
    PLN: [
      ['złoty', 'złote', 'złotych'],
      ['grosz', 'grosze', 'groszy'],
    ],
    EUR: [
      ['euro', 'euro', 'euro'],
      ['cent', 'centy', 'centów'],
    ],
  },
  de: {
    EUR: [
      ['Euro', 'Euro'],
      ['Cent', 'Cent'],
    ],
    GBP: [
      ['Pfund', 'Pfund'],
      ['Penny', 'Pence'],
    ],
    USD: [
      ['Dollar', 'Dollar'],
      ['Cent', 'Cent'],
    ],
    CNY: [
      ['Yuan', 'Yuan'],
      ['Jiao', 'Fen'],
    ],
    DEM: [
      ['Mark', 'Mark'],
      ['Pfennig', 'Pfennig'],
    ],
  },
};

function currenciesOf(lang: Num2WordsLang): string[] {
  return Object.keys(CURRENCY_FORMS[lang]);
}

/** Python's `lang`: the whole code, else its first two letters (`ru_RU` is `ru`). */
export function num2wordsLang(lang: string): Num2WordsLang | undefined {
  for (const l of [lang, lang.slice(0, 2)])
    if ((NUM2WORDS_LANGS as readonly string[]).includes(l)) return l as Num2WordsLang;
  return undefined;
}

/** num2words' plural form: Slavic one/few/many for ru and pl, else one/other. */
function pluralize(lang: Num2WordsLang, n: bigint, forms: string[]): string {
  if (forms.length < 3) return forms[n === 1n ? 0 : 1];
  const d = n % 10n;
  const h = n % 100n;
  if (lang === 'pl') return forms[n === 1n ? 0 : d > 1n && d < 5n && (h < 10n || h > 20n) ? 1 : 2];
  if (h >= 10n && h <= 20n) return forms[2];
  return forms[d === 1n ? 0 : d > 1n && d < 5n ? 1 : 2];
}

/** English as num2words writes it: n2words' British words with a comma after each scale word. */
function englishCommas(words: string): string {
  return words.replace(/ (thousand|(?:m|b|tr|quadr|quint)illion) (?!and )/g, ' $1, ');
}

/** Whole numbers in words. */
function integerWords(lang: Num2WordsLang, n: bigint, feminine = false): string {
  if (lang === 'en') return englishCommas(en.toCardinal(n));
  if (lang === 'ru' && feminine) return ru.toCardinal(n, { gender: 'feminine' });
  return LIB[lang].toCardinal(n);
}

/** Python's float as its repr writes it: the digits, the scale, the sign. */
function floatDecimal(f: number): { sign: 1 | -1; digits: string; scale: number } {
  const sign = f < 0 || Object.is(f, -0) ? -1 : 1;
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(f)));
  if (!m) throw new Num2WordsError('is not a finite number');
  const frac = m[2] ?? '';
  const exp = Number(m[3] ?? 0);
  let digits = m[1] + frac;
  let scale = frac.length - exp;
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  // Python's repr of an integral float keeps one decimal: 2.0
  if (scale === 0 && !m[3]) scale = 1;
  if (scale === 1 && !m[2] && !m[3]) digits += '0';
  return { sign, digits: digits.replace(/^0+(?=\d)/, ''), scale };
}

function splitDecimal(digits: string, scale: number): { int: bigint; frac: string } {
  const padded = digits.padStart(scale + 1, '0');
  return { int: BigInt(padded.slice(0, padded.length - scale)), frac: padded.slice(padded.length - scale) };
}

function cardinal(lang: Num2WordsLang, x: PyNumber): string {
  if (x.kind === 'int')
    return x.int < 0n ? `${MINUS[lang]} ${integerWords(lang, -x.int)}` : integerWords(lang, x.int);
  const d = x.kind === 'float' ? floatDecimal(x.float) : x;
  const { int, frac } = splitDecimal(d.digits, d.scale);
  const minus = d.sign < 0 && (int !== 0n || /[1-9]/.test(frac)) ? `${MINUS[lang]} ` : '';
  if (lang === 'en' || lang === 'es' || lang === 'fr' || lang === 'de') {
    // num2words' Western languages: an integral value has no decimals; the rest are read digit by digit.
    if (/^0*$/.test(frac)) return minus + integerWords(lang, int);
    const digitWords = [...frac].map((c) => integerWords(lang, BigInt(c)));
    return `${minus}${integerWords(lang, int)} ${POINT[lang]} ${digitWords.join(' ')}`;
  }
  // ru, pl, vi read the decimals as one number, zeros in front included ("сто запятая ноль один").
  if (x.kind === 'decimal' && frac.length === 0) return minus + integerWords(lang, int);
  // num2words reads str(2.0) as "2.0": "два запятая ноль".
  if (/^0*$/.test(frac)) return `${minus}${integerWords(lang, int)} ${POINT[lang]} ${integerWords(lang, 0n)}`;
  return `${minus}${LIB[lang].toCardinal(`${int}.${frac}`)}`;
}

const ORDINAL_ZERO: Partial<Record<Num2WordsLang, string>> = {
  en: 'zeroth',
  ru: 'нулевой',
  de: 'nullte',
  fr: 'zéroième',
  es: '',
};

function ordinal(lang: Num2WordsLang, x: PyNumber): string {
  if (x.kind !== 'int') {
    if (x.kind === 'float' || /[1-9]/.test(splitDecimal(x.digits, x.scale).frac))
      throw new Num2WordsError('an ordinal must be a whole number');
  }
  const n = x.kind === 'int' ? x.int : splitDecimal(x.digits, x.scale).int * BigInt(x.sign);
  if (n < 0n) throw new Num2WordsError('an ordinal cannot be negative');
  if (n === 0n) {
    const zero = ORDINAL_ZERO[lang];
    if (zero === undefined) throw new Num2WordsError('has no ordinal in this language');
    return zero;
  }
  const words = LIB[lang].toOrdinal(n);
  switch (lang) {
    case 'en': {
      // num2words' English ordinal is its cardinal ("one hundred and one") with the last word made ordinal.
      const card = integerWords(lang, n);
      const last = words.slice(words.lastIndexOf(' ') + 1);
      return card.slice(0, card.lastIndexOf(' ') + 1) + last;
    }
    case 'ru':
      // num2words writes е for ё, and "тысяча первый" without "одна".
      return words.replace(/ё/g, 'е').replace(/^одна тысяча/, 'тысяча');
    case 'de':
      return words.replace(/^ein(hundert|tausend)ste$/, '$1ste').replace(/^eine Millionste$/, 'millionste');
    default:
      return words;
  }
}

function year(lang: Num2WordsLang, x: PyNumber): string {
  if (x.kind !== 'int') throw new Num2WordsError('a year must be a whole number');
  const n = x.int;
  if (lang === 'en') {
    // num2words' English years ("nineteen ninety-nine", "forty-four BC"): no library writes them.
    const v = n < 0n ? -n : n;
    const high = v / 100n;
    const low = v % 100n;
    let text: string;
    if (high === 0n || (high % 10n === 0n && low < 10n) || high >= 100n) text = integerWords(lang, v);
    else
      text = `${integerWords(lang, high)} ${low === 0n ? 'hundred' : low < 10n ? `oh-${integerWords(lang, low)}` : integerWords(lang, low)}`;
    return n < 0n ? `${text} BC` : text;
  }
  if (lang === 'de' && n > 0n && (n / 100n) % 10n !== 0n) {
    // German years by the hundred: "neunzehnhundertneunundneunzig".
    const low = n % 100n;
    return `${integerWords(lang, n / 100n)}hundert${low === 0n ? '' : integerWords(lang, low)}`;
  }
  return cardinal(lang, x);
}

/** num2words' parse_currency_parts: an int is cents; anything else is rounded half up to cents. */
function currencyParts(x: PyNumber): { negative: boolean; units: bigint; cents: bigint } {
  if (x.kind === 'int') {
    const v = x.int < 0n ? -x.int : x.int;
    return { negative: x.int < 0n, units: v / 100n, cents: v % 100n };
  }
  let sign: number;
  let fixed: string;
  if (x.kind === 'float') {
    if (!Number.isFinite(x.float) || Math.abs(x.float) >= 1e21) throw new Num2WordsError('is too large');
    sign = x.float < 0 ? -1 : 1;
    // toFixed rounds the float's exact binary value, as Decimal(float).quantize(ROUND_HALF_UP) does.
    fixed = Math.abs(x.float).toFixed(2);
  } else {
    sign = x.sign;
    const { int, frac } = splitDecimal(x.digits, x.scale);
    const f = frac.padEnd(3, '0');
    let hundredths = int * 100n + BigInt(f.slice(0, 2));
    if (Number(f[2]) >= 5) hundredths += 1n;
    fixed = `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}`;
  }
  const [u, c] = fixed.split('.');
  const units = BigInt(u);
  const cents = BigInt(c);
  return { negative: sign < 0 && (units !== 0n || cents !== 0n), units, cents };
}

function currencyWords(
  lang: Num2WordsLang,
  x: PyNumber,
  currency: string,
  opts: { cents: boolean; separator?: string },
): string {
  const forms = CURRENCY_FORMS[lang][currency];
  if (!forms)
    throw new Num2WordsError(
      `unknown currency ${JSON.stringify(currency)} for lang '${lang}' (known: ${currenciesOf(lang).join(', ')})`,
    );
  const { negative, units, cents } = currencyParts(x);
  const sep = opts.separator ?? SEPARATOR[lang];
  const centsText = opts.cents
    ? integerWords(lang, cents, lang === 'ru' && currency === 'RUB')
    : String(cents).padStart(2, '0');
  let text =
    `${negative ? `${MINUS[lang]} ` : ''}${integerWords(lang, units)} ${pluralize(lang, units, forms[0])}` +
    `${sep} ${centsText} ${pluralize(lang, cents, forms[1])}`;
  // num2words' own repairs: "un euro" (es), "ein Euro" (de).
  if (lang === 'es') text = text.replace(/uno/g, 'un');
  if (lang === 'de') text = text.replace(/eins /g, 'ein ');
  return text;
}

export interface Num2WordsOptions {
  lang: Num2WordsLang;
  to: Num2WordsForm;
  currency: string;
  cents: boolean;
  separator?: string;
}

/** A number in words; throws Num2WordsError for what num2words refuses too (or cannot do here). */
export function num2words(x: PyNumber, o: Num2WordsOptions): string {
  switch (o.to) {
    case 'cardinal':
      return cardinal(o.lang, x);
    case 'ordinal':
      return ordinal(o.lang, x);
    case 'year':
      return year(o.lang, x);
    case 'currency':
      return currencyWords(o.lang, x, o.currency, o);
  }
}

/** Python's Decimal(str): a number written in digits, optionally signed, with a point. */
export function parseDecimalString(s: string): PyNumber | undefined {
  const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/.exec(s);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const frac = m[3] ?? '';
  const digits = (m[2] + frac).replace(/^0+(?=\d)/, '') || '0';
  return { kind: 'decimal', sign: m[1] === '-' ? -1 : 1, digits, scale: frac.length };
}
