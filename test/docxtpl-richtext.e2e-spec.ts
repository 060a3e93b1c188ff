/**
 * `{{r x }}` with `{"$rich": [...]}` against docxtpl's own RichText on the same template: the same
 * runs, text and formatting, and the same paragraphs for `\n`, `\t`, `\a` and `\f`.
 */
import { execFileSync } from 'node:child_process';
import { p } from './support/docx-builder';
import { DOCXTPL_PYTHON } from './support/docxtpl';
import { part, richTemplate } from './support/rich-docx';
import { renderDocx } from '@app/engine';

// Builds docxtpl RichText objects from our run objects (docxtpl's size is in half-points).
const RICHTEXT = `
import base64, io, json, sys
from docxtpl import DocxTemplate, RichText
job = json.load(sys.stdin)
tpl = DocxTemplate(io.BytesIO(base64.b64decode(job['template'])))
rt = RichText()
for run in job['runs']:
    props = {k: v for k, v in run.items() if k != 'text'}
    if 'size' in props: props['size'] = int(props['size'] * 2)
    if props.pop('superscript', False): props['superscript'] = True
    rt.add(run['text'], **props)
tpl.render({'x': rt})
out = io.BytesIO(); tpl.save(out)
sys.stdout.write(base64.b64encode(out.getvalue()).decode())
`;

/** Paragraphs as lists of [text, sorted rPr elements] runs, adjacent equal formatting merged. */
function paragraphs(xml: string): [string, string][][] {
  const body = xml.slice(xml.indexOf('<w:body>'), xml.lastIndexOf('<w:sectPr'));
  return (body.match(/<w:p[ >][\s\S]*?<\/w:p>|<w:p\/>/g) ?? []).map((para) => {
    const runs: [string, string][] = [];
    for (const run of para.match(/<w:r[ >][\s\S]*?<\/w:r>/g) ?? []) {
      const rPr = /<w:rPr>([\s\S]*?)<\/w:rPr>/.exec(run)?.[1] ?? '';
      // Formatting as a set: docxtpl writes the same elements in another order and no *Cs twins.
      const props = [...rPr.matchAll(/<w:(\w+)(?: w:val="([^"]*)")?[^>]*\/>/g)]
        .filter((m) => !['bCs', 'iCs', 'szCs', 'rFonts'].includes(m[1]))
        .map((m) => `${m[1]}=${m[2] ?? ''}`)
        .sort()
        .join(' ');
      const text = run
        .replace(/<w:rPr>[\s\S]*?<\/w:rPr>/, '')
        .replace(/<w:br w:type="page"\/>/g, '[page]')
        .replace(/<w:br\/>/g, '\n')
        .replace(/<w:tab\/>/g, '\t')
        .replace(/<[^>]+>/g, '');
      const last = runs[runs.length - 1];
      if (last && last[1] === props) last[0] += text;
      else if (text) runs.push([text, props]);
    }
    return runs;
  });
}

it('matches docxtpl RichText run for run, \\a and \\f included', () => {
  const runs = [
    { text: 'bold ', bold: true },
    { text: 'italic ', italic: true },
    { text: 'under ', underline: 'double' },
    { text: 'strike ', strike: true },
    { text: 'red ', color: 'FF0000' },
    { text: 'yellow ', highlight: 'yellow' },
    { text: 'big ', size: 14 },
    { text: 'up', superscript: true },
    { text: ' lines\none\ttab\u0007new paragraph\fafter the page break', bold: true },
  ];
  const template = richTemplate([p('Before {{r x }} after'), p('Next paragraph')]);
  const ours = part(renderDocx(template, { template_data: { x: { $rich: runs } } }), 'word/document.xml')!;
  const theirs = part(
    Buffer.from(
      execFileSync(DOCXTPL_PYTHON, ['-c', RICHTEXT], {
        input: JSON.stringify({ template: template.toString('base64'), runs }),
        maxBuffer: 1 << 26,
      }).toString(),
      'base64',
    ),
    'word/document.xml',
  )!;
  const expected = paragraphs(theirs);
  expect(expected.length).toBe(5); // the \a and \f paragraphs, the page break's own, the next
  expect(expected[0]).toContainEqual(['red ', 'color=FF0000']);
  expect(paragraphs(ours)).toEqual(expected);
});
