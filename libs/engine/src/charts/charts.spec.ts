import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { httpStatusOf, type TypedError } from '@app/contracts';
import { buildDocx, p } from '../../../../test/support/docx-builder';
import {
  cachedSeries,
  chartTitle,
  docxCharts,
  withChartAltText,
  workbookCells,
} from '../../../../test/support/chart-parts';
import { renderDocx } from '../render';
import { CompiledTemplates } from '../docx/compiled-templates';
import { inspectTemplate } from '../inspect/inspect-template';
import { lintDocxTemplate } from '../lint/lint-template';
import { ChartDataError, PayloadTooLargeError } from '../errors';
import { countChartPoints } from './chart-data';
import { chartShape } from './chart-xml';

const FIXTURES = join(__dirname, '../../../../test/fixtures/charts');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

const SALES = {
  categories: ['Jan', 'Feb', 'Mar', 'Apr', 'May'],
  series: [
    { name: '2025', values: [120, 130, 150, 170, 180] },
    { name: '2026', values: [100, 90, 95, 110, 125] },
    { name: '2027', values: [7, 8, null, 10, 11] },
  ],
  title: 'Sales by month',
};

function caught(fn: () => unknown): TypedError {
  try {
    fn();
  } catch (e) {
    return e as TypedError;
  }
  throw new Error('expected an error');
}

const render = (template: Buffer, data: Record<string, unknown>) =>
  renderDocx(template, { template_data: data } as never);

describe('a template chart filled from data (LibreOffice-made fixtures, every type)', () => {
  const types: Array<[string, string]> = [
    ['lo-column-clustered.docx', 'Column chart'],
    ['lo-bar-clustered.docx', 'Bar chart'],
    ['lo-column-stacked.docx', 'Stacked column chart'],
    ['lo-column-percent.docx', '100% stacked column chart'],
    ['lo-line.docx', 'Line chart'],
    ['lo-area.docx', 'Area chart'],
    ['lo-pie.docx', 'Pie chart'],
    ['lo-doughnut.docx', 'Doughnut chart'],
    ['lo-combo-bar-line.docx', 'Column and line chart'],
  ];
  it.each(types)('%s: caches and names equal the data, the kind is kept', (file, kind) => {
    const out = render(fixture(file), { sales: SALES });
    const [chart] = docxCharts(out);
    expect(chartShape(chart.xml).kind).toBe(kind);
    const series = cachedSeries(chart.xml);
    expect(series.map((s) => s.name)).toEqual(['2025', '2026', '2027']);
    expect(series.map((s) => s.idx)).toEqual([0, 1, 2]);
    for (const [i, s] of series.entries()) {
      expect(s.categories).toEqual(SALES.categories);
      expect(s.values).toEqual(SALES.series[i].values);
      expect(s.valuesF).toBe(`Sheet1!$${'BCD'[i]}$2:$${'BCD'[i]}$6`);
      expect(s.categoriesF).toBe('Sheet1!$A$2:$A$6');
    }
    expect(chartTitle(chart.xml)).toBe('Sales by month');
    // The tag is gone from wherever it was (title or alternative text); the data's summary is the alt text.
    expect(out.toString('latin1')).not.toContain('chart(sales');
    expect(new PizZip(out).file('word/document.xml')!.asText()).not.toContain('chart(sales');
    expect(chart.descr).toContain(`${kind} &quot;Sales by month&quot;: 2025 from 120 to 180 over 5 points`);
  });

  it('a combo chart keeps a line group: series beyond the template copy the last (the line)', () => {
    const [chart] = docxCharts(render(fixture('lo-combo-bar-line.docx'), { sales: SALES }));
    const groups = [...chart.xml.matchAll(/<c:(barChart|lineChart)>([\s\S]*?)<\/c:\1>/g)].map(
      (m) => [m[1], (m[2].match(/<c:ser>/g) ?? []).length] as const,
    );
    expect(groups).toEqual([
      ['barChart', 1],
      ['lineChart', 2],
    ]);
  });

  it("a copied series takes the next colour of the palette (LibreOffice's) or the theme (Word's)", () => {
    const fills = (xml: string) =>
      [...xml.matchAll(/<c:ser>([\s\S]*?)<\/c:ser>/g)].map(
        (m) => /<c:spPr>[\s\S]*?<a:(?:srgbClr|schemeClr) val="(\w+)"/.exec(m[1])?.[1],
      );
    const lo = docxCharts(render(fixture('lo-column-clustered.docx'), { sales: SALES }))[0];
    expect(fills(lo.xml)).toEqual(['004586', 'ff420e', 'ffd320']);
    const five = {
      ...SALES,
      series: [
        ...SALES.series,
        { name: '2028', values: [1, 2, 3, 4, 5] },
        { name: '2029', values: [5, 4, 3, 2, 1] },
      ],
    };
    const word = docxCharts(
      render(withChartAltText(fixture('word-line.docx'), '{{ chart(sales) }}'), { sales: five }),
    )[0];
    expect(fills(word.xml)).toEqual(['accent1', 'accent2', 'accent3', 'accent4', 'accent5']);
  });

  it('scatter: x values become the numeric x caches', () => {
    const data = {
      categories: [],
      series: [
        { name: 'fit', values: [2.5, 4, 9], x: [1, 2, 3.5] },
        { name: 'raw', values: [1, 5, 8], x: [1, 2, 3.5] },
      ],
    };
    const [chart] = docxCharts(render(fixture('lo-scatter.docx'), { sales: data }));
    const series = cachedSeries(chart.xml);
    expect(series.map((s) => [s.name, s.categories, s.values])).toEqual([
      ['fit', ['1', '2', '3.5'], [2.5, 4, 9]],
      ['raw', ['1', '2', '3.5'], [1, 5, 8]],
    ]);
    expect(chart.xml).toMatch(/<c:xVal><c:numRef>/);
    // The title was the tag and the data gives none: no title, not the tag.
    expect(chartTitle(chart.xml)).toBe('');
    expect(chart.xml).toContain('<c:autoTitleDeleted val="1"/>');
  });

  it('a title with text beside the tag keeps that text when the data gives no title', () => {
    const zip = new PizZip(fixture('lo-line.docx'));
    const xml = zip.file('word/charts/chart1.xml')!.asText();
    zip.file(
      'word/charts/chart1.xml',
      xml.replace('<a:t>{{ chart(sales) }}</a:t>', '<a:t>Revenue {{ chart(sales) }}</a:t>'),
    );
    const out = render(zip.generate({ type: 'nodebuffer' }), {
      sales: { categories: ['a'], series: [{ name: 's', values: [1] }] },
    });
    expect(chartTitle(docxCharts(out)[0].xml)).toBe('Revenue');
  });

  it('fewer series than the template: the extra ones are removed', () => {
    const [chart] = docxCharts(
      render(fixture('lo-line.docx'), {
        sales: { categories: ['a', 'b'], series: [{ name: 'only', values: [1, 2] }] },
      }),
    );
    expect(cachedSeries(chart.xml).map((s) => s.name)).toEqual(['only']);
  });

  it('x_title, y_title and number_format reach the axes and the caches', () => {
    const [chart] = docxCharts(
      render(fixture('lo-column-clustered.docx'), {
        sales: { ...SALES, x_title: 'Month', y_title: 'EUR', number_format: '#,##0.00' },
      }),
    );
    expect(chart.xml).toMatch(/<c:catAx>[\s\S]*<a:t>Month<\/a:t>[\s\S]*<\/c:catAx>/);
    expect(chart.xml).toMatch(/<c:valAx>[\s\S]*<a:t>EUR<\/a:t>[\s\S]*<\/c:valAx>/);
    expect(chart.xml).toMatch(/<c:valAx>[\s\S]*<c:numFmt formatCode="#,##0.00" sourceLinked="0"\/>/);
    expect(cachedSeries(chart.xml).every((s) => s.formatCode === '#,##0.00')).toBe(true);
  });
});

describe('a Word-made chart (Apache POI 61745.docx) with its embedded workbook', () => {
  const template = withChartAltText(fixture('word-column-clustered.docx'), '{{ chart(sales) }}', 0);

  it('fills caches, formulas and the workbook Word\'s "Edit data" opens', async () => {
    const out = render(template, { sales: SALES });
    const [first, second] = docxCharts(out);
    expect(cachedSeries(first.xml).map((s) => [s.name, s.categories, s.values])).toEqual(
      SALES.series.map((s) => [s.name, SALES.categories, s.values]),
    );
    expect(first.workbook).toBeDefined();
    expect(await workbookCells(out, first.workbook!)).toEqual([
      [' ', '2025', '2026', '2027'],
      ['Jan', 120, 100, 7],
      ['Feb', 130, 90, 8],
      ['Mar', 150, 95, null],
      ['Apr', 170, 110, 10],
      ['May', 180, 125, 11],
    ]);
    // Word's table over the data follows the cells.
    const wb = new PizZip(new PizZip(out).file(first.workbook!)!.asNodeBuffer());
    expect(wb.file('xl/tables/table1.xml')!.asText()).toContain('ref="A1:D6"');
    expect(wb.file('xl/tables/table1.xml')!.asText()).toContain('<tableColumn id="4" name="2027"/>');
    // The chart without a tag is left as Word made it.
    expect(cachedSeries(second.xml).map((s) => s.name)).toEqual(['Series 1', 'Series 2', 'Series 3']);
    expect(await workbookCells(out, second.workbook!)).toHaveLength(5);
  });
});

describe('more Word-made charts (jsreport-docx test templates, MIT)', () => {
  const XY = {
    categories: [],
    series: [
      { name: 'fit', values: [2.5, 4, 9], x: [1, 2, 3.5] },
      { name: 'raw', values: [1, 5, 8], x: [1, 2, 3.5] },
    ],
    title: 'Measured',
  };
  it.each([
    ['word-line.docx', 'Line chart', SALES],
    ['word-bar.docx', 'Column chart', SALES],
    ['word-combo-bar-line.docx', 'Column and line chart', SALES],
    ['word-scatter.docx', 'Scatter chart', XY],
  ] as const)('%s: caches, title and the embedded workbook equal the data', async (file, kind, data) => {
    const out = render(withChartAltText(fixture(file), '{{ chart(sales) }}'), { sales: data });
    const [chart] = docxCharts(out);
    expect(chartShape(chart.xml).kind).toBe(kind);
    expect(cachedSeries(chart.xml).map((s) => [s.name, s.values])).toEqual(
      data.series.map((s) => [s.name, s.values]),
    );
    expect(chartTitle(chart.xml)).toBe(data.title);
    const cells = await workbookCells(out, chart.workbook!);
    expect(cells[0].slice(1)).toEqual(data.series.map((s) => s.name));
    expect(cells.slice(1).map((r) => r.slice(1))).toEqual(
      data.series[0].values.map((_, i) => data.series.map((s) => s.values[i])),
    );
  });

  it('a chart in a header is filled there (its part, its relationships)', async () => {
    const part = 'word/header1.xml';
    const out = render(withChartAltText(fixture('word-line-header.docx'), '{{ chart(sales) }}', 0, part), {
      sales: SALES,
    });
    const [chart] = docxCharts(out, part);
    expect(cachedSeries(chart.xml).map((s) => s.values)).toEqual(SALES.series.map((s) => s.values));
    expect((await workbookCells(out, chart.workbook!))[0]).toEqual([' ', '2025', '2026', '2027']);
  });
});

describe('charts in loops: one independent chart per item', () => {
  const history = (name: string, values: number[]) => ({
    categories: values.map((_, i) => `c${i + 1}`),
    series: [{ name, values }],
  });
  const data = {
    regions: [
      { name: 'East', history: history('E', [1, 2]) },
      { name: 'West', history: history('W', [5, 6, 7]) },
      { name: 'North', history: history('N', [9]) },
    ],
    products: [
      { name: 'P1', history: history('p1', [3, 4]) },
      { name: 'P2', history: history('p2', [8, 9]) },
    ],
  };

  it('{%tr for %} and {% for %}: each copy has its own chart part, relationship and data', () => {
    const out = render(fixture('lo-loops.docx'), data);
    const charts = docxCharts(out);
    expect(charts.map((c) => cachedSeries(c.xml)[0].name)).toEqual(['E', 'W', 'N', 'p1', 'p2']);
    expect(charts.map((c) => cachedSeries(c.xml)[0].values)).toEqual([
      [1, 2],
      [5, 6, 7],
      [9],
      [3, 4],
      [8, 9],
    ]);
    expect(new Set(charts.map((c) => c.path)).size).toBe(5);
    const types = new PizZip(out).file('[Content_Types].xml')!.asText();
    for (const c of charts) expect(types).toContain(`PartName="/${c.path}"`);
    const ids = [
      ...new PizZip(out)
        .file('word/document.xml')!
        .asText()
        .matchAll(/<wp:docPr\b[^>]*\bid="(\d+)"/g),
    ].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a template compiled by an earlier render (the worker keeps them) fills its charts the same', () => {
    const compiledTemplates = new CompiledTemplates();
    const template = fixture('lo-loops.docx');
    const first = renderDocx(template, { template_data: data } as never, { compiledTemplates });
    expect(compiledTemplates.size).toBe(1);
    const again = renderDocx(template, { template_data: data } as never, { compiledTemplates });
    const names = (docx: Buffer) => docxCharts(docx).map((c) => cachedSeries(c.xml)[0].values);
    expect(names(again)).toEqual(names(first));
    expect(names(again)).toEqual([[1, 2], [5, 6, 7], [9], [3, 4], [8, 9]]);
  });

  it("the Word chart's copies each get their own embedded workbook", async () => {
    const looped = buildLoopOverWordChart();
    const out = render(looped, {
      items: [{ s: history('A', [1, 2, 3]) }, { s: history('B', [4, 5, 6]) }],
    });
    const charts = docxCharts(out).slice(0, 2);
    expect(charts[0].workbook).not.toBe(charts[1].workbook);
    expect((await workbookCells(out, charts[0].workbook!))[0]).toEqual([' ', 'A']);
    expect((await workbookCells(out, charts[1].workbook!))[0]).toEqual([' ', 'B']);
  });
});

/** The Word fixture with its first chart's paragraph wrapped in `{% for item in items %}`. */
function buildLoopOverWordChart(): Buffer {
  return wrapChartInLoop(
    withChartAltText(fixture('word-column-clustered.docx'), '{{ chart(item.s) }}', 0),
    '{% for item in items %}',
  );
}

/** `docx` with its first chart's paragraph between `loop` and `{% endfor %}` paragraphs. */
function wrapChartInLoop(docx: Buffer, loop: string): Buffer {
  const zip = new PizZip(docx);
  const xml = zip.file('word/document.xml')!.asText();
  const drawingAt = xml.indexOf('<w:drawing>');
  const pStart = Math.max(xml.lastIndexOf('<w:p>', drawingAt), xml.lastIndexOf('<w:p ', drawingAt));
  const pEnd = xml.indexOf('</w:p>', drawingAt) + '</w:p>'.length;
  const para = (t: string) => `<w:p><w:r><w:t>${t}</w:t></w:r></w:p>`;
  zip.file(
    'word/document.xml',
    xml.slice(0, pStart) + para(loop) + xml.slice(pStart, pEnd) + para('{% endfor %}') + xml.slice(pEnd),
  );
  return zip.generate({ type: 'nodebuffer' });
}

describe('copies in a loop start from the template chart, not from the first copy', () => {
  it('a combo chart whose first item has one series still gives the second its line', () => {
    const template = wrapChartInLoop(fixture('lo-combo-bar-line.docx'), '{% for sales in items %}');
    const one = { categories: ['a', 'b'], series: [{ name: 'bars', values: [1, 2] }] };
    const two = {
      categories: ['a', 'b'],
      series: [
        { name: 'bars', values: [3, 4] },
        { name: 'line', values: [5, 6] },
      ],
    };
    const charts = docxCharts(render(template, { items: [one, two] }));
    const groups = (xml: string) =>
      [...xml.matchAll(/<c:(barChart|lineChart)>([\s\S]*?)<\/c:\1>/g)].map((m) => [
        m[1],
        (m[2].match(/<c:ser>/g) ?? []).length,
      ]);
    expect(groups(charts[0].xml)).toEqual([
      ['barChart', 1],
      ['lineChart', 0],
    ]);
    expect(groups(charts[1].xml)).toEqual([
      ['barChart', 1],
      ['lineChart', 1],
    ]);
  });
});

describe('a new chart where the template has none', () => {
  it.each(['bar', 'column', 'line', 'area', 'pie', 'doughnut', 'scatter'])(
    "chart(sales, type='%s') inserts a chart part with the data and its workbook",
    async (type) => {
      const template = buildDocx([
        p(`Before {{ chart(sales, type='${type}', width_mm=150, height_mm=80) }} after`),
      ]);
      const out = render(template, { sales: SALES });
      const [chart] = docxCharts(out);
      expect(chart).toBeDefined();
      expect(cachedSeries(chart.xml).map((s) => [s.name, s.values])).toEqual(
        SALES.series.map((s) => [s.name, s.values]),
      );
      const doc = new PizZip(out).file('word/document.xml')!.asText();
      expect(doc).toContain('<wp:extent cx="5400000" cy="2880000"/>');
      expect(await workbookCells(out, chart.workbook!)).toHaveLength(6);
      expect(new PizZip(out).file('[Content_Types].xml')!.asText()).toContain('Extension="xlsx"');
    },
  );
});

describe('bad chart data: typed errors naming chart, series and index', () => {
  const template = fixture('lo-line.docx');
  it('a non-numeric value: 422 chart_data_error with series and index', () => {
    const e = caught(() =>
      render(template, { sales: { categories: ['a', 'b'], series: [{ name: 'x', values: [1, 'n/a'] }] } }),
    );
    expect(e).toBeInstanceOf(ChartDataError);
    expect(httpStatusOf(e.errorType)).toBe(422);
    expect(e.details).toMatchObject({
      chart: 'sales',
      series: 0,
      series_name: 'x',
      index: 1,
      field: 'values',
    });
  });
  it('series of unequal length', () => {
    const e = caught(() =>
      render(template, { sales: { categories: ['a', 'b', 'c'], series: [{ name: 'x', values: [1, 2] }] } }),
    );
    expect(e.details).toMatchObject({ chart: 'sales', series: 0, index: 2 });
  });
  it('chart() bound to something that is not chart data', () => {
    const e = caught(() => render(template, { sales: [1, 2, 3] }));
    expect(e).toBeInstanceOf(ChartDataError);
    expect(e.message).toMatch(/Chart 'sales': expects chart data/);
  });
  it('more points than MAX_CHART_POINTS: 413 before the template is opened', () => {
    const big = { categories: Array(30).fill('c'), series: [{ name: 'x', values: Array(30).fill(1) }] };
    const e = caught(() =>
      renderDocx(Buffer.from('not even a zip'), { template_data: { deep: { big } } } as never, {
        chartLimits: { maxChartPoints: 20 },
      }),
    );
    expect(e).toBeInstanceOf(PayloadTooLargeError);
    expect(e.details).toMatchObject({ field: 'template_data.deep.big', points: 30, limit: 20 });
    expect(() =>
      countChartPoints({ a: big, b: big }, { maxChartPoints: 100, maxRequestChartPoints: 50 }),
    ).toThrow(/more than 50 points together/);
  });
});

describe('inspect and lint', () => {
  it('inspect-template lists each bound chart with the data it expects', () => {
    const report = inspectTemplate(fixture('lo-combo-bar-line.docx'));
    expect(report.charts).toEqual([
      expect.objectContaining({
        expression: 'sales',
        bound_by: 'title',
        chart_part: 'word/charts/chart1.xml',
        kind: 'Column and line chart',
        template_series: 2,
      }),
    ]);
    expect(report.summary.charts).toBe(1);
    expect(report.skeleton.template_data.sales).toMatchObject({ categories: ['A', 'B', 'C'] });
    // The skeleton fills the chart as it is.
    const out = render(fixture('lo-combo-bar-line.docx'), report.skeleton.template_data);
    expect(cachedSeries(docxCharts(out)[0].xml).map((s) => s.name)).toEqual(['Series 1', 'Series 2']);
  });

  it('lint reports a chart tag on a picture (not a chart), and passes a bound chart', () => {
    const zip = new PizZip(
      buildDocx([
        p('A picture:'),
        { runs: [{ image: { png: PNG_1PX, widthMm: 10, heightMm: 10, name: 'Logo' } }] },
      ]),
    );
    const doc = zip.file('word/document.xml')!.asText();
    zip.file(
      'word/document.xml',
      doc.replace(/(<wp:docPr\b[^>]*name="Logo")/, '$1 descr="{{ chart(sales) }}"'),
    );
    const report = lintDocxTemplate(zip.generate({ type: 'nodebuffer' }));
    expect(report.errors).toEqual([
      expect.objectContaining({ code: 'chart_tag_not_on_chart', tag: '{{ chart(sales) }}' }),
    ]);
    expect(report.errors[0].message).toContain("'Logo', which is not a chart");
    expect(lintDocxTemplate(fixture('lo-area.docx')).errors).toEqual([]);
  });
});

const PNG_1PX = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
