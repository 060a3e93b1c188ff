import { p } from '../../../../test/support/docx-builder';
import { part, richTemplate } from '../../../../test/support/rich-docx';
import { renderDocx } from '../render';

const md = (source: string, template = '{{p notes | markdown }}') =>
  part(renderDocx(richTemplate([p(template)]), { template_data: { notes: source } }), 'word/document.xml')!;

describe('{{p x | markdown }}: CommonMark + GFM as native Word', () => {
  it('maps emphasis, strong, strikethrough, code, links and headings like HTML does', () => {
    const xml = md('## Title\n\n**bold** *it* ~~gone~~ `code` [site](https://example.com)');
    expect(xml).toContain('<w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t xml:space="preserve">Title');
    expect(xml).toContain('<w:b/><w:bCs/></w:rPr><w:t xml:space="preserve">bold');
    expect(xml).toContain('<w:i/><w:iCs/></w:rPr><w:t xml:space="preserve">it');
    expect(xml).toContain('<w:strike/></w:rPr><w:t xml:space="preserve">gone');
    expect(xml).toContain('<w:rFonts w:ascii="Courier New"');
    expect(xml).toMatch(/<w:hyperlink [^>]*r:id="[^"]+"/);
  });

  it('maps lists to numbering and GFM tables to Word tables', () => {
    const xml = md('- a\n  1. a.1\n- b\n\n| h1 | h2 |\n|----|----|\n| c1 | c2 |\n');
    expect(xml).toMatch(
      /<w:ilvl w:val="0"\/><w:numId w:val="\d+"\/><\/w:numPr><\/w:pPr><w:r><w:t xml:space="preserve">a</,
    );
    expect(xml).toMatch(
      /<w:ilvl w:val="1"\/><w:numId w:val="\d+"\/><\/w:numPr><\/w:pPr><w:r><w:t xml:space="preserve">a\.1</,
    );
    expect(xml).toContain('<w:tbl>');
    expect(xml.match(/<w:tc>/g)).toHaveLength(4);
    expect(xml).toContain('<w:tblHeader/>');
  });

  it('treats raw HTML as text unless the caller opts in', () => {
    const plain = md('a <b>not bold</b> <script>alert(1)</script>');
    expect(plain).toContain('&lt;b&gt;not bold&lt;/b&gt;');
    expect(plain).not.toContain('<w:b/>');
    const opted = md('a <b>bold</b><script>alert(1)</script>', '{{p notes | markdown(html=true) }}');
    expect(opted).toContain('<w:b/><w:bCs/></w:rPr><w:t xml:space="preserve">bold');
    expect(opted).not.toContain('alert');
  });

  it('neutralises javascript: links (markdown-it leaves them as text)', () => {
    const xml = md('[x](javascript:alert(1))');
    expect(xml).not.toContain('w:hyperlink');
    expect(xml).toContain('[x](javascript:alert(1))');
  });

  it('inline {{ x | markdown }} gives runs only', () => {
    const xml = md('**a**\n\nb', 'Note: {{ notes | markdown }}.');
    expect(xml).toMatch(
      /Note: <\/w:t><\/w:r><w:r><w:rPr><w:b\/><w:bCs\/><\/w:rPr><w:t xml:space="preserve">a<\/w:t><\/w:r><w:r><w:br\/><\/w:r><w:r><w:t xml:space="preserve">b/,
    );
  });
});
