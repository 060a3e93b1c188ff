import { fixTableGrids } from './table-grid';

const cell = (inner = 'x', span?: number) =>
  `<w:tc><w:tcPr>${span ? `<w:gridSpan w:val="${span}"/>` : ''}</w:tcPr><w:p><w:r><w:t>${inner}</w:t></w:r></w:p></w:tc>`;
const tbl = (grid: number[], rows: string[][]) =>
  `<w:tbl><w:tblPr/><w:tblGrid>${grid.map((w) => `<w:gridCol w:w="${w}"/>`).join('')}</w:tblGrid>${rows
    .map((r) => `<w:tr><w:trPr/>${r.join('')}</w:tr>`)
    .join('')}</w:tbl>`;
const grids = (xml: string) =>
  [...xml.matchAll(/<w:tblGrid>(.*?)<\/w:tblGrid>/g)].map((m) =>
    [...m[1].matchAll(/w:w="(\d+)"/g)].map((w) => Number(w[1])),
  );

describe('fixTableGrids (docxtpl fix_tables)', () => {
  it('adds columns for rows with more cells, keeping the table width', () => {
    expect(grids(fixTableGrids(tbl([3000, 3000], [[cell(), cell(), cell()]])))).toEqual([[2000, 2000, 2000]]);
  });

  it('drops columns no row fills and gives their width to the others', () => {
    expect(grids(fixTableGrids(tbl([1000, 2000, 3000], [[cell(), cell()]])))).toEqual([[2500, 3500]]);
  });

  it('counts spans, and leaves consistent tables (and nested ones) alone', () => {
    const inner = tbl([500, 500], [[cell(), cell()]]);
    const xml = tbl(
      [1000, 1000, 1000],
      [
        [cell(inner, 2), cell()],
        [cell(), cell(), cell()],
      ],
    );
    expect(fixTableGrids(xml)).toBe(xml);
    const widened = tbl([1000, 1000], [[cell(tbl([600], [[cell(), cell()]])), cell()]]);
    expect(grids(fixTableGrids(widened))).toEqual([
      [1000, 1000],
      [300, 300],
    ]);
  });
});
