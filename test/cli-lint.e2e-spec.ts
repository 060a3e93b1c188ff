import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDocx, p, table } from './support/docx-builder';
import PizZip from 'pizzip';
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

  it('lints a deck (.pptx, told by its content types): each problem located by slide and shape', () => {
    const zip = new PizZip(readFileSync(join(ROOT, 'test/fixtures/slides/deck.powerpoint.pptx')));
    const slide3 = zip.file('ppt/slides/slide3.xml')!.asText();
    expect(slide3).toContain('{{ f.name }}');
    zip.file('ppt/slides/slide3.xml', slide3.replace('{{ f.name }}', '{{ f.name | upperr }}'));
    // Named .docx: the package's content types, not the name, say it is a deck.
    const file = join(dir, 'deck-named-wrong.docx');
    writeFileSync(file, zip.generate({ type: 'nodebuffer' }));
    const res = run(file);
    expect(res.status).toBe(1);
    expect(res.stdout).toMatch(/:\d+:\d+: invalid_expression: unknown filter 'upperr'/);
    expect(res.stdout).toContain(
      'in slide 3, shape 2 (Table 3) (ppt/slides/slide3.xml, paragraph 6, table 1 row 3 cell 1)',
    );
    expect(res.stdout).toContain("suggestion: Did you mean the filter 'upper'?");
  });

  it('exits 2 on wrong usage and unreadable files', () => {
    expect(run().status).toBe(2);
    expect(run('--bogus', join(dir, 'good.docx')).status).toBe(2);
    const missing = run(join(dir, 'missing.docx'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/ENOENT/);
  });
});
