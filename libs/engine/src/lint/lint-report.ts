/**
 * The lint report, defined once as TypeBox schemas: its TypeScript types (what lintDocxTemplate
 * returns) and the OpenAPI document's LintReport, LintError and LintWarning are these, so a field
 * the code adds without the schema fails tsc. The seed system's shape (`success`, `errors[]` with
 * `line_number`, `column`, `error_type`, …, `warnings[]`, `summary`) plus our richer fields
 * (`code`, `location`, `tag`).
 */
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import { TemplateLocationSchema } from '../inspect/template-outline';

const orNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The seed system's error types, and ours (`code`) that say more precisely what is wrong. */
const LINT_ERROR_TYPES = [
  'syntax_error',
  'unclosed_tag',
  'mismatched_tag',
  'nested_error',
  'invalid_expression',
  'document_error',
] as const;
const LINT_WARNING_TYPES = [
  'suspicious_syntax',
  'unused_variable',
  'complex_expression',
  'long_line',
] as const;
export type LintErrorType = (typeof LINT_ERROR_TYPES)[number];
export type LintWarningType = (typeof LINT_WARNING_TYPES)[number];

const oneOf = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));

const FINDING = {
  line_number: orNull(
    Type.Integer({
      description:
        'Line of the template text: every paragraph of every part (document, headers, footers, notes) is one line',
    }),
  ),
  column: orNull(Type.Integer({ description: '1-based column in the paragraph' })),
  message: Type.String(),
  context: orNull(Type.String({ description: 'The text of the paragraph around the tag' })),
  tag_name: orNull(Type.String({ description: '`if`, `for`, `endif`, …, or `expression` for `{{ … }}`' })),
  suggestion: orNull(Type.String()),
  /** Ours: a stable identifier of the problem (`unknown_filter`, `block_crosses_table_cells`, …). */
  code: Type.String({
    description:
      'Ours, precise: syntax_error, unknown_tag, unknown_filter, unknown_test, unclosed_block, mismatched_block, ' +
      'tag_not_closed, tag_split_across_cells, tag_split_unjoinable, block_crosses_table_cells, bad_signature_field, chart_tag_not_on_chart; warnings: ' +
      'similar_variable_name, image_without_image, image_placeholder_not_alone, dash_in_name, tag_split_across_paragraphs',
  }),
  /** Ours: the tag as written. */
  tag: orNull(Type.String({ description: 'The tag as written' })),
  /** Ours: where an author finds it in Word. */
  location: orNull(TemplateLocationSchema),
};
export type LintFinding = Static<TObject<typeof FINDING>>;

export const LintErrorSchema = Type.Object(
  { error_type: oneOf(LINT_ERROR_TYPES), ...FINDING },
  { $id: 'LintError' },
);
export type LintError = Static<typeof LintErrorSchema>;

export const LintWarningSchema = Type.Object(
  { warning_type: oneOf(LINT_WARNING_TYPES), ...FINDING },
  { $id: 'LintWarning' },
);
export type LintWarning = Static<typeof LintWarningSchema>;

const LintSummarySchema = Type.Object({
  total_errors: Type.Integer(),
  total_warnings: Type.Integer(),
  /** Characters of template text (all parts). */
  template_size: Type.Integer(),
  /** Paragraphs of template text (each is one line of the report's numbering). */
  lines_count: Type.Integer(),
  jinja_tags_count: Type.Integer(),
  /** 100 with no findings, less for each error (25: one error scores under 80) and warning (2). */
  completeness_score: Type.Number(),
  processing_time_ms: Type.Number(),
  parts: Type.Array(Type.String()),
});
export type LintSummary = Static<typeof LintSummarySchema>;

export const LintReportSchema = Type.Object(
  {
    success: Type.Boolean(),
    errors: Type.Array(LintErrorSchema),
    warnings: Type.Array(LintWarningSchema),
    summary: LintSummarySchema,
    /** The first 500 characters of the template's text. */
    template_preview: Type.String(),
    /** With `verbose`: the whole text, one paragraph a line, and every tag. */
    template_content: Type.Optional(Type.String({ description: 'verbose only' })),
    tags: Type.Optional(
      Type.Array(
        Type.Object({
          tag: Type.String(),
          line_number: Type.Integer(),
          column: Type.Integer(),
          location: TemplateLocationSchema,
        }),
        { description: 'verbose only' },
      ),
    ),
  },
  {
    $id: 'LintReport',
    description: "The seed system's LintResult, with our richer fields (code, tag, location).",
  },
);
export type LintReport = Static<typeof LintReportSchema>;
