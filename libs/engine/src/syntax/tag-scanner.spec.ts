import { decodeXmlText, markJinjaTags, TAG_END, TAG_START } from './tag-scanner';

const para = (...texts: string[]) =>
  `<w:p>${texts.map((t) => `<w:r><w:t xml:space="preserve">${t}</w:t></w:r>`).join('')}</w:p>`;
const visible = (xml: string) => xml.replace(/<[^>]+>/g, '');

describe('markJinjaTags', () => {
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

  it('reports a tag left open at the end of its paragraph, with its text', () => {
    const { tagCount, unclosed } = markJinjaTags(para('Total: {{ total &amp; more') + para('}} next'));
    expect(tagCount).toBe(0);
    expect(unclosed).toEqual([{ tag: '{{ total & more', context: 'Total: {{ total & more' }]);
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
