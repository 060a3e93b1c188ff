/**
 * Differential test: every template below is rendered by docxtpl (the Python reference
 * implementation of the dialect, test/support/docxtpl.ts) and by our renderDocx, and the visible
 * text of both documents (body, headers, footers; test/support/docx-text.ts) must be equal; for
 * docxtpl's table tags the cells' merge, span and shading marks too, and for the document
 * properties the title. The cases of the dialect in full live in test/support/dialect-cases.ts.
 *
 * Each case also pins what docxtpl produces (`want`, checked by hand), so a broken harness or a
 * changed docxtpl cannot make the comparison pass vacuously.
 *
 * Known, intended differences (docs/template-language.md, "Differences from docxtpl, on purpose") are deliberately
 * absent: missing variables reached through attributes, `&` typed inside a tag's string, and XML
 * characters in values rendered into document properties. What real templates rely on beyond
 * these cases (other alphabets, `{{%tr`, curly quotes, empty paragraphs) is in
 * test/dialect-leniency.e2e-spec.ts, which compares paragraph sequences too.
 *
 * docxtpl quirks worth knowing when reading the cases:
 * - `{%-` deletes everything back to the previous `</w:t>`, `-%}` everything up to the next
 *   `<w:t>` — across runs and paragraphs (docxtpl: "merge with previous/next paragraph text"),
 *   and the `-` is gone before Jinja sees it, so the text kept keeps its spaces. With no such
 *   `</w:t>` / `<w:t>` (or a tag in between), Jinja strips the whitespace beside the tag.
 * - Word's curly quotes inside tags are read as straight quotes, in string literals too.
 * - `~` binds tighter than `+` in Jinja: `'ab' ~ 1 + 2` is `('ab' ~ 1) + 2`, a TypeError.
 */
import { buildDocx, messy, p, table, SPLIT as S } from './support/docx-builder';
import type { BlockSpec, DocxSpec } from './support/docx-builder';
import { DocxPackage, docxImages, docxText } from './support/docx-text';
import { DocxtplError, renderManyWithDocxtpl, renderWithDocxtpl } from './support/docxtpl';
import { cellMarks, coreTitle, DIALECT_CASES, type CellMarks } from './support/dialect-cases';
import type { DocxtplResult } from './support/docxtpl';

/** The engine's API; a type-only import, checked by tsc and erased at run time. */
type RenderModule = typeof import('../libs/engine/src');

/**
 * Loaded on first use, so that a missing or broken engine fails the engine tests one by one with
 * its own error, while the docxtpl side of every case still runs.
 */
function engine(): RenderModule {
  return require('../libs/engine/src') as RenderModule;
}

interface Case {
  name: string;
  doc: DocxSpec | BlockSpec[];
  context: Record<string, unknown>;
  /** docxtpl's output, checked by hand. Headers and footers: none when absent. */
  want: { body: string[]; headers?: string[][]; footers?: string[][]; marks?: CellMarks; title?: string };
}

type VisibleText = { body: string[]; headers: string[][]; footers: string[][] };

function visible(buf: Buffer): VisibleText {
  const t = docxText(buf);
  return { body: t.body, headers: t.headers, footers: t.footers };
}

export const cases: Case[] = [
  {
    name: 'variables',
    doc: ['Hello {{ name }}, you are {{ age }} years old.', '{{name}}{{age}}'],
    context: { name: 'Ada', age: 36 },
    want: {
      body: ['Hello Ada, you are 36 years old.', 'Ada36'],
    },
  },
  {
    name: 'nested attributes',
    doc: ['{{ customer.name }} lives in {{ customer.address.city }} ({{ customer.address.zip }}).'],
    context: { customer: { name: 'Bob', address: { city: 'Lyon', zip: '69001' } } },
    want: {
      body: ['Bob lives in Lyon (69001).'],
    },
  },
  {
    name: 'bracket access',
    doc: [
      '{{ row[\'a b\'] }} | {{ xs[0] }} | {{ xs[2] }} | {{ xs[-1] }} | {{ m["k"]["j"] }} | {{ rows[1].name }} | {{ rows[i][\'name\'] }}',
    ],
    context: {
      row: { 'a b': 'spaced' },
      xs: ['x0', 'x1', 'x2'],
      m: { k: { j: 'deep' } },
      rows: [{ name: 'r0' }, { name: 'r1' }],
      i: 0,
    },
    want: {
      body: ['spaced | x0 | x2 | x2 | deep | r1 | r0'],
    },
  },
  {
    name: 'if / elif / else inline',
    doc: [
      'a: {% if a > 10 %}big{% elif a > 5 %}medium{% else %}small{% endif %}',
      'b: {% if b > 10 %}big{% elif b > 5 %}medium{% else %}small{% endif %}',
      'c: {% if c > 10 %}big{% elif c > 5 %}medium{% else %}small{% endif %}',
      '{% if s %}non-empty{% endif %}{% if not e %}empty{% endif %}{% if zero %}zero is true{% else %}zero is false{% endif %}',
    ],
    context: { a: 11, b: 6, c: 1, s: 'x', e: '', zero: 0 },
    want: {
      body: ['a: big', 'b: medium', 'c: small', 'non-emptyemptyzero is false'],
    },
  },
  {
    name: 'for loop with loop variables',
    doc: [
      '{% for x in xs %}{{ loop.index }}/{{ loop.length }}:{{ x }}{% if loop.first %}(first){% endif %}{% if loop.last %}(last){% endif %} {% endfor %}',
      '{% for x in xs %}{{ loop.index0 }}-{{ loop.revindex }}-{{ loop.revindex0 }}{% if not loop.last %}, {% endif %}{% endfor %}',
      '[{% for x in empty %}{{ x }}{% else %}nothing{% endfor %}]',
    ],
    context: { xs: ['a', 'b', 'c'], empty: [] },
    want: {
      body: ['1/3:a(first) 2/3:b 3/3:c(last) ', '0-3-2, 1-2-1, 2-1-0', '[nothing]'],
    },
  },
  {
    name: 'nested loops',
    doc: [
      '{% for g in groups %}{{ g.name }}[{% for m in g.members %}{{ loop.index }}.{{ m }}{% if not loop.last %},{% endif %}{% endfor %}]{% if not loop.last %} {% endif %}{% endfor %}',
    ],
    context: {
      groups: [
        { name: 'G1', members: ['ann', 'ben'] },
        { name: 'G2', members: [] },
        { name: 'G3', members: ['cy'] },
      ],
    },
    want: {
      body: ['G1[1.ann,2.ben] G2[] G3[1.cy]'],
    },
  },
  {
    name: 'for k, v in d.items()',
    doc: [
      '{% for k, v in d.items() %}{{ k }}={{ v }}; {% endfor %}',
      '{% for pair in d.items() %}{{ pair[0] }}{% endfor %}',
    ],
    context: { d: { beta: 2, alpha: 1, 'with space': 'x' } },
    want: {
      body: ['beta=2; alpha=1; with space=x; ', 'betaalphawith space'],
    },
  },
  {
    name: 'string filters',
    doc: [
      "{{ missing|default('n/a') }} | {{ s|upper }} | {{ s|lower }} | {{ s|title }} | {{ s|capitalize }} | [{{ padded|trim }}]",
      "{{ nothing|default('d') }} | {{ empty|default('d', true) }} | {{ s|replace('o', '0') }} | {{ s|length }}",
    ],
    context: { s: 'hELLo wORld', padded: '  spaced out \t', nothing: null, empty: '' },
    want: {
      body: [
        'n/a | HELLO WORLD | hello world | Hello World | Hello world | [spaced out]',
        'None | d | hELL0 wORld | 11',
      ],
    },
  },
  {
    name: 'numeric filters',
    doc: [
      '{{ xs|length }} | {{ pi|round(2) }} | {{ pi|round }} | {{ pi|round(1, "floor") }} | {{ "42"|int }} | {{ 3.7|int }} | {{ "2.5"|float }} | {{ 3|float }} | {{ n|abs }} | {{ xs|sum }}',
    ],
    context: { xs: [1, 2, 3.5], pi: 3.14159, n: -4 },
    want: {
      body: ['3 | 3.14 | 3.0 | 3.1 | 42 | 3 | 2.5 | 3.0 | 4 | 6.5'],
    },
  },
  {
    name: 'list filters',
    doc: [
      "{{ xs|join(', ') }} | {{ xs|first }} | {{ xs|last }} | {{ ns|sort|join(',') }} | {{ ns|sort(reverse=true)|join(',') }} | {{ names|sort|join(' ') }}",
      "{{ items|sum(attribute='qty') }} | {{ items|map(attribute='name')|join('+') }} | {{ items|selectattr('qty', 'gt', 1)|map(attribute='name')|join }}",
    ],
    context: {
      xs: ['a', 'b', 'c'],
      ns: [3, 1, 2],
      names: ['bob', 'Alice', 'carol'],
      items: [
        { name: 'pen', qty: 2 },
        { name: 'ink', qty: 1 },
        { name: 'pad', qty: 5 },
      ],
    },
    want: {
      body: ['a, b, c | a | c | 1,2,3 | 3,2,1 | Alice bob carol', '8 | pen+ink+pad | penpad'],
    },
  },
  {
    name: 'format filter',
    doc: [
      '{{ "%.2f"|format(price) }} | {{ "%d items"|format(n) }} | {{ "%s-%s"|format(a, b) }} | {{ "%05.1f"|format(price) }} | {{ "%.0f"|format(2.5) }} | {{ "%x"|format(255) }}',
    ],
    context: { price: 19.5, n: 3, a: 'A', b: 'B' },
    want: {
      body: ['19.50 | 3 items | A-B | 019.5 | 2 | ff'],
    },
  },
  {
    name: 'comparisons and boolean logic',
    doc: [
      '{{ a < b }} {{ a <= 3 }} {{ a > b }} {{ a >= b }} {{ a == 3 and b != 3 }} {{ not flag or a >= 3 }} {{ s == "x" }}',
      '{% if a > 1 and (b < 10 or flag) %}yes{% else %}no{% endif %} {% if not (a < b) %}x{% else %}y{% endif %} {{ a < b < 10 }}',
    ],
    context: { a: 3, b: 7, flag: false, s: 'x' },
    want: {
      body: ['True True False False True True True', 'yes y True'],
    },
  },
  {
    name: 'in / not in',
    doc: [
      "{% if 'b' in xs %}has b{% endif %} | {{ 'lo' in s }} | {{ 'k' in d }} | {{ 5 not in ns }} | {{ 2 in ns }}",
    ],
    context: { xs: ['a', 'b'], s: 'hello', d: { k: 1 }, ns: [1, 2, 3] },
    want: {
      body: ['has b | True | True | True | True'],
    },
  },
  {
    name: 'arithmetic',
    doc: [
      '{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ a + b * c }} {{ (a + b) * c }} {{ a - b }}',
      "{{ 'Total: ' ~ n ~ ' EUR' }} {{ n ~ '' }} {{ 'n=' ~ 2 * 3 }} {{ 'ab' ~ (1 + 2) }} {{ 'x' * 3 }} {{ s + '!' }}",
      '{{ price * qty }} {{ qty * 2.5 }} {{ 9 // 2.0 }} {{ 7.5 % 2 }}',
    ],
    context: { a: 2, b: 3, c: 4, n: 42, price: 19.99, qty: 3, s: 'hi' },
    want: {
      body: ['3 -4 1 2 1024 14 20 -1', 'Total: 42 EUR 42 n=6 ab3 xxx hi!', '59.97 7.5 4.0 1.5'],
    },
  },
  {
    name: 'numbers: ints, floats, division',
    doc: [
      '{{ i }} | {{ f }} | {{ 10 / 4 }} | {{ 10 / 5 }} | {{ i / 2 }} | {{ f * 2 }} | {{ 0.1 + 0.2 }} | {{ neg }} | {{ big }} | {{ 1.0 }} | {{ 3 - 1.5 }}',
    ],
    context: { i: 7, f: 2.5, neg: -0.75, big: 123456789 },
    want: {
      body: ['7 | 2.5 | 2.5 | 2.0 | 3.5 | 5.0 | 0.30000000000000004 | -0.75 | 123456789 | 1.0 | 1.5'],
    },
  },
  {
    name: 'rounding like Python',
    doc: [
      '{{ 2.5|round }} | {{ 3.5|round }} | {{ x|round(2) }} | {{ y|round(1) }} | {{ (a / b)|round(3) }} | {{ 2.675|round(2) }}',
    ],
    context: { x: 0.125, y: 1.25, a: 2, b: 3 },
    want: {
      body: ['2.0 | 4.0 | 0.12 | 1.2 | 0.667 | 2.67'],
    },
  },
  {
    name: 'None, True, False',
    doc: [
      '{{ n }} | {{ t }} | {{ f }} | {{ none }} | {{ true }} | {{ t and "yes" }} | {{ f or "fallback" }} | {{ n is none }}',
    ],
    context: { n: null, t: true, f: false },
    want: {
      body: ['None | True | False | None | True | yes | fallback | True'],
    },
  },
  {
    name: 'conditional expression',
    doc: [
      "{{ 'paid' if paid else 'due' }} | {{ x if x else 'none' }} | {{ 'a' if n > 1 else 'b' if n > 0 else 'c' }}",
    ],
    context: { paid: true, x: '', n: 1 },
    want: {
      body: ['paid | none | b'],
    },
  },
  {
    name: 'is defined, undefined top-level variables',
    doc: [
      "{% if foo is defined %}foo={{ foo }}{% else %}no foo{% endif %} | {{ 'yes' if bar is defined else 'no' }} | {{ baz is not defined }} | [{{ missing }}]",
    ],
    context: { foo: 0 },
    want: {
      body: ['foo=0 | no | True | []'],
    },
  },
  {
    name: 'XML special characters in data',
    doc: {
      body: [
        '{{ company }}',
        table([['{{ a }}', '{{ b }}']]),
        "{{ q }} {{ company|upper }} {{ '<b>' }} {{ tag }}",
      ],
      header: ['{{ company }}'],
    },
    context: {
      company: 'Smith & Sons <Ltd> "Q" \'A\'',
      a: 'x < y && y > z',
      b: '&amp; stays literal',
      q: '"double" \'single\'',
      tag: '{{ not a tag }} {% nor this %}',
    },
    want: {
      body: [
        'Smith & Sons <Ltd> "Q" \'A\'',
        'x < y && y > z | &amp; stays literal',
        '"double" \'single\' SMITH & SONS <LTD> "Q" \'A\' <b> {{ not a tag }} {% nor this %}',
      ],
      headers: [['Smith & Sons <Ltd> "Q" \'A\'']],
    },
  },
  {
    name: 'smart quotes inside tags (Word autocorrect)',
    doc: [
      '{{ name|default(\u201canon\u201d) }} | {{ \u2018n/a\u2019 if x is none else x }} | {{ \u201c%.1f\u201d|format(v) }}',
    ],
    context: { x: null, v: 1.25 },
    want: {
      body: ['anon | n/a | 1.2'],
    },
  },
  {
    name: '{%p if %} paragraphs',
    doc: [
      'Before',
      '{%p if show %}',
      'Shown {{ who }}',
      '{%p else %}',
      'Not shown',
      '{%p endif %}',
      '{%p if hide %}',
      'Hidden',
      '{%p elif show %}',
      'Elif branch',
      '{%p endif %}',
      messy(`{%p i${S}f not show %${S}}`),
      'Never',
      messy(`{%p end${S}if %}`),
      'After',
    ],
    context: { show: true, hide: false, who: 'you' },
    want: {
      body: ['Before', 'Shown you', 'Elif branch', 'After'],
    },
  },
  {
    name: '{%p for %} paragraph loops',
    doc: [
      'Items:',
      '{%p for item in items %}',
      '{{ loop.index }}. {{ item.name }}',
      '{%p if item.note %}',
      '   note: {{ item.note }}',
      '{%p endif %}',
      '{%p endfor %}',
      'None:',
      '{%p for x in empty %}',
      'never {{ x }}',
      '{%p endfor %}',
      'End',
    ],
    context: {
      items: [{ name: 'one', note: 'n1' }, { name: 'two' }, { name: 'three', note: '' }],
      empty: [],
    },
    want: {
      body: ['Items:', '1. one', '   note: n1', '2. two', '3. three', 'None:', 'End'],
    },
  },
  {
    name: '{%tr for %} table rows',
    doc: [
      table([
        ['#', 'Name', 'Qty', 'Price'],
        ['{%tr for r in rows %}', '', '', ''],
        ['{{ loop.index }}', '{{ r.name }}', '{{ r.qty }}', '{{ "%.2f"|format(r.price) }}'],
        ['{%tr endfor %}', '', '', ''],
        ['{%tr if discount %}', '', '', ''],
        ['', 'Discount', '', '{{ discount }}'],
        ['{%tr endif %}', '', '', ''],
        ['{%tr if shipping %}', '', '', ''],
        ['', 'Shipping', '', '{{ shipping }}'],
        ['{%tr endif %}', '', '', ''],
        ['', 'Total', '{{ rows|sum(attribute="qty") }}', '{{ total }}'],
      ]),
      table([['{%tr for r in empty %}'], ['{{ r }}'], ['{%tr endfor %}'], ['after empty']]),
    ],
    context: {
      rows: [
        { name: 'Widget', qty: 2, price: 3.5 },
        { name: 'Gadget & Co', qty: 1, price: 10 },
      ],
      total: '17.00',
      discount: '-1.00',
      shipping: 0,
      empty: [],
    },
    want: {
      body: [
        '# | Name | Qty | Price',
        '1 | Widget | 2 | 3.50',
        '2 | Gadget & Co | 1 | 10.00',
        ' | Discount |  | -1.00',
        ' | Total | 3 | 17.00',
        'after empty',
      ],
    },
  },
  {
    name: '{%p for %} and {%p if %} inside table cells',
    doc: [
      table([
        ['Fruits', ['{%p for f in fruits %}', '{{ f|capitalize }}', '{%p endfor %}']],
        ['Flag', ['{%p if flag %}', 'on', '{%p else %}', 'off', '{%p endif %}']],
      ]),
    ],
    context: { fruits: ['apple', 'pear'], flag: false },
    want: {
      body: ['Fruits | Apple / Pear', 'Flag | off'],
    },
  },
  {
    name: '{%tc for %} column loops',
    doc: [
      table([
        ['Name', '{%tc for c in cols %}', '{{ c }}', '{%tc endfor %}'],
        ['{{ name }}', '{%tc for c in cols %}', '{{ loop.index }}', '{%tc endfor %}'],
      ]),
    ],
    context: { cols: ['A', 'B', 'C'], name: 'row' },
    want: {
      body: ['Name | A | B | C', 'row | 1 | 2 | 3'],
    },
  },
  {
    name: '{%r if %} run tags',
    doc: [
      'Status: {%r if paid %}PAID{%r else %}OPEN{%r endif %} today',
      {
        runs: [
          'Due: ',
          '{%r if paid %}',
          { text: 'never', bold: true },
          '{%r else %}',
          { text: '{{ due }}', italic: true },
          '{%r endif %}',
          '.',
        ],
      },
    ],
    context: { paid: false, due: 'tomorrow' },
    want: {
      body: ['Status: OPEN today', 'Due: tomorrow.'],
    },
  },
  {
    name: '{#p comment #} and inline comments',
    doc: [
      'A',
      '{#p this paragraph is a comment #}',
      'B{# inline comment #}C',
      messy(`{#p split ${S}comment #}`),
      'D',
    ],
    context: {},
    want: {
      body: ['A', 'BC', 'D'],
    },
  },
  {
    name: 'whitespace control inline within a paragraph',
    doc: ['Before', `Items:${S} {%- for x in xs -%} [{{ x }}] {%- endfor -%} ${S}done`, 'After'],
    context: { xs: [1, 2, 3] },
    want: {
      body: ['Before', 'Items:[1][2][3]done', 'After'],
    },
  },
  {
    name: 'tags split across runs with formatting changes and proofErr',
    doc: [
      messy(
        `Dear {${S}{ cust${S}omer.na${S}me }${S}}, your order {%${S} if paid %${S}}is paid{% en${S}dif %}.`,
      ),
      messy(`Total: {{ "%.2f"|for${S}mat(to${S}tal) }} EUR{${S}{ x }${S}}`),
      p(`{{ a${S} }}+{${S}{ b }}`, { formats: [{}, { bold: true }], proofErr: true }),
    ],
    context: { customer: { name: 'Jane' }, paid: true, total: 12, x: '!', a: 1, b: 2 },
    want: {
      body: ['Dear Jane, your order is paid.', 'Total: 12.00 EUR!', '1+2'],
    },
  },
  {
    name: 'tags in headers and footers',
    doc: {
      body: ['Body {{ title }}'],
      header: {
        default: [
          '{{ company }} \u2014 Invoice {{ number }}',
          table([['{{ a }}', '{% if b %}B{% endif %}']]),
        ],
        first: [messy(`First: {{ comp${S}any }}`)],
      },
      footer: [
        messy(`Page footer of {${S}{ title|upper }}`),
        '{%p if show_footer_note %}',
        'Note: {{ note }}',
        '{%p endif %}',
      ],
    },
    context: {
      title: 'Doc',
      company: 'ACME',
      number: 'F-1',
      a: 1,
      b: true,
      show_footer_note: true,
      note: 'thanks',
    },
    want: {
      body: ['Body Doc'],
      headers: [['ACME — Invoice F-1', '1 | B'], ['First: ACME']],
      footers: [['Page footer of DOC', 'Note: thanks']],
    },
  },
  {
    name: 'unicode text',
    doc: [
      'Grüße, {{ name }} — 東京 {{ city }} 🎉 {{ emoji }} | {{ name|upper }} | {{ word|title }} | {{ emoji|length }}',
    ],
    context: { name: 'Jürgen Straße', city: 'Tōkyō', emoji: '🎉✓', word: 'élan vital' },
    want: {
      body: ['Grüße, Jürgen Straße — 東京 Tōkyō 🎉 🎉✓ | JÜRGEN STRASSE | Élan Vital | 2'],
    },
  },
  {
    name: 'text box content',
    doc: ['Body {{ a }}', { runs: ['Anchor', { textBox: ['Box {{ b }}', '{% if c %}C{% endif %}'] }] }],
    context: { a: 1, b: 2, c: true },
    want: {
      body: ['Body 1', 'Anchor', 'Box 2', 'C'],
    },
  },
  {
    // Python templates often format money with str.format; other str methods (upper, split, …) work.
    name: 'Python string methods: str.format and % formatting',
    doc: [
      "{{ '{:.2f}'.format(x) }} | {{ '{:,}'.format(big) }} | {{ '{} and {}'.format(s, n) }} | {{ '%.1f' % x }} | {{ s.upper() }}",
    ],
    context: { x: 2.5, big: 1234567, s: 'hi', n: 3 },
    want: {
      body: ['2.50 | 1,234,567 | hi and 3 | 2.5 | HI'],
    },
  },
  {
    name: 'set and loop over range',
    doc: [
      '{% set total = a + b %}{{ total }} | {% for i in range(3) %}{{ i }}{% endfor %} | {% for i in range(1, 4) %}{{ i * 2 }},{% endfor %}',
    ],
    context: { a: 1, b: 2 },
    want: {
      body: ['3 | 012 | 2,4,6,'],
    },
  },
  {
    name: 'printing lists and dicts',
    doc: ['{{ xs }} | {{ names }} | {{ d }}'],
    context: { xs: [1, 2.5, null, true], names: ['a', "b'c"], d: { k: 'v', n: 1 } },
    want: {
      body: ["[1, 2.5, None, True] | ['a', \"b'c\"] | {'k': 'v', 'n': 1}"],
    },
  },
  {
    name: '{%- merges with the previous paragraph (docxtpl feature)',
    doc: ['First', '{%- if x %}X{% endif %} second', 'Third {% if x -%}', 'Fourth{% endif %}', 'Fifth'],
    context: { x: true },
    want: {
      body: ['FirstX second', 'Third Fourth', 'Fifth'],
    },
  },
];

cases.push(...DIALECT_CASES);

function bodyMarks(buf: Buffer): CellMarks {
  return cellMarks(new DocxPackage(buf).text('word/document.xml'));
}

describe('differential: renderDocx against docxtpl', () => {
  const templates = cases.map((c) => buildDocx(c.doc));
  let reference: DocxtplResult[] = [];

  beforeAll(() => {
    // One Python process for all cases.
    reference = renderManyWithDocxtpl(cases.map((c, i) => ({ template: templates[i], context: c.context })));
  });

  function docxtplText(i: number): VisibleText {
    const result = reference[i];
    if (result instanceof Error) throw result;
    return visible(result);
  }

  it('has at least 25 cases with distinct names', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  describe.each(cases.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const c = cases[i];

    it('docxtpl gives the expected text', () => {
      expect(docxtplText(i)).toEqual({
        body: c.want.body,
        headers: c.want.headers ?? [],
        footers: c.want.footers ?? [],
      });
    });

    it('renderDocx gives the same text as docxtpl', () => {
      const ours = engine().renderDocx(templates[i], { template_data: c.context });
      expect(visible(ours)).toEqual(docxtplText(i));
    });

    it('renderDocx gives the same parts from the compile a render with other data kept (the worker)', () => {
      const { CompiledTemplates, renderDocx } = engine();
      const cache = new CompiledTemplates();
      try {
        renderDocx(templates[i], { template_data: {} }, { compiledTemplates: cache });
      } catch {
        // A render that fails on missing data still leaves its compile behind.
      }
      const kept = renderDocx(templates[i], { template_data: c.context }, { compiledTemplates: cache });
      expect(cache.hits).toBe(1);
      expect(new DocxPackage(kept).partsDigest()).toEqual(
        new DocxPackage(renderDocx(templates[i], { template_data: c.context })).partsDigest(),
      );
    });

    if (c.want.title !== undefined) {
      const title = c.want.title;
      it('docxtpl and renderDocx render the document title alike', () => {
        const theirs = reference[i];
        if (theirs instanceof Error) throw theirs;
        const titleOf = (buf: Buffer) => coreTitle(new DocxPackage(buf).text('docProps/core.xml'));
        expect(titleOf(theirs)).toBe(title);
        expect(titleOf(engine().renderDocx(templates[i], { template_data: c.context }))).toBe(title);
      });
    }

    if (c.want.marks) {
      const marks = c.want.marks;
      // Table tags: the vertical merges, spans and shading of every cell, not only the text.
      it('docxtpl and renderDocx mark the table cells alike (w:vMerge, w:gridSpan, w:shd)', () => {
        const theirs = reference[i];
        if (theirs instanceof Error) throw theirs;
        expect(bodyMarks(theirs)).toEqual(marks);
        const ours = engine().renderDocx(templates[i], { template_data: c.context });
        expect(bodyMarks(ours)).toEqual(bodyMarks(theirs));
      });
    }
  });
});

describe('test support', () => {
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );

  it('splits a messy paragraph into separate runs with proofErr and bookmarks, and reads it back as one line', () => {
    const buf = buildDocx([messy(`Hello {{ cust${S}omer.na${S}me }}!`)]);
    const xml = new DocxPackage(buf).text('word/document.xml');
    expect(xml.match(/<w:r[ >]/g)).toHaveLength(3);
    expect(xml).toContain('<w:proofErr w:type="spellStart"/>');
    expect(xml).toContain('<w:proofErr w:type="spellEnd"/>');
    expect(xml).toContain('<w:bookmarkStart ');
    expect(xml).toContain('<w:b/>');
    expect(xml).toContain('<w:t xml:space="preserve">omer.na</w:t>');
    expect(docxText(buf).body).toEqual(['Hello {{ customer.name }}!']);
  });

  it('escapes text and keeps breaks, tabs, tables, text boxes, headers, footers and footnotes apart', () => {
    const buf = buildDocx({
      body: [
        'A & B <c> "d"',
        { runs: ['x\ty\nz', { text: 'bold', bold: true }, { footnote: ['Foot & note'] }] },
        table([['a', ['b1', 'b2']], [{ blocks: ['wide'], gridSpan: 2 }]]),
        { runs: ['anchor', { textBox: ['box 1', 'box 2'] }] },
        '',
      ],
      header: { default: ['head'], first: ['first head'] },
      footer: [{ runs: ['page ', { field: 'PAGE', result: '1' }] }],
    });
    expect(new DocxPackage(buf).text('word/document.xml')).toContain('A &amp; B &lt;c&gt; "d"');
    expect(docxText(buf)).toEqual({
      body: ['A & B <c> "d"', 'x\ty\nzbold', 'a | b1 / b2', 'wide', 'anchor', 'box 1', 'box 2', ''],
      headers: [['head'], ['first head']],
      footers: [['page 1']],
      footnotes: ['Foot & note'],
    });
  });

  it('refuses characters XML cannot hold', () => {
    expect(() => buildDocx(['bad \u0001 char'])).toThrow(/XML cannot hold/);
  });

  it('lists images with their extents and targets', () => {
    const buf = buildDocx({
      body: [{ runs: [{ image: { png, widthMm: 10, heightMm: 5 } }] }],
      header: [{ runs: [{ image: { png, widthMm: 20, heightMm: 20 } }] }],
    });
    expect(docxImages(buf)).toEqual([
      expect.objectContaining({
        part: 'word/document.xml',
        target: 'word/media/image2.png',
        exists: true,
        cx: 360000,
        cy: 180000,
      }),
      expect.objectContaining({
        part: 'word/header1.xml',
        target: 'word/media/image1.png',
        exists: true,
        cx: 720000,
        cy: 720000,
      }),
    ]);
  });

  it('runs docxtpl, and reports its errors', () => {
    const out = renderWithDocxtpl(buildDocx(['{{ a }} & {{ b }}']), { a: '<1>', b: 2 });
    expect(docxText(out).body).toEqual(['<1> & 2']);
    expect(() => renderWithDocxtpl(buildDocx(['{% if %}']), {})).toThrow(DocxtplError);
  });
});
