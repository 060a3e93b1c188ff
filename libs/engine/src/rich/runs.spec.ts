import { httpStatusOf } from '@app/contracts';
import PizZip from 'pizzip';
import { p, table } from '../../../../test/support/docx-builder';
import { caught, part, relationship, richTemplate } from '../../../../test/support/rich-docx';
import { renderDocx } from '../render';

const body = (docx: Buffer) => part(docx, 'word/document.xml')!;
const render = (text: string, data: Record<string, unknown>, strict = false) =>
  renderDocx(richTemplate([p(text)]), { template_data: data }, strict ? { undefined: 'strict' } : {});

describe('{"$rich": [...]} styled runs', () => {
  it('maps every run property to its w:rPr element', () => {
    const xml = body(
      render('A {{r x }} B', {
        x: {
          $rich: [
            { text: 'b', bold: true },
            { text: 'i', italic: true },
            { text: 'u', underline: 'double' },
            { text: 's', strike: true },
            { text: 'c', color: '#ff0000' },
            { text: 'h', highlight: 'yellow' },
            { text: 'z', size: 14 },
            { text: 'f', font: 'Liberation Mono' },
            { text: 'st', style: 'Strong' },
            { text: 'sup', superscript: true },
            { text: 'sub', subscript: true },
            { text: 'rtl', rtl: true, lang: 'he-IL' },
          ],
        },
      }),
    );
    expect(xml).toContain('<w:rPr><w:b/><w:bCs/></w:rPr><w:t xml:space="preserve">b</w:t>');
    expect(xml).toContain('<w:i/><w:iCs/></w:rPr><w:t xml:space="preserve">i<');
    expect(xml).toContain('<w:u w:val="double"/>');
    expect(xml).toContain('<w:strike/>');
    expect(xml).toContain('<w:color w:val="FF0000"/>');
    expect(xml).toContain('<w:highlight w:val="yellow"/>');
    expect(xml).toContain('<w:sz w:val="28"/><w:szCs w:val="28"/>');
    expect(xml).toContain('<w:rFonts w:ascii="Liberation Mono"');
    expect(xml).toContain('<w:rStyle w:val="Strong"/>');
    expect(xml).toContain('<w:vertAlign w:val="superscript"/>');
    expect(xml).toContain('<w:vertAlign w:val="subscript"/>');
    expect(xml).toContain('<w:rtl/><w:lang w:val="he-IL"/>');
    // The text around the tag stays in the paragraph.
    expect(xml).toMatch(/A <\/w:t>[\s\S]*B<\/w:t>/);
  });

  it('makes a run with url a w:hyperlink whose relationship is external', () => {
    const docx = render('{{ x }}', { x: { $rich: [{ text: 'site', url: 'https://example.com/?a=1&b=2' }] } });
    const xml = body(docx);
    const id = /<w:hyperlink [^>]*r:id="([^"]+)"/.exec(xml)?.[1];
    expect(id).toBeDefined();
    expect(xml).toContain('<w:rStyle w:val="Hyperlink"/>');
    const rel = relationship(docx, 'word/_rels/document.xml.rels', id!)!;
    expect(rel).toContain('TargetMode="External"');
    expect(rel).toContain('Target="https://example.com/?a=1&amp;b=2"');
    expect(rel).toContain('relationships/hyperlink');
  });

  it('refuses link targets other than http, https and mailto with a typed error', () => {
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,x', '/relative']) {
      const e = caught(() => render('{{ x }}', { x: { $rich: [{ text: 'x', url }] } }));
      expect(e.errorType).toBe('template_runtime_error');
      expect(httpStatusOf(e.errorType!)).toBe(422);
      expect(e.message).toContain('only http, https and mailto');
    }
  });

  it('treats text as text: markup in data is escaped, never WordprocessingML', () => {
    const xml = body(render('{{ x }}', { x: { $rich: [{ text: '</w:t></w:r><w:body>&x', bold: true }] } }));
    expect(xml).toContain('&lt;/w:t&gt;&lt;/w:r&gt;&lt;w:body&gt;&amp;x');
  });

  it('validates colours, sizes, names and refuses unknown properties', () => {
    const cases: [unknown, string][] = [
      [{ text: 'x', color: 'red"/><w:b/>' }, 'colour'],
      [{ text: 'x', size: 0 }, 'size'],
      [{ text: 'x', highlight: 'chartreuse' }, 'highlight'],
      [{ text: 'x', underline: 'zigzag' }, 'underline'],
      [{ text: 'x', onclick: 'y' }, "unknown property 'onclick'"],
      [{ text: 'x', lang: 'en"><' }, 'language'],
      [{ text: { nested: 1 } }, 'must be a string'],
    ];
    for (const [run, message] of cases) {
      const e = caught(() => render('{{ x }}', { x: { $rich: [run] } }));
      expect(e.errorType).toBe('template_runtime_error');
      expect(e.message).toContain(message);
    }
  });

  it('turns \\n into w:br, \\t into w:tab, \\f into a page break and \\a into a new paragraph', () => {
    const xml = body(
      render('Start {{r x }} end', {
        x: { $rich: [{ text: 'one\ntwo\tthree\u0007four\ffive', bold: true }] },
      }),
    );
    expect(xml).toContain(
      'one</w:t><w:br/><w:t xml:space="preserve">two</w:t><w:tab/><w:t xml:space="preserve">three',
    );
    expect(xml).toContain('<w:br w:type="page"/>');
    const paragraphs = xml.match(/<w:p>|<w:p [^>]*>/g)!.length;
    expect(paragraphs).toBe(4); // start…three | four | page break | five…end
    expect(xml).not.toMatch(/[\uFDD2\uFDD3]/);
    expect(xml).toMatch(
      /<w:p>(<w:pPr>[\s\S]*?<\/w:pPr>)?<w:r><w:rPr><w:b\/><w:bCs\/><\/w:rPr><w:t xml:space="preserve">four/,
    );
  });

  it('an unknown character style falls back to none, and strict mode reports it', () => {
    expect(body(render('{{ x }}', { x: { $rich: [{ text: 'x', style: 'Nope' }] } }))).not.toContain(
      'w:rStyle',
    );
    const e = caught(() => render('{{ x }}', { x: { $rich: [{ text: 'x', style: 'Nope' }] } }, true));
    expect(e.errorType).toBe('template_runtime_error');
    expect(e.message).toContain("no character style 'Nope'");
  });

  it('works in tables, headers, footers and loops, with relationships per part', () => {
    const link = { $rich: [{ text: 'L', url: 'https://example.org' }] };
    const docx = renderDocx(
      richTemplate({
        body: [table([['{{ x }}']]), p('{%p for i in items %}'), p('{{r i }}'), p('{%p endfor %}')],
        header: [p('H {{ x }}')],
        footer: [p('F {{ x }}')],
      }),
      {
        template_data: {
          x: link,
          items: [{ $rich: [{ text: 'first', bold: true }] }, { $rich: [{ text: 'second', italic: true }] }],
        },
      },
    );
    const xml = body(docx);
    expect(xml).toMatch(/<w:tc>[\s\S]*<w:hyperlink[\s\S]*<\/w:tc>/);
    expect(xml).toContain('<w:b/><w:bCs/></w:rPr><w:t xml:space="preserve">first');
    expect(xml).toContain('<w:i/><w:iCs/></w:rPr><w:t xml:space="preserve">second');
    for (const [xmlPath, relsPath] of [
      ['word/header1.xml', 'word/_rels/header1.xml.rels'],
      ['word/footer1.xml', 'word/_rels/footer1.xml.rels'],
    ]) {
      const id = /<w:hyperlink [^>]*r:id="([^"]+)"/.exec(part(docx, xmlPath)!)![1];
      expect(relationship(docx, relsPath, id)).toContain('Target="https://example.org"');
    }
  });

  it("allocates relationship ids that do not collide with the template's", () => {
    // A template that already uses the ids this writer would pick first.
    const zip = new PizZip(richTemplate([p('{{ x }}')]));
    const rels = zip.file('word/_rels/document.xml.rels')!.asText();
    const taken =
      '<Relationship Id="rIdRich1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://taken.example" TargetMode="External"/>' +
      '<Relationship Id="rIdRich2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://taken2.example" TargetMode="External"/>';
    zip.file('word/_rels/document.xml.rels', rels.replace('</Relationships>', `${taken}</Relationships>`));
    const tpl = zip.generate({ type: 'nodebuffer' });
    const docx = renderDocx(tpl, {
      template_data: {
        x: {
          $rich: [
            { text: 'a', url: 'https://a.example' },
            { text: 'b', url: 'https://b.example' },
          ],
        },
      },
    });
    const ids = [...part(docx, 'word/_rels/document.xml.rels')!.matchAll(/Id="([^"]+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(new Set(ids).size);
    const used = [...body(docx).matchAll(/<w:hyperlink [^>]*r:id="([^"]+)"/g)].map((m) => m[1]);
    expect(used).toHaveLength(2);
    expect(used).not.toContain('rIdRich1');
    expect(used).not.toContain('rIdRich2');
    expect(relationship(docx, 'word/_rels/document.xml.rels', used[0])).toContain('https://a.example');
  });
});
