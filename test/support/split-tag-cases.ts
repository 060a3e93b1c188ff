/**
 * Tags Word split across paragraphs (issue 34): what Word leaves after an Enter typed inside a tag
 * and deleted again, or a tag pasted in. docxtpl joins them (its patch_xml strips the XML between a
 * tag's delimiters, paragraph boundaries included): the value prints in the first paragraph, which
 * keeps its properties, and the paragraphs become one. `want` is docxtpl's output, checked by hand.
 * Rendered against docxtpl by test/dialect-leniency.e2e-spec.ts and test/split-tags.e2e-spec.ts;
 * linted and rendered by test/lint-render-agreement.e2e-spec.ts.
 */
import { messy, p, table, SPLIT as S } from './docx-builder';
import type { LeniencyCase } from './leniency-cases';

export const SPLIT_TAG_CASES: LeniencyCase[] = [
  {
    name: 'a table row like the user’s: {{ item.sa / }} in one cell, rows from {%tr for %}',
    doc: [
      p('Articles'),
      table([
        ['Article', 'Montant'],
        [messy(`{%tr for item in ite${S}ms %}`), ''],
        [[p('{{ item.sa'), p('}}')], messy(`{{ item.mon${S}tant }}`)],
        ['{%tr endfor %}', ''],
      ]),
      p('Fin'),
    ],
    context: {
      items: [
        { sa: 'Stylo', montant: 3 },
        { sa: 'Cahier', montant: 7 },
      ],
    },
    want: ['Articles', 'Article | Montant', 'Stylo | 3', 'Cahier | 7', 'Fin'],
  },
  {
    name: 'the first paragraph’s properties stay, the text after the closer comes along with its runs',
    doc: [
      p('Name: {{ customer.na', { style: 'Heading1' }),
      messy(`me }} (cust${S}omer) and more`, { style: 'Heading2', align: 'center' }),
      p('Next'),
    ],
    context: { customer: { name: 'Zoë' } },
    want: ['Name: Zoë (customer) and more', 'Next'],
  },
  {
    name: 'a tag over three paragraphs, an empty one among them',
    doc: [p('Ref {{ order.'), p(''), messy(`refe${S}rence`), p('}} ok'), p('after')],
    context: { order: { reference: 'R-9' } },
    want: ['Ref R-9 ok', 'after'],
  },
  {
    name: 'statements, {%p … %} and comments split across paragraphs',
    doc: [
      p('{% if paid'),
      p('%}Paid{% endif %} — thanks'),
      p('{%p if note'),
      p('%}'),
      p('Note: {{ note }}'),
      p('{%p endif %}'),
      p('A {# a comment'),
      p('over {{ two }} paragraphs #} B'),
      p('{#p a comment taking'),
      p('its paragraphs #}'),
      p('end'),
    ],
    context: { paid: true, note: 'fragile' },
    want: ['Paid — thanks', 'Note: fragile', 'A  B', 'end'],
  },
  {
    name: '{%tc … %} and {%r … %} split across paragraphs',
    doc: [
      table([['a', [p('{%tc if x'), p('%}')], 'b', '{%tc endif %}']]),
      p('a {%r if x'),
      p('%}yes{%r endif %} b'),
    ],
    context: { x: true },
    want: ['a | b', 'a yes b'],
  },
  {
    name: '{%tr for … %} itself split in its cell (no space is added where the paragraphs meet)',
    doc: [
      table([
        [[p('{%tr for item '), p('in items %}')], ''],
        ['{{ item }}', 'x'],
        ['{%tr endfor %}', ''],
      ]),
    ],
    context: { items: [1, 2] },
    want: ['1 | x', '2 | x'],
  },
  {
    name: '{%- … -%} split across paragraphs',
    doc: [p('Total'), p('{%- if amount'), p('-%} {{ amount }} EUR {%- endif %}'), p('.')],
    context: { amount: 5 },
    want: ['Total5 EUR', '.'],
  },
];
