import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDocx, p, table } from './support/docx-builder';
import { pdfText } from './service-harness';

const ROOT = join(__dirname, '..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const CLI = join(ROOT, 'apps/cli/src/lint-template.ts');

jest.setTimeout(120_000);

describe('npm run lint-template (command line)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-lint-'));
    writeFileSync(
      join(dir, 'good.docx'),
      buildDocx([p('Hello {{ name }}'), p('{% for i in items %}{{ i }}{% endfor %}')]),
    );
    writeFileSync(
      join(dir, 'bad.docx'),
      // A loop from a paragraph into a table cell: the renderer refuses it (one across cells renders).
      buildDocx([
        p('Total {{ total | upperr }}'),
        p('{% for r in rows %}'),
        table([['{{ r }}', '{% endfor %}']]),
      ]),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (...args: string[]) =>
    spawnSync(TSX, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });

  it('exits 0 for a template that passes', () => {
    const res = run(join(dir, 'good.docx'));
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('good.docx: passed — 0 errors, 0 warnings, 4 tags');
  });

  it('prints every problem with its location and a suggestion, and exits 1', () => {
    const res = run(join(dir, 'bad.docx'));
    expect(res.status).toBe(1);
    expect(res.stdout).toContain(`${join(dir, 'bad.docx')}:1:7: invalid_expression: unknown filter 'upperr'`);
    expect(res.stdout).toContain("suggestion: Did you mean the filter 'upper'?");
    expect(res.stdout).toMatch(
      /:2:1: nested_error: this for block and its end are in different parts of the document structure/,
    );
    expect(res.stdout).toContain("suggestion: Did you mean '{%tr for r in rows %}'");
    expect(res.stdout).toContain('FAILED — 2 errors');
  });

  it('prints the JSON report with --json', () => {
    const res = run(join(dir, 'bad.docx'), '--json');
    expect(res.status).toBe(1);
    const report = JSON.parse(res.stdout) as { success: boolean; errors: { code: string }[] };
    expect(report.success).toBe(false);
    expect(report.errors.map((e) => e.code)).toEqual(['unknown_filter', 'block_crosses_table_cells']);
  });

  it('writes the PDF report with --pdf', () => {
    const out = join(dir, 'report.pdf');
    const res = run(join(dir, 'bad.docx'), '--pdf', out);
    expect(res.status).toBe(1);
    const text = pdfText(readFileSync(out));
    expect(text).toContain('Template lint report');
    expect(text).toContain('FAILED: 2 errors');
    expect(text).toContain("Did you mean the filter 'upper'?");
  });

  it('exits 2 on wrong usage and unreadable files', () => {
    expect(run().status).toBe(2);
    expect(run('--bogus', join(dir, 'good.docx')).status).toBe(2);
    const missing = run(join(dir, 'missing.docx'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/ENOENT/);
  });
});
