// Scores npm's number-to-words libraries against Python's num2words on the committed table
// (test/fixtures/num2words-table.json): how many of Python's answers each gives as it comes,
// called the obvious way, per language and form. The table is the basis of docs/formatting.md's
// choice of n2words for the num2words filter.
//
//   npm install --no-save to-words@5.7.0 written-number@0.11.1   (n2words is a dependency)
//   node scripts/score-num2words-libraries.mjs
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const table = JSON.parse(
  readFileSync(new URL('../test/fixtures/num2words-table.json', import.meta.url), 'utf8'),
);
const LOCALES = { en: 'en-US', ru: 'ru-RU', vi: 'vi-VN', es: 'es-ES', fr: 'fr-FR', pl: 'pl-PL', de: 'de-DE' };

const valueOf = (literal) => (literal.startsWith("'") ? literal.slice(1, -1) : Number(literal));

async function n2wordsLib() {
  const mods = {};
  for (const [lang, loc] of Object.entries(LOCALES)) mods[lang] = await import(`n2words/${loc}`);
  return (c, v) => {
    const m = mods[c.lang];
    if (c.to === 'ordinal') return m.toOrdinal(v);
    if (c.to === 'currency') return m.toCurrency(v);
    return m.toCardinal(v);
  };
}

function toWordsLib() {
  const { ToWords } = require('to-words');
  const tw = {};
  for (const [lang, loc] of Object.entries(LOCALES))
    tw[lang] = new ToWords({ localeCode: loc, converterOptions: { doNotAddOnly: true } });
  return (c, v) => {
    const t = tw[c.lang];
    if (c.to === 'ordinal') return t.toOrdinal(v);
    return t.convert(v, { currency: c.to === 'currency' });
  };
}

function writtenNumberLib() {
  const wn = require('written-number');
  return (c, v) => {
    if (c.to === 'ordinal' || c.to === 'currency') throw new Error('no such form');
    if (!wn.i18n[c.lang]) throw new Error('no such language');
    return wn(v, { lang: c.lang });
  };
}

const libs = [['n2words', await n2wordsLib()]];
for (const [name, make] of [
  ['to-words', toWordsLib],
  ['written-number', writtenNumberLib],
]) {
  try {
    libs.push([name, make()]);
  } catch {
    console.error(`${name} is not installed: npm install --no-save ${name}`);
  }
}

const loose = (s) => s.toLowerCase().replace(/[-,]/g, ' ').replace(/\s+/g, ' ').trim();
const groups = [...new Set(table.cases.map((c) => `${c.lang} ${c.to}`))];
const rows = [];
for (const [name, fn] of libs) {
  const score = { exact: 0, loose: 0, total: 0 };
  const perGroup = {};
  for (const c of table.cases) {
    if (c.error) continue; // Python refuses it: not a target to score
    let got;
    try {
      got = fn(c, valueOf(c.value));
    } catch {
      got = undefined;
    }
    const g = (perGroup[`${c.lang} ${c.to}`] ??= { exact: 0, total: 0 });
    g.total++;
    score.total++;
    if (got === c.ok) {
      g.exact++;
      score.exact++;
    }
    if (got !== undefined && loose(got) === loose(c.ok)) score.loose++;
  }
  rows.push({ name, score, perGroup });
}

console.log(`Python num2words ${table.num2words}, ${table.cases.length} cases\n`);
console.log(`| library | ${libs.map(([n]) => n).join(' | ')} |`);
console.log(`| --- | ${libs.map(() => '---:').join(' | ')} |`);
for (const g of groups) {
  const cells = rows.map((r) => (r.perGroup[g] ? `${r.perGroup[g].exact}/${r.perGroup[g].total}` : '-'));
  console.log(`| ${g} | ${cells.join(' | ')} |`);
}
console.log(`| **all, exact** | ${rows.map((r) => `**${r.score.exact}/${r.score.total}**`).join(' | ')} |`);
console.log(
  `| all, ignoring case, hyphens and commas | ${rows.map((r) => `${r.score.loose}/${r.score.total}`).join(' | ')} |`,
);
