/**
 * The conversion budget's calibration (issue 34): LibreOffice 25.2's time to convert a long table
 * WHOLE (one warm instance of the service's pool, no split conversion) against the size the
 * predictor reads (libs/converters/src/split/conversion-budget.ts), printed beside its prediction.
 * The documents are filled as the worker fills them for a PDF (table styles resolved, unused
 * styles pruned, stored):
 *   statement  the corpus statement: 4 columns, header row repeated, Page X of Y (splittable; here whole)
 *   statement-nohead  the same, its header row not repeated on each page (`w:tblHeader` taken out)
 *   merged     test/support/merged-statement.ts: 3 columns, two rows a booking, the date merged
 *              down both (w:vMerge, never splittable)
 *   pairs      the same without the merge (splittable; here whole): what the merge costs
 *   invoice    the corpus invoice: Word's default template, 4 columns, totals after the table
 * Sizes are table rows; a shape stops at the first size over --stop-after seconds.
 *
 *   npm run bench:budget [-- --rows 500,1000,2000,3000,5000] [--shapes statement,merged,invoice]
 *     [--runs 1] [--timeout 300] [--stop-after 120] [--json out.jsonl]
 * With --runs N each size is converted N times and the fastest is kept.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import PizZip from 'pizzip';
import {
  libreOfficePasses,
  LibreOfficePool,
  predictWholeMs,
  REFUSE_MARGIN,
  sizeOfDocx,
  WHOLE_MODEL,
} from '@app/converters';
import { renderDocx, type RenderRequest } from '@app/engine';
import { mergedStatementRequest, mergedStatementTemplate } from '../test/support/merged-statement';
import { intArg, stringArg } from './args';
import { corpusRequest, corpusTemplate } from './corpus';
import { machineLine } from './report';

const ROWS = stringArg('rows', '500,1000,2000,3000,5000').split(',').map(Number);
const SHAPES = stringArg('shapes', 'statement,merged,invoice').split(',');
const TIMEOUT_MS = intArg('timeout', 300) * 1000;
const STOP_AFTER_MS = intArg('stop-after', 120) * 1000;
const JSON_OUT = stringArg('json', '');
const RUNS = intArg('runs', 1);

type Shape = 'statement' | 'statement-nohead' | 'merged' | 'pairs' | 'invoice';

function filled(shape: Shape, rows: number): Buffer {
  const options = {
    packagePasses: libreOfficePasses({ resolveTableStyles: true, pruneUnusedStyles: true }),
    compression: 'STORE' as const,
  };
  switch (shape) {
    case 'statement':
      return renderDocx(
        corpusTemplate('statement'),
        corpusRequest('statement', { rows }) as RenderRequest,
        options,
      );
    case 'statement-nohead': {
      const zip = new PizZip(filled('statement', rows));
      const xml = zip.file('word/document.xml')!.asText();
      zip.file('word/document.xml', xml.replace(/<w:tblHeader\/>/g, ''));
      return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
    }
    case 'invoice':
      return renderDocx(
        corpusTemplate('invoice'),
        corpusRequest('invoice', { rows }) as RenderRequest,
        options,
      );
    case 'merged':
    case 'pairs':
      return renderDocx(
        mergedStatementTemplate(shape === 'merged'),
        mergedStatementRequest(Math.round(rows / 2)),
        options,
      );
  }
}

/** CPU time (user + system, all threads) of process `pid` so far, in ms; NaN when unknown. */
function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ 100
  } catch {
    return NaN;
  }
}

async function main(): Promise<void> {
  console.log(machineLine());
  const pool = new LibreOfficePool({ instances: 1, conversionTimeoutMs: TIMEOUT_MS, restartAfter: 0 });
  await pool.start();
  await pool.convert(filled('statement', 20)); // warm
  const stopped = new Set<string>();
  const ratios: { shape: string; ratio: number }[] = [];
  console.log(
    'shape              rows  cells merged  xml chars       wall    LO CPU  predicted  predicted/CPU  check cost  load',
  );
  for (const rows of ROWS) {
    for (const shape of SHAPES as Shape[]) {
      if (stopped.has(shape)) continue;
      const docx = filled(shape, rows);
      // What the check costs a request: the document.xml's tags counted, the model evaluated.
      const c0 = performance.now();
      const size = sizeOfDocx(docx)!;
      const predicted = predictWholeMs(size, WHOLE_MODEL);
      const checkMs = performance.now() - c0;
      let measured: number | null = null;
      let wall: number | null = null;
      for (let run = 0; run < RUNS; run++) {
        const t0 = performance.now();
        const pid = pool.describe()[0]?.pid;
        const cpu0 = cpuMs(pid);
        try {
          await pool.convert(docx, { jobId: `${shape}-${rows}`, timeoutMs: TIMEOUT_MS });
          const t = performance.now() - t0;
          // LibreOffice's CPU time, which the other tenants of a shared machine do not stretch as
          // they stretch the wall clock (wall time when /proc is not there); the fastest run.
          const cpu = cpuMs(pid) - cpu0;
          measured = Math.min(measured ?? Infinity, Number.isFinite(cpu) && cpu > 0 ? cpu : t);
          wall = Math.min(wall ?? Infinity, t);
        } catch (e) {
          console.log(`${shape} ${rows}: ${(e as Error).message}`);
          break;
        }
      }
      const load = loadavg()[0].toFixed(2);
      const s = (ms: number | null) =>
        ms === null ? `> ${TIMEOUT_MS / 1000} s` : `${(ms / 1000).toFixed(2)} s`;
      console.log(
        `${shape.padEnd(16)} ${String(size.rows).padStart(5)} ${String(size.cells).padStart(6)} ${String(size.mergedCells).padStart(6)} ` +
          `${String(size.xmlChars).padStart(9)}  ${s(wall).padStart(9)} ${s(measured).padStart(9)}  ${s(predicted).padStart(9)}  ` +
          `${(measured === null ? '-' : (predicted / measured).toFixed(2)).padStart(13)}  ${checkMs.toFixed(0).padStart(8)} ms  ${load}`,
      );
      if (JSON_OUT)
        appendFileSync(
          JSON_OUT,
          JSON.stringify({ shape, requestedRows: rows, ...size, wall, measured, predicted, checkMs, load }) +
            '\n',
        );
      if (measured === null || measured > STOP_AFTER_MS) stopped.add(shape);
      if (measured !== null) ratios.push({ shape, ratio: predicted / measured });
    }
  }
  await pool.close();
  // The prediction's error: its range, and the root mean square of its logarithm (0.3: about ±35 %).
  for (const shape of [...new Set(ratios.map((r) => r.shape)), 'all']) {
    const rs = ratios.filter((r) => shape === 'all' || r.shape === shape).map((r) => r.ratio);
    const rms = Math.sqrt(rs.reduce((n, r) => n + Math.log(r) ** 2, 0) / rs.length);
    console.log(
      `${shape.padEnd(16)} predicted/measured ${Math.min(...rs).toFixed(2)}–${Math.max(...rs).toFixed(2)}, ` +
        `rms log error ${rms.toFixed(2)}; refused beyond ${REFUSE_MARGIN} × the time`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
