/**
 * docxtpl's `replace_pic` without code: a picture of the template whose alt text (wp:docPr
 * descr) or name equals a key of `images` shows that image instead. The frame keeps its size
 * unless the request sized the image (width_mm, height_mm, width_px or height_px).
 */
import { CONTENT_TYPES_PART, ContentTypes } from '@app/ooxml';
import type PizZip from 'pizzip';
import type { PreparedImage } from '../docx/images';
import { decodeXmlText } from '../syntax/tag-scanner';
import { WORD_PARTS } from '../package/formats';
import { REL_IMAGE, type RelationshipWriter } from './relationships';

const SIZE_FIELDS = ['width_mm', 'height_mm', 'width_px', 'height_px'];

function attr(tag: string, name: string): string | undefined {
  const v = new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
  return v === undefined ? undefined : decodeXmlText(v);
}

/** Replaces placeholder pictures in the package; returns how many were replaced. */
export function replacePicturePlaceholders(
  zip: PizZip,
  images: ReadonlyMap<string, PreparedImage>,
  requestImages: Record<string, unknown> | undefined,
  rels: RelationshipWriter,
): number {
  if (!images.size) return 0;
  let replaced = 0;
  const types = new ContentTypes(zip.file(CONTENT_TYPES_PART)?.asText() ?? '');
  for (const part of Object.keys(zip.files).filter((p) => WORD_PARTS.hasPictures(types.typeOf(p)))) {
    const xml = zip.file(part)!.asText();
    if (!xml.includes('<w:drawing')) continue;
    const out = xml.replace(/<w:drawing>[\s\S]*?<\/w:drawing>/g, (drawing) => {
      const docPr = /<wp:docPr\b[^>]*>/.exec(drawing)?.[0];
      if (!docPr) return drawing;
      const descr = attr(docPr, 'descr');
      const name = attr(docPr, 'name');
      const key =
        descr !== undefined && images.has(descr)
          ? descr
          : name !== undefined && images.has(name)
            ? name
            : undefined;
      if (key === undefined || !/\br:embed="[^"]*"/.test(drawing)) return drawing;
      const image = images.get(key)!;
      const rId = rels.add(part, REL_IMAGE, rels.addMedia(image.png), false);
      let result = drawing.replace(/\br:embed="[^"]*"/, `r:embed="${rId}"`);
      const given = requestImages?.[key];
      const sized =
        given !== null &&
        typeof given === 'object' &&
        SIZE_FIELDS.some((f) => Object.prototype.hasOwnProperty.call(given, f));
      if (sized)
        result = result
          .replace(
            /(<wp:extent\b[^>]*?\bcx=")\d+("[^>]*?\bcy=")\d+"/,
            `$1${image.widthEmu}$2${image.heightEmu}"`,
          )
          .replace(
            /(<a:ext\b[^>]*?\bcx=")\d+("[^>]*?\bcy=")\d+"/,
            `$1${image.widthEmu}$2${image.heightEmu}"`,
          );
      replaced++;
      return result;
    });
    if (out !== xml) zip.file(part, out);
  }
  return replaced;
}
