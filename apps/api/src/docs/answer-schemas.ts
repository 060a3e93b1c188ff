/**
 * OpenAPI schemas of the answers (error bodies, the lint report, the inspection, the version),
 * converted from the one definition of each (TypeBox schemas beside the code that answers:
 * libs/contracts/src/errors.ts, libs/engine/src/lint/lint-report.ts,
 * libs/engine/src/inspect/inspection-schema.ts, apps/api/src/documents/template-validation.ts,
 * apps/api/src/version/version-info.ts), whose static types are what that code returns.
 */
import type { SchemaObject } from '@nestjs/swagger';
import type { TSchema } from '@sinclair/typebox';
import { ErrorBodySchema, toOpenApi } from '@app/contracts';
import {
  LintErrorSchema,
  LintReportSchema,
  LintWarningSchema,
  TemplateInspectionSchema,
  TemplateLocationSchema,
} from '@app/engine';
import { ValidationFailedBodySchema } from '../documents/template-validation';
import { VersionInfoSchema } from '../version/version-info';

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
