/** dateformat / datetimeformat and to_roman in a template: defaults, empty input, and typed errors. */
import { buildDocx, p } from '../../../../test/support/docx-builder';
import { docxText } from '../../../../test/support/docx-text';
import { TemplateRuntimeError } from '../errors';
import { renderDocx } from '../render';

function one(tag: string, data: Record<string, unknown> = {}): string {
  return docxText(renderDocx(buildDocx([p(tag)]), { template_data: data }, { timezone: 'Europe/Berlin' }))
    .body[0];
}

describe('dateformat and datetimeformat', () => {
  it('use the defaults of the public definitions, and a Unix time in the request time zone', () => {
    expect(one('{{ d | dateformat }}', { d: '2026-11-28T14:30:00' })).toBe('2026-11-28');
    expect(one('{{ d | datetimeformat }}', { d: '2026-11-28T14:30:00' })).toBe('14:30 / 28-11-2026');
    expect(one("{{ d | dateformat(format='%d.%m.%Y') }}", { d: '2026-11-28' })).toBe('28.11.2026');
    expect(one("{{ t | datetimeformat('%d.%m.%Y %H:%M') }}", { t: 1764288000 })).toBe('28.11.2025 01:00');
  });

  it('print nothing for an empty value, and refuse a bad one with a typed template error', () => {
    expect(one('[{{ d | dateformat }}][{{ nothing | dateformat }}]', { d: null })).toBe('[][]');
    for (const [tag, data, message] of [
      ['{{ d | dateformat }}', { d: '28.11.2026' }, /dateformat: "28.11.2026": not an ISO 8601 date/],
      ['{{ d | datetimeformat }}', { d: '2026-02-30' }, /not a valid date/],
      ['{{ d | dateformat(5) }}', { d: '2026-11-28' }, /the format must be a strftime string/],
      ['{{ d | dateformat }}', { d: [1] }, /must be an ISO 8601 date or date-time, or a Unix time/],
    ] as [string, Record<string, unknown>, RegExp][]) {
      let err: unknown;
      try {
        one(tag, data);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(TemplateRuntimeError);
      expect((err as Error).message).toMatch(message);
    }
  });
});

describe('to_roman', () => {
  it('writes 1 to 3999 as Roman numerals and refuses the rest', () => {
    expect(
      one(
        '{{ 1 | to_roman }} {{ 4 | to_roman }} {{ 1994 | to_roman }} {{ "12" | to_roman }} {{ 3999 | to_roman }}',
      ),
    ).toBe('I IV MCMXCIV XII MMMCMXCIX');
    for (const bad of ['0', '4000', '1.5', '"XII"']) {
      let err: unknown;
      try {
        one(`{{ ${bad} | to_roman }}`);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(TemplateRuntimeError);
      expect((err as Error).message).toMatch(/to_roman: .*must be a whole number from 1 to 3999/);
    }
  });
});
