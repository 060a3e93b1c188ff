/**
 * Relationships and media that rich content adds to a package: hyperlinks (external), images and
 * sub-document pictures, per part (document, each header and footer has its own .rels).
 * Ids are allocated fresh against the part's existing relationships, so they never collide with
 * the template's, the image writer's (`rIdDocgenImg…`) or each other.
 */
import type PizZip from 'pizzip';
import {
  CONTENT_TYPES_PART,
  EMPTY_RELS,
  relationshipIds,
  relsPathOf,
  withDefaultContentType,
  withOverrideContentType,
  withRelationships,
} from '@app/ooxml';
import { escapeXml } from '../docx/run-text';

export { REL_HYPERLINK, REL_IMAGE, REL_NUMBERING } from '@app/ooxml';

interface PartRels {
  taken: Set<string>;
  added: { id: string; type: string; target: string; external: boolean }[];
}

export class RelationshipWriter {
  private readonly parts = new Map<string, PartRels>();
  private readonly mediaNames = new Map<Buffer, string>();
  private readonly media: [string, Buffer][] = [];
  private next = 1;

  constructor(private readonly zip: PizZip) {}

  private partRels(partPath: string): PartRels {
    let p = this.parts.get(partPath);
    if (!p) {
      const xml = this.zip.file(relsPathOf(partPath))?.asText() ?? '';
      const taken = relationshipIds(xml);
      this.parts.set(partPath, (p = { taken, added: [] }));
    }
    return p;
  }

  /** A relationship from `partPath`; the same target twice gets the same id. */
  add(partPath: string, type: string, target: string, external: boolean): string {
    const p = this.partRels(partPath);
    const same = p.added.find((r) => r.type === type && r.target === target && r.external === external);
    if (same) return same.id;
    let id: string;
    do id = `rIdRich${this.next++}`;
    while (p.taken.has(id));
    p.taken.add(id);
    p.added.push({ id, type, target, external });
    return id;
  }

  /** A PNG as a new media file; returns its path relative to word/ (e.g. `media/rich1.png`). */
  addMedia(png: Buffer, extension = 'png'): string {
    const known = this.mediaNames.get(png);
    if (known) return known;
    let n = this.media.length + 1;
    while (this.zip.file(`word/media/rich${n}.${extension}`)) n++;
    const name = `media/rich${n}.${extension}`;
    this.media.push([name, png]);
    this.mediaNames.set(png, name);
    return name;
  }

  finalize(): void {
    for (const [name, data] of this.media) this.zip.file(`word/${name}`, data);
    for (const [part, p] of this.parts) {
      if (!p.added.length) continue;
      const relsPath = relsPathOf(part);
      const xml = this.zip.file(relsPath)?.asText() ?? EMPTY_RELS;
      const added = p.added
        .map(
          (r) =>
            `<Relationship Id="${r.id}" Type="${r.type}" Target="${escapeXml(r.target)}"${r.external ? ' TargetMode="External"' : ''}/>`,
        )
        .join('');
      this.zip.file(relsPath, withRelationships(xml, added));
    }
    if (this.media.length) {
      const extensions = new Set(this.media.map(([n]) => n.slice(n.lastIndexOf('.') + 1)));
      for (const ext of extensions)
        addDefaultContentType(this.zip, ext, CONTENT_TYPE_OF[ext] ?? 'application/octet-stream');
    }
  }
}

const CONTENT_TYPE_OF: Record<string, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  emf: 'image/x-emf',
  wmf: 'image/x-wmf',
  svg: 'image/svg+xml',
};

export function addDefaultContentType(zip: PizZip, extension: string, contentType: string): void {
  const ct = zip.file(CONTENT_TYPES_PART)?.asText();
  if (!ct) return;
  const out = withDefaultContentType(ct, extension, contentType);
  if (out !== ct) zip.file(CONTENT_TYPES_PART, out);
}

export function addOverrideContentType(zip: PizZip, partName: string, contentType: string): void {
  const ct = zip.file(CONTENT_TYPES_PART)?.asText();
  if (!ct) return;
  const out = withOverrideContentType(ct, partName, contentType);
  if (out !== ct) zip.file(CONTENT_TYPES_PART, out);
}
