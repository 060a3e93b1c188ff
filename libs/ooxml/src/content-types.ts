/**
 * [Content_Types].xml: which content type each part of an OOXML package has (an Override by part
 * name, else the Default for its extension), and adding entries to it. Text in, text out: the
 * engine edits a pizzip package, split conversion its own copy, both with these.
 */
export const CONTENT_TYPES_PART = '[Content_Types].xml';

const WML = 'application/vnd.openxmlformats-officedocument.wordprocessingml';
/** WordprocessingML's part content types (ECMA-376 part 1, 15.2); which the engine fills is its package description's choice. */
export const WORD_MAIN_TYPE = `${WML}.document.main+xml`;
export const WORD_TEMPLATE_MAIN_TYPE = `${WML}.template.main+xml`;
export const WORD_HEADER_TYPE = `${WML}.header+xml`;
export const WORD_FOOTER_TYPE = `${WML}.footer+xml`;
export const WORD_FOOTNOTES_TYPE = `${WML}.footnotes+xml`;
export const WORD_ENDNOTES_TYPE = `${WML}.endnotes+xml`;
export const WORD_COMMENTS_TYPE = `${WML}.comments+xml`;
export const WORD_NUMBERING_TYPE = `${WML}.numbering+xml`;
const SML = 'application/vnd.openxmlformats-officedocument.spreadsheetml';
/** SpreadsheetML's part content types (ECMA-376 part 1, 12.3). */
export const SHEET_MAIN_TYPE = `${SML}.sheet.main+xml`;
export const SHEET_TEMPLATE_MAIN_TYPE = `${SML}.template.main+xml`;
export const SHEET_MACRO_MAIN_TYPE = 'application/vnd.ms-excel.sheet.macroEnabled.main+xml';
export const SHEET_MACRO_TEMPLATE_MAIN_TYPE = 'application/vnd.ms-excel.template.macroEnabled.main+xml';
export const WORKSHEET_TYPE = `${SML}.worksheet+xml`;
export const SHARED_STRINGS_TYPE = `${SML}.sharedStrings+xml`;
export const SHEET_STYLES_TYPE = `${SML}.styles+xml`;
export const SHEET_TABLE_TYPE = `${SML}.table+xml`;
export const EXTERNAL_LINK_TYPE = `${SML}.externalLink+xml`;
export const CONNECTIONS_TYPE = `${SML}.connections+xml`;
const PML = 'application/vnd.openxmlformats-officedocument.presentationml';
/** PresentationML's part content types (ECMA-376 part 1, 13.3). */
export const PRESENTATION_MAIN_TYPE = `${PML}.presentation.main+xml`;
export const PRESENTATION_TEMPLATE_MAIN_TYPE = `${PML}.template.main+xml`;
export const PRESENTATION_SLIDESHOW_MAIN_TYPE = `${PML}.slideshow.main+xml`;
export const PRESENTATION_MACRO_MAIN_TYPE =
  'application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml';
export const PRESENTATION_MACRO_TEMPLATE_MAIN_TYPE =
  'application/vnd.ms-powerpoint.template.macroEnabled.main+xml';
export const PRESENTATION_MACRO_SLIDESHOW_MAIN_TYPE =
  'application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml';
export const SLIDE_TYPE = `${PML}.slide+xml`;
export const NOTES_SLIDE_TYPE = `${PML}.notesSlide+xml`;
export const SLIDE_LAYOUT_TYPE = `${PML}.slideLayout+xml`;
export const SLIDE_MASTER_TYPE = `${PML}.slideMaster+xml`;
export const CUSTOM_PROPERTIES_TYPE = 'application/vnd.openxmlformats-officedocument.custom-properties+xml';

const ATTRIBUTE = (name: string) => new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`);

function attribute(tag: string, name: string): string | undefined {
  const m = ATTRIBUTE(name).exec(tag);
  return m ? (m[2] ?? m[3]) : undefined;
}

/** A part name as the package's zip knows it: `/word/document.xml` → `word/document.xml`. */
export function zipPathOf(partName: string): string {
  return partName.replace(/^\//, '');
}

/** The parsed content types of one package. Part names compare case-insensitively (OPC 9.1.1.2). */
export class ContentTypes {
  private readonly overrides = new Map<string, string>();
  private readonly defaults = new Map<string, string>();

  constructor(xml: string) {
    for (const tag of xml.match(/<(?:\w+:)?Override\b[^>]*>/g) ?? []) {
      const part = attribute(tag, 'PartName');
      const type = attribute(tag, 'ContentType');
      if (part !== undefined && type !== undefined) this.overrides.set(zipPathOf(part).toLowerCase(), type);
    }
    for (const tag of xml.match(/<(?:\w+:)?Default\b[^>]*>/g) ?? []) {
      const ext = attribute(tag, 'Extension');
      const type = attribute(tag, 'ContentType');
      if (ext !== undefined && type !== undefined) this.defaults.set(ext.toLowerCase(), type);
    }
  }

  /** The content type of the part at zip path `path`, or undefined when the package gives none. */
  typeOf(path: string): string | undefined {
    const key = zipPathOf(path).toLowerCase();
    const override = this.overrides.get(key);
    if (override !== undefined) return override;
    const dot = key.lastIndexOf('.');
    return dot < 0 ? undefined : this.defaults.get(key.slice(dot + 1));
  }

  /** Every content type an Override names, in document order (the main part's among them). */
  overrideTypes(): string[] {
    return [...this.overrides.values()];
  }

  /** Of `paths` (a package's files), those whose content type is one of `types`, in their order. */
  partsOfType(paths: Iterable<string>, types: ReadonlySet<string>): string[] {
    const out: string[] = [];
    for (const p of paths) {
      const t = this.typeOf(p);
      if (t !== undefined && types.has(t)) out.push(p);
    }
    return out;
  }
}

/** `xml` with a Default for `extension` first in <Types>, unless it has one. */
export function withDefaultContentType(xml: string, extension: string, contentType: string): string {
  if (new RegExp(`<Default\\s[^>]*Extension="${extension}"`, 'i').test(xml)) return xml;
  return xml.replace(
    /<Types([^>]*)>/,
    `<Types$1><Default Extension="${extension}" ContentType="${contentType}"/>`,
  );
}

/** `xml` with an Override for `partName` (`/docProps/custom.xml`) last in <Types>, unless it has one. */
export function withOverrideContentType(xml: string, partName: string, contentType: string): string {
  if (xml.includes(`PartName="${partName}"`)) return xml;
  return xml.replace(
    /<\/Types>\s*$/,
    `<Override PartName="${partName}" ContentType="${contentType}"/></Types>`,
  );
}

/** A package as pizzip holds it, as far as finding parts by content type needs. */
export interface PackageFiles {
  files: Record<string, unknown>;
  file(name: string): { asText(): string } | null;
}

/** The package's parts whose content type is one of `types`, read from its own [Content_Types].xml. */
export function packagePartsOfType(zip: PackageFiles, types: ReadonlySet<string>): string[] {
  const contentTypes = new ContentTypes(zip.file(CONTENT_TYPES_PART)?.asText() ?? '');
  return contentTypes.partsOfType(Object.keys(zip.files), types);
}
