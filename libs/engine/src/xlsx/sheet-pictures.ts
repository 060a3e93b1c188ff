/**
 * Pictures in a workbook's drawings replaced from the request's `images`, as Word's are by name:
 * a picture (`xdr:pic`) whose name or alternative text (`xdr:cNvPr` @name, @descr) is a key of
 * `images` shows that PNG, in the anchor and size the template gave it. The template's media part
 * stays (another picture may show it); the replaced picture points to a new one.
 */
import { CONTENT_TYPES_PART, REL_IMAGE, relsPathOf } from '@app/ooxml';
import { posix } from 'node:path';
import type PizZip from 'pizzip';
import type { PreparedImage } from '../docx/images';
import { attr, setAttr } from './sheet-xml';

const DRAWING_TYPE = 'application/vnd.openxmlformats-officedocument.drawing+xml';

/** Elements with or without a prefix: openpyxl writes `<pic>`, Excel and Calc `<xdr:pic>`. */
const PIC = /<((?:\w+:)?)pic\b[\s\S]*?<\/\1pic>/g;

/** Replaces the pictures `images` names; returns the keys used. */
export function fillSheetPictures(
  zip: PizZip,
  drawingParts: readonly string[],
  images: ReadonlyMap<string, PreparedImage>,
): Set<string> {
  const used = new Set<string>();
  if (!images.size) return used;
  let added = 0;
  for (const part of drawingParts) {
    const relsPath = relsPathOf(part);
    let rels = zip.file(relsPath)?.asText();
    const xml = zip.file(part)?.asText();
    if (!rels || !xml) continue;
    const ids = new Set([...rels.matchAll(/\bId="([^"]*)"/g)].map((m) => m[1]));
    const filled = xml.replace(PIC, (pic) => {
      const cNvPr = /<(?:\w+:)?cNvPr\b[^>]*>/.exec(pic)?.[0] ?? '';
      const key = [attr(cNvPr, 'name'), attr(cNvPr, 'descr')]
        .map((k) => k?.trim())
        .find((k): k is string => !!k && images.has(k));
      if (!key) return pic;
      const image = images.get(key)!;
      used.add(key);
      let id = `rIdFilled${++added}`;
      while (ids.has(id)) id = `rIdFilled${++added}`;
      ids.add(id);
      const media = `xl/media/filled-${added}-${posix.basename(part, '.xml')}.png`;
      zip.file(media, image.png);
      rels = rels!.replace(
        '</Relationships>',
        `<Relationship Id="${id}" Type="${REL_IMAGE}" Target="../media/${posix.basename(media)}"/></Relationships>`,
      );
      let out = pic.replace(/(<a:blip\b[^>]*?\sr:embed=")[^"]*(")/, `$1${id}$2`);
      if (image.alt !== undefined) {
        const open = /^<(?:\w+:)?cNvPr\b([^>]*?)(\/?)>/.exec(cNvPr)!;
        const attrs = setAttr(open[1], 'descr', image.alt);
        out = out.replace(cNvPr, cNvPr.replace(open[0], open[0].replace(open[1], attrs)));
      }
      return out;
    });
    if (!used.size) continue;
    zip.file(part, filled);
    zip.file(relsPath, rels);
  }
  if (used.size) {
    const types = zip.file(CONTENT_TYPES_PART)!.asText();
    if (!/<Default\b[^>]*Extension="png"/i.test(types))
      zip.file(
        CONTENT_TYPES_PART,
        types.replace('</Types>', '<Default Extension="png" ContentType="image/png"/></Types>'),
      );
  }
  return used;
}

export { DRAWING_TYPE };
