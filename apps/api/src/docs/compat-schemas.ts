/**
 * OpenAPI schemas of the seed-system compatibility fields and the template tools (lint, inspect,
 * version), written by hand from the code they describe: apps/api/src/documents/compat-fields.ts,
 * libs/engine/src/lint/lint-template.ts, libs/engine/src/inspect/, apps/api/src/version/.
 */
import type { SchemaObject } from '@nestjs/swagger';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const nullable = (s: SchemaObject): SchemaObject => ({ ...s, nullable: true });

export const UNDEFINED_BEHAVIOR_SCHEMA: SchemaObject = {
  type: 'string',
  enum: ['silent', 'property_missing', 'debug', 'strict'],
  description:
    'What a variable missing from the data becomes: `silent` (default) nothing; `property_missing` the text ' +
    '`<property missing in json>`; `debug` `[Missing variable: customer.name]`; `strict` 422 undefined_variable naming every one.',
};

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

export const COMPAT_SCHEMAS: Record<string, SchemaObject> = {
  LinterOptions: {
    type: 'object',
    description:
      'Lint the template before rendering. When it fails: 200 with TemplateValidationFailed (json) or the PDF report (pdf). ' +
      'max_line_length makes longer paragraphs long_line warnings. check_undefined_vars, check_tag_matching and ' +
      "check_nested_structure are accepted for the seed system's callers and ignored (every check runs). Other fields are refused.",
    properties: {
      enabled: { type: 'boolean', default: true },
      response_format: { type: 'string', enum: ['json', 'pdf'], default: 'json' },
      verbose: { type: 'boolean', default: false },
      fail_on_warnings: { type: 'boolean', default: false },
      check_undefined_vars: { type: 'boolean' },
      check_tag_matching: { type: 'boolean' },
      check_nested_structure: { type: 'boolean' },
      max_line_length: { type: 'number' },
    },
    additionalProperties: false,
  },
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
  VersionInfo: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      version: { type: 'string' },
      api_version: { type: 'string' },
      compatible_with: { type: 'array', items: { type: 'string' } },
      modes: { type: 'object', additionalProperties: { type: 'string' } },
      undefined_behaviors: { type: 'array', items: { type: 'string' } },
      features: {
        type: 'object',
        description: "The seed system's features object",
        properties: {
          undefined_behavior_options: { type: 'array', items: { type: 'string' } },
          default_undefined_behavior: { type: 'string', example: 'silent' },
          missing_fields_handling: { type: 'string', example: 'configurable' },
        },
      },
      capabilities: {
        type: 'array',
        items: { type: 'string' },
        description: 'What this service does beyond the seed system (lint, inspect, docx_output, …)',
      },
      engine: { type: 'object' },
      converter: {
        type: 'object',
        properties: {
          kind: { type: 'string', example: 'libreoffice' },
          version: { type: 'string', example: 'LibreOffice 7.4.7.2 40(Build:2)' },
          reported_by: { type: 'string', enum: ['worker', 'none'] },
        },
      },
    },
  },
};

export const VALIDATION_FAILED_REF = ref('TemplateValidationFailed');

export const LINT_BODY_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['document'],
  properties: {
    document: { type: 'string', format: 'binary', description: 'The .docx template' },
    options: {
      type: 'string',
      description:
        'JSON text: `response_format` `"pdf"` (default) or `"json"`, `verbose`, `fail_on_warnings` (the seed ' +
        "system's other switches are accepted and ignored).",
      example: '{"response_format": "json", "verbose": false}',
    },
  },
};

export const INSPECT_BODY_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['file'],
  properties: { file: { type: 'string', format: 'binary', description: 'The .docx template' } },
};

/** Form fields of the v1.6+ form, added to the render body's schema. */
export const V16_FORM_PROPERTIES: Record<string, SchemaObject> = {
  images: {
    type: 'string',
    description:
      'v1.6+ form (with `data`): JSON text of an object name → ImageData (#/components/schemas/ImageData).',
    example: '{"logo": {"data": "iVBORw0KGgo…", "width_mm": 40}}',
  },
  undefined_behavior: {
    ...UNDEFINED_BEHAVIOR_SCHEMA,
    description: `v1.6+ form (with \`data\`). ${UNDEFINED_BEHAVIOR_SCHEMA.description}`,
  },
  linter_options: {
    type: 'string',
    description: 'v1.6+ form (with `data`): JSON text of LinterOptions (#/components/schemas/LinterOptions).',
    example: '{"enabled": true, "response_format": "json"}',
  },
};
