/**
 * Whether two PDFs draw the same pages: every page rasterised at 100 dpi by pdftoppm (poppler)
 * and compared pixel by pixel. A pixel differs when a colour channel is off by more than
 * `channelTolerance` (anti-aliased glyph edges move a few levels between two layouts of the same
 * text); a page holds when at most `maxPixels` pixels differ.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';

export interface PageDiff {
  page: number;
  /** Pixels beyond the tolerance. */
  pixels: number;
  /** The largest channel difference on the page. */
  maxChannel: number;
  /** Bounding box of the differing pixels, in pixels at 100 dpi. */
  box?: [number, number, number, number];
}

export interface PageComparison {
  pagesA: number;
  pagesB: number;
  /** Pages (1-based) that differ beyond the tolerance, with what differs. */
  differing: PageDiff[];
  same: boolean;
}

function rasterise(pdf: Buffer, dir: string, prefix: string, pages?: number[]): PNG[] {
  const file = join(dir, `${prefix}.pdf`);
  writeFileSync(file, pdf);
  if (pages) {
    // Named pages only, in this order (pdftoppm names each by its page number).
    for (const n of pages)
      execFileSync('pdftoppm', [
        '-r',
        '100',
        '-png',
        '-f',
        String(n),
        '-l',
        String(n),
        file,
        join(dir, `${prefix}_${n}`),
      ]);
    return pages.flatMap((n) =>
      readdirSync(dir)
        .filter((f) => f.startsWith(`${prefix}_${n}-`) && f.endsWith('.png'))
        .map((f) => PNG.sync.read(readFileSync(join(dir, f)))),
    );
  }
  execFileSync('pdftoppm', ['-r', '100', '-png', file, join(dir, prefix)], { maxBuffer: 1 << 28 });
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${prefix}-`) && f.endsWith('.png'))
    .sort((x, y) => Number(/-(\d+)\.png$/.exec(x)![1]) - Number(/-(\d+)\.png$/.exec(y)![1]))
    .map((f) => PNG.sync.read(readFileSync(join(dir, f))));
}

export function comparePages(
  a: Buffer,
  b: Buffer,
  /** `pages`: only these (1-based; a page either PDF lacks is left out, so the counts differ). */
  opts: { channelTolerance?: number; maxPixels?: number; pages?: number[] } = {},
): PageComparison {
  const tolerance = opts.channelTolerance ?? 48;
  const maxPixels = opts.maxPixels ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'pages-'));
  try {
    const pa = rasterise(a, dir, 'a', opts.pages);
    const pb = rasterise(b, dir, 'b', opts.pages);
    const differing: PageDiff[] = [];
    for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
      const x = pa[i];
      const y = pb[i];
      if (x.width !== y.width || x.height !== y.height) {
        differing.push({
          page: i + 1,
          pixels: Math.max(x.width * x.height, y.width * y.height),
          maxChannel: 255,
        });
        continue;
      }
      let pixels = 0;
      let maxChannel = 0;
      let box: [number, number, number, number] | undefined;
      for (let p = 0; p < x.data.length; p += 4) {
        const d = Math.max(
          Math.abs(x.data[p] - y.data[p]),
          Math.abs(x.data[p + 1] - y.data[p + 1]),
          Math.abs(x.data[p + 2] - y.data[p + 2]),
        );
        if (d > maxChannel) maxChannel = d;
        if (d > tolerance) {
          pixels++;
          const px = (p / 4) % x.width;
          const py = Math.floor(p / 4 / x.width);
          box = box
            ? [Math.min(box[0], px), Math.min(box[1], py), Math.max(box[2], px), Math.max(box[3], py)]
            : [px, py, px, py];
        }
      }
      if (pixels > maxPixels) differing.push({ page: i + 1, pixels, maxChannel, box });
    }
    return {
      pagesA: pa.length,
      pagesB: pb.length,
      differing,
      same: pa.length === pb.length && differing.length === 0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
