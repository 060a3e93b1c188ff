/**
 * The num2words filter against Python's num2words on the committed table (no python needed:
 * test/num2words-table.e2e-spec.ts checks the table is what Python writes), with exactly the listed
 * differences; and the filter in a template: its argument forms and its typed errors.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDocx, p } from '../../../../test/support/docx-builder';
import { docxText } from '../../../../test/support/docx-text';
import { TemplateRuntimeError } from '../errors';
import { renderDocx } from '../render';
import { num2words, num2wordsLang, parseDecimalString, type Num2WordsForm, type PyNumber } from './num2words';
import { NUM2WORDS_DIFFERENCES, type Num2WordsCase } from './num2words-differences';

interface Row extends Num2WordsCase {
  ok?: string;
  error?: string;
}
const TABLE = JSON.parse(
  readFileSync(join(__dirname, '../../../../test/fixtures/num2words-table.json'), 'utf8'),
) as { num2words: string; cases: Row[] };

/** The table's Python literal as the filter receives it from JSON: int, float or string. */
function pyNumber(literal: string): PyNumber {
  if (literal.startsWith("'")) return parseDecimalString(literal.slice(1, -1))!;
  if (/[.e]/.test(literal)) return { kind: 'float', float: Number(literal) };
  return { kind: 'int', int: BigInt(literal) };
}

function ours(c: Row): { ok?: string; error?: true } {
  try {
    return {
      ok: num2words(pyNumber(c.value), {
        lang: num2wordsLang(c.lang)!,
        to: c.to as Num2WordsForm,
        currency: c.currency ?? 'EUR',
        cents: true,
      }),
    };
  } catch {
    return { error: true };
  }
}

const keyOf = (c: Num2WordsCase) => `${c.lang} ${c.to}${c.currency ? ` ${c.currency}` : ''} ${c.value}`;

function one(tag: string, data: Record<string, unknown> = {}): string {
  return docxText(renderDocx(buildDocx([p(tag)]), { template_data: data })).body[0];
}
function failure(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('num2words against Python num2words (committed table)', () => {
  it('covers 7 languages in cardinal, ordinal, currency and year, with negatives, decimals and large numbers', () => {
    expect(TABLE.cases.length).toBeGreaterThan(1000);
    const langs = new Set(TABLE.cases.map((c) => c.lang));
    expect([...langs].sort()).toEqual(['de', 'en', 'es', 'fr', 'pl', 'ru', 'vi']);
    for (const to of ['cardinal', 'ordinal', 'currency', 'year'])
      expect(TABLE.cases.filter((c) => c.to === to && c.ok !== undefined).length).toBeGreaterThan(30);
    for (const v of [
      '0',
      '1',
      '2',
      '5',
      '11',
      '21',
      '100',
      '1000',
      '1000000',
      '1234.56',
      '-1234.56',
      '123456789',
    ])
      expect(TABLE.cases.some((c) => c.value === v)).toBe(true);
  });

  it("gives Python's answer on every case but the listed differences, and each listed difference still occurs", () => {
    const used = new Map<string, number>();
    const unexplained: string[] = [];
    let same = 0;
    for (const c of TABLE.cases) {
      const o = ours(c);
      // Both refusing counts as agreeing: the error's wording is ours (a typed template error).
      if ((c.error !== undefined && o.error) || (c.ok !== undefined && o.ok === c.ok)) {
        same++;
        continue;
      }
      // The first entry that names the case explains it.
      const rule = NUM2WORDS_DIFFERENCES.find((d) => d.applies(c));
      if (rule) used.set(rule.id, (used.get(rule.id) ?? 0) + 1);
      else
        unexplained.push(
          `${keyOf(c)}: Python ${JSON.stringify(c.ok ?? c.error)}, ours ${JSON.stringify(o.ok ?? 'error')}`,
        );
    }
    expect(unexplained).toEqual([]);
    expect(NUM2WORDS_DIFFERENCES.filter((d) => !used.has(d.id)).map((d) => d.id)).toEqual([]);
    // The differences are the exception: most answers are Python's exactly.
    expect(same / TABLE.cases.length).toBeGreaterThan(0.85);
  });

  it('gives the listed answers where a difference applies (spot checks of each reason)', () => {
    const o = (lang: string, to: string, value: string, currency?: string) =>
      ours({ lang, to, value, currency }).ok;
    expect(o('en', 'currency', '-1234.56')).toBe(
      'minus one thousand, two hundred and thirty-four euro, fifty-six cents',
    );
    expect(o('ru', 'cardinal', '100.01')).toBe('сто запятая ноль один');
    expect(o('vi', 'cardinal', '-1')).toBe('âm một');
    expect(o('vi', 'ordinal', '1')).toBe('thứ nhất');
    expect(o('vi', 'currency', '1500000.0', 'VND')).toBe('một triệu năm trăm nghìn đồng, không xu');
    expect(o('pl', 'cardinal', '99')).toBe('dziewięćdziesiąt dziewięć');
  });
});

describe('num2words in a template', () => {
  it('reads an int as cents in to="currency", as Python does, and a float or string as units', () => {
    expect(one("{{ 123456 | num2words(lang='ru', to='currency', currency='RUB') }}")).toBe(
      'одна тысяча двести тридцать четыре рубля, пятьдесят шесть копеек',
    );
    expect(one("{{ 1234.5 | num2words(lang='ru', to='currency', currency='RUB') }}")).toBe(
      'одна тысяча двести тридцать четыре рубля, пятьдесят копеек',
    );
    expect(one("{{ total | float | num2words(to='currency', currency='USD') }}", { total: 1234 })).toBe(
      'one thousand, two hundred and thirty-four dollars, zero cents',
    );
    expect(one("{{ '1234.56' | num2words(lang='de', to='currency') }}")).toBe(
      'eintausendzweihundertvierunddreißig Euro und sechsundfünfzig Cent',
    );
  });

  it("takes lang as ru_RU or ru, Python's positional ordinal flag, cents=False and separator", () => {
    expect(one("{{ n | num2words(lang='ru_RU') }}", { n: 21 })).toBe('двадцать один');
    expect(one('{{ n | num2words(True) }}', { n: 21 })).toBe('twenty-first');
    expect(one("{{ n | num2words(to='year') }}", { n: 1999 })).toBe('nineteen ninety-nine');
    expect(
      one("{{ n | num2words(lang='ru', to='currency', currency='RUB', cents=False, separator='') }}", {
        n: 1234.05,
      }),
    ).toBe('одна тысяча двести тридцать четыре рубля 05 копеек');
    expect(one("{{ (n | num2words(lang='vi')) | capitalize }}", { n: 2500000 })).toBe(
      'Hai triệu năm trăm nghìn',
    );
  });

  it('is also the global function some templates call: num2words(total, lang=...)', () => {
    expect(one("{{ num2words(total, lang='fr') }}", { total: 80 })).toBe('quatre-vingts');
    expect(one("{{ num2words(n, True, 'de') }}", { n: 3 })).toBe('dritte');
    // Data of that name wins, as for any global.
    expect(one('{{ num2words }}', { num2words: 'given' })).toBe('given');
  });

  it('prints a missing value as any missing value, and refuses bad input with a typed template error', () => {
    expect(one('[{{ nothing | num2words }}]')).toBe('[]');
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['{{ x | num2words }}', { x: 'twelve' }, /num2words: "twelve": must be a number/],
      ['{{ x | num2words }}', { x: [1] }, /must be a number/],
      ["{{ 5 | num2words(lang='xx') }}", {}, /unknown lang "xx" \(known: en, ru, vi, es, fr, pl, de\)/],
      ["{{ 5 | num2words(to='roman') }}", {}, /unknown to="roman"/],
      ["{{ 5.0 | num2words(to='currency', currency='XYZ') }}", {}, /unknown currency "XYZ" for lang 'en'/],
      ["{{ 1.5 | num2words(to='ordinal') }}", {}, /an ordinal must be a whole number/],
      ["{{ -3 | num2words(to='ordinal') }}", {}, /an ordinal cannot be negative/],
    ];
    for (const [tag, data, message] of cases) {
      const e = failure(() => one(tag, data));
      expect(e).toBeInstanceOf(TemplateRuntimeError);
      expect(e.message).toMatch(message);
    }
  });
});
