/**
 * Templates and readers for the rich-content tests: a template with the styles a Word user has
 * (Heading 2, Hyperlink, Quote, a character style), and the parts of a rendered .docx as text.
 */
import PizZip from 'pizzip';
import { buildDocx, type BlockSpec, type DocxSpec } from './docx-builder';

const EXTRA_STYLES =
  '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:qFormat/><w:rPr><w:b/><w:sz w:val="28"/></w:rPr></w:style>' +
  '<w:style w:type="paragraph" w:styleId="Quote"><w:name w:val="Quote"/><w:basedOn w:val="Normal"/><w:rPr><w:i/></w:rPr></w:style>' +
  '<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/><w:rPr><w:color w:val="0563C1"/><w:u w:val="single"/></w:rPr></w:style>' +
  '<w:style w:type="character" w:styleId="Strong"><w:name w:val="Strong"/><w:rPr><w:b/></w:rPr></w:style>';

/** A .docx with the builder's styles plus Heading 2, Quote, Hyperlink and Strong. */
export function richTemplate(spec: DocxSpec | BlockSpec[], extraStyles = EXTRA_STYLES): Buffer {
  const zip = new PizZip(buildDocx(spec));
  const styles = zip.file('word/styles.xml')!.asText();
  zip.file('word/styles.xml', styles.replace('</w:styles>', `${extraStyles}</w:styles>`));
  return zip.generate({ type: 'nodebuffer' });
}

/** The text of one part of a .docx (undefined when absent). */
export function part(docx: Buffer, path: string): string | undefined {
  return new PizZip(docx).file(path)?.asText();
}

/** The relationship with this id in a part's .rels, as its tag. */
export function relationship(docx: Buffer, relsPath: string, id: string): string | undefined {
  const xml = part(docx, relsPath) ?? '';
  return xml.match(/<Relationship\b[^>]*>/g)?.find((r) => r.includes(`Id="${id}"`));
}

/** Every error a function throws, for asserting its type and details. */
export function caught(fn: () => unknown): Error & { errorType?: string; details?: Record<string, unknown> } {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}
