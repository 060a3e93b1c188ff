/**
 * Render benchmark: the same invoice filled by
 *   (a) renderDocx, our engine, on the Jinja (docxtpl dialect) template,
 *   (b) bare docxtemplater (default parser, paragraphLoop) on the same document written in
 *       docxtemplater's own syntax,
 *   (c) docxtpl, the Python reference, on the Jinja template (median measured in-process by
 *       test/support/docxtpl_render.py, Python start-up excluded).
 * Targets: (a) ≤ 1.3 × (b), and (a) under (c). Same run, same machine.
 *
 * Every timed run is what a request costs: open the template from bytes, fill it, write the
 * .docx (DEFLATE) to bytes. Before timing, the three outputs are checked to read the same, so the
 * engines are shown to do the same work.
 *
 *   npm run bench:render -- [--iterations 200] [--warmup 20] [--rounds 4] [--check]
 *   --check: exit with status 1 when a target is missed.
 */
import Docxtemplater from 'docxtemplater';
import * as os from 'os';
import PizZip from 'pizzip';
import { buildDocx, table } from '../test/support/docx-builder';
import type { DocxSpec } from '../test/support/docx-builder';
import { docxText } from '../test/support/docx-text';
import { benchDocxtpl, renderWithDocxtpl } from '../test/support/docxtpl';
import { flag, intArg as arg } from './args';

/** Type-only: the engine is loaded at run time, so the other contenders run without it. */
type RenderModule = typeof import('../libs/engine/src');

const ITERATIONS = arg('iterations', 200);
const WARMUP = arg('warmup', 20);
const ROUNDS = Math.min(arg('rounds', 4), ITERATIONS);
const CHECK = flag('check');

// ---------------------------------------------------------------------------------------------
// The invoice, once per syntax
// ---------------------------------------------------------------------------------------------

/** Money values come preformatted, so both engines do the same lookups and no arithmetic. */
function invoiceData(): Record<string, unknown> {
  const items = Array.from({ length: 20 }, (_, i) => {
    const qty = (i % 5) + 1;
    const price = 9.5 + i * 3.25;
    return {
      description: `Item ${i + 1}: consulting & support, part ${String.fromCharCode(65 + (i % 26))}`,
      qty,
      price: price.toFixed(2),
      line_total: (qty * price).toFixed(2),
    };
  });
  const subtotal = items.reduce((s, it) => s + Number(it.line_total), 0);
  return {
    company: {
      name: 'ACME Widgets GmbH',
      street: 'Hauptstraße 1',
      city: '10115 Berlin',
      vat_id: 'DE123456789',
    },
    customer: { name: 'Jane Doe', street: '12 Rue de la Paix', city: '75002 Paris' },
    invoice: { number: 'INV-2024-0042', date: '2024-03-01', due: '2024-03-31' },
    items,
    subtotal: subtotal.toFixed(2),
    vat: (subtotal * 0.19).toFixed(2),
    total: (subtotal * 1.19).toFixed(2),
    paid: false,
    notes: [
      'Thank you for your business.',
      'Payment by bank transfer only.',
      'Questions? billing@acme.example',
    ],
  };
}

function jinjaInvoice(): DocxSpec {
  return {
    header: ['{{ company.name }} · {{ company.street }} · {{ company.city }} · VAT {{ company.vat_id }}'],
    body: [
      { text: 'Invoice {{ invoice.number }}', style: 'Heading1' },
      'Date: {{ invoice.date }}',
      'Bill to: {{ customer.name }}, {{ customer.street }}, {{ customer.city }}',
      table([
        ['Description', 'Qty', 'Price', 'Total'],
        ['{%tr for item in items %}', '', '', ''],
        ['{{ item.description }}', '{{ item.qty }}', '{{ item.price }}', '{{ item.line_total }}'],
        ['{%tr endfor %}', '', '', ''],
        ['Subtotal', '', '', '{{ subtotal }}'],
        ['VAT 19 %', '', '', '{{ vat }}'],
        ['Total', '', '', '{{ total }}'],
      ]),
      '{% if paid %}Paid, thank you.{% else %}Please pay by {{ invoice.due }}.{% endif %}',
      'Notes:',
      '{%p for note in notes %}',
      '{{ note }}',
      '{%p endfor %}',
    ],
  };
}

/** The same document in docxtemplater's syntax (default parser: no dots, so sections scope objects). */
function docxtemplaterInvoice(): DocxSpec {
  return {
    header: ['{#company}{name} · {street} · {city} · VAT {vat_id}{/company}'],
    body: [
      { text: 'Invoice {#invoice}{number}{/invoice}', style: 'Heading1' },
      'Date: {#invoice}{date}{/invoice}',
      'Bill to: {#customer}{name}, {street}, {city}{/customer}',
      table([
        ['Description', 'Qty', 'Price', 'Total'],
        ['{#items}{description}', '{qty}', '{price}', '{line_total}{/items}'],
        ['Subtotal', '', '', '{subtotal}'],
        ['VAT 19 %', '', '', '{vat}'],
        ['Total', '', '', '{total}'],
      ]),
      '{#paid}Paid, thank you.{/paid}{^paid}Please pay by {#invoice}{due}{/invoice}.{/paid}',
      'Notes:',
      '{#notes}',
      '{.}',
      '{/notes}',
    ],
  };
}

function renderDocxtemplater(template: Buffer, data: Record<string, unknown>): Buffer {
  const doc = new Docxtemplater(new PizZip(template), { paragraphLoop: true, linebreaks: true });
  doc.render(data);
  return doc.getZip().generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

// ---------------------------------------------------------------------------------------------
// Timing
// ---------------------------------------------------------------------------------------------

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function elapsedMs(fn: () => unknown): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/**
 * Samples of every contender, gathered in ROUNDS rounds so that load from other processes on
 * the machine falls on all of them alike: within a round the JavaScript contenders alternate run
 * by run, then docxtpl takes its turn (a fresh Python process, warmed up, start-up not timed).
 */
function sample(js: Record<string, () => unknown>, docxtpl: () => number[]): Record<string, number[]> {
  const names = Object.keys(js);
  const samples: Record<string, number[]> = Object.fromEntries([...names, 'docxtpl'].map((n) => [n, []]));
  for (let i = 0; i < WARMUP; i++) for (const n of names) js[n]();
  for (let round = 0; round < ROUNDS; round++) {
    const perRound = Math.ceil(ITERATIONS / ROUNDS);
    for (let i = 0; i < perRound; i++) {
      // Alternate which goes first, so neither always runs right after the other.
      const order = i % 2 ? [...names].reverse() : names;
      for (const n of order) samples[n].push(elapsedMs(js[n]));
    }
    samples.docxtpl.push(...docxtpl());
  }
  return samples;
}

function loadEngine(): RenderModule | Error {
  try {
    return require('../libs/engine/src') as RenderModule;
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

function sameText(a: Buffer, b: Buffer): string | undefined {
  const ta = docxText(a);
  const tb = docxText(b);
  const ja = JSON.stringify({ body: ta.body, headers: ta.headers });
  const jb = JSON.stringify({ body: tb.body, headers: tb.headers });
  return ja === jb ? undefined : `\n    ${ja}\n    ${jb}`;
}

function main(): number {
  const data = invoiceData();
  const jinja = buildDocx(jinjaInvoice());
  const dtx = buildDocx(docxtemplaterInvoice());
  const engine = loadEngine();

  // Same work: all three outputs must read the same.
  const reference = renderWithDocxtpl(jinja, data);
  const dtxOut = renderDocxtemplater(dtx, data);
  const problems: string[] = [];
  const d1 = sameText(dtxOut, reference);
  if (d1) problems.push(`docxtemplater and docxtpl outputs differ:${d1}`);
  if (!(engine instanceof Error)) {
    const d2 = sameText(engine.renderDocx(jinja, { template_data: data }), reference);
    if (d2) problems.push(`renderDocx and docxtpl outputs differ:${d2}`);
  }
  const rows = docxText(reference).body.filter((l) => l.startsWith('Item ')).length;
  console.log(
    `Invoice: ${rows} item rows, ${JSON.stringify(data).length} bytes of data; ` +
      `median of ${Math.ceil(ITERATIONS / ROUNDS) * ROUNDS} runs each (${ROUNDS} rounds) after warm-up; ` +
      `Node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)}.`,
  );
  for (const p of problems) console.log(`WARNING: ${p}`);

  const perRound = Math.ceil(ITERATIONS / ROUNDS);
  const samples = sample(
    {
      docxtemplater: () => renderDocxtemplater(dtx, data),
      ...(engine instanceof Error
        ? {}
        : { renderDocx: () => engine.renderDocx(jinja, { template_data: data }) }),
    },
    () => benchDocxtpl(jinja, data, perRound, Math.min(WARMUP, 10)).timesMs,
  );
  const a = samples.renderDocx ? median(samples.renderDocx) : undefined;
  const b = median(samples.docxtemplater);
  const c = median(samples.docxtpl);

  const ms = (x: number) => `${x.toFixed(2).padStart(8)} ms`;
  console.log(`(a) renderDocx (Jinja template)         ${a === undefined ? '     n/a' : ms(a)}`);
  console.log(`(b) docxtemplater (its own syntax)      ${ms(b)}`);
  console.log(`(c) docxtpl, Python (Jinja template)    ${ms(c)}`);
  if (a === undefined) {
    console.log(`renderDocx unavailable: ${(engine as Error).message.split('\n')[0]}`);
    return CHECK ? 1 : 0;
  }
  const ab = a / b;
  const ac = a / c;
  const okAb = ab <= 1.3;
  const okAc = a < c;
  console.log(`(a)/(b) = ${ab.toFixed(2)}×   target ≤ 1.3×            ${okAb ? 'met' : 'MISSED'}`);
  console.log(`(a)/(c) = ${ac.toFixed(2)}×   target under docxtpl (< 1×)  ${okAc ? 'met' : 'MISSED'}`);
  return CHECK && (!okAb || !okAc || problems.length > 0) ? 1 : 0;
}

process.exitCode = main();
