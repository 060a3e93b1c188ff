import { PayloadTooLargeError } from '@app/contracts';
import { renderDocx } from '@app/engine';
import PizZip from 'pizzip';
import { buildDocx, table } from '../../../../test/support/docx-builder';
import { libreOfficePasses } from './passes';
import { countTableCells } from './table-cells';

/** A two-column table with a row loop: 2 cells per item, plus the header row's 2. */
const template = buildDocx([
  table([
    ['Name', 'Qty'],
    ['{%tr for item in items %}', ''],
    ['{{ item.name }}', '{{ item.qty }}'],
    ['{%tr endfor %}', ''],
  ]),
]);
const items = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `n${i}`, qty: i }));
const fill = (maxTableCells?: number) =>
  renderDocx(
    template,
    { template_data: { items: items(100) } },
    { packagePasses: libreOfficePasses(maxTableCells === undefined ? {} : { maxTableCells }) },
  );

describe('the conversion budget (maxTableCells), a pass of the fill', () => {
  it('refuses a filled document with more table cells than the limit, saying how many', () => {
    let error: unknown;
    try {
      fill(150);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect((error as PayloadTooLargeError).details).toEqual({
      reason: 'conversion_budget',
      table_cells: 202,
      limit: 150,
    });
    expect((error as PayloadTooLargeError).message).toContain('202 table cells');
  });

  it('lets a document at the limit through, and applies no limit unless asked', () => {
    expect(() => fill(202)).not.toThrow();
    expect(countTableCells(new PizZip(fill()))).toBe(202);
  });
});
