import PizZip from 'pizzip';
import { corpusTemplate } from '../../../../bench/corpus';
import { pruneUnusedStyles } from './unused-styles';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const CT = 'http://schemas.openxmlformats.org/package/2006/content-types';
const WML = 'application/vnd.openxmlformats-officedocument.wordprocessingml';

function style(id: string, inner = '', attrs = 'w:type="paragraph"'): string {
  return `<w:style ${attrs} w:styleId="${id}"><w:name w:val="${id}"/>${inner}</w:style>`;
}

function pkg(body: string, styles: string[], extra: Record<string, string> = {}): PizZip {
  const zip = new PizZip();
  zip.file('word/document.xml', `<w:document xmlns:w="${W}"><w:body>${body}</w:body></w:document>`);
  zip.file(
    'word/styles.xml',
    `<?xml version="1.0"?><w:styles xmlns:w="${W}"><w:docDefaults><w:rPrDefault/></w:docDefaults>` +
      `<w:latentStyles w:count="2"><w:lsdException w:name="Normal"/><w:lsdException w:name="heading 1"/></w:latentStyles>` +
      styles.join('\n') +
      '</w:styles>',
  );
  for (const [name, text] of Object.entries(extra)) zip.file(name, text);
  // Parts are found by their content type, as Word declares them: word/header1.xml is a header.
  const kindOf = (name: string) =>
    name === 'word/document.xml' ? 'document.main' : /([a-z]+)\d*\.xml$/.exec(name)?.[1];
  const overrides = ['word/document.xml', ...Object.keys(extra)]
    .map((name) => `<Override PartName="/${name}" ContentType="${WML}.${kindOf(name)}+xml"/>`)
    .join('');
  zip.file('[Content_Types].xml', `<Types xmlns="${CT}">${overrides}</Types>`);
  return zip;
}

const ids = (zip: PizZip) =>
  [
    ...zip
      .file('word/styles.xml')!
      .asText()
      .matchAll(/w:styleId="([^"]+)"/g),
  ]
    .map((m) => m[1])
    .sort();

const SHEET = [
  style('Normal', '', 'w:type="paragraph" w:default="1"'),
  style('DefaultParagraphFont', '', 'w:type="character" w:default="1"'),
  style('Heading1', '<w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:link w:val="Heading1Char"/>'),
  style('Heading1Char', '<w:basedOn w:val="DefaultParagraphFont"/>', 'w:type="character"'),
  style('Quote', '<w:basedOn w:val="Normal"/>'),
  style('Strong', '', 'w:type="character"'),
  style('LightList', '', 'w:type="table"'),
  style('ListBullet', '<w:basedOn w:val="Normal"/>'),
  style('FootnoteText', '<w:basedOn w:val="Normal"/>'),
];

describe('pruneUnusedStyles', () => {
  it('keeps the styles the parts name, the defaults and what they are based on, linked to or followed by', () => {
    const zip = pkg('<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr></w:p>', SHEET, {
      'word/footnotes.xml': `<w:footnotes xmlns:w="${W}"><w:p><w:pPr><w:pStyle w:val="FootnoteText"/></w:pPr></w:p></w:footnotes>`,
      'word/numbering.xml': `<w:numbering xmlns:w="${W}"><w:lvl><w:pStyle w:val="ListBullet"/></w:lvl></w:numbering>`,
    });
    expect(pruneUnusedStyles(zip)).toBe(3);
    expect(ids(zip)).toEqual(
      ['DefaultParagraphFont', 'FootnoteText', 'Heading1', 'Heading1Char', 'ListBullet', 'Normal'].sort(),
    );
    const xml = zip.file('word/styles.xml')!.asText();
    expect(xml).not.toContain('latentStyles');
    expect(xml).toContain('<w:docDefaults><w:rPrDefault/></w:docDefaults>');
    expect(xml).toMatch(/<\/w:styles>$/);
  });

  it('keeps run and table styles named in headers and footers', () => {
    const zip = pkg('<w:p/>', SHEET, {
      'word/footer1.xml': `<w:ftr xmlns:w="${W}"><w:p><w:r><w:rPr><w:rStyle w:val="Strong"/></w:rPr></w:r></w:p></w:ftr>`,
      'word/header1.xml': `<w:hdr xmlns:w="${W}"><w:tbl><w:tblPr><w:tblStyle w:val="LightList"/></w:tblPr></w:tbl></w:hdr>`,
    });
    pruneUnusedStyles(zip);
    expect(ids(zip)).toEqual(['DefaultParagraphFont', 'LightList', 'Normal', 'Strong']);
  });

  it.each([
    ['a table of contents', '<w:r><w:instrText xml:space="preserve"> TOC \\o "1-3" \\h </w:instrText></w:r>'],
    ['an index', '<w:fldSimple w:instr=" INDEX \\e &quot;	&quot; "/>'],
    ['STYLEREF', '<w:r><w:instrText> STYLEREF "Heading 1" </w:instrText></w:r>'],
  ])('leaves the sheet whole under %s, which may apply styles the document does not name yet', (_, field) => {
    const zip = pkg(`<w:p>${field}</w:p>`, SHEET);
    const before = zip.file('word/styles.xml')!.asText();
    expect(pruneUnusedStyles(zip)).toBe(0);
    expect(zip.file('word/styles.xml')!.asText()).toBe(before);
  });

  it('leaves alone a sheet it cannot read as a list of styles, and a package without one', () => {
    const odd = pkg('<w:p/>', [SHEET[0], '<!-- a comment -->', SHEET[4]]);
    const before = odd.file('word/styles.xml')!.asText();
    expect(pruneUnusedStyles(odd)).toBe(0);
    expect(odd.file('word/styles.xml')!.asText()).toBe(before);
    const none = new PizZip();
    none.file('word/document.xml', `<w:document xmlns:w="${W}"><w:body/></w:document>`);
    expect(pruneUnusedStyles(none)).toBe(0);
  });

  it("cuts Word's default template down to what the corpus invoice names", () => {
    const zip = new PizZip(corpusTemplate('invoice'));
    const before = zip.file('word/styles.xml')!.asText().length;
    const removed = pruneUnusedStyles(zip);
    expect(removed).toBeGreaterThan(100);
    expect(zip.file('word/styles.xml')!.asText().length).toBeLessThan(before / 10);
    // Every style the document names is still defined.
    const left = new Set(ids(zip));
    for (const m of zip
      .file('word/document.xml')!
      .asText()
      .matchAll(/<w:(?:pStyle|rStyle|tblStyle) w:val="([^"]+)"/g))
      expect(left.has(m[1])).toBe(true);
  });
});
