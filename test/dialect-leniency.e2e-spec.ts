/**
 * Differential test (issue 23) for what real users' docxtpl templates rely on: names in other
 * alphabets, docxtpl's leniencies (`{{%tr … %}}`), Word's curly quotes in string literals, and
 * `{%- … -%}` merges across tags Word split. Same style as test/differential.e2e-spec.ts: each
 * case is rendered by docxtpl (test/support/docxtpl.ts) and by renderDocx; `want` pins docxtpl's
 * output (checked by hand), and ours must equal docxtpl's paragraph by paragraph: the text of
 * every paragraph, empty ones included, and each paragraph's style and spacing.
 */
import { buildDocx, p } from './support/docx-builder';
import { docxText } from './support/docx-text';
import { LENIENCY_CASES, paragraphSequence } from './support/leniency-cases';
import { renderManyWithDocxtpl, type DocxtplResult } from './support/docxtpl';

type RenderModule = typeof import('../libs/engine/src');
function engine(): RenderModule {
  return require('../libs/engine/src') as RenderModule;
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
