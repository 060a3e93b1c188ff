/**
 * The inspection answer (POST /api/v1/inspect-template), defined once as TypeBox schemas: the
 * TypeScript types inspectTemplate returns and the OpenAPI document's TemplateInspection are
 * these, so a field the code adds without the schema fails tsc.
 */
import { type Static, Type } from '@sinclair/typebox';
import { TemplateLocationSchema } from './template-outline';

const strings = () => Type.Array(Type.String());
const anyObject = (options: object = {}) => Type.Record(Type.String(), Type.Unknown(), options);
const oneOf = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));
const VARIABLE_USAGES = ['printed', 'looped', 'tested', 'image', 'rich', 'computed'] as const;
export type VariableUsage = (typeof VARIABLE_USAGES)[number];

/** A variable as the answer gives it (the engine also keeps its path's segments). */
export const InspectedVariableSchema = Type.Object({
  /** `customer.name`, `items[].price`, `row["unit price"]`. */
  path: Type.String({ example: 'items[].price' }),
  usages: Type.Array(oneOf(VARIABLE_USAGES)),
  /** Tags using it. */
  count: Type.Integer(),
  /** Used with `default` or tested with `is defined`: the data may leave it out. */
  optional: Type.Boolean(),
  /** Used in arithmetic or a numeric filter. */
  numeric: Type.Boolean(),
  /** Looped over with `.items()`/`.keys()`/`.values()`: a JSON object rather than a list. */
  mapping: Type.Boolean(),
  locations: Type.Array(TemplateLocationSchema),
});
export type InspectedVariable = Static<typeof InspectedVariableSchema>;

export const TemplateLoopSchema = Type.Object({
  tag: Type.String(),
  iterable: Type.Union([Type.String(), Type.Null()]),
  targets: strings(),
  /** Fields of each element the loop body uses (`price`, `qty`). */
  item_fields: strings(),
  placement: Type.Union([Type.String(), Type.Null()]),
  location: TemplateLocationSchema,
});
export type TemplateLoop = Static<typeof TemplateLoopSchema>;

export const TemplateConditionSchema = Type.Object({
  tag: Type.String(),
  variables: strings(),
  location: TemplateLocationSchema,
});
export type TemplateCondition = Static<typeof TemplateConditionSchema>;

export const TemplateImageSchema = Type.Object({
  /** `placeholder`: `{{ logo }}` alone in its paragraph with an image-like name, filled from `images.logo`. `by_value`: `{{ x | image }}`, whose value names the image. */
  kind: oneOf(['placeholder', 'by_value'] as const),
  name: Type.String(),
  location: TemplateLocationSchema,
});
export type TemplateImage = Static<typeof TemplateImageSchema>;

/** Ours: `{{ signature_field('seller', width_mm=60, height_mm=25) }}`, a place for a signature (docs/pdf.md). */
export const TemplateSignatureFieldSchema = Type.Object({
  /** null when the template computes it (`'signer_' ~ loop.index`). */
  name: Type.Union([Type.String(), Type.Null()]),
  /** null when computed. */
  width_mm: Type.Union([Type.Number(), Type.Null()]),
  height_mm: Type.Union([Type.Number(), Type.Null()]),
  tag: Type.String(),
  location: TemplateLocationSchema,
});
export type TemplateSignatureField = Static<typeof TemplateSignatureFieldSchema>;

export const TemplateChartSchema = Type.Object({
  /** The tag's data expression: `sales`, `item.history`. */
  expression: Type.String({ example: 'sales' }),
  /** Where the tag is: the chart's title or its alternative text. */
  bound_by: oneOf(['title', 'alt_text'] as const),
  part: Type.String(),
  chart_part: Type.String({ example: 'word/charts/chart1.xml' }),
  /** A deck's: the slide showing the chart, in presentation order. */
  slide: Type.Optional(
    Type.Integer({ description: 'Decks only: the 1-based slide showing the chart', example: 2 }),
  ),
  /** `Line chart`, `Clustered column chart`, `Column and line chart`. */
  kind: Type.String(),
  /** Series the template's chart has (more in the data copy the last one's style). */
  template_series: Type.Integer(),
  /** The data it expects, with the template's own series count (scatter: `x` per series). */
  data_shape: anyObject(),
});
export type TemplateChart = Static<typeof TemplateChartSchema>;

export const TemplateInspectionSchema = Type.Object(
  {
    variables: Type.Array(InspectedVariableSchema),
    loops: Type.Array(TemplateLoopSchema),
    conditions: Type.Array(TemplateConditionSchema),
    images: Type.Array(TemplateImageSchema),
    signature_fields: Type.Array(TemplateSignatureFieldSchema),
    /** Charts of the template bound to data by `{{ chart(…) }}` (docs/charts.md). */
    charts: Type.Array(TemplateChartSchema),
    /** A request a caller can fill in: `template_data` and, for image placeholders, `images`. */
    skeleton: Type.Object({ template_data: anyObject(), images: anyObject() }),
    json_schema: anyObject({ description: 'JSON Schema (2020-12) of template_data' }),
    summary: Type.Object({
      tags: Type.Integer(),
      variables: Type.Integer(),
      loops: Type.Integer(),
      conditions: Type.Integer(),
      images: Type.Integer(),
      charts: Type.Integer(),
      parts: strings(),
    }),
  },
  { $id: 'TemplateInspection' },
);
export type TemplateInspection = Static<typeof TemplateInspectionSchema>;
