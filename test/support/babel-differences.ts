/**
 * Every way our formatting filters (Node's ICU, CLDR 46–48) answer differently from Debian 12's
 * Babel 2.10.3 (CLDR 41), as found by test/formatting-babel.e2e-spec.ts. Listed, not hidden: a
 * rule rewrites Babel's answer into what the newer CLDR (or ICU's fuller use of it) says, and the
 * test requires the rewritten answer to equal ours, each rule to be needed at least once, and
 * everything else to be equal as it is. docs/formatting.md lists the same rules.
 */
import type { BabelCase } from './babel-cases';

export interface Difference {
  id: string;
  /** Where the difference comes from. */
  source: 'CLDR version' | 'Babel 2.10 leaves out a CLDR feature';
  why: string;
  applies: (c: BabelCase) => boolean;
  /** Babel's answer → ours. */
  rewrite: (babel: string) => string;
  /**
   * Seen on some Node builds only: Node 24.21's ICU 78.3 and Node 20.20's ICU 78.2 (both report
   * CLDR 48) differ here; the rule applies where this Node's ICU shows the newer data.
   */
  someNodes?: true;
}

const NBSP = '\u00a0';
const NNBSP = '\u202f';
const isNumber = (c: BabelCase) => ['format_decimal', 'format_currency', 'format_percent'].includes(c.fn);
/** What this Node's ICU build says where Node 20.20 and Node 24.21 differ (see `someNodes`). */
const FR_CH_APOSTROPHE = new Intl.NumberFormat('fr-CH').format(1000).includes("'");
const KO_HANGUL_DAY_PERIOD = /[오]/.test(
  new Intl.DateTimeFormat('ko-KR', { timeStyle: 'short', timeZone: 'UTC' }).format(new Date(0)),
);
const ARABIC_DIGITS = '٠١٢٣٤٥٦٧٨٩';
/** ar's percent sign in CLDR 48: U+066A then U+061C ARABIC LETTER MARK. */
const c_percent = '\u066a\u061c';

export const BABEL_DIFFERENCES: Difference[] = [
  {
    id: 'swiss-grouping',
    source: 'CLDR version',
    why: "de_CH groups thousands with U+0027 APOSTROPHE (1'234) in CLDR 48, with U+2019 (1’234) in CLDR 41",
    applies: (c) => c.kwargs.locale === 'de_CH' && isNumber(c),
    rewrite: (b) => b.replace(/\u2019/g, "'"),
  },
  {
    id: 'swiss-french-grouping',
    source: 'CLDR version',
    why: "fr_CH groups thousands with U+0027 APOSTROPHE (1'234) on Node 24's ICU, with U+202F (1 234, as Babel's CLDR 41) on Node 20's",
    applies: (c) => FR_CH_APOSTROPHE && c.kwargs.locale === 'fr_CH' && isNumber(c),
    rewrite: (b) => b.replace(/(\d)[\u202f\u00a0 ](?=\d)/g, "$1'"),
    someNodes: true,
  },
  {
    id: 'korean-day-period',
    source: 'CLDR version',
    why: "ko_KR writes the day period 오전/오후 on Node 24's ICU, AM/PM (as Babel's CLDR 41) on Node 20's",
    applies: (c) => KO_HANGUL_DAY_PERIOD && c.kwargs.locale === 'ko_KR' && c.fn !== 'format_date',
    rewrite: (b) => b.replace(/\bAM\b/g, '오전').replace(/\bPM\b/g, '오후'),
    someNodes: true,
  },
  {
    id: 'currency-spacing',
    source: 'Babel 2.10 leaves out a CLDR feature',
    why: "CLDR's currencySpacing puts a no-break space between a letter currency symbol and the digits (KWD 1,234.500); Babel 2.10 writes KWD1,234.500",
    applies: (c) => c.fn === 'format_currency' && c.args[1] === undefined,
    rewrite: (b) => b.replace(/([A-Z]{3})(?=\d)/, `$1${NBSP}`),
  },
  {
    id: 'currency-decimal',
    source: 'Babel 2.10 leaves out a CLDR feature',
    why: "fr_CH writes amounts with CLDR's currencyDecimal '.' (1 234.50 €), other numbers with ','; Babel 2.10 uses ',' for both",
    applies: (c) => c.kwargs.locale === 'fr_CH' && c.fn === 'format_currency' && c.args[1] === undefined,
    rewrite: (b) => b.replace(/,(\d+)/, '.$1'),
  },
  {
    id: 'minus-sign',
    source: 'Babel 2.10 leaves out a CLDR feature',
    why: "sv_SE's minus sign is U+2212 MINUS SIGN (−0,5) in CLDR; Babel 2.10's default patterns write '-'",
    applies: (c) => c.kwargs.locale === 'sv_SE' && isNumber(c),
    rewrite: (b) => b.replace(/^-/, '\u2212'),
  },
  {
    id: 'day-period-space',
    source: 'CLDR version',
    why: "es_ES writes 'p. m.' with U+202F NARROW NO-BREAK SPACE in CLDR 48, U+00A0 in CLDR 41",
    applies: (c) => c.kwargs.locale === 'es_ES' && c.fn !== 'format_date',
    rewrite: (b) => b.replace(/([ap])\.\u00a0m\./g, `$1.${NNBSP}m.`),
  },
  {
    id: 'datetime-comma',
    source: 'CLDR version',
    why: 'pt_BR and nl_NL join date and time with ", " in CLDR 48 (25/11/2026, 15:30), with " " in CLDR 41',
    applies: (c) => ['pt_BR', 'nl_NL'].includes(c.kwargs.locale) && c.fn === 'format_datetime',
    rewrite: (b) => b.replace(/(\d{4}) (\d{1,2}:\d\d)/, '$1, $2'),
  },
  {
    id: 'dutch-month-abbreviations',
    source: 'CLDR version',
    why: 'nl_NL abbreviates months without a full stop in CLDR 48 (25 nov 2026), with one in CLDR 41 (25 nov. 2026)',
    applies: (c) => c.kwargs.locale === 'nl_NL',
    rewrite: (b) => b.replace(/\b(jan|feb|mrt|apr|mei|jun|jul|aug|sep|okt|nov|dec)\./g, '$1'),
  },
  {
    id: 'arabic-digits',
    source: 'CLDR version',
    why: "ar_EG's default numbering system is 'arab' (٠–٩; in numbers ٬ ٫ ٪؜ and an ALM-marked minus); ICU writes its numbers and dates in Arabic-Indic digits, Babel 2.10 in Latin ones",
    applies: (c) =>
      c.kwargs.locale === 'ar_EG' && ['format_date', 'format_datetime', 'format_time'].includes(c.fn),
    rewrite: (b) => b.replace(/\d/g, (d) => ARABIC_DIGITS[Number(d)]),
  },
  {
    id: 'arabic-digits-numbers',
    source: 'CLDR version',
    why: 'the same for numbers: Arabic-Indic digits, ٬ for grouping, ٫ for decimals, ٪؜ (with U+061C) for percent, U+061C before the minus',
    applies: (c) => c.kwargs.locale === 'ar_EG' && isNumber(c),
    rewrite: (b) =>
      b
        .replace(/(\d),(?=\d)/g, '$1٬')
        .replace(/(\d)\.(?=\d)/g, '$1٫')
        .replace(/%/g, c_percent)
        .replace(/^-/, '\u061c-')
        .replace(/\d/g, (d) => ARABIC_DIGITS[Number(d)]),
  },
  {
    id: 'arabic-datetime-comma',
    source: 'CLDR version',
    why: 'ar_EG joins date and time with the Arabic comma "، " in CLDR 48, with ", " in CLDR 41',
    applies: (c) => c.kwargs.locale === 'ar_EG' && c.fn === 'format_datetime',
    rewrite: (b) => b.replace(/, /, '، '),
  },
];

/**
 * The answers no rule above explains, each listed whole: ar_EG, whose CLDR 48 data moved the
 * currency after the number, joins date and time with the Arabic comma, and marks direction
 * (U+061C ARABIC LETTER MARK, U+200F RIGHT-TO-LEFT MARK) where CLDR 41 did not. Two are ours:
 * ISO 8601 offsets (`XXX`) stay in ASCII digits as TR35 says, and a currency or percent symbol
 * inside a pattern comes from ICU without its direction mark.
 * Key: `locale fn value args` → [Babel 2.10's answer, ours].
 */
/** Babel's answer with every listed difference that applies to the case rewritten, and the ids used. */
export function rewriteBabel(c: BabelCase, babel: string): { text: string; used: string[] } {
  let text = babel;
  const used: string[] = [];
  for (const d of BABEL_DIFFERENCES) {
    if (!d.applies(c)) continue;
    const next = d.rewrite(text);
    if (next !== text) used.push(d.id);
    text = next;
  }
  return { text, used };
}

export const BABEL_LISTED_ANSWERS: Record<string, [string, string]> = {
  'ar_EG format_datetime "2026-11-25T14:30:05Z" ["yyyy-MM-dd\'T\'HH:mm:ssXXX"]': [
    '2026-11-25T15:30:05+01:00',
    '٢٠٢٦-١١-٢٥T١٥:٣٠:٠٥+01:00',
  ],
  'ar_EG format_currency 1234.5 ["EUR"]': ['€\u00a01,234.50', '\u200f١٬٢٣٤٫٥٠\u00a0€'],
  'ar_EG format_currency 1234.5 ["USD"]': ['US$\u00a01,234.50', '\u200f١٬٢٣٤٫٥٠\u00a0US$'],
  'ar_EG format_currency 1234.5 ["JPY"]': ['JP¥\u00a01,234', '\u200f١٬٢٣٤\u00a0JP¥'],
  'ar_EG format_currency 1234.5 ["KWD"]': ['د.ك.\u200f\u00a01,234.500', '\u200f١٬٢٣٤٫٥٠٠\u00a0د.ك.\u200f'],
  'ar_EG format_currency 1234.5 ["CHF"]': ['CHF\u00a01,234.50', '\u200f١٬٢٣٤٫٥٠\u00a0CHF'],
  'ar_EG format_currency 1234.5 ["GBP"]': ['UK£\u00a01,234.50', '\u200f١٬٢٣٤٫٥٠\u00a0UK£'],
  'ar_EG format_currency -1234.5 ["EUR"]': ['-€\u00a01,234.50', '\u061c-\u200f١٬٢٣٤٫٥٠\u00a0€'],
  'ar_EG format_currency 1234.5 ["KWD","#,##0.00 ¤"]': ['1,234.500 د.ك.\u200f', '١٬٢٣٤٫٥٠٠ د.ك.'],
  'ar_EG format_percent 0.12345 ["#,##0.0%"]': ['12.3%', '١٢٫٣٪'],
};
