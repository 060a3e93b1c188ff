import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { posix } from 'node:path';
import PizZip from 'pizzip';
import { ContentTypes } from '@app/ooxml';
import { httpStatusOf, type TypedError } from '@app/contracts';
import { cachedSeries, chartTitle, deckCharts, workbookCells } from '../../../../test/support/chart-parts';
import { renderPptx } from './render-pptx';

const SLIDES = join(__dirname, '../../../../test/fixtures/slides');
const impress = readFileSync(join(SLIDES, 'deck-charts.impress.pptx'));
const powerpoint = readFileSync(join(SLIDES, 'python-pptx/shp-access-chart.pptx'));

const chartData = (categories: string[], series: Array<[string, number[]]>, title?: string) => ({
  categories,
  series: series.map(([name, values]) => ({ name, values })),
  ...(title ? { title } : {}),
});

const SALES = chartData(
  ['Jan', 'Feb', 'Mar'],
  [
    ['2025', [120, 135, 180]],
    ['2026', [90, 95, 110]],
    ['2027', [5, 6, 7]],
  ],
  'Sales by month',
);
const REGIONS = [
  { name: 'North', history: chartData(['2023', '2024'], [['Units', [11, 12]]]) },
  { name: 'South', history: chartData(['2022', '2023', '2024'], [['Units', [21, 22, 23]]]) },
  { name: 'East', history: chartData(['2024'], [['Units', [31]]]) },
];

const render = (template: Buffer, data: Record<string, unknown>) =>
  renderPptx(template, { template_data: data } as never);

function caught(fn: () => unknown): TypedError {
  try {
    fn();
  } catch (e) {
    return e as TypedError;
  }
  throw new Error('expected an error');
}

/** The PowerPoint-made deck with slide 1's chart given alternative text, and optional text shapes. */
function powerpointWith(descr: string, paragraphs: string[] = []): Buffer {
  const zip = new PizZip(powerpoint);
  const text = paragraphs.length
    ? `<p:sp><p:nvSpPr><p:cNvPr id="9" name="Text 9"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/>` +
      `<p:txBody><a:bodyPr/><a:lstStyle/>${paragraphs.map((p) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${p}</a:t></a:r></a:p>`).join('')}</p:txBody></p:sp>`
    : '';
  const xml = zip
    .file('ppt/slides/slide1.xml')!
    .asText()
    .replace('<p:cNvPr id="2" name="Chart 1"/>', `<p:cNvPr id="2" name="Chart 1" descr="${descr}"/>`)
    .replace('</p:spTree>', `${text}</p:spTree>`);
  zip.file('ppt/slides/slide1.xml', xml);
  return zip.generate({ type: 'nodebuffer' });
}

/**
 * What PowerPoint checks before it offers a repair: every part has a content type, every internal
 * relationship names a part that exists, and no two slides share a chart part.
 */
function expectConsistentPackage(pptx: Buffer): void {
  const zip = new PizZip(pptx);
  const types = new ContentTypes(zip.file('[Content_Types].xml')!.asText());
  const files = Object.keys(zip.files).filter((f) => !zip.files[f].dir && f !== '[Content_Types].xml');
  for (const f of files) expect([f, types.typeOf(f)]).toEqual([f, expect.any(String)]);
  const chartOwners = new Map<string, string>();
  for (const relsPath of files.filter((f) => f.endsWith('.rels'))) {
    const owner = relsPath === '_rels/.rels' ? '' : relsPath.replace(/_rels\/([^/]+)\.rels$/, '$1');
    for (const m of zip
      .file(relsPath)!
      .asText()
      .matchAll(/<Relationship\b[^>]*>/g)) {
      if (/TargetMode="External"/.test(m[0])) continue;
      const written = /Target="([^"]*)"/.exec(m[0])![1];
      const target = written.startsWith('/')
        ? written.slice(1)
        : posix.normalize(posix.join(posix.dirname(owner), written));
      expect([relsPath, target, zip.file(target) !== null]).toEqual([relsPath, target, true]);
      if (/\/chart"/.test(m[0])) {
        expect(chartOwners.get(target) ?? owner).toBe(owner);
        chartOwners.set(target, owner);
      }
    }
  }
}

describe('charts in decks: a chart bound in its title (Impress-made deck, no embedded workbook)', () => {
  it('fills the chart bound by its title, and one chart part per copy of a looped slide', () => {
    const out = render(impress, { title: 'Review', sales: SALES, regions: REGIONS });
    expectConsistentPackage(out);
    const charts = deckCharts(out);
    expect(charts.map((c) => c.slideIndex)).toEqual([0, 1, 2, 3]);
    const [sales, ...regions] = charts;
    expect(cachedSeries(sales.xml).map((s) => [s.name, s.categories, s.values])).toEqual([
      ['2025', ['Jan', 'Feb', 'Mar'], [120, 135, 180]],
      ['2026', ['Jan', 'Feb', 'Mar'], [90, 95, 110]],
      ['2027', ['Jan', 'Feb', 'Mar'], [5, 6, 7]],
    ]);
    expect(chartTitle(sales.xml)).toBe('Sales by month');
    expect(sales.descr).toMatch(/^Column chart "Sales by month"/);
    expect(sales.workbook).toBeUndefined();
    // Each copy: its own part, its own item's data, the tag gone from its title.
    expect(new Set(regions.map((c) => c.path)).size).toBe(3);
    regions.forEach((c, i) => {
      const [series] = cachedSeries(c.xml);
      expect(series.categories).toEqual(REGIONS[i].history.categories);
      expect(series.values).toEqual(REGIONS[i].history.series[0].values);
      expect(chartTitle(c.xml)).toBe('');
    });
    const zip = new PizZip(out);
    const types = zip.file('[Content_Types].xml')!.asText();
    for (const c of regions) expect(types).toContain(`PartName="/${c.path}"`);
    // No slide keeps a relationship to a chart it does not show.
    for (const c of regions)
      expect(
        zip
          .file(c.slide.replace(/([^/]+)$/, '_rels/$1.rels'))!
          .asText()
          .match(/\/chart"/g),
      ).toHaveLength(1);
  });

  it("an empty loop drops the looped slide and its chart part; slide 1's chart is still filled", () => {
    const out = render(impress, { title: 'Review', sales: SALES, regions: [] });
    const charts = deckCharts(out);
    expect(charts.map((c) => [c.slideIndex, c.path])).toEqual([[0, 'ppt/charts/chart1.xml']]);
    expect(cachedSeries(charts[0].xml)).toHaveLength(3);
    const zip = new PizZip(out);
    expect(zip.file('ppt/charts/chart2.xml')).toBeNull();
    expect(zip.file('[Content_Types].xml')!.asText()).not.toContain('/ppt/charts/chart2.xml');
  });

  it("an empty loop on PowerPoint's deck drops the chart's workbook with it", () => {
    const template = powerpointWith('{{ chart(item.history) }}', [
      '{%slide for item in regions %}',
      '{%slide endfor %}',
    ]);
    const out = render(template, { regions: [] });
    expectConsistentPackage(out);
    const zip = new PizZip(out);
    expect(Object.keys(zip.files).filter((f) => /charts|embeddings/.test(f))).toEqual([]);
  });
});

describe('charts in decks: PowerPoint-made chart with an embedded workbook, bound by alt text', () => {
  it('fills the caches and rewrites the embedded workbook; the alt text loses the tag', async () => {
    const out = render(powerpointWith('{{ chart(sales) }}'), { sales: SALES });
    const [chart] = deckCharts(out);
    expect(chart.path).toBe('ppt/charts/chart1.xml');
    expect(cachedSeries(chart.xml).map((s) => [s.name, s.valuesF, s.values])).toEqual([
      ['2025', 'Sheet1!$B$2:$B$4', [120, 135, 180]],
      ['2026', 'Sheet1!$C$2:$C$4', [90, 95, 110]],
      ['2027', 'Sheet1!$D$2:$D$4', [5, 6, 7]],
    ]);
    expect(chart.descr).toMatch(/^Column chart "Sales by month": 2025 from 120 to 180/);
    expect(await workbookCells(out, chart.workbook!)).toEqual([
      [' ', '2025', '2026', '2027'],
      ['Jan', 120, 90, 5],
      ['Feb', 135, 95, 6],
      ['Mar', 180, 110, 7],
    ]);
  });

  it('keeps alternative text beside the tag', () => {
    const out = render(powerpointWith('Sales chart {{ chart(sales) }}'), { sales: SALES });
    expect(deckCharts(out)[0].descr).toBe('Sales chart');
  });

  it('in a slide loop each copy gets its own chart part, workbook and relationship', async () => {
    const template = powerpointWith('{{ chart(item.history) }}', [
      '{%slide for item in regions %}',
      'Region {{ item.name }}',
      '{%slide endfor %}',
    ]);
    const out = render(template, { regions: REGIONS });
    expectConsistentPackage(out);
    const charts = deckCharts(out);
    expect(charts.map((c) => c.slideIndex)).toEqual([0, 1, 2]);
    expect(new Set(charts.map((c) => c.path)).size).toBe(3);
    expect(new Set(charts.map((c) => c.workbook)).size).toBe(3);
    for (const [i, c] of charts.entries()) {
      expect(cachedSeries(c.xml).map((s) => s.values)).toEqual([REGIONS[i].history.series[0].values]);
      const cells = await workbookCells(out, c.workbook!);
      expect(cells.slice(1).map((r) => r[1])).toEqual(REGIONS[i].history.series[0].values);
    }
    const types = new PizZip(out).file('[Content_Types].xml')!.asText();
    for (const c of charts) expect(types).toContain(`PartName="/${c.path}"`);
  });
});

describe('charts in decks: charts left unbound', () => {
  it('an unbound chart on a looped slide is copied per slide, never shared, and keeps its data', () => {
    const template = powerpointWith('A chart', ['{%slide for item in regions %}', '{%slide endfor %}']);
    const before = cachedSeries(new PizZip(template).file('ppt/charts/chart1.xml')!.asText());
    const out = render(template, { regions: REGIONS });
    expectConsistentPackage(out);
    const charts = deckCharts(out);
    expect(charts).toHaveLength(3);
    expect(new Set(charts.map((c) => c.path)).size).toBe(3);
    expect(new Set(charts.map((c) => c.workbook)).size).toBe(3);
    for (const c of charts) {
      expect(cachedSeries(c.xml)).toEqual(before);
      expect(c.descr).toBe('A chart');
    }
  });
});

describe('charts in decks: bad data is typed', () => {
  it('a chart tag that does not parse: 422 template_syntax_error naming the tag and the slide', () => {
    const e = caught(() => render(powerpointWith('{{ chart(sales +) }}'), { sales: SALES }));
    expect(e.errorType).toBe('template_syntax_error');
    expect(httpStatusOf(e.errorType)).toBe(422);
    expect(JSON.stringify(e.details)).toContain('ppt/slides/slide1.xml');
  });

  it('a damaged chart part: 400 invalid_template when bound, left as it is when not', () => {
    const damaged = (template: Buffer, part: string, bytes: string) => {
      const zip = new PizZip(template);
      zip.file(part, bytes);
      return zip.generate({ type: 'nodebuffer' });
    };
    const bound = damaged(powerpointWith('{{ chart(sales) }}'), 'ppt/charts/chart1.xml', '<c:chartSpace>');
    const e = caught(() => render(bound, { sales: SALES }));
    expect(e.errorType).toBe('invalid_template');
    expect(e.details).toMatchObject({ part: 'ppt/charts/chart1.xml' });
    const unbound = damaged(powerpointWith('A chart'), 'ppt/charts/chart1.xml', 'not xml chart(');
    expect(new PizZip(render(unbound, {})).file('ppt/charts/chart1.xml')!.asText()).toBe('not xml chart(');
    const workbook = damaged(
      powerpointWith('{{ chart(sales) }}'),
      'ppt/embeddings/Microsoft_Excel_Sheet1.xlsx',
      'no zip',
    );
    const w = caught(() => render(workbook, { sales: SALES }));
    expect(w.errorType).toBe('invalid_template');
    expect(w.details).toMatchObject({ reason: 'damaged_chart_workbook' });
  });

  it('a non-numeric value: 422 chart_data_error naming the chart, series and index', () => {
    const bad = {
      regions: [REGIONS[0], { name: 'X', history: chartData(['a'], [['Units', ['lots' as never]]]) }],
    };
    const e = caught(() => render(impress, { title: '', sales: SALES, ...bad }));
    expect(httpStatusOf(e.errorType)).toBe(422);
    expect(e.errorType).toBe('chart_data_error');
    expect(e.details).toMatchObject({ chart: 'item.history', series: 0, index: 0 });
  });

  it('a chart bound to something that is not chart data', () => {
    const e = caught(() => render(powerpointWith('{{ chart(sales) }}'), { sales: [1, 2] }));
    expect(e.errorType).toBe('chart_data_error');
    expect(e.details).toMatchObject({ chart: 'sales' });
  });

  it('more points than MAX_CHART_POINTS: 413 before the deck is opened', () => {
    const big = chartData(['a'], [['s', Array.from({ length: 50 }, () => 1)]]);
    const e = caught(() =>
      renderPptx(Buffer.from('not a zip'), { template_data: { big } } as never, {
        chartLimits: { maxChartPoints: 10 },
      }),
    );
    expect(httpStatusOf(e.errorType)).toBe(413);
  });

  it('chart() in a slide text is refused, naming the tag', () => {
    const e = caught(() => render(powerpointWith('', ['{{ chart(sales) }}']), { sales: SALES }));
    expect(httpStatusOf(e.errorType)).toBe(422);
    expect(e.message).toContain("a chart cannot be made in a slide's text");
  });
});
