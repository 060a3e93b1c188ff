/**
 * The `options` form field of POST /api/v1/lint-docx-template (the seed system's LintOptions):
 * `response_format` `"pdf"` (default) or `"json"`, `verbose`, `fail_on_warnings`, `max_line_length`
 * (longer paragraphs are `long_line` warnings); its other switches are accepted and ignored (every
 * check always runs).
 */
import { InvalidRequestError } from '@app/engine';

export interface LintRequestOptions {
  response_format: 'pdf' | 'json';
  verbose: boolean;
  fail_on_warnings: boolean;
  max_line_length?: number;
}

const BOOLEANS = [
  'verbose',
  'fail_on_warnings',
  'check_undefined_vars',
  'check_tag_matching',
  'check_nested_structure',
];
const KNOWN = ['response_format', 'max_line_length', ...BOOLEANS];

export function parseLintOptions(text: unknown): LintRequestOptions {
  const fail = (problem: string): never => {
    throw new InvalidRequestError(`Invalid options: ${problem}`, {
      errors: [{ field: 'options', problems: [problem] }],
    });
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
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail('options must be a JSON object');
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!KNOWN.includes(key)) fail(`property ${key} should not exist`);
  for (const key of BOOLEANS)
    if (o[key] !== undefined && typeof o[key] !== 'boolean') fail(`${key} must be a boolean`);
  if (o.max_line_length !== undefined && (typeof o.max_line_length !== 'number' || !(o.max_line_length > 0)))
    fail('max_line_length must be a positive number');
  const format = o.response_format ?? 'pdf';
  if (format !== 'pdf' && format !== 'json') fail('response_format must be "pdf" or "json"');
  return {
    response_format: format as 'pdf' | 'json',
    verbose: o.verbose === true,
    fail_on_warnings: o.fail_on_warnings === true,
    ...(typeof o.max_line_length === 'number' ? { max_line_length: o.max_line_length } : {}),
  };
}
