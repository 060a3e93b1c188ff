/**
 * The `options` form field of POST /api/v1/lint-docx-template: JSON text of LintOptions (the seed
 * system's LintOptions, defined once as LintOptionsSchema in @app/contracts): `response_format`
 * `"pdf"` (default) or `"json"`, `verbose`, `fail_on_warnings`, `max_line_length` (longer
 * paragraphs are `long_line` warnings); its other switches are accepted and ignored (every check
 * always runs). With the render form's parser in this folder: one place parses every request.
 */
import { type LintOptions, LintOptionsSchema } from '../payload/render-request';
import { checkPayload } from '../payload/schema';
import { InvalidRequestError } from '../request-errors';

export interface LintRequestOptions {
  response_format: 'pdf' | 'json';
  verbose: boolean;
  fail_on_warnings: boolean;
  max_line_length?: number;
}

export function parseLintOptions(text: unknown): LintRequestOptions {
  const fail = (problem: string, errors = [{ field: 'options', problems: [problem] }]): never => {
    throw new InvalidRequestError(`Invalid options: ${problem}`, { errors });
  };
  if (text === undefined || (typeof text === 'string' && text.trim() === ''))
    return { response_format: 'pdf', verbose: false, fail_on_warnings: false };
  if (typeof text !== 'string') return fail("the form field 'options' must be sent once, as text");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return fail(`not valid JSON: ${(e as Error).message}`);
  }
  const problems = checkPayload(LintOptionsSchema, value, 'options');
  if (problems.length > 0) return fail(problems[0].problems.join(', '), problems);
  const o = value as LintOptions;
  return {
    response_format: o.response_format ?? 'pdf',
    verbose: o.verbose === true,
    fail_on_warnings: o.fail_on_warnings === true,
    ...(typeof o.max_line_length === 'number' ? { max_line_length: o.max_line_length } : {}),
  };
}
