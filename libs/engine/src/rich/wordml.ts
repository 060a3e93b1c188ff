/**
 * The model (model.ts) as WordprocessingML: paragraphs with the template's styles, runs,
 * hyperlinks with their relationships, numbered lists, tables with spans, and images.
 */
import { inlineDrawingXml } from '../docx/docx-images';
import type { PreparedImage } from '../docx/images';
import { JinjaRuntimeError } from '../runtime/ops';
import type { Block, Inline, ParagraphBlock, RunProps, TableBlock } from './model';
import type { NumberingWriter } from './numbering';
import { REL_HYPERLINK, REL_IMAGE, type RelationshipWriter } from './relationships';
import { PAGE_BREAK_RUN, runPropsXml, runXml } from './runs';
import { escapeXml } from '../docx/run-text';
import type { TemplateStyles } from './styles';

const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
/** Text width of an A4 page with 2 cm margins, in twips, when the template does not say. */
const DEFAULT_TEXT_TWIPS = 9638;

/** The text width of the template's (last) section: page width less the side margins, in twips. */
export function textWidthTwips(documentXml: string | undefined): number {
  const sectPr = documentXml?.slice(documentXml.lastIndexOf('<w:sectPr')) ?? '';
  const page = Number(/<w:pgSz\b[^>]*\bw:w="(\d+)"/.exec(sectPr)?.[1]);
  const left = Number(/<w:pgMar\b[^>]*\bw:left="(\d+)"/.exec(sectPr)?.[1] ?? 0);
  const right = Number(/<w:pgMar\b[^>]*\bw:right="(\d+)"/.exec(sectPr)?.[1] ?? 0);
  const width = page - left - right;
  return Number.isFinite(width) && width > 1000 ? width : DEFAULT_TEXT_TWIPS;
}

/** Where the XML goes and what it may add to the package. */
export interface WordContext {
  partPath: string;
  styles: TemplateStyles;
  rels: RelationshipWriter;
  numbering: NumberingWriter;
  strict: boolean;
  /** Width tables take, in twips (the template's text width). */
  tableTwips: number;
  nextDrawingId(): number;
}

// docxtpl's \a (BEL, new paragraph) and \f (form feed, page break) in run text.
/* eslint-disable no-control-regex -- these two control characters are the markers */
const PARAGRAPH_MARKS = /[\u0007\f]/;
const PARAGRAPH_MARKS_SPLIT = /([\u0007\f])/;
/* eslint-enable no-control-regex */

/** Text with `\a` / `\f` cut into paragraphs: each segment, and whether a page break precedes it. */
export function splitParagraphMarks(inlines: Inline[]): { inlines: Inline[]; pageBreakBefore: boolean }[] {
  const out = [{ inlines: [] as Inline[], pageBreakBefore: false }];
  for (const inline of inlines) {
    if (inline.kind !== 'text' || !PARAGRAPH_MARKS.test(inline.text)) {
      out[out.length - 1].inlines.push(inline);
      continue;
    }
    const pieces = inline.text.split(PARAGRAPH_MARKS_SPLIT);
    for (const piece of pieces) {
      if (piece === '\x07' || piece === '\f') out.push({ inlines: [], pageBreakBefore: piece === '\f' });
      else if (piece) out[out.length - 1].inlines.push({ ...inline, text: piece });
    }
  }
  return out;
}

function characterStyle(name: string, ctx: WordContext): string | undefined {
  const id = ctx.styles.resolve(name, 'character');
  if (!id && ctx.strict) throw new JinjaRuntimeError(`the template has no character style '${name}'`);
  return id;
}

/** Runs of one paragraph's inlines (no `\a` / `\f` left in them). */
export function inlinesXml(inlines: Inline[], ctx: WordContext, base: RunProps = {}): string {
  let out = '';
  for (const inline of inlines) {
    if (inline.kind === 'image') {
      out += `<w:r>${drawingXml(inline.image, ctx)}</w:r>`;
      continue;
    }
    const props = { ...base, ...inline.props };
    let styleId = props.style ? characterStyle(props.style, ctx) : undefined;
    if (props.url) {
      const hyperlinkStyle = styleId ?? ctx.styles.resolve('Hyperlink', 'character');
      // Without the template's Hyperlink style, look like a link anyway.
      const look: RunProps = hyperlinkStyle ? {} : { color: '0563C1', underline: 'single' };
      styleId = hyperlinkStyle;
      const rId = ctx.rels.add(ctx.partPath, REL_HYPERLINK, props.url, true);
      out +=
        `<w:hyperlink xmlns:r="${NS_R}" r:id="${rId}" w:history="1">` +
        runXml(inline.text, runPropsXml({ ...look, ...props }, styleId)) +
        '</w:hyperlink>';
    } else out += runXml(inline.text, runPropsXml(props, styleId));
  }
  return out;
}

function paragraphXml(block: ParagraphBlock, ctx: WordContext): string {
  let styleId: string | undefined;
  let base: RunProps = {};
  if (block.style) {
    styleId = ctx.styles.resolve(block.style, 'paragraph');
    if (!styleId) {
      if (block.styleFallback) base = block.styleFallback;
      else if (ctx.strict)
        throw new JinjaRuntimeError(`the template has no paragraph style '${block.style}'`);
    }
  }
  let pPr = '';
  if (styleId) pPr += `<w:pStyle w:val="${escapeXml(styleId)}"/>`;
  if (block.list)
    pPr += `<w:numPr><w:ilvl w:val="${block.list.level}"/><w:numId w:val="${ctx.numbering.numIdFor(block.list.list)}"/></w:numPr>`;
  if (block.indent) pPr += `<w:ind w:left="${block.indent}"/>`;
  if (block.align) pPr += `<w:jc w:val="${block.align}"/>`;
  const pPrXml = pPr ? `<w:pPr>${pPr}</w:pPr>` : '';
  // A list item's continuation paragraphs (after \a) are not numbered again.
  const plainPPr = block.list ? pPrXml.replace(/<w:numPr>.*?<\/w:numPr>/, '') : pPrXml;
  return splitParagraphMarks(block.inlines)
    .map(
      (seg, i) =>
        (seg.pageBreakBefore ? `<w:p>${PAGE_BREAK_RUN}</w:p>` : '') +
        `<w:p>${i === 0 ? pPrXml : plainPPr}${inlinesXml(seg.inlines, ctx, base)}</w:p>`,
    )
    .join('');
}

function tableXml(table: TableBlock, ctx: WordContext): string {
  // Lay the cells on a grid: rowspans occupy the slots below, colspans the slots beside.
  const grid: ({ cell: TableBlock['rows'][0][0]; first: boolean; col: number } | undefined)[][] = [];
  let columns = 0;
  table.rows.forEach((row, r) => {
    grid[r] ??= [];
    let c = 0;
    for (const cell of row) {
      while (grid[r][c]) c++;
      for (let dr = 0; dr < cell.rowspan; dr++) {
        grid[r + dr] ??= [];
        for (let dc = 0; dc < cell.colspan; dc++)
          grid[r + dr][c + dc] = { cell, first: dr === 0 && dc === 0, col: c };
      }
      c += cell.colspan;
      columns = Math.max(columns, c);
    }
  });
  columns = Math.max(columns, 1);
  const colTwips = Math.floor(ctx.tableTwips / columns);
  const tableStyle = ctx.styles.tableStyleId();
  const borders = tableStyle
    ? ''
    : '<w:tblBorders>' +
      ['top', 'left', 'bottom', 'right', 'insideH', 'insideV']
        .map((b) => `<w:${b} w:val="single" w:sz="4" w:space="0" w:color="auto"/>`)
        .join('') +
      '</w:tblBorders>';
  let xml =
    `<w:tbl><w:tblPr>${tableStyle ? `<w:tblStyle w:val="${escapeXml(tableStyle)}"/>` : ''}` +
    `<w:tblW w:w="5000" w:type="pct"/>${borders}<w:tblLook w:val="04A0" w:firstRow="1" w:lastRow="0" w:firstColumn="1" w:lastColumn="0" w:noHBand="0" w:noVBand="1"/></w:tblPr>` +
    `<w:tblGrid>${`<w:gridCol w:w="${colTwips}"/>`.repeat(columns)}</w:tblGrid>`;
  grid.forEach((slots, r) => {
    const header = (table.rows[r] ?? []).length > 0 && (table.rows[r] ?? []).every((c) => c.header);
    xml += `<w:tr>${header ? '<w:trPr><w:tblHeader/></w:trPr>' : ''}`;
    for (let c = 0; c < columns;) {
      const slot = slots[c];
      if (!slot) {
        xml += `<w:tc><w:tcPr><w:tcW w:w="${colTwips}" w:type="dxa"/></w:tcPr><w:p/></w:tc>`;
        c++;
        continue;
      }
      const { cell } = slot;
      const span = cell.colspan;
      let tcPr = `<w:tcW w:w="${colTwips * span}" w:type="dxa"/>`;
      if (span > 1) tcPr += `<w:gridSpan w:val="${span}"/>`;
      if (cell.rowspan > 1) tcPr += slot.first ? '<w:vMerge w:val="restart"/>' : '<w:vMerge/>';
      const content = slot.first ? blocksXml(cell.blocks, ctx, true) : '<w:p/>';
      xml += `<w:tc><w:tcPr>${tcPr}</w:tcPr>${content}</w:tc>`;
      c += span;
    }
    xml += '</w:tr>';
  });
  return `${xml}</w:tbl>`;
}

/** Blocks as body-level XML. A cell (and a paragraph's place) needs a paragraph last. */
export function blocksXml(blocks: Block[], ctx: WordContext, needsParagraphLast: boolean): string {
  let xml = blocks.map((b) => (b.kind === 'table' ? tableXml(b, ctx) : paragraphXml(b, ctx))).join('');
  if (needsParagraphLast && (!blocks.length || blocks[blocks.length - 1].kind === 'table')) xml += '<w:p/>';
  return xml;
}

/** An inline picture, as the image writer draws them (docx-images.ts), with its own relationship. */
function drawingXml(image: PreparedImage, ctx: WordContext): string {
  const target = ctx.rels.addMedia(image.png);
  const rId = ctx.rels.add(ctx.partPath, REL_IMAGE, target, false);
  const name = escapeXml(image.name);
  const { widthEmu: cx, heightEmu: cy } = image;
  return inlineDrawingXml({ id: ctx.nextDrawingId(), descr: name, fileName: name, rId, cx, cy });
}

/**
 * Blocks flattened to inlines, for run-level placement (`{{ x | html }}`): paragraphs are joined
 * by line breaks, table cells by tabs.
 */
export function flattenToInlines(blocks: Block[]): Inline[] {
  const out: Inline[] = [];
  const newline = () => {
    if (out.length) out.push({ kind: 'text', text: '\n', props: {} });
  };
  for (const b of blocks) {
    if (b.kind === 'paragraph') {
      newline();
      out.push(...b.inlines);
    } else
      for (const row of b.rows) {
        newline();
        row.forEach((cell, i) => {
          if (i) out.push({ kind: 'text', text: '\t', props: {} });
          const inner = flattenToInlines(cell.blocks);
          out.push(...inner.map((x) => (x.kind === 'text' ? { ...x, text: x.text.replace(/\n/g, ' ') } : x)));
        });
      }
  }
  return out;
}
