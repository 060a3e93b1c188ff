/**
 * The seed system's integrated linting (`linter_options`): the template is linted before it is
 * rendered, and one that fails answers 200 with `{"status": "template_validation_failed", …}`.
 */
import type { ValidationFailedBody } from '../docs/answer-schemas';
import { lintDocxTemplate, type LintReport, type RenderRequest } from '@app/engine';
import type { LinterRequest } from '@app/contracts';

// The answer's schema is in docs/answer-schemas.ts (the OpenAPI document's folder imports no controller's).

/** The report and the answer body when the template fails validation; null when it passes. */
export function lintFailure(
  template: Buffer,
  request: RenderRequest,
  linter: LinterRequest,
): { report: LintReport; body: ValidationFailedBody } | null {
  const report = lintDocxTemplate(template, {
    verbose: linter.verbose,
    failOnWarnings: linter.fail_on_warnings,
    maxLineLength: linter.max_line_length,
    imageNames: Object.keys(request.images ?? {}),
  });
  if (report.success) return null;
  const { total_errors: errors, total_warnings: warnings } = report.summary;
  return {
    report,
    body: {
      status: 'template_validation_failed',
      message: `Template validation failed with ${errors} error${errors === 1 ? '' : 's'} and ${warnings} warning${warnings === 1 ? '' : 's'}`,
      linting_results: {
        success: report.success,
        errors: report.errors,
        warnings: report.warnings,
        summary: report.summary,
        template_preview: report.template_preview,
        ...(report.template_content !== undefined ? { template_content: report.template_content } : {}),
        ...(report.tags !== undefined ? { tags: report.tags } : {}),
      },
    },
  };
}
