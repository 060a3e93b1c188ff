/**
 * The tables our docxtpl-compatible filters are checked on are Python's own: the num2words table
 * (test/fixtures/num2words-table.json, used by libs/engine/src/format/num2words.spec.ts) is made
 * again with Debian's python3-num2words and must be the committed one byte for byte; and
 * dateformat/datetimeformat give Python's strftime, directive by directive, on ISO strings and
 * Unix times.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderDocx } from '@app/engine';
import { buildDocx, p } from './support/docx-builder';
import { docxText } from './support/docx-text';

const PYTHON = '/usr/bin/python3';

describe('num2words table', () => {
  it("is what Python's num2words writes today", () => {
    const fresh = execFileSync(PYTHON, [join(__dirname, 'support/num2words_table.py')], {
      maxBuffer: 16 * 1024 * 1024,
    }).toString('utf8');
    const committed = readFileSync(join(__dirname, 'fixtures/num2words-table.json'), 'utf8');
    expect(JSON.parse(fresh).cases.length).toBeGreaterThan(1000);
    expect(fresh).toBe(committed);
  });
});

describe('dateformat and datetimeformat against Python strftime', () => {
  const VALUES: (string | number)[] = [
    '2026-11-28',
    '2026-01-04T09:05:07',
    '2024-02-29T23:59:59.123',
    '2026-11-28T14:30:00Z',
    '2026-11-28T14:30:00+02:00',
    '2026-07-01T00:00:00-05:30',
    '1999-12-31 12:00',
    '2027-01-01T00:00',
    0,
    1764288000,
    1700000000.5,
  ];
  const FORMATS = [
    '%d.%m.%Y',
    '%d/%m/%Y',
    '%H:%M / %d-%m-%Y',
    '%B %d, %Y',
    '%A %-d %B %Y',
    '%Y-%m-%dT%H:%M:%S',
    '%c',
    '%x %X',
    '%a %b %e %h',
    '%U %W %V %G %g %u %w %j',
    '%I:%M %p %l %k %P',
    '%z|%Z',
    '%f',
    '%-m/%-d/%y %-H:%-M:%-S %-I %-j',
    '%C %r %R %T %D %F',
    '100%% %Q',
  ];
  const ZONE = 'Asia/Kolkata';

  it('writes each case as Python does', () => {
    const cases = VALUES.flatMap((value) => FORMATS.map((format) => ({ value, format, zone: ZONE })));
    const python = JSON.parse(
      execFileSync(PYTHON, [join(__dirname, 'support/strftime_py.py')], {
        input: JSON.stringify(cases),
      }).toString('utf8'),
    ) as string[];
    const data: Record<string, unknown> = {};
    const paragraphs = cases.map((c, i) => {
      data[`v${i}`] = c.value;
      data[`f${i}`] = c.format;
      return p(`[{{ v${i} | ${i % 2 ? 'dateformat' : 'datetimeformat'}(f${i}) }}]`);
    });
    const ours = docxText(
      renderDocx(buildDocx(paragraphs), { template_data: data }, { timezone: ZONE }),
    ).body;
    const diffs = cases
      .map((c, i) => ({ ...c, python: `[${python[i]}]`, ours: ours[i] }))
      .filter((d) => d.python !== d.ours);
    expect(cases.length).toBeGreaterThan(150);
    expect(ours.filter((o) => o === '[]')).toEqual([]);
    expect(diffs).toEqual([]);
  });
});
