/**
 * A workbook's tags for lint and inspection, in the shape Word's outline has (template-outline.ts):
 * each cell holding text is one "paragraph" (its location names the sheet, the cell and the row),
 * and the problems rendering would stop at, collected instead of thrown: tag syntax, blocks inside
 * a cell, row and column loops that do not close, unknown filters and tests.
 */
import { CONTENT_TYPES_PART, ContentTypes, relsPathOf, SHARED_STRINGS_TYPE } from '@app/ooxml';
import type { TemplateLimits } from '../docx/package';
import { TemplateSyntaxError, type TemplateProblem } from '../errors';
import {
  parseTag,
  type TemplateLocation,
  type TemplateOutline,
  type TemplateParagraph,
  type TemplateTag,
} from '../inspect/template-outline';
import { unknownNames } from '../runtime/evaluator';
import type { Environment } from '../runtime/ops';
import { type Expr, JinjaSyntaxError, type Statement } from '../syntax/parser';
import { CompiledCell, hasTags, placementTag } from './cell-template';
import { columnLoopOf, resolveTarget, rowTree, withEmptyRowsInLoops, workbookPathOf } from './render-xlsx';
import { attr, columnName, readRows, readSharedStrings } from './sheet-xml';
import { openSpreadsheetPackage } from './xlsx-package';

const TAG = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}|\{#[\s\S]*?#\}/g;

/** The expressions a statement evaluates (to find unknown filters and tests before rendering). */
function statementExprs(st: Statement): Expr[] {
  switch (st.type) {
    case 'if':
    case 'elif':
      return [st.test];
    case 'for':
      return [st.iter, ...(st.filter ? [st.filter] : [])];
    case 'set':
      return [st.value];
    default:
      return [];
  }
}

export interface WorkbookOutline {
  outline: TemplateOutline;
  problems: TemplateProblem[];
}

export function workbookOutline(
  template: Buffer,
  environment: Environment,
  limits: Partial<TemplateLimits> = {},
): WorkbookOutline {
  // Linting runs nothing: a macro-enabled workbook is read as any other.
  const pkg = openSpreadsheetPackage(template, { limits, allowMacros: true });
  const zip = pkg.zip;
  const types = new ContentTypes(zip.file(CONTENT_TYPES_PART)!.asText());
  const sharedPath = Object.keys(zip.files).find((n) => types.typeOf(n) === SHARED_STRINGS_TYPE);
  const shared = sharedPath ? readSharedStrings(pkg.readText(sharedPath)) : [];
  const workbookPath = workbookPathOf(zip);
  const workbook = zip.file(workbookPath)?.asText() ?? '';
  const rels = zip.file(relsPathOf(workbookPath))?.asText() ?? '';
  const targets = new Map(
    [...rels.matchAll(/<Relationship\b[^>]*>/g)].map((m) => [
      attr(m[0], 'Id'),
      resolveTarget(workbookPath, attr(m[0], 'Target') ?? ''),
    ]),
  );
  const paragraphs: TemplateParagraph[] = [];
  const tags: TemplateTag[] = [];
  const problems: TemplateProblem[] = [];
  for (const m of workbook.matchAll(/<sheet\b[^>]*>/g)) {
    const sheet = attr(m[0], 'name') ?? '';
    const part = targets.get(attr(m[0], 'r:id')) ?? '';
    if (!part || !zip.file(part)) continue;
    const xml = pkg.readText(part);
    const data = /<sheetData\b[^>]*?(?:\/>|>([\s\S]*?)<\/sheetData>)/.exec(xml);
    const rows = readRows(data?.[1] ?? '', shared);
    let paragraph = 0;
    // The sheet's name, when it holds tags, is its first line (no cell).
    const texts: { text: string; cell?: string; row?: number }[] = hasTags(sheet) ? [{ text: sheet }] : [];
    for (const row of rows)
      for (const cell of row.cells)
        if (cell.text !== undefined && cell.text !== '')
          texts.push({ text: cell.text, cell: `${columnName(cell.col)}${row.r}`, row: row.r });
    for (const { text, cell: ref, row } of texts) {
      const location: TemplateLocation = {
        part,
        paragraph: ++paragraph,
        line: paragraphs.length + 1,
        table: null,
        sheet,
        ...(ref !== undefined ? { cell: ref, row } : {}),
      };
      paragraphs.push({ ...location, text });
      if (!hasTags(text)) continue;
      const context = ref !== undefined ? `${sheet}!${ref}` : `the name of the sheet ${sheet}`;
      TAG.lastIndex = 0;
      for (let t = TAG.exec(text); t; t = TAG.exec(text)) {
        const tag: TemplateTag = {
          source: t[0],
          location,
          column: t.index + 1,
          paragraphText: text,
          alone: text.trim() === t[0].trim(),
          ...parseTag(t[0]),
        };
        tags.push(tag);
        if (tag.syntaxError) {
          problems.push({ message: tag.syntaxError, tag: tag.source, context, part });
          continue;
        }
        // `{{ x | date }}` alone in a cell is the fill's own (a date serial, render-xlsx.ts), not a filter.
        const cellDate = tag.alone && tag.expr?.type === 'Filter' && tag.expr.name === 'date';
        const exprs =
          tag.expr?.type === 'Filter' && cellDate
            ? [tag.expr.input, ...tag.expr.args]
            : tag.expr
              ? [tag.expr]
              : tag.statement
                ? statementExprs(tag.statement)
                : [];
        for (const e of exprs)
          for (const message of unknownNames(e, environment))
            problems.push({ message, tag: tag.source, context, part });
      }
      // A tag never closed: the rest of the cell is its text.
      const rest = text.replace(TAG, '');
      const open = /\{\{|\{%/.exec(rest);
      if (open)
        problems.push({
          message: 'the tag is not closed before the end of its paragraph (cell)',
          tag: rest.slice(open.index),
          context,
          part,
        });
      else if (!placementTag(text) && !tags.some((x) => x.location === location && x.syntaxError))
        try {
          CompiledCell.compile(text);
        } catch (e) {
          if (!(e instanceof JinjaSyntaxError)) throw e;
          // Said as Word's block checks say it, so lint classifies it the same way.
          const unclosed = /^'(\w+)' is never closed with '(end\w+)'/.exec(e.message);
          const message = unclosed ? `'${unclosed[1]}' has no '${unclosed[2]}' in this cell` : e.message;
          problems.push({ message, tag: text.trim(), context, part });
        }
    }
    // The sheet's row and column loops, as rendering reads them.
    try {
      columnLoopOf(rows, sheet);
      rowTree(withEmptyRowsInLoops(rows, sheet), sheet);
    } catch (e) {
      if (!(e instanceof TemplateSyntaxError)) throw e;
      for (const p of e.problems) if (!problems.some((q) => q.tag === p.tag)) problems.push({ ...p, part });
    }
  }
  return { outline: { paragraphs, tags }, problems };
}
