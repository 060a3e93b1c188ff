import { corpusRequest, corpusTemplate, CORPUS_NAMES } from '../../../../bench/corpus';
import { buildDocx, p, table } from '../../../../test/support/docx-builder';
import { DocxPackage, docxText } from '../../../../test/support/docx-text';
import { b64, solid } from '../../../../test/support/hostile-png';
import { TemplateSyntaxError } from '../errors';
import { renderDocx, type RenderOptions, type RenderRequest } from '../render';
import { CompiledTemplates, type CompiledTemplate } from './compiled-templates';

function partsOf(docx: Buffer): Record<string, string> {
  return new DocxPackage(docx).partsDigest();
}

const invoice = buildDocx({
  header: [p('{{ company }} — invoice {{ number }}')],
  body: [
    p('Dear {{ customer.name }},'),
    table([
      ['Item', 'Qty'],
      ['{%tr for item in items %}'],
      ['{{ item.name }}', '{{ item.qty }}'],
      ['{%tr endfor %}'],
    ]),
    p('{% if paid %}Paid, thank you.{% else %}Due in {{ days }} days.{% endif %}'),
  ],
});

const first: RenderRequest = {
  template_data: {
    company: 'Acme',
    number: 1,
    customer: { name: 'Ada' },
    items: [{ name: 'Bolt', qty: 3 }],
    paid: true,
  },
};
const second: RenderRequest = {
  template_data: {
    company: 'Globex',
    number: 2,
    customer: { name: 'Grace' },
    items: [
      { name: 'Nut', qty: 7 },
      { name: 'Gear', qty: 1 },
    ],
    paid: false,
    days: 30,
  },
};

describe('CompiledTemplates', () => {
  it('renders a template seen before from its kept compile, with the same parts as a fresh compile', () => {
    const cache = new CompiledTemplates();
    const opts: RenderOptions = { compiledTemplates: cache };
    renderDocx(invoice, first, opts);
    expect([cache.size, cache.hits, cache.misses]).toEqual([1, 0, 1]);
    const kept = renderDocx(invoice, second, opts);
    expect([cache.size, cache.hits, cache.misses]).toEqual([1, 1, 1]);
    // The second request's data, not the first's: nothing of a render stays in the kept compile.
    expect(partsOf(kept)).toEqual(partsOf(renderDocx(invoice, second)));
    expect(docxText(kept).body).toEqual([
      'Dear Grace,',
      'Item | Qty',
      'Nut | 7',
      'Gear | 1',
      'Due in 30 days.',
    ]);
    expect(docxText(kept).headers).toEqual([['Globex — invoice 2']]);
  });

  it('gives the corpus documents the same parts from a kept compile (Word, Writer, 10 images)', () => {
    expect(CORPUS_NAMES.length).toBeGreaterThanOrEqual(4);
    for (const name of CORPUS_NAMES) {
      const template = corpusTemplate(name);
      const cache = new CompiledTemplates();
      // Primed with no data at all (a render that fails still leaves its compile behind).
      try {
        renderDocx(template, { template_data: {} }, { compiledTemplates: cache });
      } catch {
        /* the compile is kept all the same */
      }
      expect(cache.size).toBe(1);
      const request = corpusRequest(name, { rows: 3 }) as RenderRequest;
      const fresh = renderDocx(template, request);
      const kept = renderDocx(template, request, { compiledTemplates: cache });
      expect(cache.hits).toBe(1);
      expect(partsOf(kept)).toEqual(partsOf(fresh));
    }
  });

  it("neither keeps nor reuses a compile whose parts held this request's placeholder pictures", () => {
    const placeholder = solid(10, 10);
    const template = buildDocx([
      { runs: ['Logo: ', { image: { png: placeholder, widthMm: 30, heightMm: 20, name: 'logo' } }] },
      p('{{ x }}'),
    ]);
    const plain: RenderRequest = { template_data: { x: 1 } };
    const withLogo: RenderRequest = { template_data: { x: 1 }, images: { logo: { data: b64(solid(4, 4)) } } };
    const cache = new CompiledTemplates();
    renderDocx(template, plain, { compiledTemplates: cache });
    // A kept compile of the bare template would keep the placeholder: this render compiles its own.
    const swapped = renderDocx(template, withLogo, { compiledTemplates: cache });
    expect(partsOf(swapped)).toEqual(partsOf(renderDocx(template, withLogo)));
    // And what it compiled (pointing at this request's image) is not kept for the next one.
    const after = renderDocx(template, plain, { compiledTemplates: cache });
    expect(partsOf(after)).toEqual(partsOf(renderDocx(template, plain)));
    expect([cache.size, cache.hits, cache.misses]).toEqual([1, 1, 1]);
  });

  it('keeps only templates that compile: one with errors reports them every time', () => {
    const cache = new CompiledTemplates();
    const broken = buildDocx([p('{{ name '), p('{% if x %}')]);
    for (let i = 0; i < 2; i++)
      expect(() => renderDocx(broken, { template_data: {} }, { compiledTemplates: cache })).toThrow(
        TemplateSyntaxError,
      );
    expect([cache.size, cache.hits, cache.misses]).toEqual([0, 0, 2]);
  });

  it('freezes what it keeps, so a render cannot change what the next one reads', () => {
    const cache = new CompiledTemplates();
    renderDocx(invoice, first, { compiledTemplates: cache });
    const entry = cache.get(CompiledTemplates.keyOf(invoice)) as CompiledTemplate;
    const body = entry.parts.get('word/document.xml')!;
    expect(body.length).toBeGreaterThan(0);
    expect(Object.isFrozen(body)).toBe(true);
    const jinja = body.find((x) => x.module === 'jinja')!;
    expect(Object.isFrozen(jinja)).toBe(true);
    expect(() => {
      'use strict';
      (jinja as { value: string }).value = 'changed';
    }).toThrow(TypeError);
  });

  it('is bounded by entries and by the XML it kept, least recently used out first', () => {
    const entry = (xmlChars: number): CompiledTemplate => ({
      parts: new Map(),
      gridsMayChange: false,
      xmlChars,
      render: { contentTypes: new Map(), tagShouldContain: [], xmlDocuments: new Map() },
    });
    const byCount = new CompiledTemplates({ maxEntries: 2 });
    byCount.set('a', entry(1));
    byCount.set('b', entry(1));
    byCount.get('a'); // a is now the most recently used
    byCount.set('c', entry(1));
    expect([byCount.get('a'), byCount.get('b'), byCount.get('c')].map(Boolean)).toEqual([true, false, true]);

    const bySize = new CompiledTemplates({ maxXmlChars: 100 });
    bySize.set('a', entry(60));
    bySize.set('b', entry(60));
    expect([bySize.size, Boolean(bySize.get('b'))]).toEqual([1, true]);
    bySize.set('huge', entry(101));
    expect(bySize.get('huge')).toBeUndefined();

    const off = new CompiledTemplates({ maxEntries: 0 });
    off.set('a', entry(1));
    expect(off.size).toBe(0);
  });
});
