/**
 * Rendering by id against rendering by upload (issue 38, docs/templates.md), one caller, the two
 * taking turns request by request on one service (Redis, PostgreSQL, one worker, the API): the
 * 20-row corpus invoice, and the same invoice grown to ~5 MiB with a noisy photo and two font
 * files added as parts (incompressible bytes, as pictures and embedded fonts are; unreferenced, so
 * the PDF is the invoice's and the difference is the template's transport alone).
 * Target: by id no slower on the invoice, and ≥ 30 % faster (p50 ≤ 0.7×) on the 5 MiB template.
 *
 * Each case runs twice: on loopback, where sending 5 MiB costs the caller almost nothing, and
 * through a caller link of `--caller-link-mbit` (default 100) Mbit/s each way and
 * `--caller-link-ms` (default 0.5) ms one way, a proxy in front of the API (test/support's
 * delay proxy), as a backend in the same data centre would reach the service.
 *
 * Part of `npm run bench:service` (--stored-requests 0 skips it); alone:
 *   npx tsx bench/stored-templates.ts [--stored-requests 30] [--caller-link-mbit 100]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PizZip from 'pizzip';
import {
  buildService,
  RedisServer,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  RENDER_PATH,
} from '../test/service-harness';
import { startDelayProxy } from '../test/support/delay-proxy';
import { startPostgres } from '../test/support/postgres';
import { intArg, numberArg } from './args';
import { corpusRequest, corpusTemplate } from './corpus';
import { median } from './report';

const MiB = 1024 * 1024;

/** The invoice with ~5 MiB of incompressible parts: a photo and two embedded fonts' worth. */
export function fiveMiBInvoice(): Buffer {
  const zip = new PizZip(corpusTemplate('invoice'));
  zip.file('word/media/bench-photo.jpeg', randomBytes(3.4 * MiB));
  zip.file('word/fonts/font1.odttf', randomBytes(0.8 * MiB));
  zip.file('word/fonts/font2.odttf', randomBytes(0.8 * MiB));
  return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
}

async function timed(url: string, form: () => FormData, key: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}${RENDER_PATH}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form(),
  });
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`service answered ${res.status}: ${body.toString('utf8', 0, 300)}`);
  return performance.now() - t0;
}

/** Prints the p50s; returns whether the targets are met. */
export async function storedTemplatesSection(requests: number): Promise<boolean> {
  if (requests <= 0) return true;
  buildService();
  const [redis, pg] = await Promise.all([RedisServer.start(), startPostgres()]);
  const dir = mkdtempSync(join(tmpdir(), 'bench-stored-'));
  const adminKey = `dpk_${randomBytes(32).toString('base64url')}`;
  writeFileSync(join(dir, '.admin-key'), adminKey, { mode: 0o600 });
  const env = testEnv(redis.url, {
    DATABASE_URL: pg.url,
    ADMIN_KEY_FILE: join(dir, '.admin-key'),
    MAX_TEMPLATE_BYTES: String(10 * MiB),
    MAX_REQUEST_BYTES: String(12 * MiB),
  });
  const [api, worker] = await Promise.all([startApi(env), startWorker(env)]);
  const mbit = numberArg('caller-link-mbit', 100);
  const oneWayMs = numberArg('caller-link-ms', 0.5);
  const link = await startDelayProxy(Number(new URL(api.url).port), oneWayMs, (mbit * 1e6) / 8 / 1000);
  const links: Array<[string, string]> = [
    ['loopback', api.url],
    [`caller link ${mbit} Mbit/s, ${2 * oneWayMs} ms RTT`, `http://127.0.0.1:${link.port}`],
  ];
  let ok = true;
  try {
    const requestData = JSON.stringify(corpusRequest('invoice', { rows: 20 }));
    const cases: Array<[string, Buffer]> = [
      ['invoice, 20 rows', corpusTemplate('invoice')],
      ['invoice + 5 MiB of pictures and fonts', fiveMiBInvoice()],
    ];
    console.log(`\nby id against by upload, 1 caller, ${requests} requests each, taking turns`);
    for (const [label, template] of cases) {
      const up = new FormData();
      up.append('file', new Blob([template]), 'invoice.docx');
      up.append('name', label);
      const created = await fetch(`${api.url}/api/v1/templates`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}` },
        body: up,
      });
      if (created.status !== 201)
        throw new Error(`upload answered ${created.status}: ${await created.text()}`);
      const { template_id } = (await created.json()) as { template_id: string };
      const byUpload = () => {
        const f = new FormData();
        f.append('file', new Blob([template]), 'invoice.docx');
        f.append('request_data', requestData);
        return f;
      };
      const byId = () => {
        const f = new FormData();
        f.append('template_id', template_id);
        f.append('request_data', requestData);
        return f;
      };
      for (const [where, url] of links) {
        for (let i = 0; i < 3; i++) {
          await timed(url, byUpload, adminKey);
          await timed(url, byId, adminKey);
        }
        const upload: number[] = [];
        const id: number[] = [];
        for (let i = 0; i < requests; i++) {
          upload.push(await timed(url, byUpload, adminKey));
          id.push(await timed(url, byId, adminKey));
        }
        const ratio = median(id) / median(upload);
        const big = template.length > 4 * MiB;
        const met = big ? ratio <= 0.7 : ratio <= 1.0;
        // Judged on the caller link: on loopback the upload whose cost a stored template saves is ~free.
        if (where !== 'loopback') ok &&= met;
        console.log(
          `  ${label} (${(template.length / MiB).toFixed(2)} MiB), ${where}: by upload p50 ${median(upload).toFixed(0)} ms, ` +
            `by id p50 ${median(id).toFixed(0)} ms, ratio ${ratio.toFixed(2)}×   ` +
            `target ${big ? '≤ 0.70×' : '≤ 1.00×'}  ${met ? 'met' : 'MISSED'}`,
        );
      }
    }
  } finally {
    await link.close();
    await stopAll(api, worker);
    await stopAll(redis);
    await pg.stop();
  }
  return ok;
}

if (require.main === module) {
  storedTemplatesSection(intArg('stored-requests', 30, { zeroSkips: true })).then(
    (ok) => {
      if (!ok) process.exitCode = 1;
    },
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
