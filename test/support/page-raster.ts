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

/** Mean grey of each `block` × `block` square of an RGB(A) raster (the last partial row/column dropped). */
function blockGreys(
  img: { data: Uint8Array; width: number; height: number },
  channels: number,
  block: number,
) {
  const cols = Math.floor(img.width / block);
  const rows = Math.floor(img.height / block);
  const out = new Float64Array(cols * rows);
  const data = img.data;
  for (let y = 0; y < rows * block; y++) {
    const outRow = ((y / block) | 0) * cols;
    let i = y * img.width * channels;
    for (let bx = 0; bx < cols; bx++) {
      let sum = 0;
      for (let k = 0; k < block; k++, i += channels) sum += data[i] + data[i + 1] + data[i + 2];
      out[outRow + bx] += sum;
    }
  }
  const scale = 1 / (3 * block * block);
  for (let j = 0; j < out.length; j++) out[j] *= scale;
  return out;
}

/**
 * How far `image` is from `reference` (both the same size), as a share of how far a blank
 * page is from it: grey means of 8 × 8 squares compared, so that two rasterisers' different
 * anti-aliasing of the same glyph edges counts little while a missing, moved or other page's
 * text counts in full. 0 is equal, 1 is as far as a blank page (measured 28 Nov 2026: PDFium
 * against pdftoppm 0.12–0.23 on the corpus invoice, contract and Writer pages at 72 and 96 dpi;
 * another page of the contract 1.6–5.9).
 */
export function differenceFromReference(
  image: { data: Uint8Array; width: number; height: number },
  imageChannels: number,
  reference: { data: Uint8Array; width: number; height: number },
  referenceChannels: number,
): number {
  const block = 8;
  const ref = blockGreys(reference, referenceChannels, block);
  const img = blockGreys(image, imageChannels, block);
  let diff = 0;
  let ink = 0;
  for (let i = 0; i < ref.length; i++) {
    diff += Math.abs(img[i] - ref[i]);
    ink += 255 - ref[i];
  }
  return ink === 0 ? diff : diff / ink;
}
