/**
 * A DrawingML chart part (`c:chartSpace`, ECMA-376 part 1 §21.2) filled with chart data: each
 * series' name, categories (or x values) and values — the formulas pointing at the embedded
 * workbook's cells and the caches Word and LibreOffice draw from — plus the title, axis titles and
 * number format. Series beyond the template's copy its last series; fewer are removed.
 *
 * Hand-written over xmldom's DOM (no maintained JavaScript library writes chart XML: docx, the npm
 * package, has no charts; officegen's are write-only and unmaintained): only the elements named
 * here are touched, so the template's styling (colours, markers, labels, axes) stays as it is.
 */
import { DOMParser, XMLSerializer, type Document, type Element } from '@xmldom/xmldom';
import type { ChartData } from './chart-data';

export const NS_C = 'http://schemas.openxmlformats.org/drawingml/2006/chart';
export const NS_A = 'http://schemas.openxmlformats.org/drawingml/2006/main';

/** The chart types `chart(…, type=…)` draws from scratch. */
export const NEW_CHART_TYPES = ['bar', 'column', 'line', 'area', 'pie', 'doughnut', 'scatter'] as const;
export type NewChartType = (typeof NEW_CHART_TYPES)[number];

/** Spreadsheet column letters of a 0-based index (0 → A, 26 → AA). */
export function columnName(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

function sheetRef(sheet: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet) ? sheet : `'${sheet.replace(/'/g, "''")}'`;
}

function elements(parent: Element, localName?: string): Element[] {
  const out: Element[] = [];
  for (let n = parent.firstChild; n; n = n.nextSibling)
    if (n.nodeType === 1 && (!localName || (n as Element).localName === localName)) out.push(n as Element);
  return out;
}

function first(parent: Element, localName: string): Element | undefined {
  return elements(parent, localName)[0];
}

/**
 * Empty elements made once per document and per name, then cloned: xmldom checks the qualified
 * name of every createElementNS against its grammar, which was most of a chart's fill time.
 */
const madeElements = new WeakMap<Document, Map<string, Element>>();

function element(doc: Document, ns: string, qualifiedName: string): Element {
  let made = madeElements.get(doc);
  if (!made) madeElements.set(doc, (made = new Map()));
  let proto = made.get(qualifiedName);
  if (!proto) made.set(qualifiedName, (proto = doc.createElementNS(ns, qualifiedName)));
  return proto.cloneNode(false) as Element;
}

function cEl(doc: Document, name: string, val?: string | number): Element {
  const el = element(doc, NS_C, `c:${name}`);
  if (val !== undefined) el.setAttribute('val', String(val));
  return el;
}

function aEl(doc: Document, name: string): Element {
  return element(doc, NS_A, `a:${name}`);
}

/** Inserts `el` before the first child named in `before` (the schema's order), else at the end. */
function insertBefore(parent: Element, el: Element, before: readonly string[]): Element {
  const at = elements(parent).find((e) => before.includes(e.localName!));
  parent.insertBefore(el, at ?? null);
  return el;
}

/** The child `name`, made (in schema order) when missing. */
function ensure(parent: Element, name: string, before: readonly string[]): Element {
  return first(parent, name) ?? insertBefore(parent, cEl(parent.ownerDocument!, name), before);
}

function setVal(parent: Element, name: string, val: string | number, before: readonly string[]): void {
  ensure(parent, name, before).setAttribute('val', String(val));
}

/** Appends `el` to `parent` and returns it (appendChild's type is the wider Node). */
function add(parent: Element, el: Element): Element {
  parent.appendChild(el);
  return el;
}

function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** What follows each series element in the series types' sequences (CT_BarSer, CT_LineSer, …). */
const AFTER_ORDER = [
  'tx',
  'spPr',
  'invertIfNegative',
  'pictureOptions',
  'marker',
  'explosion',
  'dPt',
  'dLbls',
  'trendline',
  'errBars',
  'cat',
  'val',
  'xVal',
  'yVal',
  'smooth',
  'shape',
  'bubbleSize',
  'bubble3D',
  'extLst',
];
const after = (name: string) => AFTER_ORDER.slice(AFTER_ORDER.indexOf(name) + 1);

/** `c:strRef` with its cache: text points. */
function strRef(doc: Document, f: string, texts: readonly string[]): Element {
  const ref = cEl(doc, 'strRef');
  const fe = cEl(doc, 'f');
  fe.appendChild(doc.createTextNode(f));
  ref.appendChild(fe);
  const cache = add(ref, cEl(doc, 'strCache'));
  cache.appendChild(cEl(doc, 'ptCount', texts.length));
  texts.forEach((t, i) => {
    const pt = add(cache, cEl(doc, 'pt'));
    pt.setAttribute('idx', String(i));
    pt.appendChild(cEl(doc, 'v')).appendChild(doc.createTextNode(t));
  });
  return ref;
}

/** `c:numRef` with its cache: numbers (a null is a point left out: a gap). */
function numRef(doc: Document, f: string, values: ReadonlyArray<number | null>, formatCode: string): Element {
  const ref = cEl(doc, 'numRef');
  ref.appendChild(cEl(doc, 'f')).appendChild(doc.createTextNode(f));
  const cache = add(ref, cEl(doc, 'numCache'));
  cache.appendChild(cEl(doc, 'formatCode')).appendChild(doc.createTextNode(formatCode));
  cache.appendChild(cEl(doc, 'ptCount', values.length));
  values.forEach((v, i) => {
    if (v === null) return;
    const pt = add(cache, cEl(doc, 'pt'));
    pt.setAttribute('idx', String(i));
    pt.appendChild(cEl(doc, 'v')).appendChild(doc.createTextNode(String(v)));
  });
  return ref;
}

/** Replaces a data source element's content (`c:tx`, `c:cat`, `c:val`, …) with `ref`, made in order when missing. */
function setSource(ser: Element, name: string, ref: Element): void {
  const el = ensure(ser, name, after(name));
  clear(el);
  el.appendChild(ref);
}

function existingFormat(ser: Element, valName: string): string | undefined {
  const val = first(ser, valName);
  const code = val && val.getElementsByTagNameNS(NS_C, 'formatCode')[0];
  return code?.textContent ?? undefined;
}

/** LibreOffice's default chart palette, which its charts carry as explicit colours. */
const LIBREOFFICE_PALETTE = [
  '004586',
  'ff420e',
  'ffd320',
  '579d1c',
  '7e0021',
  '83caff',
  '314004',
  'aecf00',
  '4b1f6f',
  'ff950e',
  'c5000b',
  '0084d1',
];

/**
 * A copied series keeps the last series' style but takes the colour `step` places further on in
 * the theme's accents (Word's charts: accent1…accent6) or LibreOffice's palette, so that series
 * stay told apart. Colours of neither kind are kept as they are.
 */
function nextColour(ser: Element, step: number): void {
  for (const spPr of Array.from(ser.getElementsByTagNameNS(NS_C, 'spPr'))) {
    if ((spPr.parentNode as Element | null)?.localName === 'dPt') continue;
    for (const clr of Array.from(spPr.getElementsByTagNameNS(NS_A, 'schemeClr'))) {
      const m = /^accent([1-6])$/.exec(clr.getAttribute('val') ?? '');
      if (m) clr.setAttribute('val', `accent${((Number(m[1]) - 1 + step) % 6) + 1}`);
    }
    for (const clr of Array.from(spPr.getElementsByTagNameNS(NS_A, 'srgbClr'))) {
      const i = LIBREOFFICE_PALETTE.indexOf((clr.getAttribute('val') ?? '').toLowerCase());
      if (i >= 0) clr.setAttribute('val', LIBREOFFICE_PALETTE[(i + step) % LIBREOFFICE_PALETTE.length]);
    }
  }
}

/** Drops per-point formatting and labels past the last point. */
function prunePoints(ser: Element, count: number): void {
  const idxOf = (e: Element) => Number(first(e, 'idx')?.getAttribute('val') ?? '0');
  for (const dPt of elements(ser, 'dPt')) if (idxOf(dPt) >= count) ser.removeChild(dPt);
  const dLbls = first(ser, 'dLbls');
  if (dLbls) for (const dLbl of elements(dLbls, 'dLbl')) if (idxOf(dLbl) >= count) dLbls.removeChild(dLbl);
}

export interface ChartShape {
  /** What a reader calls it: `Line chart`, `Clustered column chart`, `Column and line chart`. */
  kind: string;
  /** Scatter (or bubble): x values instead of categories. */
  xy: boolean;
  /** Series in the template's chart. */
  series: number;
}

const GROUP_NAMES: Record<string, string> = {
  barChart: 'bar',
  bar3DChart: 'bar',
  lineChart: 'line',
  line3DChart: 'line',
  areaChart: 'area',
  area3DChart: 'area',
  pieChart: 'pie',
  pie3DChart: 'pie',
  ofPieChart: 'pie',
  doughnutChart: 'doughnut',
  scatterChart: 'scatter',
  bubbleChart: 'bubble',
  radarChart: 'radar',
  stockChart: 'stock',
  surfaceChart: 'surface',
  surface3DChart: 'surface',
};

function groupsOf(doc: Document): Element[] {
  const plotArea = doc.getElementsByTagNameNS(NS_C, 'plotArea')[0];
  if (!plotArea) return [];
  return elements(plotArea).filter((e) => e.localName! in GROUP_NAMES);
}

function groupKind(g: Element): string {
  const base = GROUP_NAMES[g.localName!];
  if (base === 'bar') {
    const dir = first(g, 'barDir')?.getAttribute('val') === 'bar' ? 'bar' : 'column';
    const grouping = first(g, 'grouping')?.getAttribute('val');
    const prefix = grouping === 'stacked' ? 'stacked ' : grouping === 'percentStacked' ? '100% stacked ' : '';
    return `${prefix}${dir}`;
  }
  return base;
}

function upperFirst(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function shapeOf(doc: Document): ChartShape {
  const groups = groupsOf(doc);
  const kinds = [...new Set(groups.map(groupKind))];
  return {
    kind: kinds.length ? `${upperFirst(kinds.join(' and '))} chart` : 'Chart',
    xy: groups.some((g) => g.localName === 'scatterChart' || g.localName === 'bubbleChart'),
    series: groups.reduce((n, g) => n + elements(g, 'ser').length, 0),
  };
}

/** The chart's type(s) and series count, for inspect, alt text and checks. */
export function chartShape(xml: string): ChartShape {
  return shapeOf(parse(xml));
}

/** The template's chart has no series: nothing to copy the data's series from. */
export class ChartWithoutSeries extends Error {}

function parse(xml: string): Document {
  // Not logged to the console: a fatal error still throws, and the callers report it typed.
  return new DOMParser({ onError: () => undefined }).parseFromString(xml, 'text/xml') as unknown as Document;
}

/** The text of the chart's own title (not an axis's), '' when it has none. */
export function chartTitleText(xml: string): string {
  const doc = parse(xml);
  const chart = doc.getElementsByTagNameNS(NS_C, 'chart')[0];
  const title = chart && first(chart, 'title');
  if (!title) return '';
  return Array.from(title.getElementsByTagNameNS(NS_A, 't'))
    .map((t) => t.textContent ?? '')
    .join('');
}

/** Sets a `c:title`'s text, keeping the first run's and paragraph's formatting. */
function setTitleText(title: Element, text: string): void {
  const doc = title.ownerDocument!;
  let tx = first(title, 'tx');
  let rich = tx && first(tx, 'rich');
  if (!tx) tx = insertBefore(title, cEl(doc, 'tx'), ['layout', 'overlay', 'spPr', 'txPr', 'extLst']);
  if (!rich) {
    clear(tx);
    rich = add(tx, cEl(doc, 'rich'));
    rich.appendChild(aEl(doc, 'bodyPr'));
    rich.appendChild(aEl(doc, 'lstStyle'));
  }
  const paragraphs = Array.from(rich.getElementsByTagNameNS(NS_A, 'p'));
  const pPr = paragraphs[0] && first(paragraphs[0], 'pPr');
  const firstRun = paragraphs[0] && first(paragraphs[0], 'r');
  const rPr = firstRun && first(firstRun, 'rPr');
  for (const p of paragraphs) rich.removeChild(p);
  const p = add(rich, aEl(doc, 'p'));
  if (pPr) p.appendChild(pPr);
  const r = add(p, aEl(doc, 'r'));
  if (rPr) r.appendChild(rPr);
  r.appendChild(aEl(doc, 't')).appendChild(doc.createTextNode(text));
}

/** A new `c:title` with `text`, its font left to the chart's text properties. */
function newTitle(doc: Document, text: string): Element {
  const title = cEl(doc, 'title');
  setTitleText(title, text);
  title.appendChild(cEl(doc, 'overlay', 0));
  return title;
}

const CHART_CHILDREN_AFTER_TITLE = [
  'autoTitleDeleted',
  'pivotFmts',
  'view3D',
  'floor',
  'sideWall',
  'backWall',
  'plotArea',
];
const AXIS_AFTER_TITLE = [
  'numFmt',
  'majorTickMark',
  'minorTickMark',
  'tickLblPos',
  'spPr',
  'txPr',
  'crossAx',
];

function setChartTitle(doc: Document, text: string | undefined): void {
  const chart = doc.getElementsByTagNameNS(NS_C, 'chart')[0];
  if (!chart) return;
  const title = first(chart, 'title');
  const current = title
    ? Array.from(title.getElementsByTagNameNS(NS_A, 't'))
        .map((t) => t.textContent ?? '')
        .join('')
    : '';
  if (text !== undefined) {
    if (title) setTitleText(title, text);
    else chart.insertBefore(newTitle(doc, text), chart.firstChild);
    setVal(chart, 'autoTitleDeleted', 0, CHART_CHILDREN_AFTER_TITLE.slice(1));
  } else if (title && current.includes('{{')) {
    // The binding tag was (in) the title and the data gives none: the title's other text, else
    // no title rather than the tag.
    const rest = current.replace(/\{\{[\s\S]*?\}\}/g, '').trim();
    if (rest) setTitleText(title, rest);
    else {
      chart.removeChild(title);
      setVal(chart, 'autoTitleDeleted', 1, CHART_CHILDREN_AFTER_TITLE.slice(1));
    }
  }
}

/** The category (x) and value (y) axes: for scatter both are value axes, told apart by position. */
function axes(doc: Document, xy: boolean): { x?: Element; y?: Element } {
  const plotArea = doc.getElementsByTagNameNS(NS_C, 'plotArea')[0];
  if (!plotArea) return {};
  const all = elements(plotArea).filter((e) => /^(catAx|valAx|dateAx)$/.test(e.localName!));
  const pos = (e: Element) => first(e, 'axPos')?.getAttribute('val') ?? '';
  if (xy) {
    const vals = all.filter((e) => e.localName === 'valAx');
    return {
      x: vals.find((e) => /[bt]/.test(pos(e))) ?? vals[0],
      y: vals.find((e) => /[lr]/.test(pos(e))) ?? vals[1],
    };
  }
  return { x: all.find((e) => e.localName !== 'valAx'), y: all.find((e) => e.localName === 'valAx') };
}

function setAxisTitle(axis: Element | undefined, text: string | undefined): void {
  if (!axis || text === undefined) return;
  const title = first(axis, 'title');
  if (title) setTitleText(title, text);
  else insertBefore(axis, newTitle(axis.ownerDocument!, text), AXIS_AFTER_TITLE);
}

export interface FilledChart {
  xml: string;
  /** The workbook's cells as the formulas name them: row 1 the series names, column A the categories (or x). */
  cells: Array<Array<string | number | null>>;
  sheet: string;
  shape: ChartShape;
}

/** The sheet the template's formulas name (`Sheet1!$B$1` → `Sheet1`), else Sheet1. */
function sheetOf(doc: Document): string {
  for (const f of Array.from(doc.getElementsByTagNameNS(NS_C, 'f'))) {
    const m = /^(?:'((?:[^']|'')+)'|([^!]+))!/.exec(f.textContent ?? '');
    if (m) return m[1] !== undefined ? m[1].replace(/''/g, "'") : m[2];
  }
  return 'Sheet1';
}

/** Fills the chart part's XML with `data` (module comment). */
export function fillChartXml(xml: string, data: ChartData): FilledChart {
  const doc = parse(xml);
  const groups = groupsOf(doc);
  const shape = shapeOf(doc);
  const sheet = sheetOf(doc);
  const s = sheetRef(sheet);
  const sers = groups.flatMap((g) => elements(g, 'ser'));
  if (!sers.length) throw new ChartWithoutSeries();
  // Copies of the last series for the data's extra ones, placed after it in its chart group.
  const last = sers[sers.length - 1];
  let copies = 0;
  while (sers.length < data.series.length) {
    const copy = last.cloneNode(true) as Element;
    // Office's per-series extension (c16:uniqueId) must stay unique: the copy goes without it.
    for (const ext of elements(copy, 'extLst')) copy.removeChild(ext);
    nextColour(copy, ++copies);
    const prev = sers[sers.length - 1];
    prev.parentNode!.insertBefore(copy, prev.nextSibling);
    sers.push(copy);
  }
  for (const extra of sers.splice(data.series.length)) extra.parentNode!.removeChild(extra);
  const n = Math.max(data.categories.length, ...data.series.map((x) => x.values.length));
  const lastRow = n + 1;
  const catF = `${s}!$A$2:$A$${lastRow}`;
  const format = data.numberFormat;
  data.series.forEach((series, i) => {
    const ser = sers[i];
    const xy = ser.parentNode && (ser.parentNode as Element).localName === 'scatterChart';
    const col = columnName(i + 1);
    setVal(ser, 'idx', i, after('idx').concat(['order']));
    setVal(ser, 'order', i, after('order'));
    setSource(ser, 'tx', strRef(doc, `${s}!$${col}$1`, [series.name]));
    const x = series.x ?? data.numericCategories;
    if (xy) {
      setSource(ser, 'xVal', x ? numRef(doc, catF, x, 'General') : strRef(doc, catF, data.categories));
    } else setSource(ser, 'cat', strRef(doc, catF, data.categories));
    const valName = xy ? 'yVal' : 'val';
    const code = format ?? existingFormat(ser, valName) ?? 'General';
    setSource(ser, valName, numRef(doc, `${s}!$${col}$2:$${col}$${lastRow}`, series.values, code));
    prunePoints(ser, series.values.length);
  });
  setChartTitle(doc, data.title);
  const ax = axes(doc, shape.xy);
  setAxisTitle(ax.x, data.xTitle);
  setAxisTitle(ax.y, data.yTitle);
  if (format !== undefined && ax.y) {
    const numFmt = ensure(ax.y, 'numFmt', AXIS_AFTER_TITLE.slice(1));
    numFmt.setAttribute('formatCode', format);
    numFmt.setAttribute('sourceLinked', '0');
  }
  const cells: FilledChart['cells'] = [[null, ...data.series.map((x) => x.name)]];
  const firstX = data.series[0].x ?? data.numericCategories;
  for (let r = 0; r < n; r++)
    cells.push([
      shape.xy && firstX ? (firstX[r] ?? null) : (data.categories[r] ?? null),
      ...data.series.map((x) => x.values[r] ?? null),
    ]);
  return {
    xml: new XMLSerializer().serializeToString(doc as never),
    cells,
    sheet,
    shape: { ...shape, series: data.series.length },
  };
}

/** "Line chart: 2025 from 120 to 180 over 12 points (Jan to Dec)" — alternative text made from the data. */
export function chartSummary(kind: string, data: ChartData): string {
  const head = data.title ? `${kind} "${data.title}"` : kind;
  const span =
    data.categories.length > 1
      ? ` (${data.categories[0]} to ${data.categories[data.categories.length - 1]})`
      : '';
  const parts = data.series.map((s) => {
    const vals = s.values.filter((v): v is number => v !== null);
    if (!vals.length) return `${s.name}: no values`;
    return `${s.name} from ${vals[0]} to ${vals[vals.length - 1]} over ${s.values.length} point${s.values.length === 1 ? '' : 's'}`;
  });
  return `${head}: ${parts.join('; ')}${span}`;
}

const DIR: Record<string, string> = { bar: 'bar', column: 'col' };

/**
 * A chart part written from scratch (`chart(data, type=…)` where the template has none): one
 * series of the type as a skeleton that fillChartXml then fills; plain style — the application's
 * default colours, a legend below, gridlines on the value axis.
 */
export function newChartXml(type: NewChartType, workbookRelId: string | undefined): string {
  const ser =
    '<c:ser><c:idx val="0"/><c:order val="0"/><c:tx><c:v>Series</c:v></c:tx>' +
    (type === 'line' || type === 'scatter'
      ? '<c:marker><c:symbol val="circle"/><c:size val="5"/></c:marker>'
      : '') +
    (type === 'bar' || type === 'column' ? '<c:invertIfNegative val="0"/>' : '') +
    (type === 'scatter' ? '<c:xVal/><c:yVal/><c:smooth val="0"/>' : '<c:cat/><c:val/>') +
    (type === 'line' ? '<c:smooth val="0"/>' : '') +
    '</c:ser>';
  const axIds = '<c:axId val="500000001"/><c:axId val="500000002"/>';
  let group: string;
  switch (type) {
    case 'bar':
    case 'column':
      group = `<c:barChart><c:barDir val="${DIR[type]}"/><c:grouping val="clustered"/><c:varyColors val="0"/>${ser}<c:gapWidth val="150"/>${axIds}</c:barChart>`;
      break;
    case 'line':
      group = `<c:lineChart><c:grouping val="standard"/><c:varyColors val="0"/>${ser}<c:marker val="1"/>${axIds}</c:lineChart>`;
      break;
    case 'area':
      group = `<c:areaChart><c:grouping val="standard"/><c:varyColors val="0"/>${ser}${axIds}</c:areaChart>`;
      break;
    case 'pie':
      group = `<c:pieChart><c:varyColors val="1"/>${ser}<c:firstSliceAng val="0"/></c:pieChart>`;
      break;
    case 'doughnut':
      group = `<c:doughnutChart><c:varyColors val="1"/>${ser}<c:firstSliceAng val="0"/><c:holeSize val="50"/></c:doughnutChart>`;
      break;
    case 'scatter':
      group = `<c:scatterChart><c:scatterStyle val="lineMarker"/><c:varyColors val="0"/>${ser}${axIds}</c:scatterChart>`;
      break;
  }
  const horizontal = type === 'bar';
  const axis = (tag: string, id: string, cross: string, pos: string, grid: boolean) =>
    `<c:${tag}><c:axId val="${id}"/><c:scaling><c:orientation val="minMax"/></c:scaling><c:delete val="0"/>` +
    `<c:axPos val="${pos}"/>${grid ? '<c:majorGridlines/>' : ''}<c:numFmt formatCode="General" sourceLinked="1"/>` +
    `<c:majorTickMark val="out"/><c:minorTickMark val="none"/><c:tickLblPos val="nextTo"/>` +
    `<c:crossAx val="${cross}"/><c:crosses val="autoZero"/>` +
    (tag === 'catAx'
      ? '<c:auto val="1"/><c:lblAlgn val="ctr"/><c:lblOffset val="100"/><c:noMultiLvlLbl val="0"/>'
      : '<c:crossBetween val="between"/>') +
    `</c:${tag}>`;
  const axesXml =
    type === 'pie' || type === 'doughnut'
      ? ''
      : axis(
          type === 'scatter' ? 'valAx' : 'catAx',
          '500000001',
          '500000002',
          horizontal ? 'l' : 'b',
          false,
        ) + axis('valAx', '500000002', '500000001', horizontal ? 'b' : 'l', true);
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    `<c:chartSpace xmlns:c="${NS_C}" xmlns:a="${NS_A}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
    '<c:roundedCorners val="0"/><c:chart><c:autoTitleDeleted val="1"/>' +
    `<c:plotArea><c:layout/>${group}${axesXml}</c:plotArea>` +
    '<c:legend><c:legendPos val="b"/><c:overlay val="0"/></c:legend><c:plotVisOnly val="1"/><c:dispBlanksAs val="gap"/></c:chart>' +
    '<c:txPr><a:bodyPr/><a:lstStyle/><a:p><a:pPr><a:defRPr sz="1000"/></a:pPr><a:endParaRPr lang="en-US"/></a:p></c:txPr>' +
    (workbookRelId
      ? `<c:externalData r:id="${workbookRelId}"><c:autoUpdate val="0"/></c:externalData>`
      : '') +
    '</c:chartSpace>'
  );
}
