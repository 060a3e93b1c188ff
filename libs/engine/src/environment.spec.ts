import PizZip from 'pizzip';
import { buildDocx, p } from '../../../test/support/docx-builder';
import { docxText } from '../../../test/support/docx-text';
import { CompiledTemplates } from './docx/compiled-templates';
import { createEnvironment, defaultEnvironment } from './environment';
import { TemplateSyntaxError } from './errors';
import { lintDocxTemplate } from './lint/lint-template';
import { renderDocx } from './render';
import type { FilterFn } from './runtime/ops';

const shout: FilterFn = (_st, v) => `${String(v).toUpperCase()}!`;
const template = (tag: string) => buildDocx([p(tag)]);
const text = (docx: Buffer) => docxText(docx).body[0];

describe('a render environment', () => {
  it('is built once for the built-ins and holds the formatting and rich-content filters', () => {
    expect(defaultEnvironment()).toBe(defaultEnvironment());
    for (const name of ['num2words', 'dateformat', 'barcode', 'html', 'markdown', 'upper'])
      expect(Object.hasOwn(defaultEnvironment().filters, name)).toBe(true);
    // A null-prototype table: names of Object's own members are no filters.
    expect(defaultEnvironment().filters.constructor).toBeUndefined();
  });

  it('gives a caller its own filters, for that render only', () => {
    const env = createEnvironment({ filters: { shout } });
    expect(
      text(
        renderDocx(template('{{ who | shout }}'), { template_data: { who: 'ada' } }, { environment: env }),
      ),
    ).toBe('ADA!');
    expect(Object.hasOwn(defaultEnvironment().filters, 'shout')).toBe(false);
    expect(() => renderDocx(template('{{ who | shout }}'), { template_data: { who: 'ada' } })).toThrow(
      TemplateSyntaxError,
    );
  });

  it('refuses a filter that would shadow a built-in', () => {
    expect(() => createEnvironment({ filters: { upper: shout } })).toThrow(/filter upper is taken/);
  });

  it('lets `is filter` and the map filter see the same table', () => {
    const env = createEnvironment({ filters: { shout } });
    const out = renderDocx(
      template("{{ 'shout' is filter }} {{ xs | map('shout') | join(',') }}"),
      { template_data: { xs: ['a', 'b'] } },
      { environment: env },
    );
    expect(text(out)).toBe('True A!,B!');
    expect(text(renderDocx(template("{{ 'shout' is filter }}"), { template_data: {} }))).toBe('False');
  });

  it('makes lint know what render knows: the built-ins by default, a caller’s when given', () => {
    const tpl = template('{{ n | num2words }} {{ s | markdown }} {{ who | shout }}');
    const byDefault = lintDocxTemplate(tpl);
    expect(byDefault.errors.map((e) => e.code)).toEqual(['unknown_filter']);
    expect(byDefault.errors[0].message).toMatch(/shout/);
    expect(lintDocxTemplate(tpl, { environment: createEnvironment({ filters: { shout } }) }).errors).toEqual(
      [],
    );
  });

  it('keeps compiled templates apart per environment (a compile checks filter names)', () => {
    const cache = new CompiledTemplates();
    const tpl = template('{{ who | shout }}');
    const env = createEnvironment({ filters: { shout } });
    const request = { template_data: { who: 'ada' } };
    expect(text(renderDocx(tpl, request, { environment: env, compiledTemplates: cache }))).toBe('ADA!');
    expect(text(renderDocx(tpl, request, { environment: env, compiledTemplates: cache }))).toBe('ADA!');
    expect(() => renderDocx(tpl, request, { compiledTemplates: cache })).toThrow(TemplateSyntaxError);
  });

  it('runs the caller’s content writers before rich content, and its package passes after the fill', () => {
    const seen: string[] = [];
    const env = createEnvironment({
      writers: [
        () => ({
          output: (v) => (v === 'secret' ? 'REDACTED' : undefined),
          finalize: () => seen.push('finalized'),
        }),
      ],
      packagePasses: [(zip) => void zip.file('docProps/filled-by.txt', 'engine')],
    });
    const out = renderDocx(
      template('{{ a }} {{ b }}'),
      { template_data: { a: 'secret', b: 'open' } },
      { environment: env },
    );
    expect(text(out)).toBe('REDACTED open');
    expect(seen).toEqual(['finalized']);
    expect(new PizZip(out).file('docProps/filled-by.txt')?.asText()).toBe('engine');
  });
});
