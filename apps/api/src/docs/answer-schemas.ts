/**
 * OpenAPI schemas of the answers (error bodies, the lint report, the inspection, the version).
 * Requests are documented from their one definition (the payload schemas of @app/contracts);
 * these describe what the code sends back, written from libs/contracts/src/errors.ts,
 * libs/engine/src/lint/lint-template.ts, libs/engine/src/inspect/ and apps/api/src/version/.
 */
import type { SchemaObject } from '@nestjs/swagger';
import type { TSchema } from '@sinclair/typebox';
import { ErrorBodySchema, toOpenApi } from '@app/contracts';
import { LintErrorSchema, LintReportSchema, LintWarningSchema, TemplateLocationSchema } from '@app/engine';
import { ValidationFailedBodySchema } from '../documents/template-validation';
import { VersionInfoSchema } from '../version/version-info';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** ErrorBody, the lint report and VersionInfo are defined once, as TypeBox schemas that also give their types. */
const openApi = (schema: TSchema) => toOpenApi(schema) as unknown as SchemaObject;

export const ANSWER_SCHEMAS: Record<string, SchemaObject> = {
  ErrorBody: openApi(ErrorBodySchema),
  TemplateLocation: openApi(TemplateLocationSchema),
  LintError: openApi(LintErrorSchema),
  LintWarning: openApi(LintWarningSchema),
  LintReport: openApi(LintReportSchema),
  TemplateValidationFailed: openApi(ValidationFailedBodySchema),
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
