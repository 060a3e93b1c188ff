/**
 * Each file format the engine fills, described as data (as docxtemplater's
 * es6/file-type-config.js does): which parts of the package hold tags, chosen by their content type
 * in [Content_Types].xml rather than by path, and which XML elements the tags' placements name.
 * The parser and runtime never see a format, and the tag scanner only its element names
 * (`elements`, to join a tag split across runs or paragraphs); the docx layer and the steps above
 * it ask the description instead of matching part names.
 *
 * Word, spreadsheets (.xlsx, filled by libs/engine/src/xlsx) and slide decks (.pptx, filled by
 * libs/engine/src/pptx) are entries:
 *   - .xlsx: main type `…spreadsheetml.sheet.main+xml`; parts `…worksheet+xml` (templated, cells
 *     `x:c` in rows `x:row`) and `…sharedStrings+xml` (templated: the text lives there, in
 *     `x:si`/`x:t`); placements `tr` → `x:row`, `tc` → `x:c`; no paragraph or run placement (null).
 *   - .pptx: main type `…presentationml.presentation.main+xml`; parts `…slide+xml` (templated,
 *     pictures) and `…notesSlide+xml` (templated); layouts and masters are read, never filled;
 *     elements `a:p`, `a:r`, `a:t`, rows `a:tr`, cells `a:tc`.
 * Only the entry is new; the steps that fill and check parts look types up in it.
 */
import {
  NOTES_SLIDE_TYPE,
  PRESENTATION_MACRO_MAIN_TYPE,
  PRESENTATION_MACRO_SLIDESHOW_MAIN_TYPE,
  PRESENTATION_MACRO_TEMPLATE_MAIN_TYPE,
  PRESENTATION_MAIN_TYPE,
  PRESENTATION_SLIDESHOW_MAIN_TYPE,
  PRESENTATION_TEMPLATE_MAIN_TYPE,
  SHARED_STRINGS_TYPE,
  SLIDE_LAYOUT_TYPE,
  SLIDE_MASTER_TYPE,
  SLIDE_TYPE,
  SHEET_MACRO_MAIN_TYPE,
  SHEET_MACRO_TEMPLATE_MAIN_TYPE,
  SHEET_MAIN_TYPE,
  SHEET_TABLE_TYPE,
  SHEET_TEMPLATE_MAIN_TYPE,
  WORKSHEET_TYPE,
  WORD_COMMENTS_TYPE,
  WORD_ENDNOTES_TYPE,
  WORD_FOOTER_TYPE,
  WORD_FOOTNOTES_TYPE,
  WORD_HEADER_TYPE,
  WORD_MAIN_TYPE,
  WORD_TEMPLATE_MAIN_TYPE,
} from '@app/ooxml';

/** docxtpl's tag prefixes: `{%p %}`, `{%tr %}`, `{%tc %}`, `{%r %}` (the element the tag stands for). */
export type Placement = 'p' | 'tr' | 'tc' | 'r';

/** One kind of XML part of a format, known by its content type. */
export interface PartKind {
  readonly contentType: string;
  /** What it is, for people: `main`, `header`, `footnotes`, … */
  readonly role: string;
  /** Its tags are filled. */
  readonly templated: boolean;
  /** Placeholder pictures in it are replaced (docxtpl's replace_pic). */
  readonly pictures: boolean;
  /** Where inspect lists it: lower first, then by part name. */
  readonly order: number;
}

/** The elements a format's text and tables are made of. */
export interface FormatElements {
  readonly paragraph: string;
  readonly run: string;
  readonly text: string;
  readonly table: string;
  readonly row: string;
  readonly cell: string;
}

export interface PackageFormat {
  /** The file extension it is known by. */
  readonly name: string;
  /** The main part's content types that make a package this format, each with its variant. */
  readonly mainTypes: Readonly<Record<string, string>>;
  /** The main type a filled package carries (a template variant, .dotx, is filled as .docx). */
  readonly filledMainType: string;
  /** Variants that carry macros: refused. */
  readonly macroVariants: readonly string[];
  /**
   * The XML parts the engine reads: their size counts against the XML limit and each is checked
   * well formed before any is parsed. Inspect lists tags in these; the fill fills the templated.
   */
  readonly parts: readonly PartKind[];
  readonly elements: FormatElements;
  /** The element each placement prefix stands for. */
  readonly placements: Readonly<Record<Placement, string>>;
  /**
   * Wrappers runs can sit in, lexed as elements (beyond docxtemplater's own list) so placement and
   * balance checks see them.
   */
  readonly lexedElements: readonly string[];
}

/**
 * Word (.docx, and .dotx filled as .docx). The templated parts are those docxtemplater lists for
 * Word (main document, headers, footers, footnotes, comments) — endnotes are read and checked but
 * not filled, as before.
 */
export const WORD: PackageFormat = {
  name: 'docx',
  mainTypes: {
    [WORD_MAIN_TYPE]: 'docx',
    [WORD_TEMPLATE_MAIN_TYPE]: 'dotx',
    'application/vnd.ms-word.document.macroEnabled.main+xml': 'docm',
    'application/vnd.ms-word.template.macroEnabledTemplate.main+xml': 'dotm',
  },
  filledMainType: WORD_MAIN_TYPE,
  macroVariants: ['docm', 'dotm'],
  parts: [
    { contentType: WORD_MAIN_TYPE, role: 'main', templated: true, pictures: true, order: 0 },
    { contentType: WORD_HEADER_TYPE, role: 'header', templated: true, pictures: true, order: 1 },
    { contentType: WORD_FOOTER_TYPE, role: 'footer', templated: true, pictures: true, order: 2 },
    { contentType: WORD_FOOTNOTES_TYPE, role: 'footnotes', templated: true, pictures: false, order: 3 },
    { contentType: WORD_ENDNOTES_TYPE, role: 'endnotes', templated: false, pictures: false, order: 3 },
    { contentType: WORD_COMMENTS_TYPE, role: 'comments', templated: true, pictures: false, order: 3 },
  ],
  elements: { paragraph: 'w:p', run: 'w:r', text: 'w:t', table: 'w:tbl', row: 'w:tr', cell: 'w:tc' },
  placements: { p: 'w:p', tr: 'w:tr', tc: 'w:tc', r: 'w:r' },
  lexedElements: [
    'w:hyperlink',
    'w:txbxContent',
    'w:smartTag',
    'w:ins',
    'w:del',
    'w:fldSimple',
    'w:customXml',
    'w:tcPr',
  ],
};

/**
 * Spreadsheets (.xlsx, and .xltx filled as .xlsx). Tags live in cells (their text in the shared
 * strings or inline); `{%tr %}` stands for a row (`x:row`), `{%tc %}` for a cell. The workbook
 * and tables are read to move what follows repeated rows; they hold no tags.
 */
export const SPREADSHEET: PackageFormat = {
  name: 'xlsx',
  mainTypes: {
    [SHEET_MAIN_TYPE]: 'xlsx',
    [SHEET_TEMPLATE_MAIN_TYPE]: 'xltx',
    [SHEET_MACRO_MAIN_TYPE]: 'xlsm',
    [SHEET_MACRO_TEMPLATE_MAIN_TYPE]: 'xltm',
  },
  filledMainType: SHEET_MAIN_TYPE,
  macroVariants: ['xlsm', 'xltm'],
  parts: [
    { contentType: SHEET_MAIN_TYPE, role: 'workbook', templated: false, pictures: false, order: 0 },
    { contentType: WORKSHEET_TYPE, role: 'worksheet', templated: true, pictures: false, order: 1 },
    { contentType: SHARED_STRINGS_TYPE, role: 'shared strings', templated: true, pictures: false, order: 2 },
    { contentType: SHEET_TABLE_TYPE, role: 'table', templated: false, pictures: false, order: 3 },
  ],
  elements: { paragraph: 'x:si', run: 'x:r', text: 'x:t', table: 'x:sheetData', row: 'x:row', cell: 'x:c' },
  placements: { p: 'x:si', tr: 'x:row', tc: 'x:c', r: 'x:r' },
  lexedElements: [],
};

/**
 * Slide decks (.pptx, and .potx / .ppsx filled as .pptx). Tags live in the text of shapes, tables
 * and notes (`a:p` / `a:r` / `a:t`, as DrawingML writes text everywhere in a deck); `{%tr %}`
 * stands for a table row (`a:tr`), `{%p %}` for a paragraph. Layouts and masters are read (their
 * XML is checked) but never filled: what they show is the deck's design, not its content.
 */
export const PRESENTATION: PackageFormat = {
  name: 'pptx',
  mainTypes: {
    [PRESENTATION_MAIN_TYPE]: 'pptx',
    [PRESENTATION_TEMPLATE_MAIN_TYPE]: 'potx',
    [PRESENTATION_SLIDESHOW_MAIN_TYPE]: 'ppsx',
    [PRESENTATION_MACRO_MAIN_TYPE]: 'pptm',
    [PRESENTATION_MACRO_TEMPLATE_MAIN_TYPE]: 'potm',
    [PRESENTATION_MACRO_SLIDESHOW_MAIN_TYPE]: 'ppsm',
  },
  filledMainType: PRESENTATION_MAIN_TYPE,
  macroVariants: ['pptm', 'potm', 'ppsm'],
  parts: [
    {
      contentType: PRESENTATION_MAIN_TYPE,
      role: 'presentation',
      templated: false,
      pictures: false,
      order: 0,
    },
    { contentType: SLIDE_TYPE, role: 'slide', templated: true, pictures: true, order: 1 },
    { contentType: NOTES_SLIDE_TYPE, role: 'notes', templated: true, pictures: false, order: 2 },
    { contentType: SLIDE_LAYOUT_TYPE, role: 'layout', templated: false, pictures: false, order: 3 },
    { contentType: SLIDE_MASTER_TYPE, role: 'master', templated: false, pictures: false, order: 3 },
  ],
  elements: { paragraph: 'a:p', run: 'a:r', text: 'a:t', table: 'a:tbl', row: 'a:tr', cell: 'a:tc' },
  placements: { p: 'a:p', tr: 'a:tr', tc: 'a:tc', r: 'a:r' },
  lexedElements: [],
};

/** The formats the engine fills, Word first. */
export const PACKAGE_FORMATS: readonly PackageFormat[] = [WORD, SPREADSHEET, PRESENTATION];

/** A format's part kinds, looked up by content type (built once per format). */
export class FormatParts {
  private readonly byType: ReadonlyMap<string, PartKind>;

  private readonly main: PartKind | undefined;

  constructor(readonly format: PackageFormat) {
    const byType = new Map(format.parts.map((p) => [p.contentType, p]));
    this.main = byType.get(format.filledMainType);
    // Every variant's main part is the main part (a .dotx's, before it is filled as .docx).
    if (this.main) for (const t of Object.keys(format.mainTypes)) byType.set(t, this.main);
    this.byType = byType;
  }

  /** The kind of a part of this content type, or undefined when the engine does not read it. */
  kindOf(contentType: string | undefined): PartKind | undefined {
    return contentType === undefined ? undefined : this.byType.get(contentType);
  }

  isRead(contentType: string | undefined): boolean {
    return this.kindOf(contentType) !== undefined;
  }

  isTemplated(contentType: string | undefined): boolean {
    return this.kindOf(contentType)?.templated === true;
  }

  hasPictures(contentType: string | undefined): boolean {
    return this.kindOf(contentType)?.pictures === true;
  }

  isMain(contentType: string | undefined): boolean {
    return this.main !== undefined && this.kindOf(contentType) === this.main;
  }
}

export const WORD_PARTS = new FormatParts(WORD);

export const SPREADSHEET_PARTS = new FormatParts(SPREADSHEET);

export const PRESENTATION_PARTS = new FormatParts(PRESENTATION);

/** The format whose main content type `mainType` is, if the engine fills it. */
export function formatOfMainType(mainType: string | undefined): PackageFormat | undefined {
  if (mainType === undefined) return undefined;
  return PACKAGE_FORMATS.find((f) => Object.hasOwn(f.mainTypes, mainType));
}
