/**
 * docxtpl's `fix_tables`, after rendering the body: when column loops (`{%tc for %}`), `{% hm %}`
 * or `{% colspan %}` changed how many columns the rows of a table fill, the table's grid
 * (`w:tblGrid`) gains or loses columns, rescaled so the table keeps its width. Word and
 * LibreOffice lay cells out on that grid.
 *
 * Hand-written over the XML text, like the rest of the module: only table, row, cell, grid and
 * span tags matter, and no library edits WordprocessingML grids.
 */

const TOKEN =
  /<w:tbl[ >]|<\/w:tbl>|<w:tblGrid\b[^>]*>|<\/w:tblGrid>|<w:gridCol\b[^>]*\/>|<w:tr[ >]|<\/w:tr>|<w:tc[ >]|<\/w:tc>|<w:gridSpan\b[^>]*\/>/g;

interface Table {
  gridStart: number;
  gridEnd: number;
  widths: (number | null)[];
  /** Per row: [direct cells, columns they span]. */
  rows: [number, number][];
  row?: [number, number];
  /** The span of the cell being read (1 unless its w:gridSpan says otherwise). */
  cellSpan: number;
  inCell: boolean;
}

/** The grid docxtpl computes for these widths and rows, or null when it stays. */
function fixedGrid(widths: number[], rows: [number, number][]): number[] | null {
  let cols = [...widths];
  let changed = false;
  const maxCells = Math.max(0, ...rows.map(([cells]) => cells));
  const toAdd = maxCells - cols.length;
  if (toAdd > 0) {
    const width = cols.reduce((a, b) => a + b, 0);
    if (width > 0) {
      const oldAverage = width / cols.length;
      const newAverage = width / (cols.length + toAdd);
      cols = cols.map((w) => Math.trunc((w * newAverage) / oldAverage));
      for (let i = 0; i < toAdd; i++) cols.push(Math.trunc(newAverage));
      changed = true;
    }
  }
  const maxSpan = Math.max(0, ...rows.map(([, span]) => span));
  const toRemove = cols.length - maxSpan;
  if (toRemove > 0 && maxSpan > 0) {
    const removed = cols.slice(-toRemove).reduce((a, b) => a + b, 0);
    cols = cols.slice(0, cols.length - toRemove);
    const extra = Math.trunc(removed / cols.length);
    cols = cols.map((w) => Math.trunc(w + extra));
    changed = true;
  }
  return changed ? cols : null;
}

export function fixTableGrids(xml: string): string {
  const stack: Table[] = [];
  const edits: [number, number, string][] = [];
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(xml); m; m = TOKEN.exec(xml)) {
    const tok = m[0];
    const top = stack[stack.length - 1];
    if (tok.startsWith('<w:tbl') && !tok.startsWith('<w:tblGrid')) {
      stack.push({ gridStart: -1, gridEnd: -1, widths: [], rows: [], cellSpan: 1, inCell: false });
    } else if (!top) continue;
    else if (tok.startsWith('<w:tblGrid')) top.gridStart = m.index;
    else if (tok === '</w:tblGrid>') top.gridEnd = m.index + tok.length;
    else if (tok.startsWith('<w:gridCol')) {
      const w = /w:w="(\d+(?:\.\d+)?)"/.exec(tok);
      top.widths.push(w ? Number(w[1]) : null);
    } else if (tok.startsWith('<w:tr')) top.row = [0, 0];
    else if (tok === '</w:tr>') {
      if (top.row) top.rows.push(top.row);
      top.row = undefined;
    } else if (tok.startsWith('<w:tc')) {
      top.inCell = true;
      top.cellSpan = 1;
    } else if (tok === '</w:tc>') {
      if (top.row) {
        top.row[0] += 1;
        top.row[1] += top.cellSpan;
      }
      top.inCell = false;
    } else if (tok.startsWith('<w:gridSpan')) {
      const v = /w:val="(\d+)"/.exec(tok);
      if (top.inCell && v) top.cellSpan = Number(v[1]);
    } else if (tok === '</w:tbl>') {
      stack.pop();
      if (top.gridStart < 0 || top.gridEnd < 0 || top.widths.some((w) => w === null)) continue;
      const grid = fixedGrid(top.widths as number[], top.rows);
      if (grid)
        edits.push([
          top.gridStart,
          top.gridEnd,
          `<w:tblGrid>${grid.map((w) => `<w:gridCol w:w="${w}"/>`).join('')}</w:tblGrid>`,
        ]);
    }
  }
  if (!edits.length) return xml;
  edits.sort((a, b) => b[0] - a[0]);
  let out = xml;
  for (const [a, b, text] of edits) out = out.slice(0, a) + text + out.slice(b);
  return out;
}
