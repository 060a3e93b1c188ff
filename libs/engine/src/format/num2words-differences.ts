/**
 * Where the num2words filter and Python's num2words 0.5.10 (the committed table,
 * test/fixtures/num2words-table.json) differ, and why; docs/formatting.md#num2words lists the same.
 * The unit spec fails on a difference no entry names, and on an entry no case needs any more; the
 * first entry that applies to a case explains it.
 */
export interface Num2WordsCase {
  lang: string;
  to: string;
  value: string;
  currency?: string;
}

export interface Num2WordsDifference {
  id: string;
  why: string;
  applies: (c: Num2WordsCase) => boolean;
}

const negative = (c: Num2WordsCase) => c.value.replace(/'/g, '').startsWith('-');

export const NUM2WORDS_DIFFERENCES: Num2WordsDifference[] = [
  {
    id: 'minus-spacing',
    why: 'num2words writes two spaces after "minus"/"menos"/"moins" in a negative amount (en, es, fr, de); we write one',
    applies: (c) => c.to === 'currency' && negative(c) && ['en', 'es', 'fr', 'de'].includes(c.lang),
  },
  {
    id: 'decimal-zeros',
    why: 'num2words reads 100.01 as "сто запятая один" (ru, pl, vi), the zero after the point lost, which says 100.1; we keep it',
    applies: (c) => ['ru', 'pl', 'vi'].includes(c.lang) && c.to === 'cardinal' && /\.0\d/.test(c.value),
  },
  {
    id: 'vi-negative',
    why: 'num2words reads a negative Vietnamese number wrongly ("-1" as "mười chín") or fails; we write "âm một"',
    applies: (c) => c.lang === 'vi' && negative(c),
  },
  {
    id: 'vi-decimals',
    why: 'num2words pads Vietnamese decimals to two digits (0.5 as "không phẩy năm mươi", 0.50); we read the digits written',
    applies: (c) => c.lang === 'vi' && c.to === 'cardinal' && /^\d+\.\d$/.test(c.value),
  },
  {
    id: 'vi-strings',
    why: 'num2words fails on a Vietnamese number given as a string; we read it as Decimal, as in the other languages',
    applies: (c) => c.lang === 'vi' && c.value.startsWith("'"),
  },
  {
    id: 'vi-ordinal',
    why: 'num2words writes the cardinal for a Vietnamese ordinal; we write the ordinal ("thứ nhất"), and refuse 0 and fractions as for other languages',
    applies: (c) => c.lang === 'vi' && c.to === 'ordinal',
  },
  {
    id: 'vi-year',
    why: 'num2words has no Vietnamese years; we write the cardinal, as num2words does for ru, es, fr and pl',
    applies: (c) => c.lang === 'vi' && c.to === 'year',
  },
  {
    id: 'vi-currency-vnd',
    why: 'num2words has no Vietnamese currency; we write VND ("đồng", "xu"), the currency Vietnamese invoices state',
    applies: (c) => c.lang === 'vi' && c.to === 'currency' && c.currency === 'VND',
  },
  {
    id: 'pl-90',
    why: 'num2words misspells Polish 90 as "dziewięćdzisiąt"; we write "dziewięćdziesiąt"',
    applies: (c) => c.lang === 'pl' && c.to !== 'ordinal' && /99/.test(c.value),
  },
  {
    id: 'pl-negative',
    why: 'num2words fails on negative Polish numbers (ValueError); we write "minus …"',
    applies: (c) => c.lang === 'pl' && c.to !== 'currency' && c.to !== 'ordinal' && negative(c),
  },
  {
    id: 'pl-ordinal',
    why: 'num2words 0.5.10 has no Polish ordinals (NotImplementedError); we write n2words\' ("pierwszy")',
    applies: (c) => c.lang === 'pl' && c.to === 'ordinal' && /^[1-9]\d*$/.test(c.value),
  },
  {
    id: 'es-ordinal',
    why: 'num2words writes "décimoprimero", "quadragésimo", "dosmilésimo"; we write n2words\' "décimo primero", "cuadragésimo", "segundo milésimo"',
    applies: (c) =>
      c.lang === 'es' && c.to === 'ordinal' && ['11', '12', '42', '111', '2000'].includes(c.value),
  },
  {
    id: 'fr-ordinal-200',
    why: 'num2words writes "deux centsième"; we write "deux centième"',
    applies: (c) => c.lang === 'fr' && c.to === 'ordinal' && c.value === '200',
  },
  {
    id: 'ru-ordinal-2000',
    why: 'num2words writes "двух тысячный"; we write "двухтысячный", in one word',
    applies: (c) => c.lang === 'ru' && c.to === 'ordinal' && c.value === '2000',
  },
  {
    id: 'de-year-bc',
    why: 'num2words writes -44 as "minuseinshundertsechsundfünfzig"; we write "minus vierundvierzig"',
    applies: (c) => c.lang === 'de' && c.to === 'year' && negative(c),
  },
];
