/**
 * Places checked PNG images into a .docx package: one media file per image, one relationship per
 * (part, image) pair — headers and footers have relationship files of their own — and the inline
 * drawing XML that shows it at its computed size.
 */
import {
  CONTENT_TYPES_PART,
  EMPTY_RELS,
  REL_HYPERLINK,
  REL_IMAGE,
  relsPathOf,
  withDefaultContentType,
  withRelationships,
} from '@app/ooxml';
import type PizZip from 'pizzip';
import type { PreparedImage } from './images';
import type { GeneratedImage } from '../runtime/values';
import { escapeXml } from './run-text';
import { MissingAltTextError } from '../errors';

const NS_WP = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
const NS_A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const NS_PIC = 'http://schemas.openxmlformats.org/drawingml/2006/picture';
const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/**
 * An inline picture (`w:drawing`) sized cx × cy EMU, showing the image of relationship `rId`;
 * `descr` and `fileName` are XML-escaped already. The one drawing the engine writes, for `{{ img }}`
 * tags and for pictures in rich content.
 *
 * No distT/distB/distL/distR, as python-docx writes docxtpl's InlineImage: Word reads them as 0
 * either way, but LibreOffice keeps its own spacing around an inline picture without them and none
 * with them at 0, so a right-aligned logo sat ~3 mm further right than docxtpl + LibreOffice
 * print it (the corpus invoice's header, compared at 100 dpi).
 */
export function inlineDrawingXml(d: {
  id: number;
  descr: string;
  fileName: string;
  rId: string;
  cx: number;
  cy: number;
  /** Word's decorative mark (Office 2019+), which LibreOffice imports as a decorative picture. */
  decorative?: boolean;
  /**
   * The relationship of a link the picture carries (a signature place's marker). Such a picture
   * also gets its distances at 0, so that its box starts where the tag's text would (LibreOffice
   * keeps about 3 mm of its own to the left of an inline picture without them).
   */
  linkRId?: string;
}): string {
  const { id, rId, cx, cy } = d;
  const link = d.linkRId ? `<a:hlinkClick xmlns:a="${NS_A}" xmlns:r="${NS_R}" r:id="${d.linkRId}"/>` : '';
  const docPr = d.decorative
    ? `<wp:docPr id="${id}" name="Picture ${id}" descr=""><a:extLst xmlns:a="${NS_A}"><a:ext uri="${DECORATIVE_EXT_URI}">` +
      `<adec:decorative xmlns:adec="${NS_ADEC}" val="1"/></a:ext></a:extLst></wp:docPr>`
    : link
      ? `<wp:docPr id="${id}" name="Picture ${id}" descr="${d.descr}">${link}</wp:docPr>`
      : `<wp:docPr id="${id}" name="Picture ${id}" descr="${d.descr}"/>`;
  const dist = d.linkRId ? ' distT="0" distB="0" distL="0" distR="0"' : '';
  return (
    `<w:drawing><wp:inline${dist} xmlns:wp="${NS_WP}">` +
    `<wp:extent cx="${cx}" cy="${cy}"/><wp:effectExtent l="0" t="0" r="0" b="0"/>` +
    docPr +
    `<wp:cNvGraphicFramePr><a:graphicFrameLocks xmlns:a="${NS_A}" noChangeAspect="1"/></wp:cNvGraphicFramePr>` +
    `<a:graphic xmlns:a="${NS_A}"><a:graphicData uri="${NS_PIC}"><pic:pic xmlns:pic="${NS_PIC}">` +
    `<pic:nvPicPr><pic:cNvPr id="${id}" name="${d.fileName}"/><pic:cNvPicPr/></pic:nvPicPr>` +
    `<pic:blipFill><a:blip xmlns:r="${NS_R}" r:embed="${rId}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm>` +
    `<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic>` +
    `</wp:inline></w:drawing>`
  );
}

/** The decorative mark's extension (MS-ODRAWXML 2.3.1.xx, Office 2019): its uri and namespace. */
const DECORATIVE_EXT_URI = '{C183D7F6-B498-43B3-948B-1728B52AA6E4}';
const NS_ADEC = 'http://schemas.microsoft.com/office/drawing/2017/decorative';

export class DocxImageWriter {
  private readonly media = new Map<string, string>(); // image name → media file name
  private readonly rels = new Map<string, Map<string, string>>(); // part → image name → rId
  private readonly links = new Map<string, Map<string, string>>(); // part → link URI → rId
  private drawingCount = 0;
  /** Pictures filters drew (barcodes), by their content-derived names: kept apart from the request's. */
  private readonly generated = new Map<string, GeneratedImage>();

  constructor(
    private readonly images: ReadonlyMap<string, PreparedImage>,
    private readonly options: { requireAltText?: boolean } = {},
  ) {}

  private image(name: string): PreparedImage | GeneratedImage | undefined {
    return this.generated.get(name) ?? this.images.get(name);
  }

  /**
   * The `<w:drawing>` for an image in a part; registers media and relationship on first use.
   * `generated` is a picture a filter drew, placed like the request's images.
   */
  drawing(imageName: string, partPath: string, generated?: GeneratedImage): string {
    if (generated) {
      imageName = `\u0000${generated.name}`; // cannot collide with a request image's name
      if (!this.generated.has(imageName)) this.generated.set(imageName, generated);
    }
    const img = this.image(imageName);
    if (!img) throw new Error(`no prepared image '${imageName}'`);
    if (!this.media.has(imageName)) this.media.set(imageName, `docgen_image${this.media.size + 1}.png`);
    let partRels = this.rels.get(partPath);
    if (!partRels) this.rels.set(partPath, (partRels = new Map()));
    let rId = partRels.get(imageName);
    if (!rId) partRels.set(imageName, (rId = `rIdDocgenImg${partRels.size + 1}`));
    // docPr ids must be unique in the document; start far above what Word assigns.
    const id = 100000 + ++this.drawingCount;
    const { widthEmu: cx, heightEmu: cy } = img;
    const name = escapeXml(generated ? generated.name : imageName);
    const own = generated ? undefined : (img as PreparedImage);
    if (own && this.options.requireAltText && !own.alt && !own.decorative)
      throw new MissingAltTextError(imageName);
    // Without alt the image's name, as before: what docxtpl's InlineImage writes too.
    const descr = generated ? escapeXml(generated.descr) : own?.alt ? escapeXml(own.alt) : name;
    const linkRId = generated?.link ? this.linkRelationship(partPath, generated.link) : undefined;
    return inlineDrawingXml({
      id,
      descr,
      fileName: `${name}.png`,
      rId,
      cx,
      cy,
      decorative: own?.decorative,
      ...(linkRId ? { linkRId } : {}),
    });
  }

  /** The part's relationship to an external link, registered on first use. */
  private linkRelationship(partPath: string, uri: string): string {
    let partLinks = this.links.get(partPath);
    if (!partLinks) this.links.set(partPath, (partLinks = new Map()));
    let rId = partLinks.get(uri);
    if (!rId) partLinks.set(uri, (rId = `rIdDocgenLink${partLinks.size + 1}`));
    return rId;
  }

  /** Writes media files, relationships and the PNG content type into the package. */
  finalize(zip: PizZip): void {
    if (!this.media.size) return;
    for (const [imageName, file] of this.media) zip.file(`word/media/${file}`, this.image(imageName)!.png);
    for (const [part, partRels] of this.rels) {
      const relsPath = relsPathOf(part);
      const xml = zip.file(relsPath)?.asText() ?? EMPTY_RELS;
      const added = [...partRels]
        .map(
          ([imageName, rId]) =>
            `<Relationship Id="${rId}" Type="${REL_IMAGE}" Target="media/${this.media.get(imageName)}"/>`,
        )
        .join('');
      const links = [...(this.links.get(part) ?? [])]
        .map(
          ([uri, rId]) =>
            `<Relationship Id="${rId}" Type="${REL_HYPERLINK}" Target="${escapeXml(uri)}" TargetMode="External"/>`,
        )
        .join('');
      zip.file(relsPath, withRelationships(xml, added + links));
    }
    const ct = zip.file(CONTENT_TYPES_PART)?.asText();
    if (ct) {
      const withPng = withDefaultContentType(ct, 'png', 'image/png');
      if (withPng !== ct) zip.file(CONTENT_TYPES_PART, withPng);
    }
  }
}
