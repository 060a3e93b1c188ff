/** The command line's locale and time zone: REQUEST.json's options, else DEFAULT_LOCALE / DEFAULT_TIMEZONE. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDocx, messy, SPLIT as S } from './support/docx-builder';
import { docxText } from './support/docx-text';

const ROOT = join(__dirname, '..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const CLI = join(ROOT, 'apps/cli/src/main.ts');

describe('npm run render: locale and time zone', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-format-'));
    writeFileSync(
      join(dir, 'tpl.docx'),
      buildDocx([
        messy(`{{ t | format_${S}datetime("d MMMM y, HH:mm") }} / {{ n | format_currency("EUR") }}`),
      ]),
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (request: object, env: Record<string, string> = {}) => {
    writeFileSync(join(dir, 'req.json'), JSON.stringify(request));
    return spawnSync(TSX, [CLI, join(dir, 'tpl.docx'), join(dir, 'req.json'), join(dir, 'out.docx')], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, ...env },
    });
  };
  const data = { t: '2026-11-25T14:30:00Z', n: 1234.5 };

  it('takes options.locale / options.timezone from REQUEST.json', () => {
    const res = run({ template_data: data, options: { locale: 'de_DE', timezone: 'Europe/Berlin' } });
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    expect(docxText(readFileSync(join(dir, 'out.docx'))).body).toEqual([
      '25 November 2026, 15:30 / 1.234,50\u00a0€',
    ]);
  });

  it('falls back to DEFAULT_LOCALE / DEFAULT_TIMEZONE', () => {
    const res = run({ template_data: data }, { DEFAULT_LOCALE: 'fr_FR', DEFAULT_TIMEZONE: 'Asia/Kolkata' });
    expect(res.status).toBe(0);
    expect(docxText(readFileSync(join(dir, 'out.docx'))).body).toEqual([
      '25 novembre 2026, 20:00 / 1\u202f234,50\u00a0€',
    ]);
  });

  it('refuses an unknown locale, naming options.locale (exit 1, typed error on stderr)', () => {
    const res = run({ template_data: data, options: { locale: 'xx_YY' } });
    expect(res.status).toBe(1);
    const body = JSON.parse(res.stderr) as { error_type: string; details: { field: string } };
    expect(body.error_type).toBe('invalid_request_structure');
    expect(body.details.field).toBe('options.locale');
  });
});
