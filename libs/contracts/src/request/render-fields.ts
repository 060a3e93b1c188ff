/**
 * The one request parser (issue 35): the form fields of POST /api/v1/process-template-document in
 * its three modes, the jobs' request_data (job-fields.ts builds on readRenderFields) and the
 * CLI's REQUEST.json (sent through as `request_data`), checked against the payload schemas
 * (EnhancedRequestSchema, ImageDataSchema, RenderOptionsSchema with PdfOptionsSchema,
 * SubDocumentSchema, LinterOptionsSchema), which also give their types and the OpenAPI document.
 * Each field is parsed once. Which form was sent is detectMode(); every problem becomes a typed
 * error with the interface specification's error type. Engine-free: what needs the engine (locale
 * names, PNG decoding) is a step the callers run with the engine's own functions.
 *
 * The JSON is the caller's: it is checked for depth first, without recursion, and nothing walks it
 * recursively before that. `template_data` is passed on as JSON.parse made it; the checks read own
 * keys only, so a key such as `__proto__` is seen and refused like any unknown field.
 */
import { parseDataJson, plainNumbers, PyFloat } from '../json-numbers';
import {
  EnhancedRequestSchema,
  type ImageData,
  ImageDataSchema,
  type LinterOptions,
  LinterOptionsSchema,
  RenderOptionsSchema,
  type RenderOptionsPayload,
  type RenderRequest,
  SubDocumentSchema,
  UndefinedBehaviorSchema,
  V16_FORM_PROPERTIES,
} from '../payload/render-request';
import { checkPayload, type FieldProblem, fieldsOf, isPlainObject } from '../payload/schema';
import type { PdfOptions } from '../pdf-options';
import { type ImageOutputOptions, isImageOutput, type UndefinedMode } from '../render-job';
import { InvalidRequestError, MissingTemplateDataError, PayloadTooLargeError } from '../request-errors';
import {
  type FormatDefaultsCheck,
  type LocaleOptions,
  localeFromForm,
  localeFromOptions,
  refuseLocaleFormFields,
} from './locale-fields';
import { parsePdfOptions, pdfOptionProblems } from './pdf-options-check';

/** The form fields that make a request a v1.6+ one (beside `data`), from the form's schema. */
export const V16_FIELDS = Object.keys(V16_FORM_PROPERTIES) as (keyof typeof V16_FORM_PROPERTIES)[];

export type RenderMode = 'legacy' | 'enhanced' | 'v1.6';

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

/** The formatting filters' default locale and IANA time zone are checked by locale-fields.ts. */
export interface RequestOptions extends LocaleOptions {
  undefined?: UndefinedMode;
  output?: RenderOptionsPayload['output'];
  pdf?: PdfOptions;
  image?: ImageOutputOptions;
}

export interface ParsedRenderRequest {
  mode: RenderMode;
  request: RenderRequest;
  options: RequestOptions;
  /** Lint before rendering and answer with the report when the template fails (the seed system's linter_options). */
  linter?: LinterRequest;
}

export interface ParseLimits {
  /** Deepest nesting of objects and arrays in `data` / `request_data` (MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** Sub-documents in `request_data.documents` (MAX_SUBDOCUMENTS). */
  maxDocuments?: number;
  /** Largest decoded file of options.pdf (MAX_PDF_EXTRA_BYTES; default 10 MiB). */
  maxPdfExtraBytes?: number;
  /** The engine's formatDefaultsOf, which knows the locales and zones (absent: passed as sent). */
  formatDefaults?: FormatDefaultsCheck;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxJsonDepth: 64, maxDocuments: 10 };

/** The seed system's names → ours (`silent` is our `empty`). */
const UNDEFINED_BEHAVIORS: Record<string, UndefinedMode> = {
  silent: 'empty',
  property_missing: 'property_missing',
  debug: 'debug',
  strict: 'strict',
};

const own = (o: Record<string, unknown>, key: string): unknown =>
  Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined;

/**
 * Which form the caller sent: `request_data` is the enhanced mode, `data` with any v1.6 field the
 * v1.6 form, `data` alone the legacy mode; undefined when neither. Mixing `request_data` with
 * `data` or with the v1.6 fields is refused.
 */
export function detectMode(form: Record<string, unknown>): RenderMode | undefined {
  const v16 = V16_FIELDS.filter((name) => form[name] !== undefined);
  if (form.data !== undefined && form.request_data !== undefined)
    throw new InvalidRequestError(
      "Send either 'data' (legacy mode) or 'request_data' (enhanced mode), not both",
      { fields: ['data', 'request_data'] },
    );
  if (form.request_data !== undefined && v16.length)
    // request_data carries everything of its own: the v1.6 fields would be a second source.
    throw new InvalidRequestError(
      `Send 'request_data' (enhanced mode) or the v1.6 form fields (${v16.join(', ')}) beside 'data', not both`,
      { fields: ['request_data', ...v16] },
    );
  if (form.request_data !== undefined) return 'enhanced';
  if (form.data !== undefined) return v16.length ? 'v1.6' : 'legacy';
  if (v16.length)
    throw new MissingTemplateDataError("The v1.6 form needs 'data' (a JSON object of template variables)", {
      fields: ['data'],
    });
  return undefined;
}

/** The text of one form field; a field sent twice is an error. */
function field(fields: Record<string, unknown>, name: string): string | undefined {
  const v = fields[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') {
    throw new InvalidRequestError(`The form field '${name}' must be sent once, as text`, { field: name });
  }
  return v;
}

function parseJson(text: string, name: string, numbersAsWritten = false): unknown {
  try {
    // Template data keeps `9.0` a float (it prints `9.0`, as in docxtpl): runtime/json-numbers.ts.
    return numbersAsWritten ? parseDataJson(text) : JSON.parse(text);
  } catch (e) {
    throw new InvalidRequestError(`The form field '${name}' is not valid JSON: ${(e as Error).message}`, {
      field: name,
    });
  }
}

/** `Invalid request_data: images.logo.width_mm: width_mm must be a positive number` */
function fail(where: string, problems: FieldProblem[], extra: Record<string, unknown> = {}): never {
  const first = problems[0];
  throw new InvalidRequestError(
    `Invalid ${where}: ${first ? `${first.field}: ${first.problems.join(', ')}` : 'unexpected structure'}`,
    { errors: problems, ...extra },
  );
}

/**
 * Whether `value` nests objects and arrays deeper than `maxDepth` (the outermost one is level 1).
 * Iterative, with an explicit stack: it must not overflow on the JSON it exists to refuse.
 */
export function exceedsJsonDepth(value: unknown, maxDepth: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (typeof v !== 'object' || v === null || v instanceof PyFloat) continue;
    if (depth > maxDepth) return true;
    // Own enumerable keys, as JSON.parse makes them (an own `__proto__` included).
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        values.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** JSON.parse, then the depth check, before anything else looks at the value. */
function parseField(text: string, name: string, limits: ParseLimits, numbersAsWritten = false): unknown {
  const parsed = parseJson(text, name, numbersAsWritten);
  if (exceedsJsonDepth(parsed, limits.maxJsonDepth)) {
    throw new InvalidRequestError(
      `The form field '${name}' nests objects and arrays deeper than ${limits.maxJsonDepth} levels`,
      { field: name, max_depth: limits.maxJsonDepth },
    );
  }
  return parsed;
}

/**
 * Reads the text fields of the multipart form (multer's `req.body`). Throws InvalidRequestError
 * (400 invalid_request_structure) or MissingTemplateDataError (400 missing_template_data).
 */
export function parseRenderFields(
  fields: Record<string, unknown> | undefined,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
): ParsedRenderRequest {
  return readRenderFields(fields ?? {}, limits, []).parsed;
}

/**
 * parseRenderFields, also taking `jobKeys` out of request_data's object (as JSON.parse made it,
 * template data's floats kept) before its fields are checked: the job's parser checks those.
 * A batch's data is in its items, so with `batch` the shared `template_data` may be left out.
 */
export function readRenderFields(
  form: Record<string, unknown>,
  limits: ParseLimits,
  jobKeys: readonly string[],
): { parsed: ParsedRenderRequest; job: Record<string, unknown> } {
  const data = field(form, 'data');
  const requestData = field(form, 'request_data');
  const mode = detectMode(form);
  if (data !== undefined) {
    const parsed = parseField(data, 'data', limits, true);
    if (!isPlainObject(parsed)) {
      throw new InvalidRequestError("The form field 'data' must be a JSON object of template variables", {
        field: 'data',
      });
    }
    if (mode === 'v1.6') return { parsed: parseV16Fields(form, parsed, limits), job: {} };
    return {
      parsed: {
        mode: 'legacy',
        request: { template_data: parsed },
        options: localeFromForm(form, limits.formatDefaults),
      },
      job: {},
    };
  }
  if (requestData === undefined)
    throw new MissingTemplateDataError(
      "The form needs 'data' (a JSON object of template variables) or 'request_data' (JSON with template_data)",
      { fields: ['data', 'request_data'] },
    );
  refuseLocaleFormFields(form);
  const read = parseField(requestData, 'request_data', limits, true);
  const job: Record<string, unknown> = {};
  let fields: unknown = read;
  if (isPlainObject(read) && jobKeys.some((k) => Object.prototype.hasOwnProperty.call(read, k))) {
    const rest: Record<string, unknown> = { ...read };
    for (const k of jobKeys) {
      if (!Object.prototype.hasOwnProperty.call(read, k)) continue;
      job[k] = read[k];
      delete rest[k];
    }
    if (
      Object.prototype.hasOwnProperty.call(job, 'batch') &&
      !Object.prototype.hasOwnProperty.call(rest, 'template_data')
    )
      rest.template_data = {};
    fields = rest;
  }
  // Only template_data keeps floats as written; image sizes and options are plain numbers.
  const parsed = isPlainObject(fields)
    ? Object.fromEntries(
        Object.entries(fields).map(([k, v]) => [k, k === 'template_data' ? v : plainNumbers(v)]),
      )
    : fields;
  return { parsed: parseEnhanced(parsed, limits), job };
}

/** `request_data`: EnhancedRequestSchema, in the order the errors were always reported. */
function parseEnhanced(parsed: unknown, limits: ParseLimits): ParsedRenderRequest {
  if (!isPlainObject(parsed)) {
    throw new InvalidRequestError("The form field 'request_data' must be a JSON object", {
      field: 'request_data',
    });
  }
  if (!isPlainObject(parsed.template_data)) {
    throw new MissingTemplateDataError(
      parsed.template_data === undefined
        ? 'request_data has no template_data'
        : 'request_data.template_data must be an object of template variables',
      { field: 'template_data' },
    );
  }
  // The top level's fields, `images` as an object and `options` whole; null counts as absent.
  const known = fieldsOf(EnhancedRequestSchema);
  const problems: FieldProblem[] = Object.keys(parsed)
    .filter((key) => !known.includes(key))
    .map((key) => ({ field: key, problems: [`property ${key} should not exist`] }));
  const images = own(parsed, 'images');
  if (images != null && !isPlainObject(images))
    problems.push({ field: 'images', problems: ['images must be an object'] });
  const rawOptions = own(parsed, 'options');
  if (rawOptions != null) {
    // pdf, locale and timezone have checks of their own (pdf-options-check.ts, locale-fields.ts).
    problems.push(
      ...checkPayload(RenderOptionsSchema, without(rawOptions, 'pdf', 'locale', 'timezone'), 'options'),
    );
    problems.push(...pdfProblems(rawOptions, limits.maxPdfExtraBytes));
  }
  if (problems.length > 0) fail('request_data', problems);

  const request: RenderRequest = { template_data: parsed.template_data };
  if (images != null) request.images = checkImages(images as Record<string, unknown>, 'request_data');
  const documents = own(parsed, 'documents');
  if (documents != null) request.documents = checkDocuments(documents, limits.maxDocuments ?? 10);
  const options: RequestOptions =
    rawOptions == null
      ? {}
      : {
          ...optionsOf(rawOptions as RenderOptionsPayload, limits.maxPdfExtraBytes),
          ...localeFromOptions(rawOptions as Record<string, unknown>, limits.formatDefaults),
        };
  const behavior = own(parsed, 'undefined_behavior');
  const undefinedMode = mergeUndefinedModes(
    options.undefined,
    behavior == null ? undefined : parseUndefinedBehavior(behavior, 'undefined_behavior'),
  );
  if (undefinedMode !== undefined) options.undefined = undefinedMode;
  const result: ParsedRenderRequest = { mode: 'enhanced', request, options };
  const linter = own(parsed, 'linter_options');
  if (linter != null) result.linter = parseLinterOptions(linter, 'linter_options');
  return result;
}

/** A copy of `value` without `keys` (checked on their own). */
function without(value: unknown, ...keys: string[]): unknown {
  if (!isPlainObject(value) || keys.every((key) => own(value, key) === undefined)) return value;
  const copy = { ...value };
  for (const key of keys) delete copy[key];
  return copy;
}

/**
 * `options.pdf` through pdf-options-check.ts (the worker uses the same one), named
 * under `options` (e.g. `options.pdf.quality`). null is absent.
 */
function pdfProblems(rawOptions: unknown, maxExtraBytes?: number): FieldProblem[] {
  const pdf = isPlainObject(rawOptions) ? own(rawOptions, 'pdf') : undefined;
  if (pdf == null) return [];
  return pdfOptionProblems(pdf, 'pdf', { maxExtraBytes }).map(({ field, problems }) => ({
    field: `options.${field}`,
    problems: problems.map((problem) => `${field} ${problem}`),
  }));
}

/**
 * Checks each entry of `images` (request_data's or the v1.6 form field's) against ImageDataSchema.
 * Kept as JSON.parse made it: an image named `__proto__` or `constructor` is an own key like any
 * other, and the library's checks (Object.keys) see it.
 */
export function checkImages(images: Record<string, unknown>, where: string): Record<string, ImageData> {
  for (const name of Object.keys(images)) {
    const value = images[name];
    if (!isPlainObject(value))
      fail(where, [{ field: `images.${name}`, problems: [`${name} must be an object with 'data'`] }], {
        image_name: name,
      });
    const problems = checkPayload(ImageDataSchema, value, `images.${name}`);
    if (problems.length > 0) fail(where, problems);
  }
  return images as unknown as Record<string, ImageData>;
}

/**
 * `documents`: name → SubDocument. Only the shape and the count are checked here; each package is
 * checked like a template (zip, XML, macros) by the engine, naming its key.
 */
function checkDocuments(documents: unknown, maxDocuments: number): Record<string, { data: string }> {
  if (!isPlainObject(documents))
    fail('request_data', [
      { field: 'documents', problems: ['documents must be an object of name → {"data": "<base64 .docx>"}'] },
    ]);
  const names = Object.keys(documents);
  if (names.length > maxDocuments)
    throw new PayloadTooLargeError(
      `The request has ${names.length} sub-documents; the limit is ${maxDocuments}`,
      { documents: names.length, limit: maxDocuments },
    );
  for (const name of names) {
    const problems = checkPayload(SubDocumentSchema, documents[name], `documents.${name}`);
    if (problems.length > 0) fail('request_data', problems, { document: name });
  }
  return documents as Record<string, { data: string }>;
}

/** The v1.6+ form: `data` plus the form fields `images`, `undefined_behavior` and `linter_options`. */
function parseV16Fields(
  form: Record<string, unknown>,
  data: Record<string, unknown>,
  limits: ParseLimits,
): ParsedRenderRequest {
  const result: ParsedRenderRequest = {
    mode: 'v1.6',
    request: { template_data: data },
    options: localeFromForm(form, limits.formatDefaults),
  };
  const images = field(form, 'images');
  if (images !== undefined && images.trim() !== '') {
    const parsed = parseField(images, 'images', limits);
    if (!isPlainObject(parsed))
      throw new InvalidRequestError("The form field 'images' must be a JSON object of name → ImageData", {
        field: 'images',
      });
    result.request.images = checkImages(parsed, 'images');
  }
  const behavior = field(form, 'undefined_behavior');
  if (behavior !== undefined && behavior.trim() !== '') {
    // Plain text (`debug`) or a JSON string (`"debug"`): clients send both.
    const text = behavior.trim();
    result.options.undefined = parseUndefinedBehavior(
      text.startsWith('"') ? parseJson(text, 'undefined_behavior') : text,
      'undefined_behavior',
    );
  }
  const linter = field(form, 'linter_options');
  if (linter !== undefined && linter.trim() !== '')
    result.linter = parseLinterOptions(parseField(linter, 'linter_options', limits), 'linter_options');
  return result;
}

/** `undefined_behavior` (UndefinedBehaviorSchema) as our mode. */
function parseUndefinedBehavior(value: unknown, where: string): UndefinedMode {
  const problems = checkPayload(UndefinedBehaviorSchema, value, where);
  if (problems.length > 0) fail(where, problems);
  return UNDEFINED_BEHAVIORS[value as string];
}

/** `linter_options` (LinterOptionsSchema), with its defaults. */
function parseLinterOptions(value: unknown, where: string): LinterRequest {
  const problems = checkPayload(LinterOptionsSchema, value, where);
  if (problems.length > 0) fail(where, problems);
  const o = value as LinterOptions;
  return {
    enabled: o.enabled !== false,
    response_format: o.response_format ?? 'json',
    verbose: o.verbose === true,
    fail_on_warnings: o.fail_on_warnings === true,
    ...(typeof o.max_line_length === 'number' ? { max_line_length: o.max_line_length } : {}),
  };
}

/** The undefined mode of `request_data`: `undefined_behavior` or `options.undefined`, not both at odds. */
function mergeUndefinedModes(
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

/** The options the caller set (a fresh object: no key of the caller's reaches it). */
function optionsOf(raw: RenderOptionsPayload, maxExtraBytes?: number): RequestOptions {
  const out: RequestOptions = {};
  if (raw.undefined !== undefined) out.undefined = raw.undefined;
  if (raw.output !== undefined) out.output = raw.output;
  if (raw.pdf != null) out.pdf = parsePdfOptions(raw.pdf, 'options.pdf', { maxExtraBytes });
  if (raw.image !== undefined) out.image = imageOptionsOf(raw.image, raw.output);
  if (out.pdf?.signature && out.output !== undefined && out.output !== 'pdf')
    // A signature covers a PDF's bytes: images or a .docx of the document would carry none.
    throw new InvalidRequestError(
      `options.pdf.signature applies to options.output "pdf", not "${out.output}"`,
      { fields: ['options.pdf.signature', 'options.output'], output: out.output },
    );
  return out;
}

/** options.image, which the schema checked: only with png or jpeg, dpi or a pixel size, quality for jpeg. */
function imageOptionsOf(image: ImageOutputOptions, output: RequestOptions['output']): ImageOutputOptions {
  if (!isImageOutput(output)) {
    throw new InvalidRequestError(
      `options.image applies to options.output "png" or "jpeg", not "${output ?? 'pdf'}"`,
      { fields: ['options.image', 'options.output'], output: output ?? 'pdf' },
    );
  }
  if (image.dpi !== undefined && (image.width_px !== undefined || image.height_px !== undefined)) {
    throw new InvalidRequestError('options.image: give dpi or width_px / height_px, not both', {
      field: 'options.image.dpi',
    });
  }
  if (image.quality !== undefined && output !== 'jpeg') {
    throw new InvalidRequestError('options.image.quality applies to options.output "jpeg"', {
      fields: ['options.image.quality', 'options.output'],
    });
  }
  return { ...image };
}
