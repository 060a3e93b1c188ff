/**
 * The document properties docxtpl renders as templates (`render_properties`): author, comments,
 * identifier, language, subject and title of docProps/core.xml. Their tags are marked like those
 * of Word's text, each property being one "paragraph" of its own.
 */
import { markJinjaTags, type ScanResult } from '../syntax/tag-scanner';

export const CORE_PROPERTIES_PART = 'docProps/core.xml';

/** dc:creator is docxtpl's `author`, dc:description its `comments`. */
export const TEMPLATED_PROPERTIES = [
  'dc:creator',
  'dc:description',
  'dc:identifier',
  'dc:language',
  'dc:subject',
  'dc:title',
];

const PROPERTY = new RegExp(`(<(${TEMPLATED_PROPERTIES.join('|')})(?:\\s[^>]*)?>)([^<]*)(</\\2>)`, 'g');

export function markPropertyTags(xml: string): ScanResult {
  let tagCount = 0;
  const unclosed: ScanResult['unclosed'] = [];
  const out = xml.replace(PROPERTY, (_m, open: string, _name: string, text: string, close: string) => {
    // The scanner reads w:t text in w:p paragraphs: give it the property's text in that shape.
    const r = markJinjaTags(`<w:p><w:t>${text}</w:t></w:p>`);
    tagCount += r.tagCount;
    unclosed.push(...r.unclosed);
    return open + r.xml.slice('<w:p><w:t>'.length, -'</w:t></w:p>'.length) + close;
  });
  // One paragraph per property: nothing is joined across them.
  return { xml: out, tagCount, unclosed, joined: [], unjoinable: [] };
}
