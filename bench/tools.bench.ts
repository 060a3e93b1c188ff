/**
 * What the template tools cost beside a render, on the same template: lint and inspect read the
 * template without data; renderDocx fills it. Medians over `--iterations` runs.
 *
 *   npx tsx bench/tools.bench.ts [--template examples/invoice.docx] [--request examples/invoice-request.json] [--iterations 50]
 */
import { readFileSync } from 'node:fs';
import { inspectTemplate, lintDocxTemplate, renderDocx, type RenderRequest } from '@app/engine';
import { intArg, stringArg } from './args';
import { elapsedMs, median } from './report';

const template = readFileSync(stringArg('template', 'examples/invoice.docx'));
const request = JSON.parse(
  readFileSync(stringArg('request', 'examples/invoice-request.json'), 'utf8'),
) as RenderRequest;
const iterations = intArg('iterations', 50);

function medianMs(fn: () => unknown): number {
  for (let i = 0; i < 5; i++) fn(); // warm-up
  return median(Array.from({ length: iterations }, () => elapsedMs(fn)));
}

const render = medianMs(() => renderDocx(template, request));
const lint = medianMs(() => lintDocxTemplate(template));
const inspect = medianMs(() => inspectTemplate(template));
console.log(`template ${template.length} bytes, ${iterations} iterations, medians:`);
console.log(`  renderDocx        ${render.toFixed(2)} ms`);
console.log(`  lintDocxTemplate  ${lint.toFixed(2)} ms (${(lint / render).toFixed(2)}× a render)`);
console.log(`  inspectTemplate   ${inspect.toFixed(2)} ms (${(inspect / render).toFixed(2)}× a render)`);
