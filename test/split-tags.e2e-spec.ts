/**
 * Tags Word split across paragraphs (issue 34), beyond the body cases of
 * test/support/split-tag-cases.ts (which test/dialect-leniency.e2e-spec.ts renders against docxtpl):
 * in a Word-written document (test/fixtures/contract-toc.docx) and in headers and footers, as
 * docxtpl renders them; across table cells, where docxtpl's join drops
 * a cell from the row (checked here), and into a hyperlink, where docxtpl loses the rest of the
 * document, both refused with a typed error; what lint says of each; and
 * the join adding no space, so a statement split between words is refused by both.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { corpusRequest } from '../bench/corpus';
import { buildDocx, p, table } from './support/docx-builder';
import { docxText } from './support/docx-text';
import { paragraphSequence } from './support/leniency-cases';
import { renderManyWithDocxtpl } from './support/docxtpl';
import { lintDocxTemplate, renderDocx, TemplateSyntaxError } from '@app/engine';

describe('tags split across paragraphs in a Word-written contract render as docxtpl renders them', () => {
  // Word's own XML (rsids, proofing marks, a TOC field, a signature table): `{{ party.` / `name }}`
  // under the title, the later half with paragraph properties of its own, and a table cell's
  // `For {{ party.` / `name }}`.
  const zip = new PizZip(readFileSync(join(__dirname, 'fixtures', 'contract-toc.docx')));
  const xml = zip.file('word/document.xml')!.asText();
  const underTitle = '<w:t>{{ party.</w:t></w:r><w:r w:rsidR="0029639D">';
  const inCell = '<w:t>For {{ party.name }}</w:t>';
  zip.file(
    'word/document.xml',
    xml
      .replace(
        underTitle,
        '<w:t>{{ party.</w:t></w:r></w:p><w:p w:rsidR="0029639D"><w:pPr><w:spacing w:after="240"/></w:pPr><w:r w:rsidR="0029639D">',
      )
      .replace(
        inCell,
        '<w:t>For {{ party.</w:t></w:r></w:p><w:p><w:r><w:rPr><w:i/></w:rPr><w:t>name }}</w:t>',
      ),
  );
  const template = zip.generate({ type: 'nodebuffer' });
  const data = corpusRequest('contract', { rows: 3 }).template_data;

  it('gives docxtpl’s paragraphs, text, style and spacing', () => {
    expect(xml.split(underTitle)).toHaveLength(2);
    expect(xml.split(inCell)).toHaveLength(2);
    const [theirs] = renderManyWithDocxtpl([{ template, context: data }]);
    if (theirs instanceof Error) throw theirs;
    const ours = renderDocx(template, { template_data: data });
    const party = (data.party as { name: string; address: string }).name;
    const address = (data.party as { name: string; address: string }).address;
    // Joined into the first paragraph each time: the name and what followed it on one line.
    expect(docxText(theirs).body).toContain(`${party}, ${address}`);
    expect(docxText(theirs).body).toEqual(
      expect.arrayContaining([`For ${party} | For ${(data.counterparty as { name: string }).name}`]),
    );
    expect(docxText(ours).body).toEqual(docxText(theirs).body);
    expect(paragraphSequence(ours)).toEqual(paragraphSequence(theirs));
  });
});

describe('a tag split across paragraphs in a header and a footer renders as docxtpl renders it', () => {
  const template = buildDocx({
    header: [p('Dossier {{ dossier.re', { style: 'Header' }), p('f }} — confidentiel')],
    footer: [p('{% if draft'), p('%}BROUILLON{% endif %} page'), p('fin')],
    body: [p('Corps {{ dossier.ref }}')],
  });
  const data = { dossier: { ref: 'D-42' }, draft: true };

  it('gives docxtpl’s header and footer paragraphs', () => {
    const [theirs] = renderManyWithDocxtpl([{ template, context: data }]);
    if (theirs instanceof Error) throw theirs;
    const want = docxText(theirs);
    expect(want.headers).toEqual([['Dossier D-42 — confidentiel']]);
    expect(want.footers).toEqual([['BROUILLON page', 'fin']]);
    const ours = docxText(renderDocx(template, { template_data: data }));
    expect(ours.headers).toEqual(want.headers);
    expect(ours.footers).toEqual(want.footers);
    expect(ours.body).toEqual(want.body);
  });

  it('lints with a warning for each, no error', () => {
    const report = lintDocxTemplate(template);
    expect(report.errors).toEqual([]);
    expect(report.warnings.map((w) => [w.code, w.location?.part, w.tag])).toEqual([
      ['tag_split_across_paragraphs', 'word/header1.xml', '{{ dossier.ref }}'],
      ['tag_split_across_paragraphs', 'word/footer1.xml', '{% if draft%}'],
    ]);
  });
});

describe('a tag split across table cells', () => {
  const template = buildDocx([table([['{{ a', '}} b', 'c']]), p('after')]);

  it('docxtpl joins the cells: the row loses a cell', () => {
    const [theirs] = renderManyWithDocxtpl([{ template, context: { a: 'A' } }]);
    if (theirs instanceof Error) throw theirs;
    expect(docxText(theirs).body).toEqual(['A b | c', 'after']);
  });

  it('is refused with a typed error naming the tag, and by lint', () => {
    let error: unknown;
    try {
      renderDocx(template, { template_data: { a: 'A' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TemplateSyntaxError);
    expect((error as TemplateSyntaxError).message).toMatch(/split across table cells.*\{\{ a/);
    const report = lintDocxTemplate(template);
    expect(report.errors.map((e) => [e.error_type, e.code, e.tag, e.location?.table])).toEqual([
      ['syntax_error', 'tag_split_across_cells', '{{ a', { table: 1, row: 1, cell: 1 }],
    ]);
  });
});

describe('a tag whose later half is in a hyperlink', () => {
  const template = buildDocx([
    p('{% if x'),
    { runs: [{ raw: '<w:hyperlink w:anchor="x"><w:r><w:t>%}</w:t></w:r></w:hyperlink>' }] },
    p('yes{% endif %}'),
    p('after'),
  ]);

  it('docxtpl loses the rest of the document', () => {
    const [theirs] = renderManyWithDocxtpl([{ template, context: { x: true } }]);
    if (theirs instanceof Error) throw theirs;
    expect(docxText(theirs).body).toEqual(['']);
  });

  it('is refused with a typed error, and by lint', () => {
    expect(() => renderDocx(template, { template_data: { x: true } })).toThrow(TemplateSyntaxError);
    // The refused `{% if x …` is no tag, so its endif has no block: reported too.
    expect(lintDocxTemplate(template).errors.map((e) => [e.code, e.tag])).toEqual([
      ['tag_split_unjoinable', '{% if x'],
      ['mismatched_block', '{% endif %}'],
    ]);
  });
});

describe('a lost brace is still reported where it is, not joined with a later tag', () => {
  const template = buildDocx([p('Hi {{ name }'), p('Total: {{ total }}')]);

  it('docxtpl refuses it too', () => {
    const [theirs] = renderManyWithDocxtpl([{ template, context: { name: 'A', total: 1 } }]);
    expect(theirs).toBeInstanceOf(Error);
  });

  it('is refused, and lint names the missing brace in its paragraph', () => {
    expect(() => renderDocx(template, { template_data: { name: 'A', total: 1 } })).toThrow(
      /not closed before the end of its paragraph/,
    );
    const report = lintDocxTemplate(template);
    expect(report.errors.map((e) => [e.code, e.line_number, e.suggestion])).toEqual([
      ['tag_not_closed', 1, "Did you mean '}}'? The tag's closing delimiter has one character missing"],
    ]);
  });
});

describe('the paragraphs meet without a space, as in docxtpl', () => {
  const template = buildDocx([
    table([[[p('{%tr for item'), p('in items %}')]], ['{{ item }}'], ['{%tr endfor %}']]),
  ]);

  it('so `{%tr for item` / `in items %}` is a syntax error in both', () => {
    const [theirs] = renderManyWithDocxtpl([{ template, context: { items: [1] } }]);
    expect(theirs).toBeInstanceOf(Error);
    expect(() => renderDocx(template, { template_data: { items: [1] } })).toThrow(
      /expected 'in' after the loop variable in \{%tr for itemin items %\}/,
    );
  });
});
