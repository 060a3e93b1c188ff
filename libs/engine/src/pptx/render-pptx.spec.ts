import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { renderTemplate, templateFormatOf } from '../template-format';
import { readDeck } from './deck-reader';
import { renderPptx } from './render-pptx';

const FIXTURES = join(__dirname, '../../../../test/fixtures/slides');
const impress = readFileSync(join(FIXTURES, 'deck.impress.pptx'));

/** A small valid PNG of one colour, w × h. */
function png(w: number, h: number, rgb: [number, number, number]): string {
  const { PNG } = require('pngjs') as typeof import('pngjs');
  const p = new PNG({ width: w, height: h });
  for (let i = 0; i < w * h; i++) p.data.set([...rgb, 255], i * 4);
  return PNG.sync.write(p).toString('base64');
}

const DATA = {
  title: 'Quarterly review',
  customer: { name: 'ACME & Co' },
  date: '2026-03-15',
  rows: [
    { name: 'Apples', price: '1.50' },
    { name: 'Pears', price: '2.25' },
  ],
  items: [
    { name: 'Alpha', price: 10, photo: 'red' },
    { name: 'Beta', price: 20, photo: 'blue' },
    { name: 'Gamma', price: 30, photo: 'red' },
  ],
  closing: true,
};
const IMAGES = {
  red: { data: png(4, 4, [255, 0, 0]) },
  blue: { data: png(4, 4, [0, 0, 255]) },
  logo: { data: png(6, 3, [0, 128, 0]) },
};

describe('renderPptx (Impress-made deck)', () => {
  it('tells the format by content type', () => {
    expect(templateFormatOf(impress)).toBe('pptx');
  });

  it('fills text, tables, notes, {%p %} paragraphs and a slide loop with pictures per copy', () => {
    const out = renderTemplate(impress, { template_data: DATA, images: IMAGES });
    const deck = readDeck(out);
    expect(deck).toHaveLength(5);
    expect(deck[0].paragraphs).toEqual(
      expect.arrayContaining([
        'Quarterly review',
        'Prepared for ACME & Co on 15 Mar 2026',
        'Apples',
        '1.50',
        'Pears',
        '2.25',
      ]),
    );
    expect(deck[0].paragraphs.join('|')).not.toMatch(/\{[{%]/);
    expect(deck[0].notes).toEqual(['Cover notes for ACME & Co']);
    for (const [i, item] of DATA.items.entries()) {
      const slide = deck[1 + i];
      expect(slide.paragraphs).toContain(`Product: ${item.name}`);
      expect(slide.paragraphs).toContain(`Price ${item.price} (${i + 1} of 3)`);
      expect(slide.paragraphs.join('|')).not.toContain('slide');
      expect(slide.notes).toEqual([`Speaker notes: ${item.name}`]);
      expect(slide.pictures).toHaveLength(1);
      expect(slide.pictures[0].descr).toBe(item.photo);
    }
    // Each copy is a part of its own; same key, same media; different keys, different media.
    expect(new Set(deck.map((s) => s.part)).size).toBe(5);
    expect(deck[1].pictures[0].media).toBe(deck[3].pictures[0].media);
    expect(deck[1].pictures[0].media).not.toBe(deck[2].pictures[0].media);
    const zip = new PizZip(out);
    expect(
      zip.file(deck[2].pictures[0].media)!.asNodeBuffer().equals(Buffer.from(IMAGES.blue.data, 'base64')),
    ).toBe(true);
    expect(deck[4].paragraphs).toEqual(['Thank you, ACME & Co', 'Questions?']);
    expect(deck[4].pictures[0].media).not.toBe('ppt/media/image1.png');
    // Ids unique, every slide declared.
    const presentation = zip.file('ppt/presentation.xml')!.asText();
    const ids = [...presentation.matchAll(/<p:sldId id="(\d+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(5);
    const types = zip.file('[Content_Types].xml')!.asText();
    for (const s of deck) expect(types).toContain(`PartName="/${s.part}"`);
  });

  it('removes a slide whose loop has no items, with its notes', () => {
    const out = renderPptx(impress, { template_data: { ...DATA, items: [] }, images: IMAGES });
    const deck = readDeck(out);
    expect(deck).toHaveLength(2);
    const zip = new PizZip(out);
    expect(zip.file('ppt/slides/slide2.xml')).toBeNull();
    expect(zip.file('ppt/notesSlides/notesSlide2.xml')).toBeNull();
    expect(zip.file('[Content_Types].xml')!.asText()).not.toContain('/ppt/slides/slide2.xml');
  });

  it('refuses a deck the loop would make longer than the slide limit, with 413', () => {
    expect(() =>
      renderPptx(impress, { template_data: DATA, images: IMAGES }, { maxSlidesPerDeck: 4 }),
    ).toThrow(expect.objectContaining({ errorType: 'payload_too_large', details: { slides: 5, limit: 4 } }));
  });

  it('fills a macro-enabled deck only when the operator allows it, keeping it macro-enabled', () => {
    const zip = new PizZip(impress);
    const macro = 'application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml';
    const types = zip.file('[Content_Types].xml')!.asText();
    zip.file(
      '[Content_Types].xml',
      types.replace(
        'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
        macro,
      ),
    );
    const pptm = zip.generate({ type: 'nodebuffer' });
    expect(templateFormatOf(pptm)).toBe('pptx');
    expect(() => renderPptx(pptm, { template_data: DATA, images: IMAGES })).toThrow(
      expect.objectContaining({ errorType: 'invalid_template', details: { reason: 'macros' } }),
    );
    const out = renderPptx(pptm, { template_data: DATA, images: IMAGES }, { allowMacros: true });
    expect(new PizZip(out).file('[Content_Types].xml')!.asText()).toContain(macro);
    expect(readDeck(out)).toHaveLength(5);
  });

  it('refuses a picture key that is not a PNG', () => {
    expect(() =>
      renderPptx(impress, {
        template_data: DATA,
        images: { red: { data: Buffer.from('GIF89a not a png').toString('base64') } },
      }),
    ).toThrow(expect.objectContaining({ errorType: 'image_processing_error' }));
  });
});

describe('renderPptx (deck on a PowerPoint-written base)', () => {
  const powerpoint = readFileSync(join(FIXTURES, 'deck.powerpoint.pptx'));
  const data = {
    title: 'Offer',
    customer: { name: 'ACME' },
    items: [
      { name: 'Basic', price: 100, photo: 'red' },
      { name: 'Pro', price: 250, photo: 'blue' },
    ],
    features: [
      { name: 'Support', included: 'yes' },
      { name: 'Training', included: 'no' },
    ],
  };

  it('joins a tag split across runs, loops the slide with its placeholders, and repeats table rows', () => {
    const deck = readDeck(renderPptx(powerpoint, { template_data: data, images: IMAGES }));
    expect(deck.map((s) => s.paragraphs.filter((p) => p !== ''))).toEqual([
      ['Offer', 'For ACME'],
      ['Basic', 'Price: 100'],
      ['Pro', 'Price: 250'],
      ['Features', 'Feature', 'Included', 'Support', 'yes', 'Training', 'no'],
    ]);
    expect(deck.map((s) => s.pictures.map((p) => p.descr))).toEqual([[], ['red'], ['blue'], []]);
  });

  it('keeps the layouts and master as PowerPoint wrote them', () => {
    const out = new PizZip(renderPptx(powerpoint, { template_data: data, images: IMAGES }));
    const base = new PizZip(powerpoint);
    for (const name of ['ppt/slideMasters/slideMaster1.xml', 'ppt/slideLayouts/slideLayout2.xml'])
      expect(out.file(name)!.asText()).toBe(base.file(name)!.asText());
  });
});

describe('renderPptx errors', () => {
  /** The Impress fixture with slide 3's text replaced. */
  function withSlideText(from: string, to: string): Buffer {
    const zip = new PizZip(impress);
    const xml = zip.file('ppt/slides/slide3.xml')!.asText();
    expect(xml).toContain(from);
    zip.file('ppt/slides/slide3.xml', xml.replace(from, to));
    return zip.generate({ type: 'nodebuffer' });
  }

  it.each([
    ['a {%tc %} tag', '{%p if closing %}', '{%tc for c in cols %}'],
    ['a slide loop without its endfor', '{%p if closing %}', '{%slide for x in items %}'],
    ['an if never closed', 'Questions?', '{% if closing %}'],
    ['a bad expression', 'Questions?', '{{ 1 + }}'],
  ])('%s is a typed syntax error naming the slide', (_what, from, to) => {
    expect(() => renderPptx(withSlideText(from, to), { template_data: DATA, images: IMAGES })).toThrow(
      expect.objectContaining({
        errorType: 'template_syntax_error',
        details: { errors: [expect.objectContaining({ part: 'ppt/slides/slide3.xml' })] },
      }),
    );
  });

  it('a {%p %} tag\'s text is decoded once (an author\'s "&lt;" stays four characters)', () => {
    const deck = readDeck(
      renderPptx(withSlideText('{%p if closing %}', '{%p if "&amp;lt;" | length == 4 %}'), {
        template_data: DATA,
        images: IMAGES,
      }),
    );
    expect(deck[4].paragraphs).toContain('Thank you, ACME & Co');
  });

  it("repeated table rows drop PowerPoint's row ids, which must stay unique", () => {
    const zip = new PizZip(readFileSync(join(FIXTURES, 'deck.powerpoint.pptx')));
    const xml = zip.file('ppt/slides/slide3.xml')!.asText();
    let n = 0;
    zip.file(
      'ppt/slides/slide3.xml',
      xml.replace(
        /<\/a:tc><\/a:tr>/g,
        () =>
          `</a:tc><a:extLst><a:ext uri="{0D108BD9-81ED-4DB2-BD59-A6C34878D82A}"><a16:rowId xmlns:a16="http://schemas.microsoft.com/office/drawing/2014/main" val="${++n}"/></a:ext></a:extLst></a:tr>`,
      ),
    );
    const out = renderPptx(zip.generate({ type: 'nodebuffer' }), {
      template_data: { items: [], features: [{ name: 'A' }, { name: 'B' }] },
    });
    const slide = new PizZip(out).file('ppt/slides/slide3.xml')!.asText();
    expect(n).toBe(4);
    expect(slide).not.toContain('a16:rowId');
    expect(slide.match(/<a:tr\b/g)).toHaveLength(3);
  });

  it('strict mode lists every undefined variable', () => {
    expect(() =>
      renderPptx(impress, { template_data: { items: [] }, images: IMAGES }, { undefined: 'strict' }),
    ).toThrow(
      expect.objectContaining({
        errorType: 'undefined_variable',
        variables: ['title', 'customer.name', 'date', 'rows', 'closing'],
      }),
    );
  });

  it('an image printed in text is a typed runtime error that says where pictures go', () => {
    expect(() =>
      renderPptx(withSlideText('Questions?', '{{ red | image }}'), {
        template_data: { ...DATA, red: 'red' },
        images: IMAGES,
      }),
    ).toThrow(
      expect.objectContaining({
        errorType: 'template_runtime_error',
        message: expect.stringContaining('alternative text'),
      }),
    );
  });

  it('a runtime error is typed and names the tag', () => {
    expect(() =>
      renderPptx(withSlideText('Questions?', '{{ 1 / 0 }}'), { template_data: DATA, images: IMAGES }),
    ).toThrow(expect.objectContaining({ errorType: 'template_runtime_error' }));
  });
});

describe('the deck package description', () => {
  /** The Impress deck with slide 1 moved to `path` (its rels, content type and references with it). */
  function slideAt(path: string, contentType?: string): Buffer {
    const zip = new PizZip(impress);
    const name = path.slice('ppt/slides/'.length);
    zip.file(path, zip.file('ppt/slides/slide1.xml')!.asText());
    zip.file(`ppt/slides/_rels/${name}.rels`, zip.file('ppt/slides/_rels/slide1.xml.rels')!.asText());
    zip.remove('ppt/slides/slide1.xml');
    zip.remove('ppt/slides/_rels/slide1.xml.rels');
    for (const part of [
      '[Content_Types].xml',
      'ppt/_rels/presentation.xml.rels',
      'ppt/notesSlides/_rels/notesSlide1.xml.rels',
    ]) {
      let xml = zip.file(part)!.asText().replaceAll('slide1.xml', name);
      if (contentType && part === '[Content_Types].xml')
        xml = xml.replace(new RegExp(`(PartName="/${path}" ContentType=")[^"]*`), `$1${contentType}`);
      zip.file(part, xml);
    }
    return zip.generate({ type: 'nodebuffer' });
  }

  it('fills a slide found by its content type, whatever its part name', () => {
    const deck = readDeck(
      renderPptx(slideAt('ppt/slides/cover.xml'), { template_data: DATA, images: IMAGES }),
    );
    expect(deck[0].part).toBe('ppt/slides/cover.xml');
    expect(deck[0].paragraphs).toContain('Quarterly review');
    expect(deck[0].notes).toEqual(['Cover notes for ACME & Co']);
  });

  it('leaves alone a part the description does not fill (a layout-typed part stays as written)', () => {
    const type = 'application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml';
    const deck = readDeck(
      renderPptx(slideAt('ppt/slides/cover.xml', type), { template_data: DATA, images: IMAGES }),
    );
    expect(deck[0].paragraphs).toContain('{{ title }}');
  });
});

describe('{%slide if %}', () => {
  /** The Impress fixture with a text box on slide 1 (which has notes) holding `paragraphs`. */
  function withSlide1Text(paragraphs: string[]): Buffer {
    const zip = new PizZip(impress);
    const xml = zip.file('ppt/slides/slide1.xml')!.asText();
    const box =
      `<p:sp><p:nvSpPr><p:cNvPr id="99" name="Condition"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/>` +
      `<p:txBody><a:bodyPr/><a:lstStyle/>${paragraphs.map((p) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${p}</a:t></a:r></a:p>`).join('')}</p:txBody></p:sp>`;
    expect(xml).toContain('</p:spTree>');
    zip.file('ppt/slides/slide1.xml', xml.replace('</p:spTree>', `${box}</p:spTree>`));
    return zip.generate({ type: 'nodebuffer' });
  }
  const conditional = withSlide1Text(['{%slide if show_cover %}', '{%slide endif %}']);
  const fill = (showCover: unknown) => {
    const data: Record<string, unknown> = { ...DATA };
    if (showCover !== undefined) data.show_cover = showCover;
    return renderPptx(conditional, { template_data: data, images: IMAGES } as never);
  };

  it.each([[true], [1], ['no'], ['0'], [[0]], [{ a: 1 }]])(
    'keeps the slide when the test is truthy (%j), without its tags',
    (value) => {
      const deck = readDeck(fill(value));
      expect(deck).toHaveLength(5);
      expect(deck[0].part).toBe('ppt/slides/slide1.xml');
      expect(deck[0].paragraphs).toContain('Quarterly review');
      expect(deck[0].paragraphs.join('|')).not.toContain('slide');
      expect(deck[0].notes).toEqual(['Cover notes for ACME & Co']);
    },
  );

  it.each([[false], [0], [''], [[]], [{}], [null], [undefined]])(
    'removes the slide when the test is falsy (%j), as an empty loop does: list, rels, notes, content types',
    (value) => {
      const out = fill(value);
      const deck = readDeck(out);
      expect(deck).toHaveLength(4);
      expect(deck.map((s) => s.part)).not.toContain('ppt/slides/slide1.xml');
      expect(deck[0].paragraphs).toContain('Product: Alpha');
      const zip = new PizZip(out);
      for (const gone of [
        'ppt/slides/slide1.xml',
        'ppt/slides/_rels/slide1.xml.rels',
        'ppt/notesSlides/notesSlide1.xml',
        'ppt/notesSlides/_rels/notesSlide1.xml.rels',
      ])
        expect(zip.file(gone)).toBeNull();
      const types = zip.file('[Content_Types].xml')!.asText();
      expect(types).not.toContain('/ppt/slides/slide1.xml');
      expect(types).not.toContain('/ppt/notesSlides/notesSlide1.xml');
      expect(zip.file('ppt/_rels/presentation.xml.rels')!.asText()).not.toContain('"slides/slide1.xml"');
      expect(
        zip
          .file('ppt/presentation.xml')!
          .asText()
          .match(/<p:sldId\b/g),
      ).toHaveLength(4);
    },
  );

  it('tests with the engine: expressions, filters and strict mode', () => {
    const deck = (test: string, data: Record<string, unknown>) =>
      readDeck(
        renderPptx(withSlide1Text([`{%slide if ${test} %}`, '{%slide endif %}']), {
          template_data: { ...DATA, ...data },
          images: IMAGES,
        } as never),
      ).length;
    expect(deck('rows | length > 1', {})).toBe(5);
    expect(deck('rows | length > 2', {})).toBe(4);
    expect(deck('customer.name == "ACME & Co" and not hidden', { hidden: false })).toBe(5);
    expect(() =>
      renderPptx(conditional, { template_data: { ...DATA }, images: IMAGES } as never, {
        undefined: 'strict',
      }),
    ).toThrow(expect.objectContaining({ errorType: 'undefined_variable', variables: ['show_cover'] }));
    expect(() =>
      renderPptx(withSlide1Text(['{%slide if 1 / zero %}', '{%slide endif %}']), {
        template_data: { ...DATA, zero: 0 },
        images: IMAGES,
      } as never),
    ).toThrow(
      expect.objectContaining({
        errorType: 'template_runtime_error',
        details: expect.objectContaining({ part: 'ppt/slides/slide1.xml', tag: '{%slide if 1 / zero %}' }),
      }),
    );
  });

  it.each([
    ['no endif', ['{%slide if show_cover %}'], 'a slide condition'],
    ['two ifs', ['{%slide if a %}', '{%slide if b %}', '{%slide endif %}'], 'a slide condition'],
    ['an elif', ['{%slide if a %}', '{%slide elif b %}', '{%slide endif %}'], 'a slide condition'],
    ['an endif alone', ['{%slide endif %}'], 'a slide condition'],
    [
      'an if and a for',
      ['{%slide for x in items %}', '{%slide if x %}', '{%slide endif %}', '{%slide endfor %}'],
      'either repeated or kept',
    ],
  ])('%s is a typed syntax error naming the slide', (_what, paragraphs, message) => {
    let error: { errorType?: string; message?: string; details?: unknown } = {};
    try {
      renderPptx(withSlide1Text(paragraphs), { template_data: DATA, images: IMAGES });
    } catch (e) {
      error = e as typeof error;
    }
    expect(error.errorType).toBe('template_syntax_error');
    expect(error.message).toContain(message);
    expect(error.message).toContain('ppt/slides/slide1.xml');
    expect(error.details).toEqual({
      errors: [expect.objectContaining({ part: 'ppt/slides/slide1.xml', tag: paragraphs[0] })],
    });
  });
});
