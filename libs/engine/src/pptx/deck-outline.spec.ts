import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { inspectTemplate } from '../inspect/inspect-template';
import { lintDocxTemplate } from '../lint/lint-template';
import { renderPptx } from './render-pptx';

const SLIDES = join(__dirname, '../../../../test/fixtures/slides');
const DECK = join(SLIDES, 'deck.impress.pptx');

/** The Impress-saved deck with some of its slides' text replaced (our edits only). */
function withText(edits: Record<string, [string, string][]>, deck = DECK): Buffer {
  const zip = new PizZip(readFileSync(deck));
  for (const [part, pairs] of Object.entries(edits)) {
    let xml = zip.file(part)!.asText();
    for (const [from, to] of pairs) {
      expect(xml).toContain(from);
      xml = xml.replace(from, to);
    }
    zip.file(part, xml);
  }
  return zip.generate({ type: 'nodebuffer' });
}

describe('lint of a deck', () => {
  it('passes the Impress deck, each paragraph a line located by slide, shape and table cell', () => {
    const report = lintDocxTemplate(readFileSync(DECK), { verbose: true });
    expect(report.errors).toEqual([]);
    expect(report.success).toBe(true);
    expect(report.summary.parts).toEqual([
      'ppt/slides/slide1.xml',
      'ppt/notesSlides/notesSlide1.xml',
      'ppt/slides/slide2.xml',
      'ppt/notesSlides/notesSlide2.xml',
      'ppt/slides/slide3.xml',
    ]);
    const at = (tag: string) => report.tags!.find((t) => t.tag === tag)!.location;
    expect(at('{{ row.price }}')).toMatchObject({
      part: 'ppt/slides/slide1.xml',
      slide: 1,
      table: { table: 1, row: 3, cell: 2 },
    });
    expect(at('{%slide for item in items %}')).toMatchObject({ part: 'ppt/slides/slide2.xml', slide: 2 });
    expect(at('{%p if closing %}')).toMatchObject({ part: 'ppt/slides/slide3.xml', slide: 3, paragraph: 1 });
    // Notes are located on their slide, in their own part.
    expect(report.tags!.filter((t) => t.location?.part === 'ppt/notesSlides/notesSlide2.xml')).toEqual([
      expect.objectContaining({ tag: '{{ item.name }}', location: expect.objectContaining({ slide: 2 }) }),
    ]);
    // Shapes are numbered in drawing order: the title and the subtitle are different shapes.
    expect(at('{{ title }}').shape).toEqual(expect.any(Number));
    expect(at('{{ title }}').shape).not.toBe(at('{{ row.name }}').shape);
  });

  it('lists every problem of every slide at once: syntax, unknown filters, unbalanced {%p %}, {%tr %} and {%slide %}', () => {
    const report = lintDocxTemplate(
      withText({
        'ppt/slides/slide1.xml': [
          ['{{ title }}', '{{ title | upperr }}'],
          ['{%tr endfor %}', 'no row end'],
        ],
        'ppt/slides/slide2.xml': [['{%slide endfor %}', 'gone']],
        'ppt/slides/slide3.xml': [
          ['{%p endif %}', 'the end'],
          ['Questions?', '{{ questions + }}'],
        ],
      }),
    );
    expect(report.success).toBe(false);
    const found = report.errors.map((e) => [e.code, e.location?.slide, e.tag]);
    expect(found).toEqual(
      expect.arrayContaining([
        ['unknown_filter', 1, '{{ title | upperr }}'],
        ['unclosed_block', 1, '{%tr for row in rows %}'],
        ['syntax_error', 2, '{%slide for item in items %}'],
        ['unclosed_block', 3, '{%p if closing %}'],
        ['syntax_error', 3, '{{ questions + }}'],
      ]),
    );
    expect(report.errors.find((e) => e.code === 'unknown_filter')!.suggestion).toBe(
      "Did you mean the filter 'upper'?",
    );
  });

  it('reports a tag never closed in its paragraph, and an end without its opening', () => {
    const report = lintDocxTemplate(
      withText({
        'ppt/slides/slide1.xml': [['{{ title }}', 'Title {{ for']],
        'ppt/slides/slide3.xml': [['{%p if closing %}', 'no opening']],
      }),
    );
    expect(report.errors.map((e) => [e.code, e.location?.slide])).toEqual(
      expect.arrayContaining([
        ['tag_not_closed', 1],
        ['mismatched_block', 3],
      ]),
    );
  });
});

describe('lint of a deck: what only decks refuse, and what lint never runs', () => {
  it('reports {%tc %} on a slide and {%slide %} in notes, as the fill refuses them', () => {
    const report = lintDocxTemplate(
      withText({
        'ppt/slides/slide1.xml': [['{{ row.name }}', '{%tc for c in cols %}']],
        'ppt/notesSlides/notesSlide2.xml': [['Speaker notes: {{ item.name }}', '{%slide for n in notes %}']],
      }),
    );
    expect(report.errors.map((e) => [e.location?.part, e.message])).toEqual(
      expect.arrayContaining([
        ['ppt/slides/slide1.xml', "'{%tc %}' column tags are not supported in slides"],
        ['ppt/notesSlides/notesSlide2.xml', "'{%slide %}' tags belong on a slide, not in its notes"],
      ]),
    );
  });

  it('lints a macro-enabled deck (.pptm) without running anything; refuses a workbook-shaped zip that is no deck', () => {
    const zip = new PizZip(readFileSync(DECK));
    const types = zip.file('[Content_Types].xml')!.asText();
    const main = 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml';
    expect(types).toContain(main);
    zip.file(
      '[Content_Types].xml',
      types.replace(main, 'application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml'),
    );
    zip.file('ppt/vbaProject.bin', Buffer.from('not run'));
    expect(lintDocxTemplate(zip.generate({ type: 'nodebuffer' })).success).toBe(true);
  });
});

describe('warnings on a deck (linter_options)', () => {
  it('warns of a variable spelled almost like another, located by slide; fail_on_warnings makes it fail', () => {
    const deck = withText({
      'ppt/notesSlides/notesSlide1.xml': [
        ['Cover notes for {{ customer.name }}', 'Cover notes for {{ customer.nmae }}'],
      ],
    });
    const report = lintDocxTemplate(deck);
    expect(report.success).toBe(true);
    expect(report.warnings.map((w) => [w.code, w.location?.slide, w.location?.part])).toEqual([
      [expect.any(String), 1, 'ppt/notesSlides/notesSlide1.xml'],
    ]);
    expect(report.warnings[0].message).toContain('customer.name');
    expect(lintDocxTemplate(deck, { failOnWarnings: true }).success).toBe(false);
  });
});

describe('inspection of a deck', () => {
  it('lists variables, row and slide loops by slide, with a skeleton covering the whole looped slide', () => {
    const r = inspectTemplate(readFileSync(DECK));
    expect(r.loops.map((l) => [l.iterable, l.placement, l.location.slide])).toEqual(
      expect.arrayContaining([
        ['rows', 'tr', 1],
        ['items', 'slide', 2],
      ]),
    );
    const paths = r.variables.map((v) => v.path);
    // `{{ item.price }}` stands after `{%slide endfor %}` on the slide, yet the loop covers it.
    expect(paths).toEqual(
      expect.arrayContaining(['title', 'customer.name', 'items[].name', 'items[].price']),
    );
    expect(paths).not.toContain('item.price');
    // The notes of a looped slide are filled with each item too.
    expect(r.variables.find((v) => v.path === 'items[].name')!.locations.map((l) => l.part)).toEqual([
      'ppt/slides/slide2.xml',
      'ppt/notesSlides/notesSlide2.xml',
    ]);
    expect(paths).not.toContain('item.name');
    expect(r.variables.find((v) => v.path === 'closing')!.usages).toEqual(['tested']);
    const skeleton = r.skeleton as { template_data: Record<string, unknown> };
    expect(Object.keys(skeleton.template_data)).toEqual(
      expect.arrayContaining(['title', 'customer', 'date', 'rows', 'items', 'closing']),
    );
  });

  it('reads the PowerPoint deck: a split tag joined, shapes named, the slide loop covering tags above its opening', () => {
    const deck = readFileSync(join(SLIDES, 'deck.powerpoint.pptx'));
    const report = lintDocxTemplate(deck, { verbose: true });
    expect(report.success).toBe(true);
    expect(report.tags!.find((t) => t.tag === '{{ customer.name }}')!.location).toMatchObject({
      slide: 1,
      shape_name: 'Subtitle 2',
    });
    expect(report.tags!.find((t) => t.tag === '{{ f.name }}')!.location).toMatchObject({
      slide: 3,
      shape_name: 'Table 3',
      table: { table: 1, row: 3, cell: 1 },
    });
    // `{{ item.name }}` is the slide's title, above the `{%slide for %}` in the body: still the item's.
    const paths = inspectTemplate(deck).variables.map((v) => v.path);
    expect(paths).toEqual(expect.arrayContaining(['items[].name', 'items[].price', 'features[].name']));
    expect(paths).not.toContain('item.name');
  });
});

/** A python-pptx fixture deck with one slide part's XML edited (our edits only, each checked to apply). */
const pythonPptx = (name: string, part: string, pairs: [string, string][]) =>
  withText({ [part]: pairs }, join(SLIDES, 'python-pptx', name));

const textBox = (paragraphs: string[]) =>
  `<p:sp><p:nvSpPr><p:cNvPr id="9" name="Text 9"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/>` +
  `<p:txBody><a:bodyPr/><a:lstStyle/>${paragraphs.map((p) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${p}</a:t></a:r></a:p>`).join('')}</p:txBody></p:sp></p:spTree>`;

/** PowerPoint's chart deck, its chart bound to each region's history on a looped slide (bench/corpus.ts). */
const regionsDeck = () =>
  pythonPptx('shp-access-chart.pptx', 'ppt/slides/slide1.xml', [
    [
      '<p:cNvPr id="2" name="Chart 1"/>',
      '<p:cNvPr id="2" name="Chart 1" descr="{{ chart(item.history) }}"/>',
    ],
    [
      '</p:spTree>',
      textBox(['{%slide for item in regions %}', 'Region {{ item.name }}', '{%slide endfor %}']),
    ],
  ]);

describe('charts of a deck', () => {
  it('inspect lists a chart bound on a looped slide once, with its chart part, slide and data shape', () => {
    const r = inspectTemplate(regionsDeck());
    expect(r.charts).toEqual([
      {
        expression: 'item.history',
        bound_by: 'alt_text',
        part: 'ppt/slides/slide1.xml',
        chart_part: 'ppt/charts/chart1.xml',
        slide: 1,
        kind: expect.stringMatching(/chart$/),
        template_series: expect.any(Number),
        data_shape: expect.objectContaining({ categories: ['A', 'B', 'C'], series: expect.any(Array) }),
      },
    ]);
    expect(r.summary.charts).toBe(1);
    // slide1.xml is the first slide in presentation order.
    expect(r.charts[0].slide).toBe(1);
    expect(r.charts[0].data_shape.series).toHaveLength(r.charts[0].template_series);
    // The chart's data is read in the slide loop's scope: each region's history.
    const paths = r.variables.map((v) => v.path);
    expect(paths).toEqual(expect.arrayContaining(['regions[].name', 'regions[].history']));
    expect(paths).not.toContain('item.history');
    expect(lintDocxTemplate(regionsDeck()).errors).toEqual([]);
  });

  it("lint reports what the fill would refuse in a bound chart's tag, as the author wrote it", () => {
    const history = { categories: ['A'], series: [{ name: 'Units', values: [1] }] };
    for (const [descr, code, renderError] of [
      ['{{ chart(item.) }}', 'syntax_error', 'template_syntax_error'],
      ['{{ chart(item.history | sortt) }}', 'unknown_filter', 'template_runtime_error'],
    ]) {
      const deck = pythonPptx('shp-access-chart.pptx', 'ppt/slides/slide1.xml', [
        ['<p:cNvPr id="2" name="Chart 1"/>', `<p:cNvPr id="2" name="Chart 1" descr="${descr}"/>`],
      ]);
      const report = lintDocxTemplate(deck);
      expect(report.errors.map((e) => [e.code, e.tag, e.location?.part])).toEqual([
        [code, descr, 'ppt/slides/slide1.xml'],
      ]);
      // The fill refuses it too, naming the same tag.
      expect(() => renderPptx(deck, { template_data: { item: { history } } } as never)).toThrow(
        expect.objectContaining({ errorType: renderError, message: expect.stringContaining(descr) }),
      );
    }
  });

  it('a chart bound by its title is listed as bound by title; an unbound chart is not listed', () => {
    expect(
      inspectTemplate(readFileSync(join(SLIDES, 'python-pptx', 'shp-access-chart.pptx'))).charts,
    ).toEqual([]);
    // Impress binds both of its charts by their titles (make-impress-chart-fixture.py).
    const r = inspectTemplate(readFileSync(join(SLIDES, 'deck-charts.impress.pptx')));
    expect(r.charts.map((c) => [c.expression, c.bound_by, c.chart_part, c.slide, c.kind])).toEqual([
      ['sales', 'title', 'ppt/charts/chart1.xml', 1, 'Column chart'],
      ['item.history', 'title', 'ppt/charts/chart2.xml', 2, 'Line chart'],
    ]);
    // A chart bound to a top-level name: the skeleton holds chart data there.
    expect(r.skeleton.template_data.sales).toMatchObject({ categories: ['A', 'B', 'C'] });
    expect(r.variables.map((v) => v.path)).toEqual(expect.arrayContaining(['regions[].history']));
  });

  it('lint reports {{ chart() }} on a picture and in a text box, located by slide and shape', () => {
    const onPicture = pythonPptx('shp-picture.pptx', 'ppt/slides/slide1.xml', [
      ['name="Picture 2" descr="python-powered.png"', 'name="Picture 2" descr="{{ chart(sales) }}"'],
    ]);
    const picture = lintDocxTemplate(onPicture);
    expect(picture.success).toBe(false);
    expect(picture.errors).toEqual([
      expect.objectContaining({
        code: 'chart_tag_not_on_chart',
        tag: '{{ chart(sales) }}',
        location: expect.objectContaining({ part: 'ppt/slides/slide1.xml', shape_name: 'Picture 2' }),
      }),
    ]);
    expect(picture.errors[0].location!.slide).toEqual(expect.any(Number));
    expect(picture.errors[0].message).toContain("alternative text of 'Picture 2', which is not a chart");
    expect(inspectTemplate(onPicture).charts).toEqual([]);

    const inText = lintDocxTemplate(
      pythonPptx('shp-access-chart.pptx', 'ppt/slides/slide1.xml', [
        ['</p:spTree>', textBox(['Sales: {{ chart(sales) }}', "{{ sales | chart(type='bar') }}"])],
      ]),
    );
    expect(inText.errors).toEqual([
      expect.objectContaining({
        code: 'chart_tag_not_on_chart',
        tag: '{{ chart(sales) }}',
        column: 8,
        location: expect.objectContaining({ shape_name: 'Text 9', paragraph: 1 }),
      }),
      expect.objectContaining({
        code: 'chart_tag_not_on_chart',
        tag: "{{ sales | chart(type='bar') }}",
        location: expect.objectContaining({ shape_name: 'Text 9', paragraph: 2 }),
      }),
    ]);
    expect(inText.errors[0].message).toContain("text of 'Text 9', which is not a chart");
    expect(inText.errors[0].line_number).toBe(inText.errors[0].location!.line);
  });
});

describe('{%slide if %} in lint and inspect', () => {
  const conditional = (paragraphs: string[]) =>
    pythonPptx('tbl-cell.pptx', 'ppt/slides/slide2.xml', [['</p:spTree>', textBox(paragraphs)]]);

  it('lints clean, and inspection lists the condition and its variables on its slide', () => {
    const deck = conditional(['{%slide if show_terms and terms.version %}', '{%slide endif %}']);
    const report = lintDocxTemplate(deck, { verbose: true });
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([]);
    expect(report.tags!.map((t) => [t.tag, t.location?.slide])).toEqual([
      ['{%slide if show_terms and terms.version %}', 2],
      ['{%slide endif %}', 2],
    ]);
    const r = inspectTemplate(deck);
    expect(r.conditions).toEqual([
      expect.objectContaining({
        tag: '{%slide if show_terms and terms.version %}',
        variables: expect.arrayContaining(['show_terms', 'terms.version']),
        location: expect.objectContaining({ slide: 2, part: 'ppt/slides/slide2.xml' }),
      }),
    ]);
    expect(r.variables.find((v) => v.path === 'show_terms')!.usages).toEqual(['tested']);
    expect(Object.keys(r.skeleton.template_data)).toEqual(expect.arrayContaining(['show_terms', 'terms']));
  });

  it('reports a condition without its endif, and one beside a slide loop, on their slide', () => {
    const report = lintDocxTemplate(conditional(['{%slide if show_terms %}']));
    expect(report.errors.map((e) => [e.code, e.location?.slide, e.tag])).toEqual([
      ['syntax_error', 2, '{%slide if show_terms %}'],
    ]);
    expect(report.errors[0].message).toContain("one '{%slide endif %}'");
    const both = lintDocxTemplate(
      conditional(['{%slide for t in terms %}', '{%slide if t %}', '{%slide endif %}', '{%slide endfor %}']),
    );
    expect(both.errors.map((e) => [e.location?.slide, e.message])).toEqual([
      [2, expect.stringContaining('either repeated or kept by a condition')],
    ]);
  });
});
