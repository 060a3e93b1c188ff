/**
 * Differential test (issue 23) for what real users' docxtpl templates rely on: names in other
 * alphabets, docxtpl's leniencies (`{{%tr … %}}`), Word's curly quotes in string literals, and
 * `{%- … -%}` merges across tags Word split. Same style as test/differential.e2e-spec.ts: each
 * case is rendered by docxtpl (test/support/docxtpl.ts) and by renderDocx; `want` pins docxtpl's
 * output (checked by hand), and ours must equal docxtpl's paragraph by paragraph: the text of
 * every paragraph, empty ones included, and each paragraph's style and spacing.
 */
import { buildDocx, messy, p, table, SPLIT as S } from './support/docx-builder';
import type { BlockSpec, DocxSpec } from './support/docx-builder';
import { DocxPackage, docxText } from './support/docx-text';
import { renderManyWithDocxtpl, type DocxtplResult } from './support/docxtpl';

type RenderModule = typeof import('../libs/engine/src');
function engine(): RenderModule {
  return require('../libs/engine/src') as RenderModule;
}

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

describe('differential: docxtpl leniencies real templates rely on (issue 23)', () => {
  const templates = LENIENCY_CASES.map((c) => buildDocx(c.doc));
  let reference: DocxtplResult[] = [];

  beforeAll(() => {
    reference = renderManyWithDocxtpl(
      LENIENCY_CASES.map((c, i) => ({ template: templates[i], context: c.context })),
    );
  });

  function theirs(i: number): Buffer {
    const r = reference[i];
    if (r instanceof Error) throw r;
    return r;
  }

  describe.each(LENIENCY_CASES.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const c = LENIENCY_CASES[i];

    it('docxtpl gives the expected text', () => {
      expect(docxText(theirs(i)).body).toEqual(c.want);
    });

    it('renderDocx gives docxtpl’s paragraphs: text, empty ones, style and spacing', () => {
      const ours = engine().renderDocx(templates[i], { template_data: c.context });
      expect(docxText(ours).body).toEqual(docxText(theirs(i)).body);
      expect(paragraphSequence(ours)).toEqual(paragraphSequence(theirs(i)));
    });
  });
});

describe('{{%r … %}}: docxtpl keeps its extra braces as text; refused with the fix', () => {
  it('names {%r … %} in the error', () => {
    const doc = buildDocx([p('A{{%r if x %}}b{{%r endif %}}')]);
    expect(() => engine().renderDocx(doc, { template_data: { x: true } })).toThrow(
      /did you mean '\{%r if x %\}'/,
    );
  });
});
