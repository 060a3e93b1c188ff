/**
 * Rich content benchmark: the cost of `{{p body | html }}` on a 50 KB HTML document (headings,
 * paragraphs with inline formatting and links, nested lists, a table) beside the plain fill of the
 * same template with the same text as a plain string, in the same run.
 *
 * Every timed run is what a request costs: open the template from bytes, fill it, write the .docx.
 *
 *   npm run bench:rich -- [--iterations 40] [--warmup 5] [--rounds 4] [--kb 50]
 */
import PizZip from 'pizzip';
import { buildDocx, p } from '../test/support/docx-builder';
import { renderDocx } from '../libs/engine/src';
import { intArg } from './args';
import { elapsedMs, median } from './report';

const ITERATIONS = intArg('iterations', 40);
const WARMUP = intArg('warmup', 5);
const ROUNDS = Math.min(intArg('rounds', 4), ITERATIONS);
const KB = intArg('kb', 50);

/** A document as a CMS would send it, repeated to the size asked for. */
function htmlDocument(bytes: number): string {
  const section = (i: number) =>
    `<h2>Section ${i}</h2>` +
    `<p>This is <b>paragraph ${i}</b> with <i>emphasis</i>, <span style="color:#c00000">colour</span> and ` +
    `<a href="https://example.com/${i}">a link</a>. Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>` +
    `<ul><li>first point</li><li>second point<ol><li>nested a</li><li>nested b</li></ol></li></ul>` +
    `<table><tr><th>Key</th><th>Value</th></tr><tr><td>alpha</td><td>${i}</td></tr><tr><td colspan="2">total</td></tr></table>`;
  let html = '';
  for (let i = 1; html.length < bytes; i++) html += section(i);
  return html;
}

const html = htmlDocument(KB * 1024);
const plainText = html.replace(/<[^>]+>/g, ' ');
const template = buildDocx([p('Report for {{ name }}'), p('{{p body | html }}'), p('The end')]);
const plainTemplate = buildDocx([p('Report for {{ name }}'), p('{{ body }}'), p('The end')]);

const contenders: [string, () => void][] = [
  [
    'plain fill (same text, {{ body }})',
    () => renderDocx(plainTemplate, { template_data: { name: 'Ada', body: plainText } }),
  ],
  [
    `{{p body | html }} (${(html.length / 1024).toFixed(0)} KB HTML)`,
    () => renderDocx(template, { template_data: { name: 'Ada', body: html } }),
  ],
];

for (const [, fn] of contenders) for (let i = 0; i < WARMUP; i++) fn();
// Rounds interleave the contenders so a busy neighbour on the machine hits both alike.
const perRound: number[][][] = [];
const perRun = Math.ceil(ITERATIONS / ROUNDS);
for (let r = 0; r < ROUNDS; r++) {
  perRound.push(contenders.map(([, fn]) => Array.from({ length: perRun }, () => elapsedMs(fn))));
}
const sample = new PizZip(renderDocx(template, { template_data: { name: 'Ada', body: html } }));
const documentXml = sample.file('word/document.xml')!.asText();
const count = (re: RegExp) => (documentXml.match(re) ?? []).length;
const medians = contenders.map((_, c) => perRound.map((round) => median(round[c])));
console.log(`rich content benchmark: ${ROUNDS} rounds × ${perRun} runs, medians per round (ms)`);
console.log(
  `  the HTML becomes ${count(/<w:p[ >]/g)} paragraphs, ${count(/<w:tbl>/g)} tables, ${count(/<w:hyperlink /g)} links (${Math.round(documentXml.length / 1024)} KB of WordprocessingML)`,
);
contenders.forEach(([name], c) => {
  const m = medians[c];
  console.log(
    `  ${name.padEnd(44)} median ${median(m).toFixed(1)} ms  range ${Math.min(...m).toFixed(1)}–${Math.max(...m).toFixed(1)} ms`,
  );
});
const ratios = medians[1].map((m, i) => m / medians[0][i]);
console.log(
  `  | html vs plain: ${median(ratios).toFixed(2)}× (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`,
);
