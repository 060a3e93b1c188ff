/**
 * Page rasters for the output-format specs: poppler's pdftoppm run directly on a PDF (the
 * reference the service's page images must equal) and the difference of two rasters.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { PNG } from 'pngjs';

/** Page `page` of `pdf` drawn by pdftoppm as PNG with `args` (e.g. `-r 96`), in a directory under `workDir`. */
export function pdftoppmPage(pdf: Buffer, page: number, args: readonly string[], workDir: string): PNG {
  const dir = mkdtempSync(join(workDir, 'ref-'));
  writeFileSync(join(dir, 'in.pdf'), pdf);
  execFileSync('pdftoppm', [
    '-f',
    String(page),
    '-l',
    String(page),
    '-singlefile',
    '-png',
    ...args,
    join(dir, 'in.pdf'),
    join(dir, 'out'),
  ]);
  return PNG.sync.read(readFileSync(join(dir, 'out.png')));
}

/** Mean absolute difference per channel (0–255) of two RGB(A) rasters of one size. */
export function meanDifference(
  a: { data: Uint8Array },
  aChannels: number,
  b: { data: Uint8Array },
  bChannels: number,
  pixels: number,
): number {
  let sum = 0;
  for (let i = 0; i < pixels; i++)
    for (let c = 0; c < 3; c++) sum += Math.abs(a.data[i * aChannels + c] - b.data[i * bChannels + c]);
  return sum / (pixels * 3);
}
