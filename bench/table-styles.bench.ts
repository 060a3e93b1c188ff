/**
 * Table styles resolved before conversion (RESOLVE_TABLE_STYLES, libs/engine/src/docx/table-styles.ts):
 * the corpus invoice ("Light List Accent 1", 4 columns) filled at each size, then converted through
 * the LibreOffice pool (one warm instance, as a worker runs it) as filled and with its table style
 * written as direct formatting, alternately (styled, resolved, styled, ...) so background load
 * falls on both alike. Prints each conversion, the medians, their ratio, the resolution's own time,
 * and whether the two PDFs draw the same pages (100 dpi, test/support/page-compare.ts).
 *
 *   npx tsx bench/table-styles.bench.ts [--rows 500,2000] [--runs 3]
 */
import PizZip from 'pizzip';
import { LibreOfficePool } from '@app/converters';
import { renderDocx, resolveTableStyles, type RenderRequest } from '@app/engine';
import { comparePages } from '../test/support/page-compare';
import { intArg, stringArg } from './args';
import { corpusRequest, corpusTemplate } from './corpus';
import { machineLine, median, ms } from './report';

const RUNS = intArg('runs', 3);
const ROWS = stringArg('rows', '500,2000').split(',').map(Number);

function fill(rows: number): Buffer {
  return renderDocx(corpusTemplate('invoice'), corpusRequest('invoice', { rows }) as RenderRequest, {
    compression: 'STORE',
    templateChecked: true,
    imagesVerified: true,
  });
}

function resolved(docx: Buffer): { docx: Buffer; ms: number } {
  const t0 = performance.now();
  const zip = new PizZip(docx);
  resolveTableStyles(zip);
  const out = zip.generate({ type: 'nodebuffer', compression: 'STORE' });
  return { docx: out, ms: performance.now() - t0 };
}

async function main(): Promise<void> {
  console.log(`table styles resolved before conversion — ${machineLine()}`);
  console.log(`started ${new Date().toISOString()}, ${RUNS} runs each, alternating\n`);
  const pool = new LibreOfficePool({ instances: 1 });
  await pool.start();
  try {
    // A warm-up conversion: the first one loads LibreOffice's libraries and fonts.
    await pool.convert(fill(20), { timeoutMs: 120_000 });
    for (const rows of ROWS) {
      const styled = fill(rows);
      const r = resolved(styled);
      const times: Record<'styled' | 'resolved', number[]> = { styled: [], resolved: [] };
      const pdfs: Partial<Record<'styled' | 'resolved', Buffer>> = {};
      for (let i = 0; i < RUNS; i++) {
        for (const kind of ['styled', 'resolved'] as const) {
          const t0 = performance.now();
          pdfs[kind] = await pool.convert(kind === 'styled' ? styled : r.docx, { timeoutMs: 1_800_000 });
          const t = performance.now() - t0;
          times[kind].push(t);
          console.log(
            `  invoice ${String(rows).padStart(5)} rows  ${kind.padEnd(8)} run ${i + 1}: ${ms(t).padStart(8)} ms`,
          );
        }
      }
      const [a, b] = [median(times.styled), median(times.resolved)];
      const cmp = comparePages(pdfs.styled!, pdfs.resolved!);
      console.log(
        `invoice ${rows} rows: styled ${ms(a)} ms, resolved ${ms(b)} ms (median of ${RUNS}), ` +
          `resolved ÷ styled ${(b / a).toFixed(2)}; resolution itself ${ms(r.ms)} ms; ` +
          `${cmp.pagesA} pages, same pages: ${cmp.same ? 'yes' : `NO (${JSON.stringify(cmp.differing.slice(0, 3))})`}\n`,
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
