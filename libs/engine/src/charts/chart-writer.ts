/**
 * Charts in the fill (docs/charts.md): `{{ chart(expr) }}` in a chart's title or alternative text
 * binds the template's chart to data; `{{ chart(expr, type='line') }}` in a paragraph inserts a
 * new one. Three steps, on the engine's hooks:
 *   1. bindChartTags, before the compile: a bound chart's tag is moved out of the drawing into a
 *      run just before it, so the fill evaluates it where the chart is — once per loop item when
 *      the chart sits in a `{%tr for %}` row or a `{% for %}` paragraph loop.
 *   2. ChartWriter.output (a content writer): the tag's value is checked chart data; a bound
 *      chart's leaves a marker in the text, a new chart's is its drawing.
 *   3. ChartWriter.finalize: each marker's following chart drawing gets the data — the first use
 *      of a chart part fills it, every further use (loop copies) a copy of the chart part, its
 *      embedded workbook and style parts under new names, with its own relationship.
 */
import { CONTENT_TYPES_PART, ContentTypes, EMPTY_RELS, relsPathOf, withRelationships } from '@app/ooxml';
import type PizZip from 'pizzip';
import { escapeXml } from '../docx/run-text';
import { WORD_PARTS } from '../package/formats';
import type { FilterFn } from '../runtime/ops';
import { getOwn, isNumber, num, str, TemplateObject, Undefined, type Value } from '../runtime/values';
import { ChartDataError } from '../errors';
import { DEFAULT_CHART_LIMITS, parseChartData, type ChartData, type ChartLimits } from './chart-data';
import {
  attrOf as attr,
  CHART_TAG,
  CHART_TYPE,
  ChartParts,
  REL_CHART,
  REL_PACKAGE,
  relsOf,
  resolveTarget,
} from './chart-parts';
import {
  chartShape,
  chartSummary,
  chartTitleText,
  NEW_CHART_TYPES,
  newChartXml,
  type NewChartType,
} from './chart-xml';
import { newWorkbook } from './workbook';

export { CHART_TYPE, REL_CHART, resolveTarget } from './chart-parts';
const NS_WP = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
const NS_A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const NS_C = 'http://schemas.openxmlformats.org/drawingml/2006/chart';
const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** The keyword bindChartTags adds: the chart is the template's, named by the tag's expression. */
const BOUND = 'bound_chart';
/** Private characters (Unicode noncharacters; rich content uses U+FDD2/3) around a bound chart's number. */
const MARK_START = '\uFDD4';
const MARK_END = '\uFDD5';
const MARKER = /\uFDD4(\d+)\uFDD5/g;

/** `chart(…)`'s value: the data and how to place it, checked when it is placed. */
export class ChartValue extends TemplateObject {
  constructor(
    readonly data: Value,
    readonly name: string | undefined,
    readonly bound: boolean,
    readonly type: string | undefined,
    readonly widthMm: number,
    readonly heightMm: number,
  ) {
    super();
  }

  attr(): Value {
    return new Undefined('');
  }

  override text(): string {
    return '';
  }
}

function mmArg(v: Value | undefined, name: string, d: number): number {
  if (v === undefined || v instanceof Undefined) return d;
  if (!isNumber(v) || num(v) <= 0 || num(v) > 2000)
    throw new ChartDataError(`${name} must be a number of millimetres between 0 and 2000`, {
      chart: '?',
      field: name,
    });
  return num(v);
}

/**
 * `chart(data, type=…, width_mm=…, height_mm=…)`, also a filter (`sales | chart(type='bar')`):
 * the chart data with its placement, for ChartWriter.
 */
export const CHART_FILTERS: Record<string, FilterFn> = {
  chart: (st, v, args, kwargs) => {
    st.use(v);
    const bound = getOwn(kwargs, BOUND);
    const name = getOwn(kwargs, 'name') ?? bound;
    const type = getOwn(kwargs, 'type') ?? args[0];
    return new ChartValue(
      v,
      name === undefined ? undefined : str(name),
      bound !== undefined,
      type === undefined || type instanceof Undefined ? undefined : str(type),
      mmArg(getOwn(kwargs, 'width_mm'), 'width_mm', 150),
      mmArg(getOwn(kwargs, 'height_mm'), 'height_mm', 80),
    );
  },
};

// ---- 1. Binding (before the compile) ----

const DRAWING = /<w:drawing\b[\s\S]*?<\/w:drawing>/g;

/** The chart part a drawing shows, or undefined when it shows none. */
function chartPartOf(zip: PizZip, part: string, drawing: string): { rId: string; path: string } | undefined {
  const m = /<c:chart\b[^>]*\br:id="([^"]+)"/.exec(drawing);
  if (!m) return undefined;
  const rel = relsOf(zip, part).find((r) => r.id === m[1] && r.type === REL_CHART);
  return rel ? { rId: m[1], path: resolveTarget(part, rel.target) } : undefined;
}

/** The templated parts (main, headers, footers, …) by content type. */
function templatedParts(zip: PizZip): string[] {
  const types = new ContentTypes(zip.file(CONTENT_TYPES_PART)?.asText() ?? '');
  return Object.keys(zip.files).filter((p) => WORD_PARTS.isTemplated(types.typeOf(p)));
}

export interface BoundChart {
  part: string;
  chartPath: string;
  /** The tag's arguments as written: `sales`, `item.history`. */
  expression: string;
  /** Where the tag was: the chart's title or the drawing's alternative text. */
  via: 'title' | 'alt_text';
}

function jinjaString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The call a bound chart's tag stands for: `chart(item.history, bound_chart='item.history')`, its
 * value a bound ChartValue named by the tag's first argument. Word's and decks' binders use it.
 */
export function boundChartCall(expression: string): string {
  const firstArg = expression.split(',')[0].trim();
  return `chart(${expression}, ${BOUND}=${jinjaString(firstArg)})`;
}

/** The `{{ chart(…) }}` tag in a chart part's title, or null; Word's and decks' binders read it alike. */
export function chartTitleTag(chartXml: string | undefined): RegExpExecArray | null {
  // Parsed only when it may hold a tag; a damaged chart part that is not bound is left as it is.
  if (!chartXml?.includes('chart(')) return null;
  try {
    return CHART_TAG.exec(chartTitleText(chartXml));
  } catch {
    return null;
  }
}

/**
 * Step 1 (module comment): moves each bound chart's tag into a run before its drawing. Returns
 * the charts it bound; the package is changed only when there are some.
 */
export function bindChartTags(zip: PizZip): BoundChart[] {
  const bound: BoundChart[] = [];
  // A package without a chart part is left unread.
  if (!zip.file(CONTENT_TYPES_PART)?.asText().includes(CHART_TYPE)) return bound;
  for (const part of templatedParts(zip)) {
    const xml = zip.file(part)?.asText();
    if (!xml || !xml.includes('<c:chart')) continue;
    let changed = false;
    let out = '';
    let last = 0;
    for (const m of xml.matchAll(DRAWING)) {
      const drawing = m[0];
      const chart = chartPartOf(zip, part, drawing);
      if (!chart) continue;
      const docPr = /<wp:docPr\b[^>]*>/.exec(drawing)?.[0] ?? '';
      let via: BoundChart['via'] | undefined;
      let expression: string | undefined;
      let newDrawing = drawing;
      for (const name of ['descr', 'title']) {
        const text = attr(docPr, name);
        const tag = text === undefined ? null : CHART_TAG.exec(text);
        if (!tag) continue;
        via = 'alt_text';
        expression = tag[1].trim();
        const rest = text!.replace(tag[0], '').trim();
        newDrawing = newDrawing.replace(
          docPr,
          docPr.replace(new RegExp(`(\\s${name}=")[^"]*"`), `$1${escapeXml(rest)}"`),
        );
        break;
      }
      if (!expression) {
        const tag = chartTitleTag(zip.file(chart.path)?.asText());
        if (tag) {
          via = 'title';
          expression = tag[1].trim();
        }
      }
      if (!expression || !via) continue;
      bound.push({ part, chartPath: chart.path, expression, via });
      // The run holding the drawing: the last `<w:r>` or `<w:r …>` opened before it.
      const start = m.index;
      const runStart = Math.max(xml.lastIndexOf('<w:r>', start), xml.lastIndexOf('<w:r ', start));
      const at = runStart >= last ? runStart : start;
      const call = `{{ ${boundChartCall(expression)} }}`;
      out += xml.slice(last, at) + `<w:r><w:t xml:space="preserve">${escapeXml(call)}</w:t></w:r>`;
      out += xml.slice(at, start) + newDrawing;
      last = start + drawing.length;
      changed = true;
    }
    if (changed) zip.file(part, out + xml.slice(last));
  }
  return bound;
}

/** A `chart(…)` tag in the alternative text of a drawing that is not a chart (a picture, a shape). */
export interface MisplacedChartTag {
  part: string;
  /** The drawing's name in Word (`Picture 3`). */
  drawing: string;
  tag: string;
}

/** The chart tags lint reports: on drawings that show no chart, so nothing would be filled. */
export function misplacedChartTags(zip: PizZip): MisplacedChartTag[] {
  const out: MisplacedChartTag[] = [];
  for (const part of templatedParts(zip)) {
    const xml = zip.file(part)?.asText();
    if (!xml || !xml.includes('chart(')) continue;
    for (const m of xml.matchAll(DRAWING)) {
      if (chartPartOf(zip, part, m[0])) continue;
      const docPr = /<wp:docPr\b[^>]*>/.exec(m[0])?.[0] ?? '';
      for (const name of ['descr', 'title']) {
        const tag = CHART_TAG.exec(attr(docPr, name) ?? '');
        if (tag) out.push({ part, drawing: attr(docPr, 'name') ?? '', tag: tag[0] });
      }
    }
  }
  return out;
}

/** What inspect says of a bound chart: its kind, its template's series and the data it expects. */
export function boundChartShape(
  zip: PizZip,
  chart: BoundChart,
): { kind: string; template_series: number; xy: boolean } {
  const xml = zip.file(chart.chartPath)?.asText() ?? '';
  const shape = chartShape(xml);
  return { kind: shape.kind, template_series: shape.series, xy: shape.xy };
}

// ---- 2. and 3. The content writer ----

interface Placed {
  data: ChartData;
  name: string;
}

interface NewChart extends Placed {
  part: string;
  rId: string;
  chartPath: string;
  type: NewChartType;
}

const EMU_PER_MM = 36000;

function chartDrawing(id: number, rId: string, cx: number, cy: number, descr: string): string {
  return (
    `<w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0" xmlns:wp="${NS_WP}">` +
    `<wp:extent cx="${cx}" cy="${cy}"/><wp:effectExtent l="0" t="0" r="0" b="0"/>` +
    `<wp:docPr id="${id}" name="Chart ${id}" descr="${escapeXml(descr)}"/><wp:cNvGraphicFramePr/>` +
    `<a:graphic xmlns:a="${NS_A}"><a:graphicData uri="${NS_C}">` +
    `<c:chart xmlns:c="${NS_C}" xmlns:r="${NS_R}" r:id="${rId}"/>` +
    `</a:graphicData></a:graphic></wp:inline></w:drawing>`
  );
}

export class ChartWriter {
  private readonly placed: Placed[] = [];
  private readonly created: NewChart[] = [];
  /** Parts whose text holds markers. */
  private readonly markedParts = new Set<string>();
  private drawings = 0;
  private readonly parts: ChartParts;

  constructor(
    private readonly zip: PizZip,
    private readonly limits: ChartLimits = DEFAULT_CHART_LIMITS,
  ) {
    this.parts = new ChartParts(zip);
  }

  output(v: Value, _placement: string | undefined, partPath: string): string | undefined {
    if (!(v instanceof ChartValue)) return undefined;
    const index = this.placed.length + this.created.length;
    const name = v.name ?? `chart ${index + 1}`;
    const data = parseChartData(v.data, name, this.limits);
    if (v.bound) {
      this.placed.push({ data, name });
      this.markedParts.add(partPath);
      return `${MARK_START}${this.placed.length - 1}${MARK_END}`;
    }
    const type = (v.type ?? 'column').toLowerCase();
    if (!(NEW_CHART_TYPES as readonly string[]).includes(type))
      throw new ChartDataError(`type must be one of ${NEW_CHART_TYPES.join(', ')}, not '${type}'`, {
        chart: name,
        field: 'type',
      });
    const n = this.parts.nextNumber();
    const chart: NewChart = {
      data,
      name,
      part: partPath,
      rId: `rIdDocgenChart${n}`,
      chartPath: `word/charts/docgen_chart${n}.xml`,
      type: type as NewChartType,
    };
    this.created.push(chart);
    const summary = chartSummary(`${chart.type.charAt(0).toUpperCase()}${chart.type.slice(1)} chart`, data);
    const id = 200000 + ++this.drawings;
    return `</w:t>${chartDrawing(id, chart.rId, Math.round(v.widthMm * EMU_PER_MM), Math.round(v.heightMm * EMU_PER_MM), summary)}<w:t xml:space="preserve">`;
  }

  finalize(): void {
    if (!this.placed.length && !this.created.length) return;
    const zip = this.zip;
    const parts = this.parts;
    const addedRels = new Map<string, string[]>();
    const addRel = (part: string, xml: string) => {
      const list = addedRels.get(part) ?? [];
      list.push(xml);
      addedRels.set(part, list);
    };
    const used = new Set<string>();

    for (const part of this.markedParts) {
      const xml = zip.file(part)?.asText();
      if (!xml) continue;
      let out = '';
      let last = 0;
      for (const m of xml.matchAll(MARKER)) {
        if (m.index < last) continue;
        const placed = this.placed[Number(m[1])];
        out += xml.slice(last, m.index);
        last = m.index + m[0].length;
        const start = xml.indexOf('<w:drawing>', last);
        const end = start < 0 ? -1 : xml.indexOf('</w:drawing>', start);
        const nextMarker = xml.indexOf(MARK_START, last);
        if (start < 0 || end < 0 || (nextMarker >= 0 && nextMarker < start)) continue;
        const drawing = xml.slice(start, end + '</w:drawing>'.length);
        const chart = chartPartOf(zip, part, drawing);
        if (!chart) continue;
        let path = chart.path;
        let newDrawing = drawing;
        if (used.has(path)) {
          const copy = parts.copy(chart.path);
          path = copy.path;
          const rId = `rIdDocgenChart${copy.n}`;
          addRel(
            part,
            `<Relationship Id="${rId}" Type="${REL_CHART}" Target="${path.split('/').slice(1).join('/')}"/>`,
          );
          newDrawing = newDrawing
            .replace(/(<c:chart\b[^>]*\br:id=")[^"]+"/, `$1${rId}"`)
            .replace(/(<wp:docPr\b[^>]*\bid=")\d+"/, `$1${200000 + ++this.drawings}"`);
        }
        used.add(path);
        const kind = parts.fill(path, placed.data, placed.name);
        // Alternative text: the template's, else a summary of the data (a PDF/UA figure's /Alt).
        const docPr = /<wp:docPr\b[^>]*>/.exec(newDrawing)?.[0];
        if (docPr && !attr(docPr, 'descr')) {
          const summary = escapeXml(chartSummary(kind, placed.data));
          const withDescr = /\sdescr="/.test(docPr)
            ? docPr.replace(/(\sdescr=")[^"]*"/, `$1${summary}"`)
            : docPr.replace(/<wp:docPr\b/, `<wp:docPr descr="${summary}"`);
          newDrawing = newDrawing.replace(docPr, withDescr);
        }
        out += xml.slice(last, start) + newDrawing;
        last = end + '</w:drawing>'.length;
      }
      zip.file(part, out + xml.slice(last));
    }

    for (const chart of this.created) {
      const workbookPath = chart.chartPath.replace(/^word\/charts\/(.*)\.xml$/, 'word/embeddings/$1.xlsx');
      zip.file(chart.chartPath, newChartXml(chart.type, 'rId1'));
      zip.file(
        relsPathOf(chart.chartPath),
        withRelationships(
          EMPTY_RELS,
          `<Relationship Id="rId1" Type="${REL_PACKAGE}" Target="../embeddings/${workbookPath.split('/').pop()}"/>`,
        ),
      );
      zip.file(workbookPath, newWorkbook([[null]]));
      parts.fill(chart.chartPath, chart.data, chart.name);
      parts.declare(chart.chartPath);
      addRel(
        chart.part,
        `<Relationship Id="${chart.rId}" Type="${REL_CHART}" Target="${chart.chartPath.split('/').slice(1).join('/')}"/>`,
      );
    }
    zip.file(CONTENT_TYPES_PART, parts.withContentTypes(zip.file(CONTENT_TYPES_PART)?.asText() ?? ''));
    for (const [part, rels] of addedRels) {
      const relsPath = relsPathOf(part);
      zip.file(relsPath, withRelationships(zip.file(relsPath)?.asText() ?? EMPTY_RELS, rels.join('')));
    }
  }
}
