/**
 * Differential cases for the docxtpl dialect in full (issue 10): docxtpl's table tags, literal
 * braces, whitespace control as paragraph merges, `\a` / `\f` in values, blocks across paragraphs,
 * and Jinja's statements, filters, tests and str methods. Run by test/differential.e2e-spec.ts
 * against docxtpl; `want` is docxtpl's output, checked by hand.
 */
import { messy, table, SPLIT as S } from './docx-builder';
import type { BlockSpec, DocxSpec } from './docx-builder';

/** Each table's grid widths, then per table cell of the body, in document order: `vMerge|gridSpan|shd fill` ('' when absent). */
export type CellMarks = string[];

export interface DialectCase {
  name: string;
  doc: DocxSpec | BlockSpec[];
  context: Record<string, unknown>;
  want: { body: string[]; headers?: string[][]; footers?: string[][]; marks?: CellMarks; title?: string };
}

/** The document's title (docProps/core.xml), which docxtpl renders as a template too. */
export function coreTitle(xml: string): string {
  const raw = /<dc:title>([^<]*)<\/dc:title>/.exec(xml)?.[1] ?? '';
  return raw
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** The merge, span and shading marks of every table cell of a document part's XML. */
export function cellMarks(xml: string): CellMarks {
  const out: string[] = [];
  // And each table's grid, which docxtpl rescales when a table gains or loses columns.
  for (const g of xml.matchAll(/<w:tblGrid>([\s\S]*?)<\/w:tblGrid>/g))
    out.push(`grid ${[...g[1].matchAll(/w:w="(\d+)"/g)].map((w) => w[1]).join(',')}`);
  for (const m of xml.matchAll(/<w:tc>([\s\S]*?)<\/w:tc>/g)) {
    const tcPr = /<w:tcPr>([\s\S]*?)<\/w:tcPr>/.exec(m[1])?.[1] ?? '';
    const vMerge = /<w:vMerge(?: w:val="(\w+)")?\/>/.exec(tcPr);
    const span = /<w:gridSpan w:val="([^"]*)"\/>/.exec(tcPr)?.[1] ?? '';
    const fill = /<w:shd [^>]*w:fill="([^"]*)"/.exec(tcPr)?.[1] ?? '';
    out.push(`${vMerge ? (vMerge[1] ?? 'continue') : ''}|${span}|${fill}`);
  }
  return out;
}

const ROWS = [
  { group: 'Fruit', name: 'Apple', qty: 3 },
  { group: 'Fruit', name: 'Pear', qty: 1 },
  { group: 'Veg', name: 'Leek', qty: 2 },
];

export const DIALECT_CASES: DialectCase[] = [
  {
    name: '{% vm %} merges a looped column vertically',
    doc: [
      table([
        ['Group', 'Item'],
        ['{%tr for r in rows %}', ''],
        [messy(`{% v${S}m %}{{ r.gr${S}oup }}`), '{{ r.name }}'],
        ['{%tr endfor %}', ''],
      ]),
    ],
    context: { rows: ROWS },
    want: {
      body: ['Group | Item', 'Fruit | Apple', ' | Pear', ' | Leek'],
      marks: ['grid 4535,4535', '||', '||', 'restart||', '||', 'continue||', '||', 'continue||', '||'],
    },
  },
  {
    name: '{% vm %} inside nested loops restarts with each inner loop',
    doc: [
      table([
        ['{%tr for g in groups %}', ''],
        ['{%tr for it in g.members %}', ''],
        ['{% vm %}{{ g.name }}', '{{ it }}'],
        ['{%tr endfor %}', ''],
        ['{%tr endfor %}', ''],
      ]),
    ],
    context: {
      groups: [
        { name: 'A', members: ['a1', 'a2'] },
        { name: 'B', members: ['b1', 'b2', 'b3'] },
      ],
    },
    want: {
      body: ['A | a1', ' | a2', 'B | b1', ' | b2', ' | b3'],
      marks: [
        'grid 4535,4535',
        'restart||',
        '||',
        'continue||',
        '||',
        'restart||',
        '||',
        'continue||',
        '||',
        'continue||',
        '||',
      ],
    },
  },
  {
    name: '{% hm %} merges looped columns horizontally',
    doc: [
      table([
        ['Year', '{%tc for q in quarters %}', messy(`{% h${S}m %}{{ ye${S}ar }}`), '{%tc endfor %}'],
        ['Quarter', '{%tc for q in quarters %}', '{{ q }}', '{%tc endfor %}'],
      ]),
    ],
    context: { year: 2024, quarters: ['Q1', 'Q2', 'Q3', 'Q4'] },
    want: {
      body: ['Year | 2024', 'Quarter | Q1 | Q2 | Q3 | Q4'],
      marks: ['grid 1814,1814,1814,1814,1814', '||', '|4|', '||', '||', '||', '||', '||'],
    },
  },
  {
    name: '{% colspan %} with an expression and {% cellbg %}',
    doc: [
      table([
        [{ blocks: [messy(`{% col${S}span n + 1 %}Wide`)], gridSpan: 1 }, 'x', 'y'],
        ['{% cellbg color %}Red', { blocks: ["{% cellbg '00FF00' %}Green"], shading: '0000FF' }, 'plain'],
        ['{%tr for r in rows %}', '', ''],
        ["{% cellbg 'FFFF00' if r.qty > 1 else 'FFFFFF' %}{{ r.name }}", '{{ r.qty }}', ''],
        ['{%tr endfor %}', '', ''],
      ]),
    ],
    context: { n: 1, color: 'FF0000', rows: ROWS },
    want: {
      body: ['Wide | x | y', 'Red | Green | plain', 'Apple | 3 | ', 'Pear | 1 | ', 'Leek | 2 | '],
      marks: [
        'grid 3022,3022,3022',
        '|2|',
        '||',
        '||',
        '||FF0000',
        '||00FF00',
        '||',
        '||FFFF00',
        '||',
        '||',
        '||FFFFFF',
        '||',
        '||',
        '||FFFF00',
        '||',
        '||',
      ],
    },
  },
  {
    name: 'literal braces {_% %_} {_{ }_} in body, header and values',
    doc: {
      body: ['Write {_{ name }_} or {_% if x %_}…{_% endif %_}.', messy(`Value: {{ v${S}al }}`)],
      header: ['Header {_{ literal }_}'],
    },
    context: { val: 'a {_{ b }_} c' },
    want: {
      body: ['Write {{ name }} or {% if x %}…{% endif %}.', 'Value: a {{ b }} c'],
      headers: [['Header {{ literal }}']],
    },
  },
  {
    name: '{%- … -%} joins paragraphs and keeps the spaces beside them',
    doc: [
      { runs: ['My house is located ', '{%- if urban -%}', ' in urban area ', '{%- endif -%}', '\u00a0and'] },
      'is nice.',
      'Before',
      '{%- if x %}',
      'Inside {{ x }}',
      '{% endif -%}',
      'After',
    ],
    context: { urban: true, x: 'X' },
    want: { body: ['My house is located  in urban area  and', 'is nice.', 'Before', 'Inside X', 'After'] },
  },
  {
    name: 'whitespace control on expressions and comments strips like Jinja',
    doc: [`a {{- x -}} b {#- note -#} c`, messy(`[${S} {{- y }}${S} ]`)],
    context: { x: 1, y: 2 },
    want: { body: ['a1bc', '[2 ]'] },
  },
  {
    name: 'a block opened in a paragraph and closed alone in a later one',
    doc: [
      'Dear {% if formal %}Sir or Madam,',
      'we write to you',
      '{% endif %}',
      'Regards {% for n in names %}{{ n }}',
      '{% endfor %}',
      'End',
    ],
    context: { formal: true, names: ['Ann', 'Bob'] },
    want: { body: ['Dear Sir or Madam,', 'we write to you', '', 'Regards Ann', 'Bob', '', 'End'] },
  },
  {
    name: '\\a in a value starts a paragraph, \\f a page',
    doc: [
      messy(`Lines: {{ li${S}nes }}`, { align: 'center' }),
      { runs: [{ text: 'Pages: {{ pages }}', bold: true }] },
      table([['{{ cell }}']]),
    ],
    context: { lines: 'one\u0007two\u0007three', pages: 'p1\u000cp2', cell: 'c1\u0007c2' },
    want: { body: ['Lines: one', 'two', 'three', 'Pages: p1', '\f', 'p2', 'c1 / c2'] },
  },
  {
    name: 'macro and call',
    doc: [
      '{% macro money(v, cur="EUR") %}{{ "%.2f"|format(v) }} {{ cur }}{% endmacro %}Total: {{ money(total) }} / {{ money(total, cur="USD") }}',
      '{% macro box(title) %}[{{ title }}: {{ caller() }}]{% endmacro %}{% call box("Note") %}inner {{ who }}{% endcall %}',
      messy(
        `{% mac${S}ro each(xs) %}{% for x in xs %}{{ caller(x) }}{% if not loop.last %}, {% endif %}{% endfor %}{% endmacro %}{% macro li(x) %}<{{ x }}>{% endmacro %}{{ li('a') }}`,
      ),
      '{% call(item) each(items) %}{{ item|upper }}{% endcall %} {{ each }}',
    ],
    context: { total: 12.5, who: 'me', items: ['x', 'y'] },
    want: { body: ['Total: 12.50 EUR / 12.50 USD', '[Note: inner me]', '<a>', "X, Y <Macro 'each'>"] },
  },
  {
    name: 'with, raw, namespace, block set, filter block',
    doc: [
      '{% with a = 2, b = 3 %}{{ a * b }}{% endwith %} [{{ a }}]',
      messy(`{% ra${S}w %}{{ kept }} {% if x %}{% endr${S}aw %}`),
      '{% set ns = namespace(total=0, names=[]) %}{% for r in rows %}{% set ns.total = ns.total + r.qty %}{% endfor %}total={{ ns.total }}',
      '{% set greeting %}Hello {{ who }}!{% endset %}{{ greeting }} {{ greeting|length }}',
      '{% set loud | upper %}quiet {{ who }}{% endset %}{{ loud }} {% filter title %}one two {{ who }}{% endfilter %}',
    ],
    context: { rows: ROWS, who: 'ann' },
    want: { body: ['6 []', '{{ kept }} {% if x %}', 'total=6', 'Hello ann! 10', 'QUIET ANN One Two Ann'] },
  },
  {
    name: 'recursive loops, loop.depth and loop.changed()',
    doc: [
      messy(
        `{% for n in tree recur${S}sive %}{{ n.name }}({{ loop.de${S}pth }}/{{ loop.depth0 }}){% if n.children %}[{{ lo${S}op(n.children) }}]{% endif %}{% endfor %}`,
      ),
      '{% for r in rows %}{% if loop.changed(r.group) %}{{ r.group }}: {% endif %}{{ r.name }} {% endfor %}',
      '{% for x in xs %}{{ loop.cycle("a", "b") }}{{ loop.previtem|default("-") }}{{ loop.nextitem|default("-") }} {% endfor %}',
    ],
    context: {
      tree: [{ name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] }, { name: 'd' }],
      rows: ROWS,
      xs: [1, 2, 3],
    },
    want: { body: ['a(1/0)[b(2/1)[c(3/2)]]d(1/0)', 'Fruit: Apple Pear Veg: Leek ', 'a-2 b13 a2- '] },
  },
  {
    name: 'recursive loop over paragraphs',
    doc: [
      '{%p for n in tree recursive %}',
      '{{ "  " * loop.depth0 }}- {{ n.name }}',
      '{{ loop(n.children or []) }}',
      '{%p endfor %}',
    ],
    context: { tree: [{ name: 'a', children: [{ name: 'b' }] }, { name: 'c' }] },
    want: { body: ['- a', '  - b', '- c', ''] },
  },
  {
    name: 'filters: groupby, slice, batch, wordwrap, indent',
    doc: [
      messy(
        `{% for g in rows|grou${S}pby('group') %}{{ g.grou${S}per }}={{ g.list|map(attribute='name')|join('+') }}; {% endfor %}`,
      ),
      "{% for grouper, items in rows|groupby('group') %}{{ grouper }}:{{ items|length }} {% endfor %}",
      '{{ xs|slice(3)|list }} {{ xs|slice(3, 0)|list }} {{ xs|batch(3)|list }} {{ xs|batch(3, 0)|list }}',
      "{{ text|wordwrap(12) }}|{{ text|wordwrap(8, wrapstring=' / ') }}",
      '{{ "a\\nb\\n\\nc"|indent(2) }}|{{ "x\\ny"|indent(3, true) }}',
    ],
    context: { rows: ROWS, xs: [1, 2, 3, 4, 5, 6, 7], text: 'The quick brown fox jumps over the lazy dog' },
    want: {
      body: [
        'Fruit=Apple+Pear; Veg=Leek; ',
        'Fruit:2 Veg:1 ',
        '[[1, 2, 3], [4, 5], [6, 7]] [[1, 2, 3], [4, 5, 0], [6, 7, 0]] [[1, 2, 3], [4, 5, 6], [7]] [[1, 2, 3], [4, 5, 6], [7, 0, 0]]',
        'The quick\nbrown fox\njumps over\nthe lazy dog|The / quick / brown / fox / jumps / over the / lazy dog',
        'a\n  b\n\n  c|   x\n   y',
      ],
    },
  },
  {
    name: 'filters: striptags, urlencode, filesizeformat, pprint, xmlattr, tojson, forceescape',
    doc: [
      '{{ html|striptags }} | {{ q|urlencode }} | {{ {"q": q, "n": 1}|urlencode }}',
      '{{ 1|filesizeformat }} {{ 1500|filesizeformat }} {{ 123456789|filesizeformat }} {{ 2048|filesizeformat(true) }}',
      '{{ d|pprint }} | {{ {"class": "x", "n": none}|xmlattr }} | {{ d|tojson }} | {{ plain|forceescape }}',
    ],
    context: { html: '<p>Hi <b>there</b></p>', q: 'a b/c?', d: { b: 1, a: [1, 'x'] }, plain: 'txt' },
    want: {
      body: [
        'Hi there | a%20b/c%3F | q=a+b%2Fc%3F&n=1',
        '1 Byte 1.5 kB 123.5 MB 2.0 KiB',
        '{\'a\': [1, \'x\'], \'b\': 1} |  class="x" | {"a": [1, "x"], "b": 1} | txt',
      ],
    },
  },
  {
    name: 'every other Jinja filter',
    doc: [
      "{{ -3|abs }} {{ d|attr('missing') }} {{ 'ab'|capitalize }} {{ 'ab'|center(6) }}| {{ xs|count }} {{ none|d('d') }} {{ m|default('m') }} {{ d|dictsort }} {{ 'x'|e }} {{ 'x'|escape }}",
      "{{ xs|first }} {{ '2.5'|float }} {{ '%05.1f'|format(2.25) }} {{ '12'|int + 1 }} {{ d|items|list }} {{ xs|join('-') }} {{ xs|last }} {{ 'abc'|length }} {{ 'x'|list }} {{ 'AB'|lower }}",
      "{{ rows|map(attribute='qty')|list }} {{ xs|max }} {{ xs|min }} {{ rows|max(attribute='qty')|attr('name') }} {{ xs|reject('odd')|list }} {{ rows|rejectattr('qty', 'gt', 1)|map(attribute='name')|join }}",
      "{{ 'aXbX'|replace('X', '-') }} {{ xs|reverse|list }} {{ 2.567|round(2) }} {{ 2.5|round(0, 'ceil') }} {{ 'x'|safe }} {{ xs|select('even')|list }} {{ rows|selectattr('qty', 'eq', 1)|map(attribute='name')|join }}",
      "{{ [3, 1, 2]|sort }} {{ rows|sort(attribute='qty', reverse=true)|map(attribute='name')|join(',') }} {{ 5|string ~ '!' }} {{ xs|sum }} {{ rows|sum(attribute='qty') }} {{ 'ab cd'|title }}",
      "{{ '  t  '|trim }} {{ 'a long sentence here'|truncate(12, leeway=0) }} {{ [1, 1, 2]|unique|list }} {{ 'ab'|upper }} {{ 'one two three'|wordcount }} {{ xs|random in xs }}",
    ],
    context: { xs: [1, 2, 3, 4], d: { b: 2, a: 1 }, rows: ROWS },
    want: {
      body: [
        "3  Ab   ab  | 4 None m [('a', 1), ('b', 2)] x x",
        "1 2.5 002.2 13 [('b', 2), ('a', 1)] 1-2-3-4 4 3 ['x'] ab",
        '[3, 1, 2] 4 1  [2, 4] Pear',
        'a-b- [4, 3, 2, 1] 2.57 3.0 x [2, 4] Pear',
        '[1, 2, 3] Apple,Leek,Pear 5! 10 6 Ab Cd',
        't a long... [1, 2] AB 3 True',
      ],
    },
  },
  {
    name: 'every Jinja test, and is in / in with list literals',
    doc: [
      '{{ x is boolean }} {{ range is callable }} {{ x is defined }} {{ 6 is divisibleby 3 }} {{ 1 is eq 1 }} {{ 1 is equalto 1 }} {{ "x" is escaped }} {{ 2 is even }} {{ false is false }}',
      '{{ "upper" is filter }} {{ 1.5 is float }} {{ 2 is ge 1 }} {{ 2 is gt 1 }} {{ 2 is greaterthan 1 }} {{ 3 is in [1, 2, 3] }} {{ 4 is not in [1, 2] }} {{ 1 is integer }} {{ xs is iterable }}',
      '{{ 1 is le 1 }} {{ 1 is lessthan 2 }} {{ "a" is lower }} {{ 1 is lt 2 }} {{ d is mapping }} {{ 1 is ne 2 }} {{ none is none }} {{ 1 is number }} {{ 3 is odd }} {{ x is sameas true }}',
      "{{ xs is sequence }} {{ 'a' is string }} {{ 'odd' is test }} {{ x is true }} {{ y is undefined }} {{ 'A' is upper }} {{ 'b' in ['a', 'b'] }} {{ 'k' in {'k': 1} }} {% if r in ('x', 'y') %}xy{% endif %}",
    ],
    context: { x: true, xs: [1, 2], d: { k: 1 }, r: 'y' },
    want: {
      body: [
        'True True True True True True False True True',
        'True True True True True True True True True',
        'True True True True True True True True True True',
        'True True True True True True True True xy',
      ],
    },
  },
  {
    name: 'str methods',
    doc: [
      "{{ s.rsplit(',', 1) }} {{ s.split(',', 1) }} {{ s.count(',') }} {{ s.find('b') }} {{ s.rfind(',') }} {{ s.index('c') }} {{ s.partition(',') }} {{ s.rpartition(',') }}",
      "{{ '7'.zfill(3) }} {{ 'ab'.ljust(4, '.') }}| {{ 'ab'.rjust(4) }} {{ 'ab'.center(6, '*') }} {{ ml.splitlines() }} {{ 'hello world'.title() }} {{ 'aBc'.swapcase() }}",
      "{{ '123'.isdigit() }} {{ 'abc'.isalpha() }} {{ 'a1'.isalnum() }} {{ ' '.isspace() }} {{ 'ab'.islower() }} {{ 'AB'.isupper() }} {{ 'Ab Cd'.istitle() }} {{ 'x.docx'.removesuffix('.docx') }} {{ s.startswith(('q', 'a')) }}",
    ],
    context: { s: 'a,b,c', ml: 'one\ntwo' },
    want: {
      body: [
        "['a,b', 'c'] ['a', 'b,c'] 2 2 3 4 ('a', ',', 'b,c') ('a,b', ',', 'c')",
        "007 ab..|   ab **ab** ['one', 'two'] Hello World AbC",
        'True True True True True True True x True',
      ],
    },
  },
  {
    name: 'dialect in headers, text boxes and tables',
    doc: {
      body: [
        {
          runs: [
            'Anchor',
            {
              textBox: [
                '{% macro t(x) %}<{{ x }}>{% endmacro %}{{ t(a) }}',
                '{% set ns = namespace(n=1) %}{% set ns.n = ns.n + 1 %}n={{ ns.n }}',
              ],
            },
          ],
        },
        table([
          [
            messy(`{{ items|gro${S}upby('group')|map(attribute='grouper')|join(', ') }}`),
            '{{ "%s"|format(a) }}',
          ],
        ]),
      ],
      header: [messy(`Page of {_{ ${S}x }_} {{ a|wordwrap(3) }}`)],
      footer: ['{% for x in [1, 2] %}{{ x is in [2] }}{% endfor %}'],
    },
    context: { a: 'abc def', items: ROWS },
    want: {
      body: ['Anchor', '<abc def>', 'n=2', 'Fruit, Veg | abc def'],
      headers: [['Page of {{ x }} abc\ndef']],
      footers: [['FalseTrue']],
    },
  },
  {
    name: 'tags in the document title (docProps), where {_{ stays as written',
    doc: { body: ['{{ a }}'], title: 'Offer {{ t|upper }} {% if n > 1 %}x{{ n }}{% endif %} {_{ kept }_}' },
    context: { a: 1, t: 'acme', n: 2 },
    want: { body: ['1'], title: 'Offer ACME x2 {_{ kept }_}' },
  },
  {
    name: 'column loops widen the table grid as docxtpl does',
    doc: [
      table(
        [
          ['Name', '{%tc for c in cols %}', '{{ c }}', '{%tc endfor %}'],
          ['{{ name }}', '{%tc for c in cols %}', '{{ loop.index }}', '{%tc endfor %}'],
        ],
        { widthsMm: [40, 10, 30, 10] },
      ),
      table([['{%tc for c in few %}', '{{ c }}', '{%tc endfor %}', 'end']], { widthsMm: [20, 30, 20, 40] }),
    ],
    context: { cols: ['A', 'B', 'C', 'D', 'E'], name: 'row', few: [] },
    want: {
      body: ['Name | A | B | C | D | E', 'row | 1 | 2 | 3 | 4 | 5', 'end'],
      marks: [
        'grid 1512,378,1134,378,850,850',
        'grid 6237',
        '||',
        '||',
        '||',
        '||',
        '||',
        '||',
        '||',
        '||',
        '||',
        '||',
        '||',
        '||',
        '||',
      ],
    },
  },
];
