/**
 * OpenAPI schemas of the answers (error bodies, the lint report, the inspection, the version),
 * converted from the one definition of each (TypeBox schemas beside the code that answers:
 * libs/contracts/src/errors.ts, libs/engine/src/lint/lint-report.ts,
 * libs/engine/src/inspect/inspection-schema.ts, apps/api/src/version/version-info.ts; the
 * integrated linting's answer is defined here), whose static types are what that code returns.
 */
import type { SchemaObject } from '@nestjs/swagger';
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ErrorBodySchema, toOpenApi } from '@app/contracts';
import {
  LintErrorSchema,
  LintReportSchema,
  LintWarningSchema,
  TemplateInspectionSchema,
  TemplateLocationSchema,
} from '@app/engine';
import { VersionInfoSchema } from '../version/version-info';

/** The integrated linting's answer (documents/template-validation.ts gives it). */
export const ValidationFailedBodySchema = Type.Object(
  {
    status: Type.Literal('template_validation_failed'),
    message: Type.String(),
    linting_results: LintReportSchema,
  },
  {
    $id: 'TemplateValidationFailed',
    description:
      'Answer (200) of process-template-document with linter_options when the template fails validation.',
  },
);
export type ValidationFailedBody = Static<typeof ValidationFailedBodySchema>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const openApi = (schema: TSchema) => toOpenApi(schema) as unknown as SchemaObject;

export const ANSWER_SCHEMAS: Record<string, SchemaObject> = {
  ErrorBody: openApi(ErrorBodySchema),
  TemplateLocation: openApi(TemplateLocationSchema),
  LintError: openApi(LintErrorSchema),
  LintWarning: openApi(LintWarningSchema),
  LintReport: openApi(LintReportSchema),
  TemplateValidationFailed: openApi(ValidationFailedBodySchema),
  TemplateInspection: openApi(TemplateInspectionSchema),
  VersionInfo: openApi(VersionInfoSchema),
};

export const ERROR_BODY_REF = ref('ErrorBody');
export const VALIDATION_FAILED_REF = ref('TemplateValidationFailed');
