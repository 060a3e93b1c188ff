/**
 * Relationships (.rels parts) of an OOXML package: where a part's relationships live, the
 * relationship types the service writes, and adding relationships to a .rels text.
 */
export const ROOT_RELS_PART = '_rels/.rels';

const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
export const REL_OFFICE_DOCUMENT = `${R}/officeDocument`;
export const REL_IMAGE = `${R}/image`;
export const REL_HYPERLINK = `${R}/hyperlink`;
export const REL_NUMBERING = `${R}/numbering`;
export const REL_CUSTOM_PROPERTIES = `${R}/custom-properties`;

/** An empty .rels part, as Word writes one. */
export const EMPTY_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>';

/** `word/header1.xml` → `word/_rels/header1.xml.rels` */
export function relsPathOf(partPath: string): string {
  const slash = partPath.lastIndexOf('/');
  return `${partPath.slice(0, slash + 1)}_rels/${partPath.slice(slash + 1)}.rels`;
}

/** The ids a .rels text gives out already. */
export function relationshipIds(relsXml: string): Set<string> {
  return new Set([...relsXml.matchAll(/\bId="([^"]*)"/g)].map((m) => m[1]));
}

/** `relsXml` with `elements` (serialised `<Relationship …/>`s) appended, also to a self-closed root. */
export function withRelationships(relsXml: string, elements: string): string {
  return relsXml.includes('</Relationships>')
    ? relsXml.replace('</Relationships>', `${elements}</Relationships>`)
    : relsXml.replace(/<Relationships([^>]*)\/>/, `<Relationships$1>${elements}</Relationships>`);
}
