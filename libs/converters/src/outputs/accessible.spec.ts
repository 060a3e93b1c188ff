import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import PizZip from 'pizzip';

import { bcp47, withDefaultLanguage, withDocumentLanguage } from './accessible';

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

describe('withDefaultLanguage', () => {
  it("replaces the default w:lang's value and keeps its other scripts", () => {
    const xml = `<w:styles ${W}><w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="22"/><w:lang w:val="en-US" w:eastAsia="en-US" w:bidi="ar-SA"/></w:rPr></w:rPrDefault></w:docDefaults><w:style><w:rPr><w:lang w:val="fr-FR"/></w:rPr></w:style></w:styles>`;
    expect(withDefaultLanguage(xml, 'de-DE')).toBe(
      xml.replace('<w:lang w:val="en-US" w:eastAsia', '<w:lang w:val="de-DE" w:eastAsia'),
    );
  });

  it('adds w:lang at the end of rPr, to an empty rPr, or a whole rPrDefault / docDefaults', () => {
    expect(
      withDefaultLanguage(
        `<w:styles><w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="22"/></w:rPr></w:rPrDefault></w:docDefaults></w:styles>`,
        'de-DE',
      ),
    ).toBe(
      `<w:styles><w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="22"/><w:lang w:val="de-DE"/></w:rPr></w:rPrDefault></w:docDefaults></w:styles>`,
    );
    expect(
      withDefaultLanguage(
        `<w:styles><w:docDefaults><w:rPrDefault><w:rPr/></w:rPrDefault></w:docDefaults></w:styles>`,
        'fr',
      ),
    ).toBe(
      `<w:styles><w:docDefaults><w:rPrDefault><w:rPr><w:lang w:val="fr"/></w:rPr></w:rPrDefault></w:docDefaults></w:styles>`,
    );
    expect(
      withDefaultLanguage(`<w:styles><w:docDefaults><w:pPrDefault/></w:docDefaults></w:styles>`, 'fr'),
    ).toBe(
      `<w:styles><w:docDefaults><w:rPrDefault><w:rPr><w:lang w:val="fr"/></w:rPr></w:rPrDefault><w:pPrDefault/></w:docDefaults></w:styles>`,
    );
    expect(withDefaultLanguage(`<w:styles ${W}><w:style/></w:styles>`, 'fr')).toBe(
      `<w:styles ${W}><w:docDefaults><w:rPrDefault><w:rPr><w:lang w:val="fr"/></w:rPr></w:rPrDefault></w:docDefaults><w:style/></w:styles>`,
    );
  });

  it('sets the corpus invoice (python-docx default template) to de-DE', () => {
    const invoice = readFileSync(join(__dirname, '../../../../bench/fixtures/invoice.docx'));
    expect(bcp47('de_DE')).toBe('de-DE');
    const out = withDocumentLanguage(invoice, 'de_DE');
    const styles = new PizZip(out).file('word/styles.xml')!.asText();
    const defaults = /<w:docDefaults>[\s\S]*?<\/w:docDefaults>/.exec(styles)![0];
    expect(defaults).toMatch(/<w:lang w:val="de-DE"/);
    expect(withDocumentLanguage(invoice, undefined)).toBe(invoice);
  });
});
