/**
 * What a template expects, without data: its variables and how each is used, its loops,
 * conditions and images, a `template_data` skeleton to start from and a JSON Schema for it
 * (what docxtpl's get_undeclared_template_variables and docxtemplater's Inspect module give).
 */
import { checkDocxTemplate, type TemplateLimits } from '../docx/package';
import { bindChartTags, boundChartShape, type BoundChart } from '../charts/chart-writer';
import { dataJsonSchema, dataSkeleton } from './data-skeleton';
import { templateOutline, type TemplateOutline } from './template-outline';
import { defaultEnvironment } from '../environment';
import { templateFormatOf } from '../template-format';
import { workbookOutline } from '../xlsx/workbook-outline';
import { deckOutline } from '../pptx/deck-outline';
import type { TemplateInspection } from './inspection-schema';
import { templateVariables } from './template-variables';
import { signatureFieldCalls } from './signature-field-calls';

export type { TemplateInspection };

/** A 1×1 transparent PNG: the skeleton's stand-in for an image the caller supplies. */
const PLACEHOLDER_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** What a Word template or, told by its content types, a workbook or deck expects (cells located by sheet and cell, paragraphs by slide and shape). */
export function inspectTemplate(template: Buffer, limits: Partial<TemplateLimits> = {}): TemplateInspection {
  const format = templateFormatOf(template);
  if (format === 'xlsx')
    return inspectionOf(workbookOutline(template, defaultEnvironment(), limits).outline, []);
  if (format === 'pptx') {
    const deck = deckOutline(template, defaultEnvironment(), limits);
    return inspectionOf(
      deck.outline,
      deck.charts.map((c) => ({ ...chartEntry(c, c.shape), slide: c.location.slide })),
    );
  }
  const zip = checkDocxTemplate(template, limits);
  // Bound charts' tags are read where the fill evaluates them (charts/chart-writer.ts).
  const bound = bindChartTags(zip);
  return inspectionOf(
    templateOutline(zip),
    bound.map((c) => chartEntry(c, boundChartShape(zip, c))),
  );
}

/** A bound chart as inspection lists it, with the data it expects (the template's series count). */
function chartEntry(
  c: BoundChart,
  shape: ReturnType<typeof boundChartShape>,
): TemplateInspection['charts'][number] {
  const series = Array.from({ length: Math.max(1, shape.template_series) }, (_, i) => ({
    name: `Series ${i + 1}`,
    values: [1, 2, 3],
    ...(shape.xy ? { x: [1, 2, 3] } : {}),
  }));
  return {
    expression: c.expression.split(',')[0].trim(),
    bound_by: c.via,
    part: c.part,
    chart_part: c.chartPath,
    kind: shape.kind,
    template_series: shape.template_series,
    data_shape: {
      categories: ['A', 'B', 'C'],
      series,
      title: 'optional',
      x_title: 'optional',
      y_title: 'optional',
    },
  };
}

function inspectionOf(outline: TemplateOutline, charts: TemplateInspection['charts']): TemplateInspection {
  const found = templateVariables(outline);
  const placeholders = new Set(found.images.filter((i) => i.kind === 'placeholder').map((i) => i.name));
  const images: Record<string, unknown> = {};
  const skeleton = dataSkeleton(found.variables, placeholders);
  // A chart bound to a top-level name: the skeleton holds chart data there, not text.
  for (const c of charts) if (/^[A-Za-z_]\w*$/.test(c.expression)) skeleton[c.expression] = c.data_shape;
  for (const name of placeholders) images[name] = { data: PLACEHOLDER_PNG, width_mm: 40 };
  return {
    variables: found.variables.map(({ segments: _segments, ...v }) => v),
    loops: found.loops,
    conditions: found.conditions,
    images: found.images,
    signature_fields: outline.tags.flatMap((t) =>
      signatureFieldCalls(t).map(({ problem: _problem, ...call }) => ({
        ...call,
        tag: t.source,
        location: t.location,
      })),
    ),
    charts,
    skeleton: { template_data: skeleton, images },
    json_schema: dataJsonSchema(found.variables, placeholders),
    summary: {
      tags: outline.tags.length,
      variables: found.variables.length,
      loops: found.loops.length,
      conditions: found.conditions.length,
      images: found.images.length,
      charts: charts.length,
      parts: [...new Set(outline.paragraphs.map((p) => p.part))],
    },
  };
}
