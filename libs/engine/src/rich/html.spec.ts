import { httpStatusOf } from '@app/contracts';
import { PNG } from 'pngjs';
import { p, table } from '../../../../test/support/docx-builder';
import { caught, part, relationship, richTemplate } from '../../../../test/support/rich-docx';
import { renderDocx } from '../render';

const html = (source: string, template = '{{p body | html }}', options = {}) =>
  renderDocx(richTemplate([p(template)]), { template_data: { body: source } }, options);
const body = (docx: Buffer) => part(docx, 'word/document.xml')!;

function pngDataUrl(width: number, height: number): string {
  const png = new PNG({ width, height });
  png.data.fill(200);
  return `data:image/png;base64,${PNG.sync.write(png).toString('base64')}`;
}

describe('{{p x | html }}: HTML as native Word', () => {
  it('maps inline elements to run properties', () => {
    const xml = body(
      html(
        '<p><b>b</b><strong>st</strong><i>i</i><em>em</em><u>u</u><s>s</s><del>del</del><sup>sup</sup><sub>sub</sub>' +
          '<span style="color: #ff0000; background-color: rgb(255, 255, 0); font-weight: bold; font-style: italic; text-decoration: underline line-through">span</span>' +
          '<code>code</code></p>',
      ),
    );
    expect(xml).toContain('<w:b/><w:bCs/></w:rPr><w:t xml:space="preserve">b<');
    expect(xml).toContain('<w:b/><w:bCs/></w:rPr><w:t xml:space="preserve">st<');
    expect(xml).toContain('<w:i/><w:iCs/></w:rPr><w:t xml:space="preserve">em<');
    expect(xml).toContain('<w:u w:val="single"/></w:rPr><w:t xml:space="preserve">u<');
    expect(xml).toContain('<w:strike/></w:rPr><w:t xml:space="preserve">del<');
    expect(xml).toContain('<w:vertAlign w:val="superscript"/></w:rPr><w:t xml:space="preserve">sup<');
    expect(xml).toContain('<w:vertAlign w:val="subscript"/></w:rPr><w:t xml:space="preserve">sub<');
    expect(xml).toContain(
      '<w:rPr><w:b/><w:bCs/><w:i/><w:iCs/><w:strike/><w:color w:val="FF0000"/><w:u w:val="single"/><w:shd w:val="clear" w:color="auto" w:fill="FFFF00"/></w:rPr><w:t xml:space="preserve">span<',
    );
    expect(xml).toContain('<w:rFonts w:ascii="Courier New"');
  });

  it("maps h1–h6 to the template's Heading styles, with direct formatting where a style is missing", () => {
    const xml = body(html('<h1>One</h1><h2>Two</h2><h3>Three</h3>'));
    expect(xml).toContain('<w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t xml:space="preserve">One');
    expect(xml).toContain('<w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t xml:space="preserve">Two');
    // The template has no Heading 3: bold and larger instead, no error even in strict mode.
    const strict = body(html('<h3>Three</h3>', '{{p body | html }}', { undefined: 'strict' }));
    expect(strict).toContain(
      '<w:rPr><w:b/><w:bCs/><w:sz w:val="26"/><w:szCs w:val="26"/></w:rPr><w:t xml:space="preserve">Three',
    );
  });

  it('maps nested ul/ol to real Word numbering in word/numbering.xml (created with its relationship)', () => {
    const docx = html(
      '<ul><li>a<ol><li>a.1</li><li>a.2</li></ol></li><li>b</li></ul><ol start="3"><li>c</li></ol>',
    );
    const xml = body(docx);
    expect(xml).toMatch(
      /<w:numPr><w:ilvl w:val="0"\/><w:numId w:val="(\d+)"\/><\/w:numPr><\/w:pPr><w:r><w:t xml:space="preserve">a</,
    );
    expect(xml).toMatch(
      /<w:numPr><w:ilvl w:val="1"\/><w:numId w:val="\d+"\/><\/w:numPr><\/w:pPr><w:r><w:t xml:space="preserve">a\.1</,
    );
    const ids = [...xml.matchAll(/<w:numId w:val="(\d+)"\/>/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(2); // one list each
    const numbering = part(docx, 'word/numbering.xml')!;
    expect(numbering).toContain('<w:numFmt w:val="bullet"/>');
    expect(numbering).toMatch(/<w:lvl w:ilvl="1"><w:start w:val="1"\/><w:numFmt w:val="decimal"\/>/);
    expect(numbering).toContain('<w:start w:val="3"/><w:numFmt w:val="decimal"/>');
    expect(numbering.indexOf('<w:abstractNum ')).toBeLessThan(numbering.indexOf('<w:num '));
    expect(part(docx, '[Content_Types].xml')).toContain('PartName="/word/numbering.xml"');
    expect(part(docx, 'word/_rels/document.xml.rels')).toContain(
      'relationships/numbering" Target="numbering.xml"',
    );
  });

  it("keeps lists deeper than Word's nine levels on the last level", () => {
    const xml = body(html(`${'<ul><li>x'.repeat(12)}deep${'</li></ul>'.repeat(12)}`));
    const levels = [...xml.matchAll(/<w:ilvl w:val="(\d+)"\/>/g)].map((m) => Number(m[1]));
    expect(Math.max(...levels)).toBe(8);
    expect(levels).toHaveLength(12);
  });

  it("maps tables with colspan and rowspan to gridSpan and vMerge in the template's table style", () => {
    const xml = body(
      html(
        '<table><tr><th colspan="2">Head</th></tr><tr><td rowspan="2">Tall</td><td>c1</td></tr><tr><td>c2</td></tr></table>',
      ),
    );
    expect(xml).toContain('<w:tblStyle w:val="TableGrid"/>');
    expect(xml).toContain('<w:gridSpan w:val="2"/>');
    expect(xml).toContain('<w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t xml:space="preserve">Tall');
    expect(xml).toContain('<w:vMerge/></w:tcPr><w:p/>');
    expect(xml.match(/<w:gridCol /g)).toHaveLength(2);
    expect(xml).toContain('<w:tblHeader/>');
  });

  it('maps a[href] to a hyperlink, blockquote to Quote, pre to monospace lines, br to w:br', () => {
    const docx = html(
      '<p>see <a href="https://example.com">here</a><br>next</p><blockquote>quoted</blockquote><pre>a\n  b</pre>',
    );
    const xml = body(docx);
    const id = /<w:hyperlink [^>]*r:id="([^"]+)"/.exec(xml)![1];
    expect(relationship(docx, 'word/_rels/document.xml.rels', id)).toContain('TargetMode="External"');
    expect(xml).toContain('<w:pStyle w:val="Quote"/><w:ind w:left="720"/>');
    expect(xml).toContain('a</w:t><w:br/><w:t xml:space="preserve">  b');
    expect(xml).toContain('here</w:t></w:r></w:hyperlink><w:r><w:br/></w:r>');
  });

  it('places data: PNG images through the image checks, with their own relationship', () => {
    const docx = html(`<p>logo <img src="${pngDataUrl(40, 20)}" width="80"></p>`);
    const xml = body(docx);
    const id = /r:embed="([^"]+)"/.exec(xml)![1];
    expect(relationship(docx, 'word/_rels/document.xml.rels', id)).toMatch(
      /relationships\/image" Target="media\/rich1\.png"/,
    );
    expect(xml).toContain('<wp:extent cx="762000" cy="381000"/>'); // 80 px wide at 96 DPI, ratio kept
    const broken = caught(() => html('<img src="data:image/png;base64,AAAA">'));
    expect(broken.errorType).toBe('image_processing_error');
    // Remote images are never fetched.
    expect(body(html('<p>x<img src="https://example.com/a.png"></p>'))).not.toContain('w:drawing');
  });

  it('drops scripts, styles and comments; keeps the text of unknown elements', () => {
    const xml = body(
      html(
        '<script>alert("x")</script><style>p{}</style><!-- secret --><custom-el>kept <blink>too</blink></custom-el>',
      ),
    );
    expect(xml).not.toContain('alert');
    expect(xml).not.toContain('p{}');
    expect(xml).not.toContain('secret');
    expect(xml).toContain('kept ');
    expect(xml).toContain('too');
  });

  it('refuses javascript: links with a typed error', () => {
    const e = caught(() => html('<a href="javascript:alert(1)">x</a>'));
    expect(e.errorType).toBe('template_runtime_error');
    expect(httpStatusOf(e.errorType!)).toBe(422);
  });

  it('inline {{ x | html }} gives runs only, in a table, header and footer', () => {
    const docx = renderDocx(
      richTemplate({
        body: [table([['cell: {{ b | html }}']])],
        header: [p('H {{ b | html }}')],
        footer: [p('F {{ b | html }}')],
      }),
      { template_data: { b: '<p><b>x</b></p><p>y</p>' } },
    );
    for (const path of ['word/document.xml', 'word/header1.xml', 'word/footer1.xml']) {
      const xml = part(docx, path)!;
      expect(xml).toContain(
        '<w:b/><w:bCs/></w:rPr><w:t xml:space="preserve">x</w:t></w:r><w:r><w:br/></w:r><w:r><w:t xml:space="preserve">y',
      );
      expect(xml).not.toContain('w:pStyle');
    }
  });

  it('escapes text: markup-looking entities stay text', () => {
    const xml = body(html('<p>&lt;w:p&gt; &amp; "q"</p>'));
    expect(xml).toContain('&lt;w:p&gt; &amp; "q"');
  });
});
