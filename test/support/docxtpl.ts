/**
 * Renders templates with docxtpl, the Python reference implementation of the template dialect
 * (`DocxTemplate(path).render(context, autoescape=True)`), through test/support/docxtpl_render.py.
 *
 * Uses the system interpreter /usr/bin/python3 (python3-docxtpl is a Debian package; a pyenv
 * python3 on PATH would not have it); DOCXTPL_PYTHON overrides it. Temporary files live in a
 * private directory that is removed afterwards.
 */
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

export const DOCXTPL_PYTHON = process.env.DOCXTPL_PYTHON ?? '/usr/bin/python3';
const SCRIPT = join(__dirname, 'docxtpl_render.py');

/** docxtpl (or Jinja) rejected the template or the data. */
export class DocxtplError extends Error {
  constructor(
    readonly errorClass: string,
    message: string,
  ) {
    super(`docxtpl failed (${errorClass}): ${message}`);
    this.name = 'DocxtplError';
  }
}

export interface DocxtplJob {
  template: Buffer;
  context: object;
  /** Sub-documents: each .docx goes into the context as `tpl.new_subdoc(path)` under its key. */
  subdocs?: Record<string, Buffer>;
  /** Pictures as the service takes them (`images`): each an InlineImage under its key. */
  images?: Record<string, { data: string; width_mm?: number; height_mm?: number }>;
}

/** One result per job: the rendered document, or the error docxtpl raised. */
export type DocxtplResult = Buffer | DocxtplError;

function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'docxtpl-'));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function runPython(args: string[], timeoutMs: number): string {
  const res = spawnSync(DOCXTPL_PYTHON, [SCRIPT, ...args], {
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (res.error) throw new Error(`Cannot run ${DOCXTPL_PYTHON} ${SCRIPT}: ${res.error.message}`);
  if (res.status !== 0) {
    throw new Error(`${SCRIPT} exited with ${res.status ?? res.signal}: ${res.stderr}`);
  }
  return res.stdout;
}

/** Renders several templates in one Python process (start-up is paid once). */
export function renderManyWithDocxtpl(jobs: DocxtplJob[]): DocxtplResult[] {
  if (jobs.length === 0) return [];
  return withTempDir((dir) => {
    const manifest = jobs.map((job, i) => {
      const template = join(dir, `t${i}.docx`);
      const context = join(dir, `c${i}.json`);
      writeFileSync(template, job.template);
      writeFileSync(context, JSON.stringify(job.context));
      const subdocs: Record<string, string> = {};
      Object.entries(job.subdocs ?? {}).forEach(([key, docx], k) => {
        subdocs[key] = join(dir, `s${i}-${k}.docx`);
        writeFileSync(subdocs[key], docx);
      });
      const images: Record<string, { path: string; width_mm?: number; height_mm?: number }> = {};
      Object.entries(job.images ?? {}).forEach(([key, { data, ...size }], k) => {
        images[key] = { path: join(dir, `i${i}-${k}.png`), ...size };
        writeFileSync(images[key].path, Buffer.from(data, 'base64'));
      });
      return { template, context, out: join(dir, `o${i}.docx`), subdocs, images };
    });
    const manifestPath = join(dir, 'jobs.json');
    writeFileSync(manifestPath, JSON.stringify(manifest));
    const lines = runPython(['render', manifestPath], 30_000 + 5_000 * jobs.length)
      .split('\n')
      .filter((l) => l.trim() !== '');
    if (lines.length !== jobs.length) {
      throw new Error(
        `Expected ${jobs.length} results from ${SCRIPT}, got ${lines.length}: ${lines.join('\n')}`,
      );
    }
    return lines.map((line, i) => {
      const r = JSON.parse(line) as { ok: boolean; error_class?: string; error?: string };
      if (!r.ok) return new DocxtplError(r.error_class ?? 'Error', r.error ?? '');
      return readFileSync(manifest[i].out);
    });
  });
}

/** Renders one template with docxtpl; throws DocxtplError if docxtpl rejects it. */
export function renderWithDocxtpl(
  template: Buffer,
  context: object,
  subdocs?: Record<string, Buffer>,
): Buffer {
  const [result] = renderManyWithDocxtpl([{ template, context, subdocs }]);
  if (result instanceof Error) throw result;
  return result;
}
