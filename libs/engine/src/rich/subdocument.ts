/**
 * Sub-documents (`request_data.documents`): each .docx is checked like a template
 * (checkDocxTemplate: zip and XML bombs, macros, DTDs, well-formed XML) and placed with
 * `{{p key }}`: its body goes in with its styles (the template's where it has one of the same
 * name, as docxtpl does),
 * numbering, images, tables and hyperlinks. Sections, headers, footers, notes and comments stay
 * behind; content that needs parts we do not carry (charts, embedded objects) is refused.
 */
import type PizZip from 'pizzip';
import { isTypedError } from '@app/contracts';
import { InvalidTemplateError, PayloadTooLargeError } from '../errors';
import { checkDocxTemplate, findXmlFault, type TemplateLimits } from '../docx/package';
import type { RichLimits } from './limits';
import type { NumberingWriter } from './numbering';
import { REL_HYPERLINK, REL_IMAGE, type RelationshipWriter } from './relationships';
import { readStyles, STYLES_PART, type StyleEntry, type TemplateStyles } from './styles';

interface Rel {
  type: string;
  target: string;
  external: boolean;
}

export interface PreparedDocument {
  key: string;
  zip: PizZip;
  body: string;
  rels: Map<string, Rel>;
  namespaces: Map<string, string>;
  styles: StyleEntry[];
  numberingXml: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function bad(key: string, message: string, details: Record<string, unknown> = {}): InvalidTemplateError {
  return new InvalidTemplateError(`Sub-document '${key}': ${message}`, { document: key, ...details });
}

function attr(tag: string, name: string): string | undefined {
  return new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];
}

function prepareDocument(
  key: string,
  value: unknown,
  limits: RichLimits,
  templateLimits: Partial<TemplateLimits>,
): PreparedDocument {
  const data =
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>).data : undefined;
  if (typeof data !== 'string' || !data)
    throw bad(key, 'must be an object {"data": "<base64 .docx>"}', { reason: 'invalid_data' });
  const compact = data.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact))
    throw bad(key, 'data is not valid base64', { reason: 'invalid_base64' });
  if ((compact.length / 4) * 3 > limits.maxDocumentBytes + 2)
    throw new PayloadTooLargeError(`Sub-document '${key}' is larger than ${limits.maxDocumentBytes} bytes`, {
      document: key,
      limit: limits.maxDocumentBytes,
    });
  let zip: PizZip;
  try {
    zip = checkDocxTemplate(Buffer.from(compact, 'base64'), templateLimits);
  } catch (e) {
    if (!isTypedError(e)) throw e;
    const message = `Sub-document '${key}': ${e.message.replace(/\btemplate\b/g, 'sub-document')}`;
    if (e instanceof PayloadTooLargeError)
      throw new PayloadTooLargeError(message, { ...e.details, document: key });
    throw new InvalidTemplateError(message, { ...e.details, document: key });
  }
  // Comments could hide a `</w:body>`; Word writes none in the body.
  const documentXml = zip
    .file('word/document.xml')
    ?.asText()
    .replace(/<!--[\s\S]*?-->/g, '');
  if (!documentXml) throw bad(key, 'has no word/document.xml', { reason: 'not_word' });
  const root = /<w:document\b[^>]*>/.exec(documentXml)?.[0] ?? '';
  const namespaces = new Map([...root.matchAll(/\bxmlns:([\w.-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  const open = /<w:body(\s[^>]*)?>/.exec(documentXml);
  const close = documentXml.lastIndexOf('</w:body>');
  let body = open && close > open.index ? documentXml.slice(open.index + open[0].length, close) : '';
  body = body
    .replace(/<w:sectPr\b[^>]*\/>|<w:sectPr\b[\s\S]*?<\/w:sectPr>/g, '')
    .replace(
      /<w:(footnoteReference|endnoteReference|commentReference|commentRangeStart|commentRangeEnd)\b[^>]*\/>/g,
      '',
    );
  // What goes into the template's parts must be balanced XML on its own (the template checks only
  // look at the document parts; styles and numbering are copied from too).
  const stylesXml = zip.file(STYLES_PART)?.asText() ?? '';
  const numberingXml = zip.file('word/numbering.xml')?.asText() ?? '';
  for (const [what, xml] of [
    ['word/document.xml', `<body>${body}</body>`],
    [STYLES_PART, stylesXml || '<w:styles/>'],
    ['word/numbering.xml', numberingXml || '<w:numbering/>'],
  ]) {
    const fault = findXmlFault(xml);
    if (fault)
      throw bad(key, `${what} is not well-formed XML (${fault})`, { reason: 'malformed_xml', part: what });
  }
  const relsXml = zip.file('word/_rels/document.xml.rels')?.asText() ?? '';
  const rels = new Map<string, Rel>();
  for (const [tag] of relsXml.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = attr(tag, 'Id');
    if (id)
      rels.set(id, {
        type: attr(tag, 'Type') ?? '',
        target: (attr(tag, 'Target') ?? '').replace(/&amp;/g, '&'),
        external: attr(tag, 'TargetMode') === 'External',
      });
  }
  return {
    key,
    zip,
    body,
    rels,
    namespaces,
    styles: readStyles(stylesXml),
    numberingXml,
  };
}

/** Every sub-document of the request, checked before anything renders. */
export function prepareDocuments(
  documents: unknown,
  limits: RichLimits,
  templateLimits: Partial<TemplateLimits>,
): Map<string, PreparedDocument> {
  const out = new Map<string, PreparedDocument>();
  if (documents === undefined || documents === null) return out;
  if (typeof documents !== 'object' || Array.isArray(documents))
    throw new InvalidTemplateError('documents must be an object of name → {"data": "<base64 .docx>"}', {
      reason: 'invalid_documents',
    });
  const keys = Object.keys(documents);
  if (keys.length > limits.maxDocuments)
    throw new PayloadTooLargeError(
      `The request has ${keys.length} sub-documents; the limit is ${limits.maxDocuments}`,
      {
        documents: keys.length,
        limit: limits.maxDocuments,
      },
    );
  for (const key of keys) {
    const value = Object.getOwnPropertyDescriptor(documents, key)?.value;
    out.set(key, prepareDocument(key, value, limits, templateLimits));
  }
  return out;
}

const safeSuffix = (key: string) => key.replace(/[^A-Za-z0-9]/g, '').slice(0, 20) || 'doc';

/** Carries sub-documents into the template's package, once each, then per placement. */
export class SubdocumentWriter {
  private readonly merged = new Map<string, { body: string }>();
  private readonly newStyles: string[] = [];
  /** Bookmark ids of inserted bodies, far above what Word assigns in a template. */
  private bookmarkCount = 500000;
  readonly namespaces = new Map<string, string>();

  constructor(
    private readonly zip: PizZip,
    private readonly styles: TemplateStyles,
    private readonly rels: RelationshipWriter,
    private readonly numbering: NumberingWriter,
  ) {}

  /** The body XML for one placement in a part: relationships of that part, fresh drawing ids. */
  bodyFor(doc: PreparedDocument, partPath: string, nextDrawingId: () => number): string {
    const merged = this.merge(doc);
    // Bookmark ids must stay unique when the same body goes in twice.
    const bookmarks = new Map<string, number>();
    const bookmarkId = (old: string) => {
      if (!bookmarks.has(old)) bookmarks.set(old, ++this.bookmarkCount);
      return bookmarks.get(old)!;
    };
    for (const [prefix, uri] of doc.namespaces)
      if (!this.namespaces.has(prefix)) this.namespaces.set(prefix, uri);
    return merged.body
      .replace(/\br:(id|embed|link|pict|dm|lo|qs|cs)="([^"]*)"/g, (whole, kind: string, rId: string) => {
        const rel = doc.rels.get(rId);
        if (!rel) return '';
        if (rel.type === REL_IMAGE && !rel.external) {
          const media = doc.zip.file(`word/${rel.target.replace(/^\/?word\//, '').replace(/^\//, '')}`);
          if (!media) return '';
          const ext = (/\.([A-Za-z0-9]{1,5})$/.exec(rel.target)?.[1] ?? 'png').toLowerCase();
          const target = this.rels.addMedia(Buffer.from(media.asUint8Array()), ext);
          return `r:${kind}="${this.rels.add(partPath, REL_IMAGE, target, false)}"`;
        }
        if (rel.type === REL_HYPERLINK && rel.external) {
          // Links are kept to http, https and mailto; others lose their target, keep their text.
          if (!/^(https?:|mailto:)/i.test(rel.target)) return '';
          return `r:${kind}="${this.rels.add(partPath, REL_HYPERLINK, rel.target, true)}"`;
        }
        throw bad(
          doc.key,
          `holds content this service does not carry over (relationship type ${rel.type.split('/').pop()})`,
          {
            reason: 'unsupported_content',
            relationship_type: rel.type,
          },
        );
      })
      .replace(/(<wp:docPr\b[^>]*?\bid=")\d+"/g, (_m, head: string) => `${head}${nextDrawingId()}"`)
      .replace(
        /(<w:bookmark(?:Start|End)\b[^>]*?\bw:id=")(\d+)"/g,
        (_m, head: string, id: string) => `${head}${bookmarkId(id)}"`,
      );
  }

  private merge(doc: PreparedDocument): { body: string } {
    const done = this.merged.get(doc.key);
    if (done) return done;
    const suffix = `_${safeSuffix(doc.key)}`;
    // As docxtpl (docxcompose) does: a style the template has by name is the template's (its
    // look wins, so the sub-document reads like the rest); the others are copied, renamed only
    // where their id is taken by another of the template's styles.
    const styleIds = new Map<string, string>();
    const templateStyle = new Set<string>();
    const lower = (n: string) => n.toLowerCase();
    for (const s of doc.styles) {
      const same =
        (s.name && this.styles.entries.find((t) => t.type === s.type && lower(t.name) === lower(s.name))) ||
        this.styles.entries.find((t) => t.type === s.type && t.id === s.id && !t.name && !s.name);
      if (same) {
        styleIds.set(s.id, same.id);
        templateStyle.add(s.id);
      } else styleIds.set(s.id, this.styles.hasId(s.id) ? `${s.id}${suffix}` : s.id);
    }
    const numIds = this.mergeNumbering(doc);
    const mapStyle = (xml: string) =>
      xml.replace(
        /(<w:(?:pStyle|rStyle|tblStyle|basedOn|next|link)\s+w:val=")([^"]*)"/g,
        (m, head: string, id: string) => `${head}${styleIds.get(id) ?? id}"`,
      );
    const mapNum = (xml: string) =>
      xml.replace(
        /(<w:numId\s+w:val=")(\d+)"/g,
        (m, head: string, id: string) => `${head}${numIds.get(id) ?? id}"`,
      );
    for (const s of doc.styles) {
      const id = styleIds.get(s.id)!;
      if (templateStyle.has(s.id)) continue; // the template's own
      let xml = mapNum(mapStyle(s.xml))
        .replace(/\sw:default="[^"]*"/, '')
        .replace(/(<w:style\b[^>]*\bw:styleId=")[^"]*"/, `$1${id}"`);
      if (id !== s.id)
        xml = xml.replace(/(<w:name\s+w:val=")([^"]*)"/, `$1$2 (${doc.key.replace(/[<>&"]/g, '')})"`);
      this.newStyles.push(xml);
    }
    // Paragraphs without a style take the template's default style, as in docxtpl.
    const merged = { body: mapNum(mapStyle(doc.body)) };
    this.merged.set(doc.key, merged);
    return merged;
  }

  private mergeNumbering(doc: PreparedDocument): Map<string, number> {
    const abstractIds = new Map<string, number>();
    for (const [xml] of doc.numberingXml.matchAll(/<w:abstractNum\b[\s\S]*?<\/w:abstractNum>/g)) {
      const old = attr(xml, 'w:abstractNumId');
      if (old === undefined) continue;
      const id = this.numbering.allocateAbstractId();
      abstractIds.set(old, id);
      this.numbering.addAbstractXml(
        xml.replace(/(w:abstractNumId=")\d+"/, `$1${id}"`).replace(/<w:nsid\b[^>]*\/>/, ''),
      );
    }
    const numIds = new Map<string, number>();
    for (const m of doc.numberingXml.matchAll(/<w:num\b([^>]*)>([\s\S]*?)<\/w:num>/g)) {
      const old = attr(m[1], 'w:numId');
      const abstract = /<w:abstractNumId\s+w:val="(\d+)"/.exec(m[2])?.[1];
      const target = abstract !== undefined ? abstractIds.get(abstract) : undefined;
      if (old === undefined || target === undefined) continue;
      numIds.set(old, this.numbering.addNum(target, m[2].replace(/<w:abstractNumId\b[^>]*\/>/, '')));
    }
    return numIds;
  }

  /** Styles into word/styles.xml; namespaces the bodies use onto the parts' roots. */
  finalize(parts: Iterable<string>): void {
    if (this.newStyles.length) {
      const xml = this.zip.file(STYLES_PART)?.asText();
      if (xml)
        this.zip.file(STYLES_PART, xml.replace(/<\/w:styles>\s*$/, `${this.newStyles.join('')}</w:styles>`));
    }
    if (!this.namespaces.size) return;
    for (const part of parts) {
      const xml = this.zip.file(part)?.asText();
      if (!xml) continue;
      this.zip.file(
        part,
        xml.replace(/<(w:document|w:hdr|w:ftr)\b([^>]*)>/, (root, name: string, attrs: string) => {
          const missing = [...this.namespaces]
            .filter(([prefix]) => !new RegExp(`\\bxmlns:${prefix}=`).test(attrs))
            .map(([prefix, uri]) => ` xmlns:${prefix}="${uri}"`)
            .join('');
          return `<${name}${attrs}${missing}>`;
        }),
      );
    }
  }
}
