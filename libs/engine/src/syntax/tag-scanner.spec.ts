import type { FormatElements } from '../package/formats';
import { decodeXmlText, markJinjaTags, MAX_SPLIT_PARAGRAPHS, TAG_END, TAG_START } from './tag-scanner';

const para = (...texts: string[]) =>
  `<w:p>${texts.map((t) => `<w:r><w:t xml:space="preserve">${t}</w:t></w:r>`).join('')}</w:p>`;
const visible = (xml: string) => xml.replace(/<[^>]+>/g, '');

describe('markJinjaTags', () => {
  it("reads another format's elements from its description, not Word's names (DrawingML text, as in slides)", () => {
    const drawingText: FormatElements = {
      paragraph: 'a:p',
      run: 'a:r',
      text: 'a:t',
      table: 'a:tbl',
      row: 'a:tr',
      cell: 'a:tc',
    };
    const slide =
      '<a:p><a:r><a:t>Hi {{ na</a:t></a:r><a:r><a:rPr b="1"/><a:t>me }}!</a:t></a:r></a:p>' +
      '<a:p><a:r><a:t>{{ ite</a:t></a:r></a:p><a:p><a:r><a:t>m }}</a:t></a:r></a:p>';
    const { xml, tagCount, joined } = markJinjaTags(slide, drawingText);
    expect(tagCount).toBe(2);
    // Split across runs: joined into the first run; across paragraphs: into the first paragraph.
    expect(xml).toBe(
      `<a:p><a:r><a:t>Hi ${TAG_START}{ name }${TAG_END}!</a:t></a:r></a:p>` +
        `<a:p><a:r><a:t>${TAG_START}{ item }${TAG_END}</a:t></a:r></a:p>`,
    );
    expect(joined).toEqual([{ tag: '{{ item }}', context: '{{ ite', paragraphs: 2 }]);
    // Word's element names mean nothing in that format: its text is not seen at all.
    expect(markJinjaTags('<w:p><w:r><w:t>{{ x }}</w:t></w:r></w:p>', drawingText).tagCount).toBe(0);
  });

  it('marks the first and last character of each tag, across runs', () => {
    const { xml, tagCount, unclosed } = markJinjaTags(para('Hi {', '{ na', 'me }', '}!'));
    expect(tagCount).toBe(1);
    expect(unclosed).toEqual([]);
    expect(visible(xml)).toBe(`Hi ${TAG_START}{ name }${TAG_END}!`);
  });

  it('reads {{%tr … %}} as {%tr … %}, as docxtpl does; the extra braces stay in the row (issue 23)', () => {
    const { xml, tagCount } = markJinjaTags(para('{', '{%tr for x in xs %', '}}') + para('{{%p if a %}}'));
    expect(tagCount).toBe(2);
    expect(visible(xml)).toBe(`{${TAG_START}%tr for x in xs %${TAG_END}}{${TAG_START}%p if a %${TAG_END}}`);
  });

  it('leaves {{%r and {{% without a prefix an expression, for the compile to refuse with the fix', () => {
    const { xml } = markJinjaTags(para('{{%r if a %}} {{% if b %}}'));
    expect(visible(xml)).toBe(`${TAG_START}{%r if a %}${TAG_END} ${TAG_START}{% if b %}${TAG_END}`);
  });

  it('joins a tag Word split into the run it starts in, the text after it too, as docxtpl does', () => {
    const xml =
      '<w:p><w:r><w:t xml:space="preserve">Hi {{ na</w:t></w:r><w:proofErr w:type="spellStart"/>' +
      '<w:r><w:rPr><w:b/></w:rPr><w:t>me }} there</w:t></w:r><w:r><w:rPr><w:i/></w:rPr><w:t>!</w:t></w:r></w:p>';
    expect(markJinjaTags(xml).xml).toBe(
      `<w:p><w:r><w:t xml:space="preserve">Hi ${TAG_START}{ name }${TAG_END} there</w:t></w:r>` +
        '<w:r><w:rPr><w:i/></w:rPr><w:t>!</w:t></w:r></w:p>',
    );
  });

  it('leaves a tag split across a hyperlink or tracked-change boundary as Word split it', () => {
    const xml =
      '<w:p><w:r><w:t>{{ na</w:t></w:r><w:hyperlink r:id="x"><w:r><w:t>me }}</w:t></w:r></w:hyperlink></w:p>';
    const { xml: out, tagCount } = markJinjaTags(xml);
    expect(tagCount).toBe(1);
    expect(out).toContain('<w:hyperlink r:id="x"><w:r><w:t>me }');
  });

  it('marks all three kinds and leaves other braces alone', () => {
    const { xml } = markJinjaTags(para('{x} {{ a }} {% if b %} {# c #} 50%} #}'));
    expect(visible(xml)).toBe(
      `{x} ${TAG_START}{ a }${TAG_END} ${TAG_START}% if b %${TAG_END} ${TAG_START}# c #${TAG_END} 50%} #}`,
    );
  });

  it('does not end a tag at a closer inside a string, straight, typographic or escaped', () => {
    const { xml, tagCount } = markJinjaTags(
      para(`{{ "}}" ~ \u201c}}\u201d ~ &quot;}}&quot; ~ 'a&amp;b' }} tail`),
    );
    expect(tagCount).toBe(1);
    expect(visible(xml)).toBe(
      `${TAG_START}{ "}}" ~ \u201c}}\u201d ~ &quot;}}&quot; ~ 'a&amp;b' }${TAG_END} tail`,
    );
  });

  it('reports a tag whose paragraph and the paragraphs after it never close it, with its text', () => {
    const { tagCount, unclosed } = markJinjaTags(para('Total: {{ total &amp; more') + para('no closer'));
    expect(tagCount).toBe(0);
    expect(unclosed).toEqual([{ tag: '{{ total & more', context: 'Total: {{ total & more' }]);
  });

  it('leaves an expression unclosed when a later paragraph opens another tag before its closer', () => {
    // `{{ name }` lost a brace: not one tag swallowing the text up to the next `}}`.
    const { tagCount, unclosed, joined } = markJinjaTags(para('Hi {{ name }') + para('Total {{ total }}'));
    expect(unclosed.map((u) => u.tag)).toEqual(['{{ name }']);
    expect(joined).toEqual([]);
    expect(tagCount).toBe(1);
  });

  describe('a tag split across paragraphs (issue 34)', () => {
    const pPr = (style: string) => `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>`;
    const styled = (style: string, ...texts: string[]) =>
      para(...texts).replace('<w:p>', `<w:p>${pPr(style)}`);

    it('joins it into the first paragraph as docxtpl does: its properties, the text after the closer', () => {
      const xml = styled('Title', 'Name: {{ item.sa') + styled('Quote', '}} after') + para('next');
      const { xml: out, tagCount, unclosed, joined } = markJinjaTags(xml);
      expect(unclosed).toEqual([]);
      expect(tagCount).toBe(1);
      expect(joined).toEqual([{ tag: '{{ item.sa}}', context: 'Name: {{ item.sa', paragraphs: 2 }]);
      expect(out).toBe(
        `<w:p>${pPr('Title')}<w:r><w:t xml:space="preserve">Name: ${TAG_START}{ item.sa}${TAG_END} after</w:t></w:r></w:p>` +
          para('next'),
      );
    });

    it('joins three paragraphs, empty ones between included, and keeps the later runs', () => {
      const xml =
        para('{{ item.') +
        '<w:p/>' +
        para('sa') +
        para('}} end', 'bold').replace(
          '<w:r><w:t xml:space="preserve">bold',
          '<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">bold',
        );
      const { xml: out, joined } = markJinjaTags(xml);
      expect(joined.map((j) => [j.tag, j.paragraphs])).toEqual([['{{ item.sa}}', 4]]);
      expect(out.match(/<w:p[ >/]/g)).toHaveLength(1);
      expect(visible(out)).toBe(`${TAG_START}{ item.sa}${TAG_END} endbold`);
      expect(out).toContain('<w:rPr><w:b/></w:rPr>');
    });

    it('joins statements, placement prefixes and comments, a comment over tags too', () => {
      const { xml, joined } = markJinjaTags(
        para('{%p if a') + para('%}') + para('{# old: {{ x }}') + para('#}') + para('{%tr endfor %}'),
      );
      expect(joined.map((j) => j.tag)).toEqual(['{%p if a%}', '{# old: {{ x }}#}']);
      expect(visible(xml)).toBe(
        `${TAG_START}%p if a%${TAG_END}${TAG_START}# old: {{ x }}#${TAG_END}${TAG_START}%tr endfor %${TAG_END}`,
      );
    });

    it('joins an opener split between paragraphs only when its tag closes', () => {
      expect(markJinjaTags(para('a {') + para('{ x }} b')).joined.map((j) => j.tag)).toEqual(['{{ x }}']);
      const lone = markJinjaTags(para('50% off } {') + para('{ {x} }'));
      expect([lone.tagCount, lone.unclosed, lone.joined]).toEqual([0, [], []]);
    });

    it('refuses one split across table cells, and leaves the XML as it was', () => {
      const cell = (t: string) => `<w:tc><w:tcPr/>${para(t)}</w:tc>`;
      const xml = `<w:tbl><w:tr>${cell('{{ a')}${cell('}} b')}</w:tr></w:tbl>`;
      const { xml: out, tagCount, unjoinable } = markJinjaTags(xml);
      expect(unjoinable).toEqual([
        { tag: '{{ a}}', opening: '{{ a', context: '{{ a', across: 'table cells' },
      ]);
      expect(tagCount).toBe(0);
      expect(out).toBe(xml);
    });

    it('refuses one whose later half is in a hyperlink', () => {
      const xml = para('{{ a') + '<w:p><w:hyperlink r:id="x"><w:r><w:t>}}</w:t></w:r></w:hyperlink></w:p>';
      expect(markJinjaTags(xml).unjoinable.map((u) => u.across)).toEqual(['other']);
    });

    it('reads past their paragraphs at most twice the text for all openers together', () => {
      // 2,000 paragraphs each opening a comment that never closes, 4,000 characters each: without
      // the bound every opener would read the 50 paragraphs after it (400 million characters).
      // The bound spent, a split tag after them is no longer looked for past its paragraph.
      const xml =
        Array.from({ length: 2000 }, () => para(`{#${'x'.repeat(4000)}`)).join('') +
        para('{{ a') +
        para('}}');
      const { unclosed, joined } = markJinjaTags(xml);
      expect(joined).toEqual([]);
      expect(unclosed).toHaveLength(2001);
      expect(unclosed[2000].tag).toBe('{{ a');
    });

    it(`stops looking for the closer after ${MAX_SPLIT_PARAGRAPHS} paragraphs`, () => {
      const between = (n: number) => Array.from({ length: n }, () => para('text')).join('');
      expect(markJinjaTags(para('{#') + between(MAX_SPLIT_PARAGRAPHS - 1) + para('#}')).joined).toHaveLength(
        1,
      );
      const far = markJinjaTags(para('{#') + between(MAX_SPLIT_PARAGRAPHS) + para('#}'));
      expect(far.joined).toEqual([]);
      expect(far.unclosed.map((u) => u.tag)).toEqual(['{#']);
    });
  });

  it('returns the XML untouched when there are no tags', () => {
    const src = para('plain { text }');
    expect(markJinjaTags(src).xml).toBe(src);
  });

  it('decodes the XML entities Word writes', () => {
    expect(decodeXmlText('a &amp; b &lt;&gt; &quot;&apos; &#65;&#x42; &bogus;')).toBe(
      `a & b <> "' AB &bogus;`,
    );
  });
});
