/**
 * Charts on slides (docs/charts.md, "In slide decks"): a chart's graphic frame (p:graphicFrame
 * holding c:chart r:id) whose alternative text (p:cNvPr @descr, else @title) or chart title holds
 * `{{ chart(expr) }}` is filled with that data, evaluated in the slide's frame — once per copy of
 * a looped slide. The chart part and its embedded workbook are filled by ChartParts, as in Word;
 * each further use of a chart part (a slide loop's copies) gets a copy of the part, its workbook
 * and style parts, and a relationship of its own, whether the chart is bound or not (PowerPoint
 * does not share a chart part between slides).
 */
import { relsPathOf, withRelationships } from '@app/ooxml';
import { posix } from 'node:path';
import type PizZip from 'pizzip';
import { DEFAULT_CHART_LIMITS, parseChartData, type ChartLimits } from '../charts/chart-data';
import {
  attrOf,
  CHART_TAG,
  ChartParts,
  REL_CHART,
  relsIn,
  relsOf,
  resolveTarget,
} from '../charts/chart-parts';
import { boundChartCall, chartTitleTag, ChartValue } from '../charts/chart-writer';
import { chartSummary } from '../charts/chart-xml';
import { evaluate } from '../runtime/evaluator';
import type { Frame, RenderState } from '../runtime/ops';
import { type Expr, parseExpression } from '../syntax/parser';
import { TemplateSyntaxError } from '../errors';
import { escapeXml, setAttr } from '../xlsx/sheet-xml';
import { runtimeError } from './slide-template';

const GRAPHIC_FRAME = /<p:graphicFrame\b[\s\S]*?<\/p:graphicFrame>/g;
const C_NV_PR = /<p:cNvPr\b([^>]*?)(\/?)>/;

interface Binding {
  expr: Expr;
  /** The tag as written, for errors. */
  tag: string;
  /** Where it was: the frame's alternative text (descr or title attribute), or the chart's title. */
  via: 'descr' | 'title' | 'chart_title';
}

/** The `{{ chart(…) }}` tag in a frame's alternative text (`p:cNvPr` descr, else title) and the attribute holding it. */
export function altTextChartTag(
  cNvPrAttrs: string,
): { tag: RegExpExecArray; via: 'descr' | 'title' } | undefined {
  for (const via of ['descr', 'title'] as const) {
    const tag = CHART_TAG.exec(attrOf(cNvPrAttrs, via) ?? '');
    if (tag) return { tag, via };
  }
  return undefined;
}

export class SlideCharts {
  private readonly parts: ChartParts;
  private readonly used = new Set<string>();
  private readonly compiled = new Map<string, Expr>();
  private readonly titleTags = new Map<string, string | null>();

  constructor(
    zip: PizZip,
    private readonly limits: ChartLimits = DEFAULT_CHART_LIMITS,
  ) {
    this.parts = new ChartParts(zip);
  }

  private compile(tag: RegExpExecArray, part: string): Expr {
    const source = boundChartCall(tag[1].trim());
    let expr = this.compiled.get(source);
    if (!expr) {
      try {
        expr = parseExpression(source);
      } catch (e) {
        throw new TemplateSyntaxError([{ message: (e as Error).message, tag: tag[0], context: part, part }]);
      }
      this.compiled.set(source, expr);
    }
    return expr;
  }

  private bindingOf(cNvPr: string, chartPath: string, part: string): Binding | undefined {
    const alt = altTextChartTag(cNvPr);
    if (alt) return { expr: this.compile(alt.tag, part), tag: alt.tag[0], via: alt.via };
    let titleTag = this.titleTags.get(chartPath);
    if (titleTag === undefined) {
      titleTag = chartTitleTag(this.parts.templateXml(chartPath))?.[0] ?? null;
      this.titleTags.set(chartPath, titleTag);
    }
    const tag = titleTag === null ? null : CHART_TAG.exec(titleTag);
    return tag ? { expr: this.compile(tag, part), tag: tag[0], via: 'chart_title' } : undefined;
  }

  /**
   * The filled slide `xml` (part `slidePath`, relationships `rels`) with its charts filled from
   * `frame`: returns the XML and relationships to write.
   */
  place(
    xml: string,
    rels: string,
    slidePath: string,
    frame: Frame,
    state: RenderState,
  ): { xml: string; rels: string } {
    if (!xml.includes('<c:chart')) return { xml, rels };
    const relList = relsIn(rels);
    const ids = new Set(relList.map((r) => r.id));
    let added = '';
    const out = xml.replace(GRAPHIC_FRAME, (graphicFrame) => {
      const ref = /<c:chart\b[^>]*\br:id="([^"]+)"/.exec(graphicFrame);
      const rel = ref && relList.find((r) => r.id === ref[1] && r.type === REL_CHART && !r.external);
      if (!ref || !rel) return graphicFrame;
      const templatePath = resolveTarget(slidePath, rel.target);
      if (!this.parts.exists(templatePath)) return graphicFrame;
      const cNvPr = C_NV_PR.exec(graphicFrame);
      const binding = this.bindingOf(cNvPr?.[1] ?? '', templatePath, slidePath);
      let result = graphicFrame;
      let path = templatePath;
      if (this.used.has(templatePath)) {
        // A further use (a slide loop's copy): a chart part of its own, with its own relationship.
        const copy = this.parts.copy(templatePath);
        path = copy.path;
        let n = copy.n;
        while (ids.has(`rIdDocgenChart${n}`)) n++;
        const id = `rIdDocgenChart${n}`;
        ids.add(id);
        const target = posix.relative(posix.dirname(slidePath), path);
        added += `<Relationship Id="${id}" Type="${REL_CHART}" Target="${escapeXml(target)}"/>`;
        result = result.replace(/(<c:chart\b[^>]*\br:id=")[^"]+"/, `$1${id}"`);
      }
      this.used.add(templatePath);
      if (!binding) return result;
      state.produced.length = 0;
      let value;
      try {
        value = evaluate(binding.expr, frame, state);
      } catch (e) {
        throw runtimeError(e, state, binding.tag, slidePath);
      }
      const name = value instanceof ChartValue && value.name !== undefined ? value.name : binding.tag;
      const data = parseChartData(value instanceof ChartValue ? value.data : value, name, this.limits);
      const kind = this.parts.fill(path, data, name);
      if (cNvPr) {
        // The tag leaves the alternative text; a frame left without one gets a summary of the data.
        let attrs = cNvPr[1];
        if (binding.via !== 'chart_title') {
          const rest = (attrOf(attrs, binding.via) ?? '').replace(binding.tag, '').trim();
          attrs = setAttr(attrs, binding.via, rest || undefined);
        }
        if (!attrOf(attrs, 'descr')) attrs = setAttr(attrs, 'descr', chartSummary(kind, data));
        result = result.replace(cNvPr[0], `<p:cNvPr${attrs}${cNvPr[2]}>`);
      }
      return result;
    });
    // Relationships no frame points at any more (a copy's shared chart) go.
    let newRels = added ? withRelationships(rels, added) : rels;
    for (const r of relList)
      if (r.type === REL_CHART && !out.includes(`r:id="${r.id}"`)) newRels = newRels.replace(r.raw, '');
    return { xml: out, rels: newRels };
  }

  /**
   * The chart parts only the `gone` slides (an empty loop's) showed, with their relationships and
   * the parts they name (workbook, style, colours): left behind, they would be parts nothing
   * points at. A chart another part still names is kept.
   */
  orphansOf(gone: readonly string[], zip: PizZip): string[] {
    const goneRels = new Set(gone.map(relsPathOf));
    const charts = gone.flatMap((slide) =>
      relsOf(zip, slide)
        .filter((r) => r.type === REL_CHART && !r.external)
        .map((r) => resolveTarget(slide, r.target)),
    );
    if (!charts.length) return [];
    const named = new Set<string>();
    for (const relsPath of Object.keys(zip.files)) {
      if (!relsPath.endsWith('.rels') || goneRels.has(relsPath)) continue;
      const owner = relsPath.replace(/_rels\/([^/]+)\.rels$/, '$1');
      for (const r of relsIn(zip.file(relsPath)!.asText()))
        if (!r.external) named.add(resolveTarget(owner, r.target));
    }
    return charts
      .filter((chart) => !named.has(chart) && zip.file(chart))
      .flatMap((chart) => [
        chart,
        relsPathOf(chart),
        ...relsOf(zip, chart)
          .filter((r) => !r.external)
          .map((r) => resolveTarget(chart, r.target)),
      ]);
  }

  withContentTypes(types: string): string {
    return this.parts.withContentTypes(types);
  }
}
