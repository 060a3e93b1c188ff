import { corpusRequest, corpusTemplate, CORPUS_NAMES } from '../../../../bench/corpus';
import { buildDocx, p, table } from '../../../../test/support/docx-builder';
import { DIALECT_CASES } from '../../../../test/support/dialect-cases';
import { b64, solid } from '../../../../test/support/hostile-png';
import { richTemplate } from '../../../../test/support/rich-docx';
import { TemplateRuntimeError, UndefinedVariableError } from '../errors';
import { renderDocx, type RenderOptions, type RenderRequest } from '../render';
import { CompiledTemplates } from './compiled-templates';

/**
 * A kept compile renders without docxtemplater's constructor (render-compiled.ts); the package it
 * gives must be docxtemplater's, byte for byte (entry order, compression, every part).
 */
function renderBoth(
  template: Buffer,
  request: RenderRequest,
  options: RenderOptions = {},
): { fresh: Buffer; kept: Buffer; cache: CompiledTemplates } {
  const fresh = renderDocx(template, request, options);
  const cache = new CompiledTemplates();
  // The first render compiles through docxtemplater and keeps what the second one needs.
  const first = renderDocx(template, request, { ...options, compiledTemplates: cache });
  expect(first.equals(fresh)).toBe(true);
  const kept = renderDocx(template, request, { ...options, compiledTemplates: cache });
  expect([cache.hits, cache.misses]).toEqual([1, 1]);
  return { fresh, kept, cache };
}

describe('renderCompiled (a kept compile rendered without constructing docxtemplater)', () => {
  // pizzip dates each part it writes with the clock, and the zip carries it: one instant for all.
  beforeAll(() => jest.useFakeTimers({ now: new Date('2026-11-25T08:00:00Z') }));
  afterAll(() => jest.useRealTimers());

  it.each(CORPUS_NAMES.flatMap((name) => [3, 20].map((rows) => [name, rows] as const)))(
    'gives docxtemplater’s package byte for byte: corpus %s, %i rows',
    (name, rows) => {
      const { fresh, kept } = renderBoth(
        corpusTemplate(name),
        corpusRequest(name, { rows }) as RenderRequest,
      );
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.equals(fresh)).toBe(true);
    },
  );

  it('gives the same packages for .docx output (deflated) and for the converter (stored)', () => {
    const template = corpusTemplate('invoice');
    const request = corpusRequest('invoice', { rows: 5 }) as RenderRequest;
    for (const compression of ['DEFLATE', 'STORE'] as const) {
      const { fresh, kept } = renderBoth(template, request, { compression });
      expect(kept.equals(fresh)).toBe(true);
    }
  });

  it.each(DIALECT_CASES.map((c) => [c.name, c] as const))(
    'gives docxtemplater’s package byte for byte: dialect case %s',
    (_name, c) => {
      const { fresh, kept } = renderBoth(buildDocx(c.doc), { template_data: c.context });
      expect(kept.equals(fresh)).toBe(true);
    },
  );

  it('repairs a cell left ending in a table as docxtemplater does (its per-content-type fix)', () => {
    const template = buildDocx([
      table([[[table([['inner {{ x }}']]), p('{%p if shown %}'), p('gone'), p('{%p endif %}')], 'right']]),
      table([['after']]),
      p('{%p if shown %}'),
      p('end'),
      p('{%p endif %}'),
    ]);
    const { fresh, kept } = renderBoth(template, { template_data: { x: 1, shown: false } });
    expect(kept.equals(fresh)).toBe(true);
  });

  it('renders rich values (HTML, Markdown) and images from a kept compile as docxtemplater does', () => {
    const template = richTemplate([
      p('{{ html }}'),
      p('{{ md }}'),
      p('Logo: {{ logo }}'),
      table([['{%tr for r in rows %}'], ['{{ r }}'], ['{%tr endfor %}']]),
    ]);
    const request: RenderRequest = {
      template_data: {
        html: { html: '<p>Hello <b>bold</b> <i>world</i></p><ul><li>one</li><li>two</li></ul>' },
        md: { markdown: '# Title\n\n1. first\n2. second' },
        rows: ['a', 'b & c', '<d>'],
      },
      images: { logo: { data: b64(solid(8, 6)) } },
    };
    const { fresh, kept } = renderBoth(template, request);
    expect(kept.equals(fresh)).toBe(true);
  });

  it('reports what a render reports, from a kept compile too', () => {
    const template = buildDocx([p('{{ customer.name }}'), p('{{ total | round(bogus) }}')]);
    const cache = new CompiledTemplates();
    const good: RenderRequest = { template_data: { customer: { name: 'Ada' }, total: 1.5, bogus: 1 } };
    renderDocx(template, good, { compiledTemplates: cache });
    expect(() =>
      renderDocx(template, { template_data: { total: 1, bogus: 'x' } }, { compiledTemplates: cache }),
    ).toThrow(TemplateRuntimeError);
    expect(() =>
      renderDocx(
        template,
        { template_data: { total: 1, bogus: 0 } },
        { compiledTemplates: cache, undefined: 'strict' },
      ),
    ).toThrow(UndefinedVariableError);
    expect(cache.hits).toBe(2);
  });
});
