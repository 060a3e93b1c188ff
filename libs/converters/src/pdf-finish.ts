/**
 * The finishing step after either converter: prepend/append, watermark, attachments, Factur-X and
 * encryption (options.pdf; docs/pdf.md). Done here, on the PDF, rather than by LibreOffice's
 * export filter or Gotenberg's fields, so both routes give the same document and the Gotenberg
 * route needs no particular Gotenberg version.
 *
 * The work is pdf_finish.py's (pikepdf, i.e. qpdf, and reportlab for the watermark's text), in a
 * process of its own per job under prlimit: caller's PDFs may be hostile (broken cross-reference
 * tables, page-tree loops, compression bombs), and at worst they kill that process, never the
 * worker. Passwords go to it on stdin, never on its command line (ps shows that) or in a file.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { PDF_FINISH_FIELDS, type PdfOptions } from '@app/contracts';

import { ConversionFailedError, InvalidEInvoiceError, InvalidPdfInputError } from './errors';
import { DEFAULT_PYTHON } from './libreoffice-instance';
import { defaultWorkDir } from './work-dir';

export const DEFAULT_FINISH_SCRIPT = join(__dirname, 'pdf_finish.py');

export const FINISH_DEFAULTS = {
  timeoutMs: 30_000,
  /** Address space of the finishing process: pikepdf, reportlab and a 128 MiB inflate check fit. */
  memoryBytes: 1024 * 1024 * 1024,
  /** Largest file it may write: the result (and nothing a bomb could inflate past it). */
  fileBytes: 512 * 1024 * 1024,
} as const;

export interface FinishOptions {
  /** Wall-clock limit; the process is killed after it. */
  timeoutMs?: number;
  memoryBytes?: number;
  fileBytes?: number;
  pythonPath?: string;
  script?: string;
  /** Parent of the job's directory (default: defaultWorkDir(), /dev/shm when roomy). */
  tmpDir?: string;
  /** One line per failure of the finishing process itself (never its input); default: silent. */
  log?: (message: string) => void;
}

/** Whether options.pdf asks for anything this process does after conversion (signing is its own step). */
export function needsFinishing(options: PdfOptions | undefined): boolean {
  return !!options && PDF_FINISH_FIELDS.some((key) => key !== 'signature' && options[key] !== undefined);
}

/** Keeps stderr's tail only: the `step` lines and an exception's last line are what is read. */
const MAX_STDERR = 16 * 1024;
const PATH = 'options.pdf';

/**
 * `pdf` finished as `options` asks (needsFinishing), or a typed error: InvalidPdfInputError and
 * InvalidEInvoiceError (422) naming the caller's field, ConversionFailedError (502) otherwise.
 */
export async function finishPdf(pdf: Buffer, options: PdfOptions, o: FinishOptions = {}): Promise<Buffer> {
  const dir = await mkdtemp(join(o.tmpDir ?? defaultWorkDir(), 'finish-'));
  try {
    const job = await writeInputs(dir, pdf, options);
    const outcome = await run(job, o);
    if (outcome.code === 0) return await readFile(job.out);
    throw failure(outcome, options, o.log);
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

interface Job {
  path: string;
  dir: string;
  main: string;
  out: string;
  prepend?: string[];
  append?: string[];
  attachments?: Array<{
    path: string;
    name: string;
    mime_type: string;
    description?: string;
    relationship?: string;
  }>;
  facturx?: { path: string; profile: string };
  watermark?: PdfOptions['watermark'];
  /** A PDF/UA document: its watermark is a pagination artifact. */
  tagged?: boolean;
  encryption?: PdfOptions['encryption'];
}

async function writeInputs(dir: string, pdf: Buffer, options: PdfOptions): Promise<Job> {
  // Files are named by position, never by the caller's names.
  const file = async (name: string, base64: string) => {
    const path = join(dir, name);
    await writeFile(path, Buffer.from(base64, 'base64'));
    return path;
  };
  const job: Job = { path: PATH, dir, main: join(dir, 'main.pdf'), out: join(dir, 'out.pdf') };
  await writeFile(job.main, pdf);
  if (options.prepend)
    job.prepend = await Promise.all(options.prepend.map((p, i) => file(`prepend-${i}.pdf`, p.data)));
  if (options.append)
    job.append = await Promise.all(options.append.map((p, i) => file(`append-${i}.pdf`, p.data)));
  if (options.attachments)
    job.attachments = await Promise.all(
      options.attachments.map(async (a, i) => ({
        path: await file(`attachment-${i}`, a.data),
        name: a.name,
        mime_type: a.mime_type,
        ...(a.description !== undefined ? { description: a.description } : {}),
        ...(a.relationship !== undefined ? { relationship: a.relationship } : {}),
      })),
    );
  if (options.facturx)
    job.facturx = { path: await file('factur-x.xml', options.facturx.xml), profile: options.facturx.profile };
  if (options.watermark) job.watermark = options.watermark;
  if (options.pdfua) job.tagged = true;
  if (options.encryption) job.encryption = options.encryption;
  return job;
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

function run(job: Job, o: FinishOptions): Promise<Outcome> {
  const timeoutMs = o.timeoutMs ?? FINISH_DEFAULTS.timeoutMs;
  const limits = [
    `--as=${o.memoryBytes ?? FINISH_DEFAULTS.memoryBytes}`,
    `--fsize=${o.fileBytes ?? FINISH_DEFAULTS.fileBytes}`,
    // CPU seconds as a second bound, should the wall clock be held up by a stopped process.
    `--cpu=${Math.max(1, Math.ceil(timeoutMs / 1000))}`,
    '--nofile=64',
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(
      'prlimit',
      [...limits, '--', o.pythonPath ?? DEFAULT_PYTHON, '-I', o.script ?? DEFAULT_FINISH_SCRIPT],
      // A bare environment: the caller's inputs meet no settings of ours, and Python reads none.
      { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } },
    );
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (stdout.length < MAX_STDERR) stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-MAX_STDERR);
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(
        new ConversionFailedError(`The PDF finishing step could not start: ${e.message}`, {
          reason: 'finish_unavailable',
        }),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, timedOut, stdout, stderr });
    });
    child.stdin.on('error', () => undefined); // a process killed early closes its stdin
    child.stdin.end(JSON.stringify(job));
  });
}

function failure(outcome: Outcome, options: PdfOptions, log?: (m: string) => void): Error {
  if (outcome.code === 2) {
    try {
      const { error } = JSON.parse(outcome.stdout) as {
        error: { kind: string; field: string; message: string };
      };
      const message = `${error.field} ${error.message}`;
      return error.kind === 'invalid_einvoice'
        ? new InvalidEInvoiceError(message, { field: error.field })
        : new InvalidPdfInputError(message, { field: error.field });
    } catch {
      // not the script's answer: fall through
    }
  }
  const steps = [...outcome.stderr.matchAll(/^step (.+)$/gm)].map((m) => m[1]);
  const last = steps.at(-1);
  const why = outcome.timedOut
    ? 'did not finish in time'
    : outcome.signal
      ? `was stopped by ${outcome.signal} (a time, memory or file-size limit)`
      : 'ran out of memory or failed';
  if (last?.startsWith(`${PATH}.`)) {
    // Killed while reading a caller's file: that file is the cause.
    return new InvalidPdfInputError(`${last} could not be read within the limits: reading it ${why}`, {
      field: last,
    });
  }
  // Only the exception's last line, with any password taken out, reaches the log.
  const lastLine = scrub(outcome.stderr.trim().split('\n').at(-1) ?? '', options);
  log?.(`PDF finishing failed at ${last ?? 'start'} (${why}): ${lastLine}`);
  return new ConversionFailedError(`The PDF could not be finished (${last ?? 'start'}): it ${why}`, {
    reason: 'finish_failed',
    step: last ?? 'start',
  });
}

function scrub(text: string, options: PdfOptions): string {
  let out = text;
  for (const secret of [options.encryption?.owner_password, options.encryption?.user_password])
    if (secret) out = out.split(secret).join('***');
  return out;
}
