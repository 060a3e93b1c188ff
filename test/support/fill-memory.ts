/**
 * Run by libs/engine/src/render-scale.spec.ts in a fresh process (`node --expose-gc`, tsx's
 * require hook): fills the corpus invoice of `rows` items as the worker fills one for PDF output
 * and prints, as one JSON line, what the fill added to the process's peak RSS and to the heap
 * held after it (both after a forced GC), and the .docx's size.
 *
 *   node --expose-gc --require tsx/cjs test/support/fill-memory.ts <rows>
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { libreOfficePasses } from '@app/converters';
import { CompiledTemplates, parseDataJson, renderDocx } from '@app/engine';
import { corpusRequest, corpusTemplate } from '../../bench/corpus';
import { procStatusKb, resetPeakRss } from './hostile-process';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const rows = Number(process.argv[2]);
const template = corpusTemplate('invoice');
const options = {
  imagesVerified: true,
  templateChecked: true,
  compiledTemplates: new CompiledTemplates(),
  compression: 'STORE' as const,
  packagePasses: libreOfficePasses({ maxTableCells: 10_000_000, resolveTableStyles: true }),
};
// Compiled, and the code warm, on a small fill first.
renderDocx(template, corpusRequest('invoice', { rows: 20 }) as never, options);
const request = parseDataJson(JSON.stringify(corpusRequest('invoice', { rows })));
gc();
// The peak starts again from here (Linux: clear_refs 5 resets VmHWM to the current RSS).
resetPeakRss(process.pid);
const rssBefore = process.memoryUsage().rss;
const heapBefore = process.memoryUsage().heapUsed;
const spacesBefore = spaceSizes();
// The .docx is dropped at once: only its size is kept.
const bytes = renderDocx(template, request as never, options).length;
// This process's own peak (VmHWM): getrusage's maxRSS carries the parent's across execve, and
// under a Jest worker of ~450 MB a 5,000-row fill "rose" 275 MB, as much as 20,000 rows.
const peak = procStatusKb(process.pid, 'VmHWM') * 1024;
// Twice: the first pass leaves the fill's large strings for the next (Node 20); then once more
// after the task ends, when V8 has run what it defers to the task boundary (weak callbacks,
// finalizers): under Node 24 a run now and then still held ~58 MB before it.
gc();
gc();
setImmediate(() => {
  gc();
  process.stdout.write(
    JSON.stringify({
      rows,
      bytes,
      peakRiseBytes: peak - rssBefore,
      heapHeldBytes: process.memoryUsage().heapUsed - heapBefore,
      // Per V8 space, for the failure message when the bound trips (which space holds it).
      heapHeldBySpace: Object.fromEntries(
        Object.entries(spaceSizes()).map(([name, used]) => [name, used - (spacesBefore[name] ?? 0)]),
      ),
    }) + '\n',
  );
});

function spaceSizes(): Record<string, number> {
  return Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
}
