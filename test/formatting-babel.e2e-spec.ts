/**
 * Differential test of the formatting filters against Babel itself: Debian's python3-babel
 * (2.10.3, CLDR 41) run with /usr/bin/python3 on the same cases as our filters (Node's ICU).
 * 21 locales in Latin, Cyrillic, CJK, Hangul, Devanagari and Arabic scripts.
 *
 * Every answer must be Babel's, or Babel's rewritten by one of the listed differences
 * (test/support/babel-differences.ts, docs/formatting.md), or one of the few answers listed whole.
 * A listed difference that no case needs any more fails too: the list stays the truth.
 *
 * Not compared: format_compact_decimal, which Debian 12's Babel 2.10.3 does not have (it came in
 * Babel 2.11); its unit tests check CLDR's values instead.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { renderDocx } from '@app/engine';
import { BABEL_LOCALES, babelCases, type BabelCase } from './support/babel-cases';
import { BABEL_DIFFERENCES, BABEL_LISTED_ANSWERS, rewriteBabel } from './support/babel-differences';
import { ourAnswer } from './support/babel-ours';
import { buildDocx, messy, SPLIT as S } from './support/docx-builder';
import { docxText } from './support/docx-text';

const PYTHON = '/usr/bin/python3';

function babelAnswers(cases: BabelCase[]): string[] {
  const out = execFileSync(PYTHON, [join(__dirname, 'support/babel_format.py')], {
    input: JSON.stringify(cases),
    maxBuffer: 64 * 1024 * 1024,
  });
  const answers = JSON.parse(out.toString('utf8')) as { ok?: string; error?: string }[];
  return answers.map((a) => a.ok ?? `ERROR ${a.error}`);
}

const keyOf = (c: BabelCase) =>
  `${c.kwargs.locale} ${c.fn} ${JSON.stringify(c.value)} ${JSON.stringify(c.args)}`;

describe('formatting filters against Babel (python3-babel)', () => {
  const cases = babelCases();
  let babel: string[];

  beforeAll(() => {
    babel = babelAnswers(cases);
  });

  it('covers at least 15 locales and Latin, Cyrillic, CJK and Devanagari scripts', () => {
    expect(BABEL_LOCALES.length).toBeGreaterThanOrEqual(15);
    for (const l of ['ru_RU', 'uk_UA', 'ja_JP', 'zh_CN', 'ko_KR', 'hi_IN', 'de_DE'])
      expect(BABEL_LOCALES).toContain(l);
    expect(cases.length).toBeGreaterThan(900);
    expect(babel.filter((b) => b.startsWith('ERROR'))).toEqual([]);
  });

  it("every answer is Babel's, except the listed CLDR-version and Babel-2.10 differences", () => {
    const used = new Map<string, number>();
    const listedSeen = new Set<string>();
    const unexplained: string[] = [];
    let identical = 0;
    cases.forEach((c, i) => {
      const ours = ourAnswer(c);
      if (ours === babel[i]) {
        identical++;
        return;
      }
      const listed = BABEL_LISTED_ANSWERS[keyOf(c)];
      if (listed) {
        listedSeen.add(keyOf(c));
        if (listed[0] === babel[i] && listed[1] === ours) return;
        unexplained.push(
          `${keyOf(c)}: listed as ${JSON.stringify(listed)}, now Babel ${JSON.stringify(babel[i])}, ours ${JSON.stringify(ours)}`,
        );
        return;
      }
      const { text: rewritten, used: rules } = rewriteBabel(c, babel[i]);
      if (rewritten === ours) rules.forEach((r) => used.set(r, (used.get(r) ?? 0) + 1));
      else unexplained.push(`${keyOf(c)}: Babel ${JSON.stringify(babel[i])}, ours ${JSON.stringify(ours)}`);
    });
    expect(unexplained).toEqual([]);
    // No dead entries: each listed difference is still observed.
    expect(BABEL_DIFFERENCES.filter((d) => !d.someNodes && !used.has(d.id)).map((d) => d.id)).toEqual([]);
    expect(Object.keys(BABEL_LISTED_ANSWERS).filter((k) => !listedSeen.has(k))).toEqual([]);
    // Most answers are Babel's exactly; the differences are the exception.
    expect(identical / cases.length).toBeGreaterThan(0.85);
  });

  it('the filters in a Word-edited template (tags split across runs) say what Babel says', () => {
    const docx = buildDocx([
      messy(
        `{% for l in locales %}{{ d | ${S}format_date("long", locale=l) }}|{{ n | format_${S}decimal(locale=l) }} ; {% endfor %}`,
      ),
    ]);
    const locales = [...BABEL_LOCALES];
    const out = renderDocx(docx, { template_data: { locales, d: '2026-03-01', n: 1234567.891 } });
    const lines = docxText(out)
      .body[0].split(' ; ')
      .filter((l) => l !== '');
    const asked: BabelCase[] = locales.flatMap((locale) => [
      { fn: 'format_date', value: '2026-03-01', args: ['long'], kwargs: { locale } },
      { fn: 'format_decimal', value: 1234567.891, args: [null], kwargs: { locale } },
    ]);
    // Babel's answers with the listed differences applied (ar_EG's digits, Swiss grouping, …).
    const expected = babelAnswers(asked).map((b, i) => rewriteBabel(asked[i], b).text);
    const pairs = locales.map((_, i) => `${expected[2 * i]}|${expected[2 * i + 1]}`);
    expect(lines).toEqual(pairs);
  });
});
