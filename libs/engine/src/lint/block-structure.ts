/**
 * Blocks whose start and end sit in different table cells. The renderer refuses the ones that
 * would corrupt the document; some (an `if` from one cell of a row to the next) render, but only
 * by merging or dropping cells, which is never what the author meant. docxtpl's `{%tr %}` and
 * `{%tc %}` are the way to repeat or hide rows and cells.
 */
import type { TemplateOutline, TemplateTag } from '../inspect/template-outline';

export interface StructureProblem {
  opener: TemplateTag;
  closer: TemplateTag;
  message: string;
}

function cellOf(t: TemplateTag): string {
  const c = t.location.table;
  return c ? `${t.location.part}#${c.table}/${c.row}/${c.cell}` : `${t.location.part}#body`;
}

function rowOf(t: TemplateTag): string {
  const c = t.location.table;
  return c ? `${t.location.part}#${c.table}/${c.row}` : `${t.location.part}#body`;
}

function tableOf(t: TemplateTag): string {
  const c = t.location.table;
  return c ? `${t.location.part}#${c.table}` : `${t.location.part}#body`;
}

export function blocksAcrossCells(outline: TemplateOutline): StructureProblem[] {
  const problems: StructureProblem[] = [];
  const open: TemplateTag[] = [];
  for (const t of outline.tags) {
    const st = t.statement;
    if (!st) continue;
    if (st.type === 'if' || st.type === 'for') open.push(t);
    else if (st.type === 'endif' || st.type === 'endfor') {
      const want = st.type === 'endif' ? 'if' : 'for';
      const opener = open[open.length - 1];
      if (!opener || opener.statement?.type !== want) continue; // mismatches are the compiler's to report
      open.pop();
      const placement = opener.placement;
      // {%tr %} spans rows of one table; {%tc %} spans cells of one row; the rest stays in one cell.
      const fine =
        placement === 'tr'
          ? tableOf(opener) === tableOf(t)
          : placement === 'tc'
            ? rowOf(opener) === rowOf(t)
            : cellOf(opener) === cellOf(t);
      if (!fine)
        problems.push({
          opener,
          closer: t,
          message: `this ${want} block starts in ${where(opener)} and ends in ${where(t)} (${t.source})`,
        });
    }
  }
  return problems;
}

function where(t: TemplateTag): string {
  const c = t.location.table;
  return c ? `table ${c.table}, row ${c.row}, cell ${c.cell}` : 'the text outside tables';
}
