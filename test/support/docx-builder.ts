/**
 * Builds small, valid .docx files in memory for tests, including the "messy" run structure Word
 * produces when an author edits a template: a placeholder such as `{{ customer.name }}` split over
 * several runs with different formatting, spell-check marks (`w:proofErr`) and bookmarks between
 * them. The template engine must cope with exactly that, so the tests need to be able to write it.
 *
 * Split a paragraph's text into runs with {@link SPLIT} (U+2016 DOUBLE VERTICAL LINE, which cannot
 * clash with Jinja syntax, unlike `|`):
 *
 *   buildDocx({ body: [messy('Dear {{ cust‖omer.na‖me }},')] })
 *
 * Text is escaped; '\n' in a run's text becomes `<w:br/>` and '\t' becomes `<w:tab/>`.
 *
 * Part names are predictable so tests can address them: headers are numbered word/header1.xml,
 * header2.xml, … in the order default, first, even (likewise footers), footnotes live in
 * word/footnotes.xml and images in word/media/imageN.png.
 */
import PizZip from 'pizzip';

/** Marks a run boundary inside paragraph text. */
export const SPLIT = '\u2016';

const NS = {
  w: 'http://schemas.openxmlformats.org/wordprocessingml/2006/main',
  r: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  wp: 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing',
  a: 'http://schemas.openxmlformats.org/drawingml/2006/main',
  pic: 'http://schemas.openxmlformats.org/drawingml/2006/picture',
  wps: 'http://schemas.microsoft.com/office/word/2010/wordprocessingShape',
  mc: 'http://schemas.openxmlformats.org/markup-compatibility/2006',
  v: 'urn:schemas-microsoft-com:vml',
  o: 'urn:schemas-microsoft-com:office:office',
  w10: 'urn:schemas-microsoft-com:office:word',
  w14: 'http://schemas.microsoft.com/office/word/2010/wordml',
  wp14: 'http://schemas.microsoft.com/office/word/2010/wordprocessingDrawing',
} as const;

/** Root attributes as Word writes them on document, header, footer and footnotes parts. */
const ROOT_NS =
  Object.entries(NS)
    .map(([prefix, uri]) => `xmlns:${prefix}="${uri}"`)
    .join(' ') + ' mc:Ignorable="w14 wp14"';

const REL = {
  officeDocument: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument',
  coreProps: 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties',
  extendedProps: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties',
  styles: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles',
  settings: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings',
  header: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/header',
  footer: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer',
  footnotes: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes',
  image: 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/image',
} as const;

const CT = {
  document: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
  styles: 'application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml',
  settings: 'application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml',
  header: 'application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml',
  footer: 'application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml',
  footnotes: 'application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml',
  core: 'application/vnd.openxmlformats-package.core-properties+xml',
  app: 'application/vnd.openxmlformats-officedocument.extended-properties+xml',
} as const;

const EMU_PER_MM = 36000;
const TWIPS_PER_MM = 1440 / 25.4;

// ---------------------------------------------------------------------------------------------
// Specification types
// ---------------------------------------------------------------------------------------------

export interface RunFormat {
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strike?: boolean;
  /** Hex RGB without '#', e.g. 'FF0000'. */
  color?: string;
  /** Font size in points. */
  size?: number;
  font?: string;
  /** Highlight colour name, e.g. 'yellow'. */
  highlight?: string;
  /** Character style id. */
  style?: string;
  /** Adds `<w:lang w:val="…"/>`, as Word does on nearly every run. */
  lang?: string;
}

/** One run of text; SPLIT markers in `text` split it further (see ParagraphSpec.formats). */
export interface RunSpec extends RunFormat {
  text: string;
}

export interface ImageSpec {
  /** PNG bytes. */
  png: Buffer;
  widthMm: number;
  heightMm: number;
  /** docPr name; defaults to 'Picture N'. */
  name?: string;
}

export interface TextBoxSpec {
  /** The text box content; Word keeps it in `w:txbxContent` inside a `wps:txbx`. */
  textBox: BlockSpec[];
  widthMm?: number;
  heightMm?: number;
  /**
   * Word writes every text box twice: a DrawingML shape in `mc:Choice` and a VML copy in
   * `mc:Fallback`. Default true, as Word does; false writes the `mc:Choice` shape only.
   */
  fallback?: boolean;
}

/** Inline content of a paragraph. Strings are runs without formatting. */
export type InlineSpec =
  | string
  | RunSpec
  | { image: ImageSpec }
  | TextBoxSpec
  /** A footnote with this content, referenced at this point of the paragraph. */
  | { footnote: BlockSpec[] }
  /** A simple field with its cached result, e.g. `{ field: 'PAGE', result: '1' }`. */
  | { field: string; result?: string }
  /** A raw element between runs, e.g. `{ raw: '<w:proofErr w:type="spellStart"/>' }`. */
  | { raw: string };

export interface ParagraphSpec {
  /** Paragraph text; SPLIT markers split it into separate runs. Used when `runs` is absent. */
  text?: string;
  /** Inline content; SPLIT markers inside run texts split those runs further. */
  runs?: InlineSpec[];
  /** Paragraph style id, e.g. 'Heading1'. */
  style?: string;
  align?: 'left' | 'center' | 'right' | 'both';
  /** Formatting of the segments made by SPLIT markers, applied in turn (cycled) over them. */
  formats?: RunFormat[];
  /** Word's spell-check marks at the SPLIT boundaries: spellStart, spellEnd, spellStart, … */
  proofErr?: boolean;
  /** Bookmarks at the SPLIT boundaries: bookmarkStart, bookmarkEnd, … (as Word's _GoBack). */
  bookmarks?: boolean;
  /** rsid attributes on the paragraph and its runs, as Word writes them. */
  rsid?: boolean;
}

export interface CellOptions {
  blocks: BlockSpec[];
  /** Number of grid columns this cell spans. */
  gridSpan?: number;
  /** Merged down rows (`w:vMerge`): the first cell of the merge, or one it continues. */
  vMerge?: 'restart' | 'continue';
  /** Cell background, hex RGB. */
  shading?: string;
  widthMm?: number;
}

/** A cell: a paragraph, several blocks (array), or blocks with options. */
export type CellSpec = string | ParagraphSpec | BlockSpec[] | CellOptions;

export interface TableSpec {
  rows: CellSpec[][];
  /** Column widths; defaults to an equal share of 160 mm. */
  widthsMm?: number[];
  /** Single-line borders on all cells; default true. */
  borders?: boolean;
}

/** A paragraph (string: SPLIT markers allowed) or a table. */
export type BlockSpec = string | ParagraphSpec | TableSpec;

export interface HeaderFooterSet {
  default?: BlockSpec[];
  first?: BlockSpec[];
  even?: BlockSpec[];
}

export interface DocxSpec {
  body: BlockSpec[];
  /** Blocks of the default header, or headers by type. */
  header?: BlockSpec[] | HeaderFooterSet;
  footer?: BlockSpec[] | HeaderFooterSet;
  /** Core property dc:title. */
  title?: string;
}

// ---------------------------------------------------------------------------------------------
// Convenience constructors
// ---------------------------------------------------------------------------------------------

/** A paragraph from text with SPLIT markers, with options. */
export function p(text: string, options: Omit<ParagraphSpec, 'text' | 'runs'> = {}): ParagraphSpec {
  return { ...options, text };
}

/**
 * A paragraph the way Word leaves it after editing: every SPLIT boundary becomes a run boundary
 * with changing formatting (plain, bold, italic, …), spell-check marks, a bookmark and rsids.
 */
export function messy(text: string, options: Omit<ParagraphSpec, 'text' | 'runs'> = {}): ParagraphSpec {
  return {
    formats: [{ lang: 'en-US' }, { bold: true }, { italic: true, color: 'C00000' }, { underline: true }],
    proofErr: true,
    bookmarks: true,
    rsid: true,
    ...options,
    text,
  };
}

/** A table from rows of cells. */
export function table(rows: CellSpec[][], options: Omit<TableSpec, 'rows'> = {}): TableSpec {
  return { ...options, rows };
}

// ---------------------------------------------------------------------------------------------
// XML helpers
// ---------------------------------------------------------------------------------------------

// Characters XML 1.0 does not allow (tab, LF and CR are allowed; the builder turns tab and LF into
// elements itself).
// eslint-disable-next-line no-control-regex
const INVALID_XML_CHARS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/** Escapes text for element content and attribute values. */
export function escapeXml(text: string): string {
  if (INVALID_XML_CHARS.test(text)) {
    throw new Error(`Text contains a character XML cannot hold: ${JSON.stringify(text)}`);
  }
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Element content: quotes stay as they are, as Word writes them. */
function escapeText(text: string): string {
  return escapeXml(text).replace(/&quot;/g, '"');
}

function xmlDecl(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${body}`;
}

interface Rel {
  id: string;
  type: string;
  target: string;
}

function relsXml(rels: Rel[]): string {
  const items = rels
    .map((r) => `<Relationship Id="${r.id}" Type="${r.type}" Target="${escapeXml(r.target)}"/>`)
    .join('');
  return xmlDecl(
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items}</Relationships>`,
  );
}

// ---------------------------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------------------------

/** Relationships of one part (document, a header, …). */
class PartRels {
  readonly rels: Rel[] = [];
  add(type: string, target: string): string {
    const id = `rId${this.rels.length + 1}`;
    this.rels.push({ id, type, target });
    return id;
  }
}

/** State shared by all parts of one document: ids must be unique document-wide. */
class DocState {
  docPrId = 1;
  bookmarkId = 0;
  rsidCounter = 0;
  readonly media: { name: string; data: Buffer }[] = [];
  readonly footnotes: string[] = [];

  nextRsid(): string {
    // Word's rsids are 8 hex digits; vary them a little, as edits in several sessions would.
    const rsids = ['00A1B2C3', '00D4E5F6', '0012AB34', '005C6D7E'];
    return rsids[this.rsidCounter++ % rsids.length];
  }
}

function rPrXml(f: RunFormat): string {
  // Children in the order the schema (CT_RPr) requires.
  let x = '';
  if (f.style) x += `<w:rStyle w:val="${escapeXml(f.style)}"/>`;
  if (f.font) {
    const font = escapeXml(f.font);
    x += `<w:rFonts w:ascii="${font}" w:hAnsi="${font}" w:cs="${font}"/>`;
  }
  if (f.bold) x += '<w:b/><w:bCs/>';
  if (f.italic) x += '<w:i/><w:iCs/>';
  if (f.strike) x += '<w:strike/>';
  if (f.color) x += `<w:color w:val="${escapeXml(f.color)}"/>`;
  if (f.size) x += `<w:sz w:val="${Math.round(f.size * 2)}"/><w:szCs w:val="${Math.round(f.size * 2)}"/>`;
  if (f.highlight) x += `<w:highlight w:val="${escapeXml(f.highlight)}"/>`;
  if (f.underline) x += '<w:u w:val="single"/>';
  if (f.lang) x += `<w:lang w:val="${escapeXml(f.lang)}"/>`;
  return x ? `<w:rPr>${x}</w:rPr>` : '';
}

/** Run content: text with '\n' as `<w:br/>` and '\t' as `<w:tab/>`. */
function runContentXml(text: string): string {
  let x = '';
  const pieces = text.split(/(\n|\t)/);
  for (const piece of pieces) {
    if (piece === '\n') x += '<w:br/>';
    else if (piece === '\t') x += '<w:tab/>';
    else if (piece !== '') x += `<w:t xml:space="preserve">${escapeText(piece)}</w:t>`;
  }
  return x;
}

function isTable(b: BlockSpec): b is TableSpec {
  return typeof b === 'object' && 'rows' in b;
}

class PartWriter {
  constructor(
    readonly doc: DocState,
    readonly rels: PartRels,
  ) {}

  blocks(blocks: BlockSpec[]): string {
    return blocks.map((b) => (isTable(b) ? this.table(b) : this.paragraph(b))).join('');
  }

  paragraph(spec: string | ParagraphSpec): string {
    const ps: ParagraphSpec = typeof spec === 'string' ? { text: spec } : spec;
    const inlines: InlineSpec[] = ps.runs ?? (ps.text !== undefined && ps.text !== '' ? [ps.text] : []);
    const rsid = ps.rsid ? this.doc.nextRsid() : undefined;

    let pPr = '';
    if (ps.style) pPr += `<w:pStyle w:val="${escapeXml(ps.style)}"/>`;
    if (ps.align) pPr += `<w:jc w:val="${ps.align}"/>`;

    let body = '';
    let openBookmark: number | undefined;
    let spellOpen = false;
    let segment = 0;
    for (const inline of inlines) {
      if (typeof inline === 'string' || 'text' in inline) {
        const run: RunSpec = typeof inline === 'string' ? { text: inline } : inline;
        const parts = run.text.split(SPLIT);
        parts.forEach((text, i) => {
          if (i > 0) {
            // A boundary Word made: spell-check marks and bookmarks sit between the runs.
            if (ps.proofErr) {
              body += `<w:proofErr w:type="${spellOpen ? 'spellEnd' : 'spellStart'}"/>`;
              spellOpen = !spellOpen;
            }
            if (ps.bookmarks) {
              if (openBookmark === undefined) {
                openBookmark = this.doc.bookmarkId++;
                body += `<w:bookmarkStart w:id="${openBookmark}" w:name="_GoBack${openBookmark || ''}"/>`;
              } else {
                body += `<w:bookmarkEnd w:id="${openBookmark}"/>`;
                openBookmark = undefined;
              }
            }
          }
          const overlay = ps.formats?.length ? ps.formats[segment % ps.formats.length] : {};
          segment++;
          // Word does not keep empty runs; neither do we.
          if (text === '') return;
          const { text: _text, ...base } = run;
          const rsidAttr = ps.rsid ? ` w:rsidR="${this.doc.nextRsid()}"` : '';
          body += `<w:r${rsidAttr}>${rPrXml({ ...base, ...overlay })}${runContentXml(text)}</w:r>`;
        });
      } else if ('image' in inline) {
        body += `<w:r>${this.image(inline.image)}</w:r>`;
      } else if ('textBox' in inline) {
        body += `<w:r>${this.textBox(inline)}</w:r>`;
      } else if ('footnote' in inline) {
        body += this.footnoteReference(inline.footnote);
      } else if ('field' in inline) {
        const result = inline.result ?? '';
        body +=
          `<w:fldSimple w:instr=" ${escapeXml(inline.field)} ">` +
          `<w:r>${result ? runContentXml(result) : ''}</w:r></w:fldSimple>`;
      } else {
        body += inline.raw;
      }
    }
    if (spellOpen) body += '<w:proofErr w:type="spellEnd"/>';
    if (openBookmark !== undefined) body += `<w:bookmarkEnd w:id="${openBookmark}"/>`;

    const pAttr = rsid ? ` w:rsidR="${rsid}" w:rsidRDefault="${rsid}"` : '';
    return `<w:p${pAttr}>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ''}${body}</w:p>`;
  }

  table(spec: TableSpec): string {
    const columns = Math.max(
      1,
      ...spec.rows.map((row) => row.reduce((n, c) => n + (cellOptions(c).gridSpan ?? 1), 0)),
    );
    const widths =
      spec.widthsMm ?? Array.from({ length: columns }, () => Math.floor((160 / columns) * 10) / 10);
    const twips = (mm: number) => Math.round(mm * TWIPS_PER_MM);
    const borders =
      spec.borders === false
        ? ''
        : '<w:tblBorders>' +
          ['top', 'left', 'bottom', 'right', 'insideH', 'insideV']
            .map((side) => `<w:${side} w:val="single" w:sz="4" w:space="0" w:color="auto"/>`)
            .join('') +
          '</w:tblBorders>';
    const tblPr =
      `<w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/>${borders}` +
      '<w:tblLook w:val="04A0" w:firstRow="1" w:lastRow="0" w:firstColumn="1" w:lastColumn="0" w:noHBand="0" w:noVBand="1"/></w:tblPr>';
    const grid = `<w:tblGrid>${widths.map((w) => `<w:gridCol w:w="${twips(w)}"/>`).join('')}</w:tblGrid>`;
    const rows = spec.rows
      .map((row) => {
        let col = 0;
        const cells = row
          .map((cell) => {
            const c = cellOptions(cell);
            const span = c.gridSpan ?? 1;
            const width = c.widthMm ?? widths.slice(col, col + span).reduce((a, b) => a + b, 0);
            col += span;
            let tcPr = `<w:tcW w:w="${twips(width || 20)}" w:type="dxa"/>`;
            if (span > 1) tcPr += `<w:gridSpan w:val="${span}"/>`;
            if (c.vMerge) tcPr += c.vMerge === 'restart' ? '<w:vMerge w:val="restart"/>' : '<w:vMerge/>';
            if (c.shading) tcPr += `<w:shd w:val="clear" w:color="auto" w:fill="${escapeXml(c.shading)}"/>`;
            // A cell must end with a paragraph.
            const blocks =
              c.blocks.length && !isTable(c.blocks[c.blocks.length - 1]) ? c.blocks : [...c.blocks, ''];
            return `<w:tc><w:tcPr>${tcPr}</w:tcPr>${this.blocks(blocks)}</w:tc>`;
          })
          .join('');
        return `<w:tr>${cells}</w:tr>`;
      })
      .join('');
    return `<w:tbl>${tblPr}${grid}${rows}</w:tbl>`;
  }

  image(img: ImageSpec): string {
    const n = this.doc.media.length + 1;
    const name = `image${n}.png`;
    this.doc.media.push({ name, data: img.png });
    const rId = this.rels.add(REL.image, `media/${name}`);
    const id = this.doc.docPrId++;
    const cx = Math.round(img.widthMm * EMU_PER_MM);
    const cy = Math.round(img.heightMm * EMU_PER_MM);
    return (
      '<w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0">' +
      `<wp:extent cx="${cx}" cy="${cy}"/><wp:effectExtent l="0" t="0" r="0" b="0"/>` +
      `<wp:docPr id="${id}" name="${escapeXml(img.name ?? `Picture ${id}`)}"/>` +
      `<wp:cNvGraphicFramePr><a:graphicFrameLocks xmlns:a="${NS.a}" noChangeAspect="1"/></wp:cNvGraphicFramePr>` +
      `<a:graphic xmlns:a="${NS.a}"><a:graphicData uri="${NS.pic}">` +
      `<pic:pic xmlns:pic="${NS.pic}"><pic:nvPicPr><pic:cNvPr id="0" name="${name}"/><pic:cNvPicPr/></pic:nvPicPr>` +
      `<pic:blipFill><a:blip r:embed="${rId}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
      `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm>` +
      '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic>' +
      '</a:graphicData></a:graphic></wp:inline></w:drawing>'
    );
  }

  /** A text box as Word 2010+ writes it: DrawingML shape, with a VML fallback copy. */
  textBox(tb: TextBoxSpec): string {
    const widthMm = tb.widthMm ?? 60;
    const heightMm = tb.heightMm ?? 30;
    const cx = Math.round(widthMm * EMU_PER_MM);
    const cy = Math.round(heightMm * EMU_PER_MM);
    const id = this.doc.docPrId++;
    // Built once: the fallback repeats the same XML (and the same ids), as Word does.
    const last = tb.textBox[tb.textBox.length - 1];
    const content = `<w:txbxContent>${this.blocks(last === undefined || isTable(last) ? [...tb.textBox, ''] : tb.textBox)}</w:txbxContent>`;
    const choice =
      '<mc:Choice Requires="wps"><w:drawing>' +
      '<wp:anchor distT="45720" distB="45720" distL="114300" distR="114300" simplePos="0" relativeHeight="251659264" behindDoc="0" locked="0" layoutInCell="1" allowOverlap="1">' +
      '<wp:simplePos x="0" y="0"/>' +
      '<wp:positionH relativeFrom="column"><wp:posOffset>0</wp:posOffset></wp:positionH>' +
      '<wp:positionV relativeFrom="paragraph"><wp:posOffset>0</wp:posOffset></wp:positionV>' +
      `<wp:extent cx="${cx}" cy="${cy}"/><wp:effectExtent l="0" t="0" r="0" b="0"/>` +
      '<wp:wrapSquare wrapText="bothSides"/>' +
      `<wp:docPr id="${id}" name="Text Box ${id}"/><wp:cNvGraphicFramePr/>` +
      `<a:graphic xmlns:a="${NS.a}"><a:graphicData uri="${NS.wps}"><wps:wsp>` +
      '<wps:cNvSpPr txBox="1"><a:spLocks noChangeArrowheads="1"/></wps:cNvSpPr>' +
      `<wps:spPr bwMode="auto"><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm>` +
      '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:solidFill><a:srgbClr val="FFFFFF"/></a:solidFill>' +
      '<a:ln w="9525"><a:solidFill><a:srgbClr val="000000"/></a:solidFill><a:miter lim="800000"/><a:headEnd/><a:tailEnd/></a:ln>' +
      `</wps:spPr><wps:txbx>${content}</wps:txbx>` +
      '<wps:bodyPr rot="0" vert="horz" wrap="square" lIns="91440" tIns="45720" rIns="91440" bIns="45720" anchor="t" anchorCtr="0"><a:noAutofit/></wps:bodyPr>' +
      '</wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice>';
    if (tb.fallback === false) return `<mc:AlternateContent>${choice}</mc:AlternateContent>`;
    const pt = (mm: number) => Math.round((mm / 25.4) * 72 * 10) / 10;
    const fallback =
      '<mc:Fallback><w:pict>' +
      `<v:shapetype id="_x0000_t202" coordsize="21600,21600" o:spt="202" path="m,l,21600r21600,l21600,xe"><v:stroke joinstyle="miter"/><v:path gradientshapeok="t" o:connecttype="rect"/></v:shapetype>` +
      `<v:shape id="Text Box ${id}" o:spid="_x0000_s${1025 + id}" type="#_x0000_t202" ` +
      `style="position:absolute;margin-left:0;margin-top:0;width:${pt(widthMm)}pt;height:${pt(heightMm)}pt;z-index:251659264;mso-wrap-style:square">` +
      `<v:textbox>${content}</v:textbox><w10:wrap type="square"/></v:shape>` +
      '</w:pict></mc:Fallback>';
    return `<mc:AlternateContent>${choice}${fallback}</mc:AlternateContent>`;
  }

  footnoteReference(blocks: BlockSpec[]): string {
    const id = this.doc.footnotes.length + 1;
    // The footnote's own paragraphs start with the reference mark, as Word writes them.
    const ref = '<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteRef/></w:r>';
    const xml = this.blocks(blocks.length ? blocks : ['']).replace(
      /^<w:p( [^>]*)?>(<w:pPr>.*?<\/w:pPr>)?/,
      (_m, attrs: string | undefined, pPr: string | undefined) =>
        `<w:p${attrs ?? ''}>${pPr ?? '<w:pPr><w:pStyle w:val="FootnoteText"/></w:pPr>'}${ref}`,
    );
    this.doc.footnotes.push(`<w:footnote w:id="${id}">${xml}</w:footnote>`);
    return `<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteReference w:id="${id}"/></w:r>`;
  }
}

function cellOptions(cell: CellSpec): CellOptions {
  if (typeof cell === 'string') return { blocks: [cell] };
  if (Array.isArray(cell)) return { blocks: cell };
  if ('blocks' in cell) return cell;
  return { blocks: [cell] };
}

function headerFooterSet(spec: BlockSpec[] | HeaderFooterSet | undefined): [string, BlockSpec[]][] {
  if (!spec) return [];
  if (Array.isArray(spec)) return [['default', spec]];
  return (['default', 'first', 'even'] as const)
    .filter((t) => spec[t] !== undefined)
    .map((t) => [t, spec[t] as BlockSpec[]]);
}

const STYLES_XML = xmlDecl(
  `<w:styles xmlns:w="${NS.w}">` +
    '<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Liberation Serif" w:hAnsi="Liberation Serif" w:cs="Liberation Serif" w:eastAsia="Liberation Serif"/>' +
    '<w:sz w:val="22"/><w:szCs w:val="22"/><w:lang w:val="en-US" w:eastAsia="en-US" w:bidi="ar-SA"/></w:rPr></w:rPrDefault>' +
    '<w:pPrDefault><w:pPr><w:spacing w:after="120" w:line="259" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>' +
    '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>' +
    '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/>' +
    '<w:pPr><w:keepNext/><w:spacing w:before="240" w:after="120"/><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="32"/></w:rPr></w:style>' +
    '<w:style w:type="paragraph" w:styleId="Header"><w:name w:val="header"/><w:basedOn w:val="Normal"/></w:style>' +
    '<w:style w:type="paragraph" w:styleId="Footer"><w:name w:val="footer"/><w:basedOn w:val="Normal"/></w:style>' +
    '<w:style w:type="paragraph" w:styleId="FootnoteText"><w:name w:val="footnote text"/><w:basedOn w:val="Normal"/><w:rPr><w:sz w:val="20"/></w:rPr></w:style>' +
    '<w:style w:type="character" w:default="1" w:styleId="DefaultParagraphFont"><w:name w:val="Default Paragraph Font"/><w:uiPriority w:val="1"/><w:semiHidden/></w:style>' +
    '<w:style w:type="character" w:styleId="FootnoteReference"><w:name w:val="footnote reference"/><w:rPr><w:vertAlign w:val="superscript"/></w:rPr></w:style>' +
    '<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/><w:semiHidden/>' +
    '<w:tblPr><w:tblInd w:w="0" w:type="dxa"/><w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/><w:bottom w:w="0" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>' +
    '<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/><w:basedOn w:val="TableNormal"/>' +
    '<w:tblPr><w:tblBorders><w:top w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:left w:val="single" w:sz="4" w:space="0" w:color="auto"/>' +
    '<w:bottom w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:right w:val="single" w:sz="4" w:space="0" w:color="auto"/>' +
    '<w:insideH w:val="single" w:sz="4" w:space="0" w:color="auto"/><w:insideV w:val="single" w:sz="4" w:space="0" w:color="auto"/></w:tblBorders></w:tblPr></w:style>' +
    '</w:styles>',
);

/** Builds a .docx from a specification (or just the body blocks). */
export function buildDocx(input: DocxSpec | BlockSpec[]): Buffer {
  const spec: DocxSpec = Array.isArray(input) ? { body: input } : input;
  const doc = new DocState();
  const docRels = new PartRels();
  docRels.add(REL.styles, 'styles.xml');
  docRels.add(REL.settings, 'settings.xml');
  const zip = new PizZip();
  const overrides: [string, string][] = [
    ['/word/document.xml', CT.document],
    ['/word/styles.xml', CT.styles],
    ['/word/settings.xml', CT.settings],
    ['/docProps/core.xml', CT.core],
    ['/docProps/app.xml', CT.app],
  ];

  // Headers and footers: their own parts, with their own relationships (images).
  const sectRefs: string[] = [];
  const hf = (kind: 'header' | 'footer', set: [string, BlockSpec[]][]) => {
    set.forEach(([type, blocks], i) => {
      const name = `${kind}${i + 1}.xml`;
      const rels = new PartRels();
      const writer = new PartWriter(doc, rels);
      const root = kind === 'header' ? 'w:hdr' : 'w:ftr';
      // A header or footer must hold at least one paragraph.
      const content = blocks.length ? blocks : [''];
      zip.file(`word/${name}`, xmlDecl(`<${root} ${ROOT_NS}>${writer.blocks(content)}</${root}>`));
      if (rels.rels.length) zip.file(`word/_rels/${name}.rels`, relsXml(rels.rels));
      overrides.push([`/word/${name}`, CT[kind]]);
      const rId = docRels.add(REL[kind], name);
      sectRefs.push(`<w:${kind}Reference w:type="${type}" r:id="${rId}"/>`);
    });
  };
  const headers = headerFooterSet(spec.header);
  const footers = headerFooterSet(spec.footer);
  hf('header', headers);
  hf('footer', footers);
  // Schema order: all headerReference before footerReference — guaranteed by the calls above.

  const writer = new PartWriter(doc, docRels);
  const body = writer.blocks(spec.body);

  const titlePg = [...headers, ...footers].some(([t]) => t === 'first') ? '<w:titlePg/>' : '';
  const sectPr =
    `<w:sectPr>${sectRefs.join('')}<w:pgSz w:w="11906" w:h="16838"/>` +
    '<w:pgMar w:top="1417" w:right="1417" w:bottom="1134" w:left="1417" w:header="708" w:footer="708" w:gutter="0"/>' +
    `<w:cols w:space="708"/>${titlePg}<w:docGrid w:linePitch="360"/></w:sectPr>`;
  zip.file(
    'word/document.xml',
    xmlDecl(`<w:document ${ROOT_NS}><w:body>${body}${sectPr}</w:body></w:document>`),
  );

  const evenAndOdd = [...headers, ...footers].some(([t]) => t === 'even') ? '<w:evenAndOddHeaders/>' : '';
  let footnotePr = '';
  if (doc.footnotes.length) {
    const separators =
      '<w:footnote w:type="separator" w:id="-1"><w:p><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr><w:r><w:separator/></w:r></w:p></w:footnote>' +
      '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>';
    zip.file(
      'word/footnotes.xml',
      xmlDecl(`<w:footnotes ${ROOT_NS}>${separators}${doc.footnotes.join('')}</w:footnotes>`),
    );
    overrides.push(['/word/footnotes.xml', CT.footnotes]);
    docRels.add(REL.footnotes, 'footnotes.xml');
    footnotePr = '<w:footnotePr><w:footnote w:id="-1"/><w:footnote w:id="0"/></w:footnotePr>';
  }
  zip.file(
    'word/settings.xml',
    xmlDecl(
      `<w:settings xmlns:w="${NS.w}"><w:defaultTabStop w:val="708"/>${evenAndOdd}` +
        `<w:characterSpacingControl w:val="doNotCompress"/>${footnotePr}<w:compat/></w:settings>`,
    ),
  );
  zip.file('word/styles.xml', STYLES_XML);
  zip.file('word/_rels/document.xml.rels', relsXml(docRels.rels));
  for (const m of doc.media) zip.file(`word/media/${m.name}`, m.data);

  const now = '2024-01-01T00:00:00Z';
  zip.file(
    'docProps/core.xml',
    xmlDecl(
      '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ' +
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" ' +
        'xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
        `<dc:title>${escapeText(spec.title ?? '')}</dc:title><dc:creator>test</dc:creator>` +
        `<dcterms:created xsi:type="dcterms:W3CDTF">${now}</dcterms:created>` +
        `<dcterms:modified xsi:type="dcterms:W3CDTF">${now}</dcterms:modified></cp:coreProperties>`,
    ),
  );
  zip.file(
    'docProps/app.xml',
    xmlDecl(
      '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" ' +
        'xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"><Application>docx-builder</Application></Properties>',
    ),
  );
  zip.file(
    '_rels/.rels',
    relsXml([
      { id: 'rId1', type: REL.officeDocument, target: 'word/document.xml' },
      { id: 'rId2', type: REL.coreProps, target: 'docProps/core.xml' },
      { id: 'rId3', type: REL.extendedProps, target: 'docProps/app.xml' },
    ]),
  );
  const defaults = [
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>',
    '<Default Extension="xml" ContentType="application/xml"/>',
    ...(doc.media.length ? ['<Default Extension="png" ContentType="image/png"/>'] : []),
  ];
  zip.file(
    '[Content_Types].xml',
    xmlDecl(
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        defaults.join('') +
        overrides.map(([part, ct]) => `<Override PartName="${part}" ContentType="${ct}"/>`).join('') +
        '</Types>',
    ),
  );
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}
