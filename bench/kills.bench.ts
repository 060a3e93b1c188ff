/**
 * Conversions while LibreOffice instances are killed: a pool of `--instances` (2) real instances,
 * `--callers` (4) converting the filled one-page invoice back to back for `--seconds` (120), and
 * a SIGKILL of one of the pool's soffice.bin, chosen at random, every 0.5–1.5 × `--kill-ms`
 * (3000), as the OOM killer would. Prints conversions, kills and every failure by reason.
 *
 * What it is for: a crash must cost a retry, never a caller's document. The failures to expect
 * are `converter_unavailable` (every instance down at once, retryable: a 503) and, when two kills
 * hit one conversion, `crashed` (a document that crashed LibreOffice twice is not retried again).
 * A `libreoffice_error` here is a bug: the pool blamed the document for a dead instance (a
 * killed soffice's lock file did so until 27 Nov 2026, CHANGELOG).
 *
 *   npm run bench:kills -- [--seconds 120] [--kill-ms 3000] [--instances 2] [--callers 4] [--check]
 *   --check: exit with status 1 when a conversion failed as `libreoffice_error` or `io_error`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ConversionFailedError, LibreOfficePool } from '@app/converters';
import { makeInvoiceDocx, pdfToText, SAMPLE_INVOICE } from '../test/support/converter-fixtures';
import { sofficePids } from '../test/support/hostile-process';
import { flag, intArg } from './args';
import { machineLine } from './report';

const seconds = intArg('seconds', 120);
const killMs = intArg('kill-ms', 3000);
const instances = intArg('instances', 2);
const callers = intArg('callers', 4);

/** Failures that blame the document for what happened to LibreOffice. */
const WRONG = new Set(['libreoffice_error', 'io_error', 'no_output']);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  console.log(`kills: ${machineLine()}`);
  console.log(
    `examples-like invoice (python-docx), pool of ${instances}, ${callers} callers, ${seconds} s, ` +
      `a SIGKILL every ${killMs / 2}–${(killMs * 3) / 2} ms`,
  );
  const docx = makeInvoiceDocx();
  const parent = await mkdtemp(join(tmpdir(), 'bench-kills-'));
  const pool = new LibreOfficePool({ instances, tmpDir: parent });
  await pool.start();
  const end = Date.now() + seconds * 1000;
  let pdfs = 0;
  let kills = 0;
  const failures = new Map<string, { count: number; example: string }>();
  const caller = async () => {
    while (Date.now() < end) {
      try {
        const pdf = await pool.convert(docx);
        if (!pdfToText(pdf).includes(SAMPLE_INVOICE.number)) throw new Error('a PDF without the invoice');
        pdfs++;
      } catch (e) {
        const reason =
          e instanceof ConversionFailedError ? String(e.details?.reason ?? 'unknown') : (e as Error).name;
        const seen = failures.get(reason) ?? { count: 0, example: (e as Error).message.slice(0, 240) };
        seen.count++;
        failures.set(reason, seen);
        await sleep(100);
      }
    }
  };
  const killer = async () => {
    while (Date.now() < end) {
      await sleep(killMs * (0.5 + Math.random()));
      const pids = sofficePids(process.pid);
      if (!pids.length) continue;
      try {
        process.kill(pids[Math.floor(Math.random() * pids.length)], 'SIGKILL');
        kills++;
      } catch {
        // exited meanwhile
      }
    }
  };
  await Promise.all([...Array.from({ length: callers }, caller), killer()]);
  await pool.close();
  await rm(parent, { recursive: true, force: true });

  console.log(
    `PDFs ${pdfs}, kills ${kills}, failures ${[...failures.values()].reduce((n, f) => n + f.count, 0)}`,
  );
  for (const [reason, { count, example }] of failures) console.log(`  ${reason}: ${count} (${example})`);
  const wrong = [...failures.keys()].filter((r) => WRONG.has(r));
  if (wrong.length) console.log(`blamed on the document: ${wrong.join(', ')}`);
  if (flag('check') && wrong.length) process.exitCode = 1;
}

void main();
