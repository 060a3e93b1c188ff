import { buildDocx, messy, p, table, SPLIT as S } from '../../../../test/support/docx-builder';
import { lintDocxTemplate } from './lint-template';

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

  it('finds every problem at once, each with its location and a suggestion', () => {
    const report = lintDocxTemplate(
      buildDocx([
        p('Total {{ total | rond(2) }}'),
        p('{% if paid %}Paid'),
        p('{% for x in xs %}{{ x }}{% endif %}'),
        p('{{ a + }}'),
        p('{% frobnicate %}'),
        p('{{ customer.'),
        table([['{% if a %}x', 'y{% endif %}']]),
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
      [6, 1, 'unclosed_tag', 'tag_split_across_paragraphs'],
      [7, 1, 'nested_error', 'block_crosses_table_cells'],
    ]);
    expect(report.errors[0].suggestion).toBe("Did you mean the filter 'round'?");
    expect(report.errors[7].location).toEqual({
      part: 'word/document.xml',
      paragraph: 7,
      line: 7,
      table: { table: 1, row: 1, cell: 1 },
    });
    expect(report.errors.every((e) => e.suggestion && e.message && e.context)).toBe(true);
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

  it('refuses what is not a .docx with the typed error', () => {
    expect(() => lintDocxTemplate(Buffer.from('plain text'))).toThrow(/not a Word document/);
  });
});
