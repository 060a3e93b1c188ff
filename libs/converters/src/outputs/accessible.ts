/**
 * Accessible PDFs (options.pdf.pdfua): what the conversion needs beyond LibreOffice's
 * PDFUACompliance flag. LibreOffice 25.2 writes the catalog's /Lang from the document's default
 * language (styles.xml, w:docDefaults/w:rPrDefault/w:rPr/w:lang w:val) and, with PDFUACompliance,
 * /ViewerPreferences << /DisplayDocTitle true >> with the Title property (options.pdf.metadata.title,
 * else the template's docProps/core.xml dc:title). So the request's locale goes into the
 * default language before conversion; the title needs nothing here (uno_bridge.py set_metadata).
 */
import PizZip from 'pizzip';

import { STYLES_PART as STYLES } from '@app/ooxml';

/** `de_DE` (Babel's form, options.locale) → `de-DE` (BCP 47, what w:lang and /Lang hold). */
export function bcp47(locale: string): string {
  return locale.replace(/_/g, '-');
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** A w:lang element with w:val set to `lang`, other attributes (eastAsia, bidi) kept. */
function setVal(langElement: string, lang: string): string {
  const val = `w:val="${escapeAttr(lang)}"`;
  return /\bw:val="[^"]*"/.test(langElement)
    ? langElement.replace(/\bw:val="[^"]*"/, val)
    : langElement.replace(/^<w:lang\b/, `<w:lang ${val}`);
}

/**
 * styles.xml with the default language `lang` (BCP 47). Edited as text: the change is one
 * element in one known place, and re-serialising Word's 350 KB styles part through a DOM would
 * cost more than the conversion it prepares (hand-written for that reason).
 */
export function withDefaultLanguage(stylesXml: string, lang: string): string {
  const defaults = /<w:docDefaults\b[^>]*>[\s\S]*?<\/w:docDefaults>|<w:docDefaults\b[^>]*\/>/.exec(stylesXml);
  const langElement = `<w:lang w:val="${escapeAttr(lang)}"/>`;
  if (!defaults) {
    return stylesXml.replace(
      /(<w:styles\b[^>]*>)/,
      `$1<w:docDefaults><w:rPrDefault><w:rPr>${langElement}</w:rPr></w:rPrDefault></w:docDefaults>`,
    );
  }
  let block = defaults[0];
  const rPrDefault = /<w:rPrDefault\b[^>]*\/>|<w:rPrDefault\b[\s\S]*?<\/w:rPrDefault>/.exec(block)?.[0];
  if (rPrDefault === undefined) {
    block = block.endsWith('/>')
      ? `<w:docDefaults><w:rPrDefault><w:rPr>${langElement}</w:rPr></w:rPrDefault></w:docDefaults>`
      : block.replace(
          /(<w:docDefaults\b[^>]*>)/,
          `$1<w:rPrDefault><w:rPr>${langElement}</w:rPr></w:rPrDefault>`,
        );
  } else {
    let next: string;
    if (/<w:lang\b[^>]*\/>/.test(rPrDefault))
      next = rPrDefault.replace(/<w:lang\b[^>]*\/>/, (el) => setVal(el, lang));
    // w:lang comes late in rPr's sequence (only eastAsianLayout, specVanish and oMath follow): at the end.
    else if (/<\/w:rPr>/.test(rPrDefault)) next = rPrDefault.replace(/<\/w:rPr>/, `${langElement}</w:rPr>`);
    else if (/<w:rPr\b[^>]*\/>/.test(rPrDefault))
      next = rPrDefault.replace(/<w:rPr\b[^>]*\/>/, `<w:rPr>${langElement}</w:rPr>`);
    else next = `<w:rPrDefault><w:rPr>${langElement}</w:rPr></w:rPrDefault>`;
    block = block.replace(rPrDefault, () => next);
  }
  return stylesXml.slice(0, defaults.index) + block + stylesXml.slice(defaults.index + defaults[0].length);
}

/**
 * The filled .docx with `locale` as its default language (options.locale; without it the
 * template's own stays, which is then the PDF's /Lang). Called before conversion when
 * options.pdf.pdfua is set.
 */
export function withDocumentLanguage(docx: Buffer, locale: string | undefined): Buffer {
  if (!locale) return docx;
  const zip = new PizZip(docx);
  const styles = zip.file(STYLES)?.asText();
  if (styles === undefined) return docx;
  zip.file(STYLES, withDefaultLanguage(styles, bcp47(locale)));
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}
