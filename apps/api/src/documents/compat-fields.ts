/**
 * The seed system's later request fields (v1.6 and on): `undefined_behavior` and `linter_options`,
 * as separate form fields beside `data` (with `images`), or as keys of `request_data` for v1.2–1.5
 * callers. Same meaning wherever they come from.
 */
import { InvalidRequestError } from '@app/engine';
import type { UndefinedMode } from '@app/contracts';

/** The form fields that make a request a v1.6+ one. */
export const V16_FIELDS = ['images', 'undefined_behavior', 'linter_options'] as const;

/** The seed system's names → ours (`silent` is our `empty`). */
const UNDEFINED_BEHAVIORS: Record<string, UndefinedMode> = {
  silent: 'empty',
  property_missing: 'property_missing',
  debug: 'debug',
  strict: 'strict',
};

export interface LinterRequest {
  /** Lint before rendering; a failing template answers 200 with the report instead of a document. */
  enabled: boolean;
  /** `json` (default): `{"status": "template_validation_failed", …}`; `pdf`: the report as a PDF. */
  response_format: 'json' | 'pdf';
  verbose: boolean;
  /** Warnings fail the validation too. */
  fail_on_warnings: boolean;
  /** Paragraphs longer than this are `long_line` warnings. */
  max_line_length?: number;
}

const LINTER_BOOLEANS = [
  'enabled',
  'verbose',
  'fail_on_warnings',
  'check_undefined_vars',
  'check_tag_matching',
  'check_nested_structure',
];
/** Accepted for the seed system's callers; our linter always runs every check. */
const LINTER_IGNORED = ['check_undefined_vars', 'check_tag_matching', 'check_nested_structure'];
const LINTER_FIELDS = [
  'enabled',
  'response_format',
  'verbose',
  'fail_on_warnings',
  'max_line_length',
  ...LINTER_IGNORED,
];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function parseUndefinedBehavior(value: unknown, field: string): UndefinedMode {
  if (typeof value === 'string' && Object.prototype.hasOwnProperty.call(UNDEFINED_BEHAVIORS, value))
    return UNDEFINED_BEHAVIORS[value];
  throw new InvalidRequestError(
    `Invalid ${field}: must be one of ${Object.keys(UNDEFINED_BEHAVIORS).join(', ')}`,
    {
      errors: [
        { field, problems: [`${field} must be one of ${Object.keys(UNDEFINED_BEHAVIORS).join(', ')}`] },
      ],
    },
  );
}

export function parseLinterOptions(value: unknown, field: string): LinterRequest {
  const fail = (problem: string): never => {
    throw new InvalidRequestError(`Invalid ${field}: ${problem}`, {
      errors: [{ field, problems: [problem] }],
    });
  };
  if (!isPlainObject(value)) return fail(`${field} must be a JSON object`);
  for (const key of Object.keys(value)) {
    if (!LINTER_FIELDS.includes(key)) fail(`property ${key} should not exist`);
  }
  for (const key of LINTER_BOOLEANS) {
    if (value[key] !== undefined && typeof value[key] !== 'boolean') fail(`${key} must be a boolean`);
  }
  if (
    value.max_line_length !== undefined &&
    (typeof value.max_line_length !== 'number' || value.max_line_length <= 0)
  )
    fail('max_line_length must be a positive number');
  const format = value.response_format ?? 'json';
  if (format !== 'json' && format !== 'pdf') fail('response_format must be "json" or "pdf"');
  return {
    enabled: value.enabled !== false,
    response_format: format as 'json' | 'pdf',
    verbose: value.verbose === true,
    fail_on_warnings: value.fail_on_warnings === true,
    ...(typeof value.max_line_length === 'number' ? { max_line_length: value.max_line_length } : {}),
  };
}

/** The v1.6+ form fields the caller sent (text fields of the multipart form). */
export function v16FieldsSent(form: Record<string, unknown>): string[] {
  return V16_FIELDS.filter((name) => form[name] !== undefined);
}

/**
 * `request_data` carries everything of its own; v1.6 fields beside it would be a second, perhaps
 * contradictory, source of the same settings.
 */
export function refuseMixedModes(form: Record<string, unknown>): void {
  const extra = v16FieldsSent(form);
  if (form.request_data !== undefined && extra.length) {
    throw new InvalidRequestError(
      `Send 'request_data' (enhanced mode) or the v1.6 form fields (${extra.join(', ')}) beside 'data', not both`,
      { fields: ['request_data', ...extra] },
    );
  }
}

/** The undefined mode of `request_data`: `undefined_behavior` or `options.undefined`, not both at odds. */
export function mergeUndefinedModes(
  fromOptions: UndefinedMode | undefined,
  fromBehavior: UndefinedMode | undefined,
): UndefinedMode | undefined {
  if (fromOptions !== undefined && fromBehavior !== undefined && fromOptions !== fromBehavior) {
    throw new InvalidRequestError(
      `request_data sets options.undefined (${fromOptions}) and undefined_behavior differently; send one`,
      { fields: ['options.undefined', 'undefined_behavior'] },
    );
  }
  return fromBehavior ?? fromOptions;
}
