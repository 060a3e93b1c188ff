import { buildDocx, messy, p, table, SPLIT as S } from '../../../../test/support/docx-builder';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { lintDocxTemplate } from './lint-template';
import { LintReportSchema } from './lint-report';

describe('lintDocxTemplate', () => {
  it('passes a sound template, counting its tags', () => {
    const report = lintDocxTemplate(
      buildDocx([p('Hi {{ name }}'), p('{% for x in xs %}{{ x }}{% endfor %}')]),
    );
    expect(report.success).toBe(true);
    expect(report.errors).toEqual([]);
    expect(report.summary).toEqual(
      expect.objectContaining({
        total_errors: 0,
        jinja_tags_count: 4,
        lines_count: 2,
        completeness_score: 100,
      }),
    );
  });

  it('knows the filters docxtpl users register (num2words, dateformat, datetimeformat), and suggests them', () => {
    const sound = lintDocxTemplate(
      buildDocx([
        p("{{ total | num2words(lang='ru', to='currency', currency='RUB') }}"),
        p("{{ d | dateformat('%d.%m.%Y') }} {{ d | datetimeformat }}"),
      ]),
    );
    expect(sound.errors).toEqual([]);
    const typo = lintDocxTemplate(buildDocx([p("{{ total | num2word(lang='ru') }}")]));
    expect(typo.errors.map((e) => [e.code, e.suggestion])).toEqual([
      ['unknown_filter', "Did you mean the filter 'num2words'?"],
    ]);
  });

  it('finds every problem at once, each with its location and a suggestion', () => {
    const report = lintDocxTemplate(
      buildDocx([
        p('Total {{ total | rond(2) }}'),
        p('{% if paid %}Paid'),
        p('{% for x in xs %}{{ x }}{% endif %}'),
        p('{{ a + }}'),
        p('{% frobnicate %}'),
        p('{{ customer.'),
        p('{% if a %}'),
        table([['x', 'y{% endif %}']]),
      ]),
    );
    expect(report.success).toBe(false);
    expect(report.errors.map((e) => [e.line_number, e.column, e.error_type, e.code])).toEqual([
      [1, 7, 'invalid_expression', 'unknown_filter'],
      [2, 1, 'unclosed_tag', 'unclosed_block'],
      [3, 1, 'unclosed_tag', 'unclosed_block'],
      [3, 25, 'mismatched_tag', 'mismatched_block'],
      [4, 1, 'syntax_error', 'syntax_error'],
      [5, 1, 'syntax_error', 'unknown_tag'],
      [6, 1, 'syntax_error', 'tag_not_closed'],
      [7, 1, 'nested_error', 'block_crosses_table_cells'],
    ]);
    expect(report.errors[0].suggestion).toBe("Did you mean the filter 'round'?");
    expect(report.errors[7].location).toEqual({
      part: 'word/document.xml',
      paragraph: 7,
      line: 7,
      table: null,
    });
    expect(report.errors[7].suggestion).toMatch(/^Did you mean '\{%tr if a %\}'/);
    expect(report.errors.every((e) => e.suggestion && e.message && e.context)).toBe(true);
  });

  it('warns about a tag Word split across paragraphs, which renders joined as in docxtpl (issue 34)', () => {
    const report = lintDocxTemplate(
      buildDocx({
        body: [
          p('Intro'),
          table([[[p('{{ item.sa'), p('}} left')], 'x']]),
          p('{# a'),
          p('b'),
          p('#}'),
          p('{{ a + }}'),
        ],
        footer: [p('{{ b + }}')],
      }),
    );
    expect(report.success).toBe(false);
    // Lines are Word's paragraphs: the ones after a joined tag keep their numbers.
    expect(report.errors.map((e) => [e.code, e.line_number, e.location?.paragraph])).toEqual([
      ['syntax_error', 8, 8],
      ['syntax_error', 9, 1],
    ]);
    expect(report.warnings.map((w) => [w.code, w.line_number, w.column, w.tag])).toEqual([
      ['tag_split_across_paragraphs', 2, 1, '{{ item.sa}}'],
      ['tag_split_across_paragraphs', 5, 1, '{# ab#}'],
    ]);
    expect(report.warnings[0].location?.table).toEqual({ table: 1, row: 1, cell: 1 });
    expect(report.warnings[1].message).toContain('split across 3 paragraphs');
  });

  it('refuses a tag split across table cells or into a hyperlink, where its first half is', () => {
    const report = lintDocxTemplate(
      buildDocx([
        p('Intro'),
        table([['{{ a', '}} b']]),
        p('{% if x'),
        { runs: [{ raw: '<w:hyperlink w:anchor="x"><w:r><w:t>%}</w:t></w:r></w:hyperlink>' }] },
      ]),
    );
    expect(report.errors.map((e) => [e.code, e.line_number, e.column, e.tag])).toEqual([
      ['tag_split_across_cells', 2, 1, '{{ a'],
      ['tag_split_unjoinable', 4, 1, '{% if x'],
    ]);
    // Counted as tags, as unclosed ones are.
    expect(report.summary.jinja_tags_count).toBe(2);
  });

  it('finds a tag Word split across runs like the renderer does', () => {
    const report = lintDocxTemplate(buildDocx([messy(`{{ cus${S}tomer | bo${S}gus }}`)]));
    expect(report.errors.map((e) => [e.code, e.tag])).toEqual([['unknown_filter', '{{ customer | bogus }}']]);
  });

  it('warns about near-identical names, dashed keys and image placeholders without an image', () => {
    const report = lintDocxTemplate(
      buildDocx([
        p('{{ customer.name }} {{ customer.name }} {{ customer.nmae }}'),
        p('{{ contact.e-mail }}'),
        p('{{ logo }}'),
      ]),
      { imageNames: [] },
    );
    expect(report.success).toBe(true);
    expect(report.warnings.map((w) => [w.code, w.line_number, w.column])).toEqual([
      ['similar_variable_name', 1, 41],
      ['image_without_image', 3, 1],
      ['dash_in_name', 2, 1],
    ]);
    expect(report.warnings[2].suggestion).toBe("Write contact['e-mail'] for the key 'e-mail'");
    expect(lintDocxTemplate(buildDocx([p('{{ logo }}')]), { imageNames: ['logo'] }).warnings).toEqual([]);
  });

  it('warns about delimiters a space broke and closers without an opener', () => {
    const report = lintDocxTemplate(
      buildDocx([p('Dear { { name }}'), p('Total: total }}'), p('{{ fine }}')]),
    );
    expect(report.warnings.map((w) => [w.code, w.line_number, w.column])).toEqual([
      ['broken_tag_delimiter', 1, 6],
      ['broken_tag_delimiter', 2, 14],
    ]);
  });

  it('fails on warnings when asked', () => {
    const docx = buildDocx([p('{{ a-b }}')]);
    expect(lintDocxTemplate(docx).success).toBe(true);
    expect(lintDocxTemplate(docx, { failOnWarnings: true }).success).toBe(false);
  });

  // Issue 23: what the renderer renders lints clean; what it refuses is an error with its fix.
  it('passes blocks that open in one cell and close in a later cell or row, as the renderer renders them', () => {
    const report = lintDocxTemplate(
      buildDocx([
        table([
          ['{% for x in xs %}{{ x }}', 'y'],
          ['z', '{% endfor %}'],
        ]),
        table([
          ['{%p if a %}', 'b'],
          ['c', '{%p endif %}'],
        ]),
      ]),
    );
    expect(report.errors).toEqual([]);
  });

  it('reads names in any alphabet', () => {
    const report = lintDocxTemplate(
      buildDocx([p('{{ versión }} {{ участник }} {{ 名前 }} {{ адрес_участника.город }}')]),
    );
    expect(report.errors).toEqual([]);
  });

  it.each([
    ['{{ name }!', 'syntax_error', /^Did you mean '}}'\?/],
    ['{% if x }', 'syntax_error', /^Did you mean '%}'\?/],
    ['{% tr for x in xs %}', 'syntax_error', /^Did you mean '\{%tr for x in xs %\}'/],
    ['{{%r if x %}}', 'syntax_error', /^Did you mean '\{%r if x %\}'/],
    ['{% fro x in xs %}', 'syntax_error', /^Did you mean '\{% for … %\}'\?/],
    ['{{ a $ b }}', 'syntax_error', /^Remove '\$'/],
    ['{{ "open }}', 'syntax_error', /quote/],
    ['{% endif %}', 'mismatched_tag', /^Add the \{% if … %\}/],
    ['{% vm %}', 'nested_error', /^Move the \{% vm %\} tag into the table cell/],
    ['{{ u|urlize }}', 'invalid_expression', /^Print the address as text/],
    ['{% for x in xs %}{% if x %}{% endfor %}{% endif %}', 'mismatched_tag', /^End the inner block first/],
  ])('%s: %s, with its fix', (text, type, fix) => {
    const report = lintDocxTemplate(buildDocx([p(text)]));
    const error = report.errors.find((e) => e.error_type === type);
    expect(error?.suggestion).toMatch(fix);
    // One error scores under 80, as the seed system scores it.
    expect(report.summary.completeness_score).toBeLessThan(80);
  });

  it('nested_error for blocks nested more than 10 deep, which the renderer refuses too', () => {
    const deep = (n: number) => buildDocx([p('{% if a %}'.repeat(n) + 'x' + '{% endif %}'.repeat(n))]);
    expect(lintDocxTemplate(deep(10)).errors).toEqual([]);
    const report = lintDocxTemplate(deep(11));
    expect(report.errors.map((e) => [e.error_type, e.code])).toEqual([['nested_error', 'nesting_too_deep']]);
  });

  it('document_error for a document without text', () => {
    const report = lintDocxTemplate(buildDocx([p(''), p('  ')]));
    expect(report.success).toBe(false);
    expect(report.errors.map((e) => [e.error_type, e.code])).toEqual([['document_error', 'empty_document']]);
  });

  it('long_line warnings for paragraphs longer than max_line_length, only when asked', () => {
    const docx = buildDocx([p('short {{ a }}'), p('x'.repeat(30) + ' {{ b }}')]);
    expect(lintDocxTemplate(docx).warnings).toEqual([]);
    const report = lintDocxTemplate(docx, { maxLineLength: 20 });
    expect(report.warnings.map((w) => [w.warning_type, w.line_number, w.column])).toEqual([
      ['long_line', 2, 21],
    ]);
    expect(report.warnings[0].message).toBe('Line 2 is 38 characters long (more than 20)');
  });

  it('does not call names that differ by a digit or in a short field typos', () => {
    const report = lintDocxTemplate(
      buildDocx([
        p('{{ sum1 }} {{ sum1 }} {{ sum2 }} {{ name1 }} {{ name1 }} {{ name2 }}'),
        p('{{ employee1 }} {{ employee1 }} {{ employee3 }}'),
        p('{% for row in rows %}{{ row.q }}{{ row.q }}{{ row.t }}{% endfor %}'),
        p('{% for vm in vms %}{{ vm.nom }}{{ vm.nom }}{{ vm.ram }}{% endfor %}'),
        p('{{ customer.name }} {{ customer.name }} {{ customer.nmae }}'),
      ]),
    );
    expect(report.warnings.map((w) => [w.code, w.line_number])).toEqual([['similar_variable_name', 5]]);
  });

  it('refuses what is not a .docx with the typed error', () => {
    expect(() => lintDocxTemplate(Buffer.from('plain text'))).toThrow(/not a Word document/);
  });
});

describe('LintReportSchema', () => {
  it('describes every report lintDocxTemplate gives (the OpenAPI document is this schema)', () => {
    const fixtures = join(__dirname, '../../../../bench/fixtures');
    const reports = [
      lintDocxTemplate(readFileSync(join(fixtures, 'invoice.docx')), { verbose: true }),
      lintDocxTemplate(readFileSync(join(fixtures, 'contract.docx'))),
      // Errors and warnings in a table cell, split across runs, verbose: every optional field.
      lintDocxTemplate(
        buildDocx([
          table([[`{% for x in items %}{{ x | bo${S}gus }}`], ['{{ custmer.name }}']]),
          p('{{ customer.name }}'),
        ]),
        { verbose: true, maxLineLength: 5 },
      ),
    ];
    expect(reports[2].errors.length + reports[2].warnings.length).toBeGreaterThan(1);
    for (const report of reports) expect([...Value.Errors(LintReportSchema, report)]).toEqual([]);
    expect(Value.Check(LintReportSchema, { ...reports[0], errors: [{ code: 'x' }] })).toBe(false);
  });
});
