/**
 * bench:signing — what signing adds to a document: signPdf (libs/signing) on the 20-row corpus
 * invoice as the LibreOffice pool writes it, at B-B and at B-T against the local test authority
 * (test/support/test-pki.ts: `openssl ts -reply` per request, so B-T includes an openssl start).
 * Prints p50/p90 per level over --runs runs after 5 warm-up runs. The goal: B-B adds at most
 * 40 ms to a job.
 */
import { loadSigningProfiles, signPdf, type PadesLevel } from '@app/signing';
import { LibreOfficePool } from '@app/converters';
import { renderDocx } from '@app/engine';
import { corpusRequest, corpusTemplate } from './corpus';
import { startTestPki } from '../test/support/test-pki';

const runs = Number(/--runs=(\d+)/.exec(process.argv.join(' '))?.[1] ?? 40);
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

async function main() {
  const pki = await startTestPki();
  const pool = new LibreOfficePool({ instances: 1 });
  await pool.start();
  const pdf = await pool.convert(
    renderDocx(corpusTemplate('invoice'), corpusRequest('invoice', { rows: 20 })),
  );
  await pool.close();
  const profile = (
    await loadSigningProfiles({
      env: {
        SIGNING_PROFILE_BENCH_P12: pki.p12,
        SIGNING_PROFILE_BENCH_PASSWORD_FILE: pki.passwordFile,
        SIGNING_PROFILE_BENCH_TSA_URL: pki.tsaUrl,
      },
    })
  ).get('bench')!;
  console.log(`invoice (20 rows): ${pdf.length} bytes; ${runs} runs per level`);
  for (const level of ['B-B', 'B-T'] as PadesLevel[]) {
    for (const visible of [false, true]) {
      const request = {
        level,
        reason: 'Approved',
        visible: visible
          ? { name: 'seller', page: 1, rect: [300, 100, 470, 171] as [number, number, number, number] }
          : undefined,
      };
      for (let i = 0; i < 5; i++) await signPdf(pdf, profile, request);
      const ms: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t = process.hrtime.bigint();
        await signPdf(pdf, profile, request);
        ms.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      console.log(
        `${level} ${visible ? 'visible  ' : 'invisible'}  p50 ${pct(ms, 0.5).toFixed(1)} ms  p90 ${pct(ms, 0.9).toFixed(1)} ms`,
      );
    }
  }
  await pki.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
