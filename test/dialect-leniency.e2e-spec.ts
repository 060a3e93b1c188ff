/**
 * Differential test (issue 23) for what real users' docxtpl templates rely on: names in other
 * alphabets, docxtpl's leniencies (`{{%tr … %}}`), Word's curly quotes in string literals, and
 * `{%- … -%}` merges across tags Word split. Same style as test/differential.e2e-spec.ts: each
 * case is rendered by docxtpl (test/support/docxtpl.ts) and by renderDocx; `want` pins docxtpl's
 * output (checked by hand), and ours must equal docxtpl's paragraph by paragraph: the text of
 * every paragraph, empty ones included, and each paragraph's style and spacing.
 */
import PizZip from 'pizzip';
import { buildDocx, p } from './support/docx-builder';
import { DocxPackage, docxText } from './support/docx-text';
import { renderWithDocxtpl } from './support/docxtpl';
import { LENIENCY_CASES, paragraphSequence } from './support/leniency-cases';
import { SPLIT_TAG_CASES } from './support/split-tag-cases';
import { renderManyWithDocxtpl, type DocxtplResult } from './support/docxtpl';

type RenderModule = typeof import('../libs/engine/src');
function engine(): RenderModule {
  return require('../libs/engine/src') as RenderModule;
}

/** Each body paragraph's text, character by character grouped by the run formatting it carries. */
function formattedText(buf: Buffer): string[] {
  const xml = new DocxPackage(buf).text('word/document.xml');
  return [...xml.matchAll(/<w:p\b[^>]*?(?:\/>|>([\s\S]*?)<\/w:p>)/g)].map((m) => {
    const spans: string[] = [];
    let prev = '';
    for (const r of (m[1] ?? '').matchAll(/<w:r\b[^>]*>([\s\S]*?)<\/w:r>/g)) {
      const rPr = (/<w:rPr>([\s\S]*?)<\/w:rPr>/.exec(r[1])?.[1] ?? '').replace(/<w:lang [^>]*\/>/, '');
      const text = [...r[1].matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((t) => t[1]).join('');
      if (!text) continue;
      if (rPr === prev && spans.length) spans[spans.length - 1] += text;
      else spans.push(`[${rPr}]${text}`);
      prev = rPr;
    }
    return spans.join('');
  });
}

describe('differential: docxtpl leniencies real templates rely on (issue 23)', () => {
  // And tags Word split across paragraphs, which docxtpl joins (issue 34).
  const CASES = [...LENIENCY_CASES, ...SPLIT_TAG_CASES];
  const templates = CASES.map((c) => buildDocx(c.doc));
  let reference: DocxtplResult[] = [];

  beforeAll(() => {
    reference = renderManyWithDocxtpl(CASES.map((c, i) => ({ template: templates[i], context: c.context })));
  });

  function theirs(i: number): Buffer {
    const r = reference[i];
    if (r instanceof Error) throw r;
    return r;
  }

  describe.each(CASES.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const c = CASES[i];

    it('docxtpl gives the expected text', () => {
      expect(docxText(theirs(i)).body).toEqual(c.want);
    });

    it('renderDocx gives docxtpl’s paragraphs: text, empty ones, style and spacing', () => {
      const ours = engine().renderDocx(templates[i], { template_data: c.context });
      expect(docxText(ours).body).toEqual(docxText(theirs(i)).body);
      expect(paragraphSequence(ours)).toEqual(paragraphSequence(theirs(i)));
      // And the formatting the text carries: a split tag's tail takes its first run's, as in docxtpl.
      expect(formattedText(ours)).toEqual(formattedText(theirs(i)));
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

describe('sub-documents take the template’s styles where it has them by name, as docxtpl does', () => {
  /** A sub-document whose Normal and Heading 1 differ from the template’s, with a style of its own. */
  function annex(): Buffer {
    const zip = new PizZip(
      buildDocx([
        p('Annex title', { style: 'Heading1' }),
        p('Plain paragraph'),
        p('Own', { style: 'AnnexNote' }),
      ]),
    );
    const styles = zip
      .file('word/styles.xml')!
      .asText()
      .replace('<w:name w:val="Normal"/>', '<w:name w:val="Normal"/><w:rPr><w:color w:val="336699"/></w:rPr>')
      .replace('<w:sz w:val="32"/>', '<w:sz w:val="48"/><w:color w:val="C00000"/>')
      .replace(
        '</w:styles>',
        '<w:style w:type="paragraph" w:styleId="AnnexNote"><w:name w:val="Annex Note"/><w:basedOn w:val="Heading1"/><w:pPr><w:spacing w:before="480"/></w:pPr></w:style></w:styles>',
      );
    zip.file('word/styles.xml', styles);
    return zip.generate({ type: 'nodebuffer' });
  }

  it('gives the same paragraphs, styles and style definitions', () => {
    const template = buildDocx([p('Before'), p('{{p annex }}'), p('After')]);
    const sub = annex();
    const theirs = renderWithDocxtpl(template, {}, { annex: sub });
    const ours = engine().renderDocx(template, {
      template_data: {},
      documents: { annex: { data: sub.toString('base64') } },
    });
    expect(paragraphSequence(theirs)).toEqual([
      '||Before',
      'Heading1||Annex title',
      '||Plain paragraph',
      'AnnexNote||Own',
      '||After',
    ]);
    expect(paragraphSequence(ours)).toEqual(paragraphSequence(theirs));
    // The template's Normal and Heading 1 are untouched; the sub-document's own style is copied.
    for (const docx of [theirs, ours]) {
      const styles = new DocxPackage(docx).text('word/styles.xml');
      expect(styles).not.toContain('336699');
      expect(styles).not.toContain('<w:sz w:val="48"/>');
      expect(styles).toMatch(/w:styleId="AnnexNote"[\s\S]*?<w:spacing w:before="480"\/>/);
    }
  });
});
