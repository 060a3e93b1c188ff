/**
 * Table styles resolved before conversion (RESOLVE_TABLE_STYLES, libs/engine/src/docx/table-styles.ts):
 * the corpus invoice ("Light List Accent 1", 4 columns) filled at each size, then converted through
 * the LibreOffice pool (one warm instance, as a worker runs it) as filled and with its table style
 * written as direct formatting, alternately (styled, resolved, styled, ...) so background load
 * falls on both alike. Each run fills the template as the worker does for a PDF (with the
 * resolution inside renderDocx, or without), then converts: prints fill, conversion and their
 * sum, the medians and ratios, and whether the two PDFs draw the same pages (100 dpi,
 * test/support/page-compare.ts).
 *
 *   npx tsx bench/table-styles.bench.ts [--rows 500,2000] [--runs 3]
 */
import { libreOfficePasses, LibreOfficePool } from '@app/converters';
import { renderDocx, type RenderRequest } from '@app/engine';
import { comparePages } from '../test/support/page-compare';
import { intArg, stringArg } from './args';
import { corpusRequest, corpusTemplate } from './corpus';
import { machineLine, median, ms } from './report';

const RUNS = intArg('runs', 3);
const ROWS = stringArg('rows', '500,2000').split(',').map(Number);

/** The fill as the worker runs it for a PDF, with or without the resolution (RESOLVE_TABLE_STYLES). */
function fill(rows: number, resolveTableStyles: boolean): { docx: Buffer; ms: number } {
  const t0 = performance.now();
  const docx = renderDocx(corpusTemplate('invoice'), corpusRequest('invoice', { rows }) as RenderRequest, {
    compression: 'STORE',
    templateChecked: true,
    imagesVerified: true,
    packagePasses: libreOfficePasses({ resolveTableStyles }),
  });
  return { docx, ms: performance.now() - t0 };
}

async function main(): Promise<void> {
  console.log(`table styles resolved before conversion — ${machineLine()}`);
  console.log(`started ${new Date().toISOString()}, ${RUNS} runs each, alternating\n`);
  const pool = new LibreOfficePool({ instances: 1 });
  await pool.start();
  try {
    // A warm-up conversion: the first one loads LibreOffice's libraries and fonts.
    await pool.convert(fill(20, false).docx, { timeoutMs: 120_000 });
    for (const rows of ROWS) {
      type Kind = 'styled' | 'resolved';
      const fills: Record<Kind, number[]> = { styled: [], resolved: [] };
      const converts: Record<Kind, number[]> = { styled: [], resolved: [] };
      const totals: Record<Kind, number[]> = { styled: [], resolved: [] };
      const pdfs: Partial<Record<Kind, Buffer>> = {};
      for (let i = 0; i < RUNS; i++) {
        for (const kind of ['styled', 'resolved'] as const) {
          const f = fill(rows, kind === 'resolved');
          const t0 = performance.now();
          pdfs[kind] = await pool.convert(f.docx, { timeoutMs: 1_800_000 });
          const c = performance.now() - t0;
          fills[kind].push(f.ms);
          converts[kind].push(c);
          totals[kind].push(f.ms + c);
          console.log(
            `  invoice ${String(rows).padStart(5)} rows  ${kind.padEnd(8)} run ${i + 1}: fill ${ms(f.ms).padStart(6)} ms` +
              `  convert ${ms(c).padStart(8)} ms  total ${ms(f.ms + c).padStart(8)} ms`,
          );
        }
      }
      const m = (xs: number[]) => ms(median(xs));
      const cmp = comparePages(pdfs.styled!, pdfs.resolved!);
      console.log(
        `invoice ${rows} rows (median of ${RUNS}): styled fill ${m(fills.styled)} + convert ${m(converts.styled)} = ` +
          `${m(totals.styled)} ms; resolved fill ${m(fills.resolved)} + convert ${m(converts.resolved)} = ` +
          `${m(totals.resolved)} ms; conversion ratio ${(median(converts.resolved) / median(converts.styled)).toFixed(2)}, ` +
          `fill + conversion ratio ${(median(totals.resolved) / median(totals.styled)).toFixed(2)}; ${cmp.pagesA} pages, ` +
          `same pages: ${cmp.same ? 'yes' : `NO (${JSON.stringify(cmp.differing.slice(0, 3))})`}\n`,
      );
    }
  } finally {
    await pool.close();
  }
  console.log(`finished ${new Date().toISOString()}`);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
