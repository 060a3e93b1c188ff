import { readFileSync } from 'node:fs';
import { pdfToPageImages, warmPageRenderer } from '../libs/converters/src/outputs/page-images';
const pdf = readFileSync(process.argv[2] ?? '/tmp/emb/invoice-filled.pdf');
(async () => {
  await warmPageRenderer();
  const t: number[] = [];
  for (let i = 0; i < 40; i++) {
    const t0 = performance.now();
    const r = await pdfToPageImages(pdf, { format: 'png' });
    t.push(performance.now() - t0);
    if (i === 0) console.log('bytes', r.body.length);
  }
  t.sort((a, b) => a - b);
  console.log('median', t[20].toFixed(2), 'p10', t[4].toFixed(2), 'p90', t[36].toFixed(2));
})();
