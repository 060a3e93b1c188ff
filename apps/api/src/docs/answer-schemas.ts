/**
 * OpenAPI schemas of the answers (error bodies, the lint report, the inspection, the version).
 * Requests are documented from their one definition (the payload schemas of @app/contracts);
 * these describe what the code sends back, written from libs/contracts/src/errors.ts,
 * libs/engine/src/lint/lint-template.ts, libs/engine/src/inspect/ and apps/api/src/version/.
 */
import type { SchemaObject } from '@nestjs/swagger';
import type { TSchema } from '@sinclair/typebox';
import { ErrorBodySchema, toOpenApi } from '@app/contracts';
import { VersionInfoSchema } from '../version/version-info';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** ErrorBody and VersionInfo are defined once, as TypeBox schemas that also give their types. */
const openApi = (schema: TSchema) => toOpenApi(schema) as unknown as SchemaObject;
const nullable = (s: SchemaObject): SchemaObject => ({ ...s, nullable: true });

const FINDING_PROPERTIES: Record<string, SchemaObject> = {
  line_number: nullable({
    type: 'integer',
    description:
      'Line of the template text: every paragraph of every part (document, headers, footers, notes) is one line',
  }),
  column: nullable({ type: 'integer', description: '1-based column in the paragraph' }),
  message: { type: 'string' },
  context: nullable({ type: 'string', description: 'The text of the paragraph around the tag' }),
  tag_name: nullable({
    type: 'string',
    description: '`if`, `for`, `endif`, …, or `expression` for `{{ … }}`',
  }),
  suggestion: nullable({ type: 'string' }),
  code: {
    type: 'string',
    description:
      'Ours, precise: syntax_error, unknown_tag, unknown_filter, unknown_test, unclosed_block, mismatched_block, ' +
      'tag_split_across_paragraphs, block_crosses_table_cells; warnings: similar_variable_name, image_without_image, ' +
      'image_placeholder_not_alone, dash_in_name',
  },
  tag: nullable({ type: 'string', description: 'The tag as written' }),
  location: nullable(ref('TemplateLocation') as SchemaObject),
};

export const ANSWER_SCHEMAS: Record<string, SchemaObject> = {
  ErrorBody: openApi(ErrorBodySchema),
  TemplateLocation: {
    type: 'object',
    properties: {
      part: { type: 'string', example: 'word/document.xml' },
      paragraph: { type: 'integer', description: '1-based paragraph in the part' },
      line: { type: 'integer' },
      table: nullable({
        type: 'object',
        properties: { table: { type: 'integer' }, row: { type: 'integer' }, cell: { type: 'integer' } },
      }),
    },
  },
  LintError: {
    type: 'object',
    properties: {
      error_type: {
        type: 'string',
        enum: [
          'syntax_error',
          'unclosed_tag',
          'mismatched_tag',
          'nested_error',
          'invalid_expression',
          'document_error',
        ],
      },
      ...FINDING_PROPERTIES,
    },
  },
  LintWarning: {
    type: 'object',
    properties: {
      warning_type: {
        type: 'string',
        enum: ['suspicious_syntax', 'unused_variable', 'complex_expression', 'long_line'],
      },
      ...FINDING_PROPERTIES,
    },
  },
  LintReport: {
    type: 'object',
    description: "The seed system's LintResult, with our richer fields (code, tag, location).",
    properties: {
      success: { type: 'boolean' },
      errors: { type: 'array', items: ref('LintError') },
      warnings: { type: 'array', items: ref('LintWarning') },
      summary: {
        type: 'object',
        properties: {
          total_errors: { type: 'integer' },
          total_warnings: { type: 'integer' },
          template_size: { type: 'integer' },
          lines_count: { type: 'integer' },
          jinja_tags_count: { type: 'integer' },
          completeness_score: { type: 'number' },
          processing_time_ms: { type: 'number' },
          parts: { type: 'array', items: { type: 'string' } },
        },
      },
      template_preview: { type: 'string' },
      template_content: { type: 'string', description: 'verbose only' },
      tags: { type: 'array', items: { type: 'object' }, description: 'verbose only' },
    },
    required: ['success', 'errors', 'warnings', 'summary'],
  },
  TemplateValidationFailed: {
    type: 'object',
    description:
      'Answer (200) of process-template-document with linter_options when the template fails validation.',
    properties: {
      status: { type: 'string', enum: ['template_validation_failed'] },
      message: { type: 'string' },
      linting_results: ref('LintReport') as SchemaObject,
    },
    required: ['status', 'message', 'linting_results'],
  },
  TemplateInspection: {
    type: 'object',
    properties: {
      variables: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            path: { type: 'string', example: 'items[].price' },
            usages: {
              type: 'array',
              items: { type: 'string', enum: ['printed', 'looped', 'tested', 'image', 'rich', 'computed'] },
            },
            count: { type: 'integer' },
            optional: { type: 'boolean' },
            numeric: { type: 'boolean' },
            mapping: { type: 'boolean' },
            locations: { type: 'array', items: ref('TemplateLocation') },
          },
        },
      },
      loops: { type: 'array', items: { type: 'object' } },
      conditions: { type: 'array', items: { type: 'object' } },
      images: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            kind: { type: 'string', enum: ['placeholder', 'by_value'] },
            name: { type: 'string' },
          },
        },
      },
      skeleton: {
        type: 'object',
        properties: { template_data: { type: 'object' }, images: { type: 'object' } },
      },
      json_schema: { type: 'object', description: 'JSON Schema (2020-12) of template_data' },
      summary: { type: 'object' },
    },
  },
  VersionInfo: openApi(VersionInfoSchema),
};

export const ERROR_BODY_REF = ref('ErrorBody');
export const VALIDATION_FAILED_REF = ref('TemplateValidationFailed');
