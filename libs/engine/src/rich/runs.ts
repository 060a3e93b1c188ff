/**
 * WordprocessingML runs from the model: `w:rPr` from the closed list of run properties (in the
 * schema's element order) and `w:t` text with line breaks and tabs as Word elements. Text and
 * attribute values are escaped here and only here; nothing from data becomes markup.
 */
import { escapeText, escapeXml } from '../docx/run-text';
import type { RunProps } from './model';

/** `w:rPr` for the properties; `styleId` is the resolved character style. Empty when none. */
export function runPropsXml(props: RunProps, styleId?: string): string {
  let x = '';
  if (styleId) x += `<w:rStyle w:val="${escapeXml(styleId)}"/>`;
  if (props.font) {
    const f = escapeXml(props.font);
    x += `<w:rFonts w:ascii="${f}" w:hAnsi="${f}" w:cs="${f}" w:eastAsia="${f}"/>`;
  }
  if (props.bold !== undefined) x += props.bold ? '<w:b/><w:bCs/>' : '<w:b w:val="0"/><w:bCs w:val="0"/>';
  if (props.italic !== undefined) x += props.italic ? '<w:i/><w:iCs/>' : '<w:i w:val="0"/><w:iCs w:val="0"/>';
  if (props.strike) x += '<w:strike/>';
  if (props.color) x += `<w:color w:val="${props.color}"/>`;
  if (props.halfPoints) x += `<w:sz w:val="${props.halfPoints}"/><w:szCs w:val="${props.halfPoints}"/>`;
  if (props.highlight) x += `<w:highlight w:val="${props.highlight}"/>`;
  if (props.underline) x += `<w:u w:val="${props.underline}"/>`;
  if (props.shading) x += `<w:shd w:val="clear" w:color="auto" w:fill="${props.shading}"/>`;
  if (props.vertAlign) x += `<w:vertAlign w:val="${props.vertAlign}"/>`;
  if (props.rtl) x += '<w:rtl/>';
  if (props.lang) x += `<w:lang w:val="${escapeXml(props.lang)}"/>`;
  return x ? `<w:rPr>${x}</w:rPr>` : '';
}

/**
 * One `w:r` with the text: `\n` becomes `w:br`, `\t` `w:tab` (as docxtpl's RichText). `\a` and
 * `\f` must have been split off by the caller (they end the paragraph).
 */
export function runXml(text: string, rPr: string): string {
  const body = text
    .replace(/\r\n?/g, '\n')
    .split(/(\n|\t)/)
    .map((piece) =>
      piece === '\n'
        ? '<w:br/>'
        : piece === '\t'
          ? '<w:tab/>'
          : piece
            ? `<w:t xml:space="preserve">${escapeText(piece)}</w:t>`
            : '',
    )
    .join('');
  return `<w:r>${rPr}${body}</w:r>`;
}

/** A run holding a page break, as docxtpl writes `\f`. */
export const PAGE_BREAK_RUN = '<w:r><w:br w:type="page"/></w:r>';
