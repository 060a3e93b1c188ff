/**
 * Values as WordprocessingML text: XML-escaped, Word's breaks and tabs, docxtpl's `\a` / `\f`
 * paragraph and page marks and literal braces; and rendered XML back as a value (Markup).
 */
import { decodeXmlText } from '../syntax/tag-scanner';
import { Markup } from '../runtime/values';

/* eslint-disable no-control-regex -- matching control characters is the point here */
// U+FDD0–U+FDEF too: the engine's private markers (tag delimiters, the rich writer's paragraph
// and page marks), so that no value from data can forge one.
const XML_FORBIDDEN = new RegExp(
  '[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\ufdd0-\\ufdef\\ufffe\\uffff]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]',
  'g',
);
/* eslint-enable no-control-regex */

/** Removes characters that XML 1.0 forbids (control characters, lone surrogates, U+FFFE/F) and our markers. */
function xmlSafe(s: string): string {
  return s.replace(XML_FORBIDDEN, '');
}

/** Text for XML element content: `&`, `<`, `>` escaped, forbidden characters and markers dropped. */
export function escapeText(s: string): string {
  return xmlSafe(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text for XML attribute values (and content): `"` escaped too. */
export function escapeXml(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}

/** docxtpl's literal braces: `{_{`, `}_}`, `{_%`, `%_}` print as `{{`, `}}`, `{%`, `%}`. */
export function unescapeLiteralBraces(s: string): string {
  return s.replace(/\{_\{/g, '{{').replace(/\}_\}/g, '}}').replace(/\{_%/g, '{%').replace(/%_\}/g, '%}');
}

/** Where a value is printed: the paragraph and run properties `\a` and `\f` carry over. */
export interface RunContext {
  paragraphProperties?: string;
  runProperties?: string;
}

/**
 * Plain text as the inside of a `<w:t>`: escaped, line breaks and tabs as Word elements; as in
 * docxtpl, `\a` starts a new paragraph and `\f` puts a page break in a paragraph of its own.
 */
/* eslint-disable no-control-regex -- \a (BEL) and \f (FF) are docxtpl's paragraph and page marks */
export function textToRunXml(s: string, where: RunContext = {}): string {
  const escaped = unescapeLiteralBraces(s)
    .split(/(\u0007|\u000c)/)
    .map((piece) => (piece === '\u0007' || piece === '\u000c' ? piece : escapeText(piece)))
    .join('');
  const { paragraphProperties: pPr, runProperties: rPr } = where;
  const newParagraph =
    pPr !== undefined && rPr !== undefined
      ? `</w:t></w:r></w:p><w:p>${pPr}<w:r>${rPr}<w:t xml:space="preserve">`
      : undefined;
  return escaped
    .replace(/\r\n|\r|\n/g, '</w:t><w:br/><w:t xml:space="preserve">')
    .replace(/\t/g, '</w:t><w:tab/><w:t xml:space="preserve">')
    .replace(/\u0007/g, newParagraph ?? '</w:t><w:br/><w:t xml:space="preserve">')
    .replace(
      /\u000c/g,
      newParagraph
        ? `</w:t></w:r></w:p><w:p><w:r><w:br w:type="page"/></w:r></w:p>${newParagraph.slice('</w:t></w:r></w:p>'.length)}`
        : '</w:t><w:br w:type="page"/><w:t xml:space="preserve">',
    );
}
/* eslint-enable no-control-regex */

/** Rendered document XML as a value: printed as is, read as its text. */
export function markup(xml: string): Markup {
  const plain = decodeXmlText(
    xml
      .replace(/<w:br\b[^>]*\/>/g, '\n')
      .replace(/<w:tab\/>/g, '\t')
      .replace(/<[^>]*>/g, ''),
  );
  return new Markup(xml, plain);
}
