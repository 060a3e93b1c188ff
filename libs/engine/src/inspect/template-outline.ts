/**
 * The tags of a template in document order, each with where an author finds it in Word: the part,
 * the paragraph, the table cell, the text around it. Lint and inspection both start here.
 *
 * Tags are found by the engine's own scanner (markJinjaTags, the one rendering uses) and parsed
 * by the engine's parser, so what is reported is what rendering would see.
 */
import { type Static, Type } from '@sinclair/typebox';
import { CONTENT_TYPES_PART, ContentTypes } from '@app/ooxml';
import type PizZip from 'pizzip';
import {
  parseExpression,
  parseStatement,
  JinjaSyntaxError,
  type Expr,
  type Statement,
} from '../syntax/parser';
import { WORD_PARTS } from '../package/formats';
import { decodeXmlText, markJinjaTags, TAG_END, TAG_START } from '../syntax/tag-scanner';

/**
 * Where a paragraph sits: its part, its index there and, inside a table, the cell. Defined once:
 * the type, and the OpenAPI document's TemplateLocation (lint and inspection answers).
 */
export const TemplateLocationSchema = Type.Object(
  {
    part: Type.String({ example: 'word/document.xml' }),
    /** 1-based paragraph index within the part (nested table paragraphs included, document order). */
    paragraph: Type.Integer({ description: '1-based paragraph in the part' }),
    /** 1-based line of the template text as a whole (every paragraph of every part is one line). */
    line: Type.Integer(),
    /** The innermost table cell holding the paragraph: 1-based table (per part), row and cell. */
    table: Type.Union([
      Type.Object({ table: Type.Integer(), row: Type.Integer(), cell: Type.Integer() }),
      Type.Null(),
    ]),
    /** A workbook's: the sheet, the cell (`C4`) and its row; each cell with text is one paragraph. */
    sheet: Type.Optional(Type.String({ description: 'Workbooks only: the sheet name' })),
    cell: Type.Optional(Type.String({ description: 'Workbooks only: the cell, e.g. C4', example: 'C4' })),
    row: Type.Optional(Type.Integer({ description: 'Workbooks only: the 1-based row of the cell' })),
    /** A deck's: the slide's number in presentation order (its notes' paragraphs too) and the shape's name. */
    slide: Type.Optional(
      Type.Integer({ description: 'Decks only: the 1-based slide, in presentation order', example: 2 }),
    ),
    shape: Type.Optional(
      Type.Integer({
        description: "Decks only: the 1-based shape on its slide (or notes), in the slide's drawing order",
        example: 3,
      }),
    ),
    shape_name: Type.Optional(
      Type.String({ description: "Decks only: the shape's name, when it has one", example: 'TextBox 2' }),
    ),
  },
  { $id: 'TemplateLocation' },
);
export type TemplateLocation = Static<typeof TemplateLocationSchema>;

export interface TemplateParagraph extends TemplateLocation {
  text: string;
}

export type TagKind = 'expr' | 'block' | 'comment';

export interface TemplateTag {
  /** The tag as written, e.g. `{%tr for item in items %}`. */
  source: string;
  kind: TagKind;
  /** docxtpl's placement prefix (`p`, `tr`, `tc`, `r`), if any. */
  placement: string | null;
  location: TemplateLocation;
  /** 1-based column of the tag in its paragraph. */
  column: number;
  /** The paragraph's text, for context. */
  paragraphText: string;
  expr?: Expr;
  statement?: Statement;
  syntaxError?: string;
  /** The paragraph holds nothing but this tag. */
  alone: boolean;
  /** Word split it across this many paragraphs, joined into the first as docxtpl joins them. */
  splitParagraphs?: number;
}

export interface TemplateOutline {
  paragraphs: TemplateParagraph[];
  tags: TemplateTag[];
}

/** The parts tags can sit in, main document first, then headers, footers and the rest, as the package description orders them. */
export function templatedParts(zip: PizZip): string[] {
  const types = new ContentTypes(zip.file(CONTENT_TYPES_PART)?.asText() ?? '');
  const order = (name: string) => WORD_PARTS.kindOf(types.typeOf(name))?.order ?? Infinity;
  return Object.keys(zip.files)
    .filter((n) => !zip.files[n].dir && WORD_PARTS.isRead(types.typeOf(n)))
    .sort((a, b) => order(a) - order(b) || a.localeCompare(b, 'en', { numeric: true }));
}

/**
 * Start tags, end tags and text of a Word part. A regular expression rather than an XML library:
 * checkDocxTemplate has already proved the part well formed and free of DTDs, Word writes no
 * CDATA in text, and htmlparser2 (the XML-capable parser among our dependencies) is ESM-only
 * in the version we have, which the test runner cannot load.
 */
const XML_TOKEN =
  /<(\/?)([A-Za-z_][\w.:-]*)(?:[^>"']|"[^"]*"|'[^']*')*?(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|([^<]+)/g;

/** The paragraphs of one part, with their table cell. */
function partParagraphs(part: string, xml: string, firstLine: number): TemplateParagraph[] {
  const out: TemplateParagraph[] = [];
  const tables: { table: number; row: number; cell: number }[] = [];
  let tableCount = 0;
  let text: string | null = null;
  let inText = false;
  let inRun = false;
  const closeParagraph = () => {
    if (text === null) return;
    const t = tables[tables.length - 1];
    out.push({
      part,
      paragraph: out.length + 1,
      line: firstLine + out.length,
      table: t ? { ...t } : null,
      text,
    });
    text = null;
  };
  XML_TOKEN.lastIndex = 0;
  for (let m = XML_TOKEN.exec(xml); m; m = XML_TOKEN.exec(xml)) {
    const [, closing, name, selfClosing, chars] = m;
    if (chars !== undefined) {
      if (inText && text !== null) text += decodeXmlText(chars);
      continue;
    }
    if (!name) continue; // comment or processing instruction
    if (closing) {
      if (name === 'w:tbl') tables.pop();
      else if (name === 'w:t') inText = false;
      else if (name === 'w:r') inRun = false;
      else if (name === 'w:p') closeParagraph();
      continue;
    }
    if (name === 'w:tbl') tables.push({ table: ++tableCount, row: 0, cell: 0 });
    else if (name === 'w:tr' && tables.length) {
      const t = tables[tables.length - 1];
      t.row++;
      t.cell = 0;
    } else if (name === 'w:tc' && tables.length) tables[tables.length - 1].cell++;
    else if (name === 'w:p') {
      text = '';
      if (selfClosing) closeParagraph();
    } else if (name === 'w:t') inText = !selfClosing;
    else if (name === 'w:r') inRun = !selfClosing;
    else if (name === 'w:tab' && inRun && text !== null) text += '\t'; // not a tab stop of w:tabs
  }
  return out;
}

const MARKED = new RegExp(`${TAG_START}([\\s\\S]*?)${TAG_END}`, 'g');

/** Splits a tag into kind, placement and the text the parser reads, as the Jinja module does. */
export function parseTag(
  source: string,
): Pick<TemplateTag, 'kind' | 'placement' | 'expr' | 'statement' | 'syntaxError'> {
  const sigil = source[1];
  const kind: TagKind = sigil === '{' ? 'expr' : sigil === '%' ? 'block' : 'comment';
  let inner = source.slice(2, -2);
  if (inner.startsWith('-') || inner.startsWith('+')) inner = inner.slice(1);
  if (inner.endsWith('-') || inner.endsWith('+')) inner = inner.slice(0, -1);
  const prefix = /^(tr|tc|p|r)\s/.exec(inner);
  const placement = prefix ? prefix[1] : null;
  if (prefix) inner = inner.slice(prefix[1].length);
  if (kind === 'comment') return { kind, placement };
  try {
    return kind === 'expr'
      ? { kind, placement, expr: parseExpression(inner) }
      : { kind, placement, statement: parseStatement(inner) };
  } catch (e) {
    if (e instanceof JinjaSyntaxError) return { kind, placement, syntaxError: e.message };
    throw e;
  }
}

/** Reads the outline of a package that checkDocxTemplate accepted. */
export function templateOutline(zip: PizZip): TemplateOutline {
  const paragraphs: TemplateParagraph[] = [];
  const tags: TemplateTag[] = [];
  // Paragraphs a split tag joined away (in the parts before): lines count Word's paragraphs.
  let joinedAway = 0;
  for (const part of templatedParts(zip)) {
    const { xml: marked, joined } = markJinjaTags(zip.file(part)!.asText());
    const own = partParagraphs(part, marked, paragraphs.length + joinedAway + 1);
    const [firstOwnTag, firstOwnParagraph] = [tags.length, paragraphs.length];
    for (const para of own) {
      const plain = para.text.replace(new RegExp(`[${TAG_START}${TAG_END}]`, 'g'), (c) =>
        c === TAG_START ? '{' : '}',
      );
      MARKED.lastIndex = 0;
      for (let m = MARKED.exec(para.text); m; m = MARKED.exec(para.text)) {
        const source = `{${m[1]}}`;
        const location: TemplateLocation = {
          part: para.part,
          paragraph: para.paragraph,
          line: para.line,
          table: para.table,
        };
        tags.push({
          source,
          location,
          column: m.index + 1,
          paragraphText: plain,
          alone: plain.trim() === source.trim(),
          ...parseTag(source),
        });
      }
      paragraphs.push({ ...para, text: plain });
    }
    // The scanner lists the tags it joined in document order: they are the part's tags so written.
    // Each joined tag's paragraph stands for j.paragraphs of Word's: the ones after it move on.
    let next = firstOwnTag;
    for (const j of joined) {
      while (next < tags.length && tags[next].source !== j.tag) next++;
      if (next === tags.length) break;
      const tag = tags[next++];
      tag.splitParagraphs = j.paragraphs;
      const at = tag.location.paragraph;
      const later = [
        ...paragraphs.slice(firstOwnParagraph),
        ...tags.slice(firstOwnTag).map((t) => t.location),
      ].filter((l) => l.paragraph > at);
      for (const l of later) {
        l.paragraph += j.paragraphs - 1;
        l.line += j.paragraphs - 1;
      }
      joinedAway += j.paragraphs - 1;
    }
  }
  return { paragraphs, tags };
}
