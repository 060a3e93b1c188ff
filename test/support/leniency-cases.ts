/**
 * Templates shaped like the real users' docxtpl templates of issue 23: names in other alphabets,
 * docxtpl's leniencies (`{{%tr … %}}`), Word's curly quotes in string literals, and `{%- … -%}`
 * merges across tags Word split. `want` is docxtpl's output, checked by hand. Rendered against
 * docxtpl by test/dialect-leniency.e2e-spec.ts; linted and rendered by test/lint-render-agreement.e2e-spec.ts.
 */
import { messy, p, table, SPLIT as S } from './docx-builder';
import type { BlockSpec, DocxSpec } from './docx-builder';
import { DocxPackage } from './docx-text';

export interface LeniencyCase {
  name: string;
  doc: DocxSpec | BlockSpec[];
  context: Record<string, unknown>;
  want: string[];
}

export const LENIENCY_CASES: LeniencyCase[] = [
  {
    name: 'names in other alphabets, split by Word',
    doc: [
      messy(`Versión: {{ ver${S}sión }} — {{ propósito_${S}documento }}`),
      messy(`Участник: {{ участ${S}ник }}, {{ адрес_участника }}`),
      p('名前：{{ 名前 }}{% if 名前 %}（確認済み）{% endif %}'),
      p('Müşteri: {{ müşteri.adı|upper }} {% for ürün in ürünler %}{{ ürün }};{% endfor %}'),
    ],
    context: {
      versión: '2.1',
      propósito_documento: 'Contrato',
      участник: 'Иванов И. И.',
      адрес_участника: 'Москва',
      名前: '山田太郎',
      müşteri: { adı: 'Çağla' },
      ürünler: ['çay', 'şeker'],
    },
    want: [
      'Versión: 2.1 — Contrato',
      'Участник: Иванов И. И., Москва',
      '名前：山田太郎（確認済み）',
      'Müşteri: ÇAĞLA çay;şeker;',
    ],
  },
  {
    name: 'table rows written {{%tr … %}} (a tutorial invoice)',
    doc: [
      p('Invoice {{ number }}'),
      table([
        ['Item', 'Qty', 'Price'],
        [messy(`{{%tr for item in invoice_${S}list %}}`), '', ''],
        ['{{ item[0] }}', '{{ item[1] }}', '{{ item[2] }}'],
        [messy(`{{%tr end${S}for %}}`), '', ''],
      ]),
      p('{{%p if paid %}}'),
      p('Paid, thank you.'),
      p('{{%p endif %}}'),
    ],
    context: {
      number: 'F-17',
      invoice_list: [
        ['Pen', 2, 1.5],
        ['Книга', 1, 12],
      ],
      paid: true,
    },
    want: ['Invoice F-17', 'Item | Qty | Price', 'Pen | 2 | 1.5', 'Книга | 1 | 12', 'Paid, thank you.'],
  },
  {
    name: 'curly quotes inside tags are straight quotes, in literals too',
    doc: [
      p('{{ “It’s fine” }} | {{ ‘say “hi”’ }} | {{ name ~ “’s” }}'),
      messy(`{% if kind == “${S}a’b” %}same{% else %}other{% endif %}`),
    ],
    context: { name: 'Zoë', kind: "a'b" },
    want: ['It\'s fine | say "hi" | Zoë\'s', 'same'],
  },
  {
    name: '{%- … -%} paragraph merge across tags Word split',
    doc: [
      messy('Total due:'),
      messy(`{%- if am${S}ount > 0 -%}`),
      messy(`{{ amo${S}unt }} EUR`),
      messy(`{%- end${S}if -%}`),
      messy('(incl. VAT)'),
    ],
    context: { amount: 12.5 },
    want: ['Total due:12.5 EUR(incl. VAT)'],
  },
  {
    name: 'plain {% %} tags alone in their paragraphs leave them, empty (the French template’s spacing)',
    doc: [
      p('Schéma fonctionnel', { style: 'Heading1' }),
      p('{% for bloc in blocs %}'),
      p('{{ bloc.titre }}', { style: 'Heading2' }),
      table([['{{ bloc.rôle }}', '{% if bloc.actif %}oui{% else %}non{% endif %}']]),
      p('{% endfor %}'),
      messy(`{% if not no${S}tes %}`),
      p('Aucune note.', { align: 'center' }),
      p('{% endif %}'),
      p('Fin'),
    ],
    context: {
      blocs: [
        { titre: 'Entrée', rôle: 'capteur', actif: true },
        { titre: 'Sortie', rôle: 'relais', actif: false },
      ],
      notes: [],
    },
    want: [
      'Schéma fonctionnel',
      '',
      'Entrée',
      'capteur | oui',
      '',
      'Sortie',
      'relais | non',
      '',
      '',
      'Aucune note.',
      '',
      'Fin',
    ],
  },
  {
    name: 'a loop opening in one table cell and closing in the next row',
    doc: [
      p('Rapport'),
      table([
        ['{% for x in xs %}{{ x.n }}', '{{ x.v }}'],
        ['—', '{% endfor %}fin'],
      ]),
      p('après'),
    ],
    context: {
      xs: [
        { n: 'a', v: 1 },
        { n: 'b', v: 2 },
      ],
    },
    want: ['Rapport', 'a | 1', '— | b | 2', '— | fin', 'après'],
  },
];

/** Each body paragraph (table paragraphs included) as style, spacing and text. */
export function paragraphSequence(buf: Buffer): string[] {
  const xml = new DocxPackage(buf).text('word/document.xml');
  const out: string[] = [];
  for (const m of xml.matchAll(/<w:p\b[^>]*?(?:\/>|>([\s\S]*?)<\/w:p>)/g)) {
    const inner = m[1] ?? '';
    const pPr = /<w:pPr>([\s\S]*?)<\/w:pPr>/.exec(inner)?.[1] ?? '';
    const style = /<w:pStyle w:val="([^"]*)"/.exec(pPr)?.[1] ?? '';
    const spacing = /<w:spacing [^>]*\/>/.exec(pPr)?.[0] ?? '';
    const text = [...inner.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((t) => t[1]).join('');
    out.push(`${style}|${spacing}|${text}`);
  }
  return out;
}
