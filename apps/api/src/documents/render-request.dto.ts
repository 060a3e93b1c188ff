/**
 * The form fields of POST /api/v1/process-template-document, validated with class-validator:
 * `data` (legacy: a JSON object of template variables) or `request_data` (enhanced: JSON with
 * `template_data`, optional `images` and optional `options`). Every problem becomes a typed error
 * with the interface specification's error type.
 *
 * The JSON is the caller's: it is checked for depth first, without recursion, and nothing walks it
 * recursively before that. class-transformer is never run over it (it recurses without bound and
 * throws on a `constructor` key); `template_data` is passed on as JSON.parse made it, and the
 * fields of `request_data`, `images.<name>` and `options` are checked with Object.keys of the
 * parsed JSON, so own keys such as `__proto__` are seen and refused like any unknown field.
 */
import 'reflect-metadata';
import {
  Allow,
  IsIn,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsPositive,
  IsString,
  validateSync,
  ValidationError,
} from 'class-validator';
import {
  type ImageData,
  InvalidRequestError,
  MissingTemplateDataError,
  parseDataJson,
  PayloadTooLargeError,
  plainNumbers,
  PyFloat,
  type RenderRequest,
} from '@app/engine';
import { type OutputFormat, type PdfOptions, UNDEFINED_MODES, type UndefinedMode } from '@app/contracts';
import { parsePdfOptions, pdfOptionProblems } from '@app/converters';
import {
  mergeUndefinedModes,
  parseLinterOptions,
  parseUndefinedBehavior,
  refuseMixedModes,
  v16FieldsSent,
  type LinterRequest,
} from './compat-fields';
import {
  LOCALE_OPTION_FIELDS,
  localeFromForm,
  localeFromOptions,
  refuseLocaleFormFields,
} from './locale-fields';

/** One image of `images`: base64 PNG (no data-URL prefix) and an optional size. */
export class ImageDataDto implements ImageData {
  @IsString()
  @IsNotEmpty()
  data!: string;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  width_mm?: number;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  height_mm?: number;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  width_px?: number;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsPositive()
  height_px?: number;
}

/** Extras of this implementation (docs/api.md). */
export class RequestOptionsDto {
  /** "empty" (default): nothing; "strict": an error (422); "debug" / "property_missing": a marker. */
  @IsOptional()
  @IsIn(UNDEFINED_MODES)
  undefined?: UndefinedMode;

  /** "pdf" (default) or "docx": the filled Word document, without conversion. */
  @IsOptional()
  @IsIn(['pdf', 'docx'])
  output?: OutputFormat;

  /** How the PDF is written; checked by pdfOptionErrors (the converters' shared validator). */
  @Allow()
  pdf?: PdfOptions;

  /** The formatting filters' default locale and IANA time zone: checked by locale-fields.ts. */
  @Allow()
  locale?: string;

  @Allow()
  timezone?: string;
}

/** The known fields of `request_data` (checked by hand: see parseRenderFields). */
const REQUEST_FIELDS = [
  'template_data',
  'images',
  'documents',
  'options',
  'undefined_behavior',
  'linter_options',
] as const;
const IMAGE_FIELDS = ['data', 'width_mm', 'height_mm', 'width_px', 'height_px'] as const;
const OPTION_FIELDS = ['undefined', 'output', 'pdf', ...LOCALE_OPTION_FIELDS] as const;

export interface ParsedRenderRequest {
  /** `legacy`: `data` alone; `enhanced`: `request_data`; `v1.6`: `data` with images, undefined_behavior or linter_options fields. */
  mode: 'legacy' | 'enhanced' | 'v1.6';
  request: RenderRequest;
  options: RequestOptionsDto;
  /** Lint before rendering and answer with the report when the template fails (the seed system's linter_options). */
  linter?: LinterRequest;
}

const STRICT = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true } as const;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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

/** `[{ field: 'images.logo.width_mm', problems: ['width_mm must be a positive number'] }]` */
function describe(errors: ValidationError[], path = ''): { field: string; problems: string[] }[] {
  return errors.flatMap((e) => {
    const name = path ? `${path}.${e.property}` : e.property;
    const own = e.constraints ? [{ field: name, problems: Object.values(e.constraints) }] : [];
    return own.concat(describe(e.children ?? [], name));
  });
}

function fail(where: string, errors: ValidationError[], path: string): never {
  const problems = describe(errors, path);
  const first = problems[0];
  throw new InvalidRequestError(
    `Invalid ${where}: ${first ? `${first.field}: ${first.problems.join(', ')}` : 'unexpected structure'}`,
    { errors: problems },
  );
}

export interface ParseLimits {
  /** Deepest nesting of objects and arrays in `data` / `request_data` (MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** Sub-documents in `request_data.documents` (MAX_SUBDOCUMENTS). */
  maxDocuments?: number;
  /** Largest decoded file of options.pdf (MAX_PDF_EXTRA_BYTES; default the converters' 10 MiB). */
  maxPdfExtraBytes?: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxJsonDepth: 64, maxDocuments: 10 };

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

/** What class-validator reports for a field that is not whitelisted, for own keys it cannot see. */
function unknownFields(value: Record<string, unknown>, known: readonly string[]): ValidationError[] {
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) =>
      Object.assign(new ValidationError(), {
        property: key,
        value: value[key],
        constraints: { whitelistValidation: `property ${key} should not exist` },
        children: [],
      }),
    );
}

/** A class instance holding only the known fields of `value` (no user key reaches it). */
function knownFields<T extends object>(
  target: T,
  value: Record<string, unknown>,
  known: readonly string[],
): T {
  for (const key of known) {
    if (Object.prototype.hasOwnProperty.call(value, key))
      (target as Record<string, unknown>)[key] = value[key];
  }
  return target;
}

/** Validates a DTO built by knownFields() and the unknown fields of its source; [] when fine. */
function check(target: object, value: Record<string, unknown>, known: readonly string[]): ValidationError[] {
  return [...unknownFields(value, known), ...validateSync(target, STRICT)];
}

/**
 * Reads the text fields of the multipart form (multer's `req.body`). Throws InvalidRequestError
 * (400 invalid_request_structure) or MissingTemplateDataError (400 missing_template_data).
 */
export function parseRenderFields(
  fields: Record<string, unknown> | undefined,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
): ParsedRenderRequest {
  const form = fields ?? {};
  const data = field(form, 'data');
  const requestData = field(form, 'request_data');
  if (data !== undefined && requestData !== undefined) {
    throw new InvalidRequestError(
      "Send either 'data' (legacy mode) or 'request_data' (enhanced mode), not both",
      { fields: ['data', 'request_data'] },
    );
  }
  refuseMixedModes(form);
  if (data !== undefined) {
    const parsed = parseField(data, 'data', limits, true);
    if (!isPlainObject(parsed)) {
      throw new InvalidRequestError("The form field 'data' must be a JSON object of template variables", {
        field: 'data',
      });
    }
    if (v16FieldsSent(form).length) return parseV16Fields(form, parsed, limits);
    return { mode: 'legacy', request: { template_data: parsed }, options: localeFromForm(form) };
  }
  if (requestData === undefined) {
    if (v16FieldsSent(form).length)
      throw new MissingTemplateDataError("The v1.6 form needs 'data' (a JSON object of template variables)", {
        fields: ['data'],
      });
    throw new MissingTemplateDataError(
      "The form needs 'data' (a JSON object of template variables) or 'request_data' (JSON with template_data)",
      { fields: ['data', 'request_data'] },
    );
  }

  refuseLocaleFormFields(form);
  const read = parseField(requestData, 'request_data', limits, true);
  // Only template_data keeps floats as written; image sizes and options are plain numbers.
  const parsed = isPlainObject(read)
    ? Object.fromEntries(
        Object.entries(read).map(([k, v]) => [k, k === 'template_data' ? v : plainNumbers(v)]),
      )
    : read;
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

  // The top level and `options`; `images` must be an object (its entries are checked below).
  const errors = unknownFields(parsed, REQUEST_FIELDS);
  // null counts as absent, as @IsOptional() had it.
  const hasImages = Object.prototype.hasOwnProperty.call(parsed, 'images') && parsed.images != null;
  if (hasImages && !isPlainObject(parsed.images)) {
    errors.push(
      Object.assign(new ValidationError(), {
        property: 'images',
        value: parsed.images,
        constraints: { isObject: 'images must be an object' },
        children: [],
      }),
    );
  }
  const options = new RequestOptionsDto();
  const rawOptions = Object.prototype.hasOwnProperty.call(parsed, 'options') ? parsed.options : undefined;
  if (rawOptions != null) {
    if (!isPlainObject(rawOptions)) {
      errors.push(
        Object.assign(new ValidationError(), {
          property: 'options',
          value: rawOptions,
          constraints: { isObject: 'options must be an object' },
          children: [],
        }),
      );
    } else {
      const optionErrors = check(knownFields(options, rawOptions, OPTION_FIELDS), rawOptions, OPTION_FIELDS);
      optionErrors.push(...pdfOptionErrors(rawOptions, limits.maxPdfExtraBytes));
      if (optionErrors.length > 0) {
        errors.push(
          Object.assign(new ValidationError(), {
            property: 'options',
            value: rawOptions,
            children: optionErrors,
          }),
        );
      }
    }
  }
  if (errors.length > 0) fail('request_data', errors, '');

  const request: RenderRequest = { template_data: parsed.template_data };
  if (hasImages) request.images = checkImages(parsed.images as Record<string, unknown>, 'request_data');
  const documents = Object.prototype.hasOwnProperty.call(parsed, 'documents') ? parsed.documents : undefined;
  if (documents != null) request.documents = checkDocuments(documents, limits.maxDocuments ?? 10);
  const result: ParsedRenderRequest = {
    mode: 'enhanced',
    request,
    options: {
      ...optionsOf(options, limits.maxPdfExtraBytes),
      ...localeFromOptions(isPlainObject(rawOptions) ? rawOptions : undefined),
    },
  };
  return withCompatKeys(result, parsed);
}

/**
 * Checks each entry of `images` (request_data's or the v1.6 form field's). Kept as JSON.parse made
 * it: an image named `__proto__` or `constructor` is an own key like any other, and the library's
 * checks (Object.keys) see it.
 */
export function checkImages(images: Record<string, unknown>, where: string): Record<string, ImageData> {
  for (const name of Object.keys(images)) {
    const value = images[name];
    if (!isPlainObject(value)) {
      throw new InvalidRequestError(`Invalid ${where}: images.${name} must be an object with 'data'`, {
        errors: [{ field: `images.${name}`, problems: ['must be an object'] }],
        image_name: name,
      });
    }
    const imageErrors = check(knownFields(new ImageDataDto(), value, IMAGE_FIELDS), value, IMAGE_FIELDS);
    if (imageErrors.length > 0) fail(where, imageErrors, `images.${name}`);
  }
  return images as unknown as Record<string, ImageData>;
}

/** `undefined_behavior` and `linter_options` inside request_data (v1.2–1.5 callers of later servers). */
function withCompatKeys(result: ParsedRenderRequest, parsed: Record<string, unknown>): ParsedRenderRequest {
  const own = (key: string) => (Object.prototype.hasOwnProperty.call(parsed, key) ? parsed[key] : undefined);
  const behavior = own('undefined_behavior');
  const mode = mergeUndefinedModes(
    result.options.undefined,
    behavior == null ? undefined : parseUndefinedBehavior(behavior, 'undefined_behavior'),
  );
  if (mode !== undefined) result.options.undefined = mode;
  const linter = own('linter_options');
  if (linter != null) result.linter = parseLinterOptions(linter, 'linter_options');
  return result;
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
    options: localeFromForm(form),
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

/**
 * `documents`: name → {"data": "<base64 .docx>"}. Only the shape and the count are checked here;
 * each package is checked like a template (zip, XML, macros) by the engine, naming its key.
 */
function checkDocuments(documents: unknown, maxDocuments: number): Record<string, { data: string }> {
  if (!isPlainObject(documents))
    throw new InvalidRequestError(
      'Invalid request_data: documents must be an object of name → {"data": "<base64 .docx>"}',
      {
        errors: [{ field: 'documents', problems: ['must be an object'] }],
      },
    );
  const names = Object.keys(documents);
  if (names.length > maxDocuments)
    throw new PayloadTooLargeError(
      `The request has ${names.length} sub-documents; the limit is ${maxDocuments}`,
      {
        documents: names.length,
        limit: maxDocuments,
      },
    );
  for (const name of names) {
    const value = documents[name];
    const ok =
      isPlainObject(value) &&
      typeof value.data === 'string' &&
      value.data !== '' &&
      Object.keys(value).length === 1;
    if (!ok)
      throw new InvalidRequestError(
        `Invalid request_data: documents.${name} must be {"data": "<base64 .docx>"}`,
        {
          errors: [
            { field: `documents.${name}`, problems: ['must be an object with only a non-empty data string'] },
          ],
          document: name,
        },
      );
  }
  return documents as Record<string, { data: string }>;
}

/** The options the caller set, without the DTO's unset fields. */
function optionsOf(dto: RequestOptionsDto, maxPdfExtraBytes?: number): RequestOptionsDto {
  const out: RequestOptionsDto = {};
  if (dto.undefined !== undefined) out.undefined = dto.undefined;
  if (dto.output !== undefined) out.output = dto.output;
  if (dto.pdf != null) out.pdf = parsePdfOptions(dto.pdf, 'options.pdf', { maxExtraBytes: maxPdfExtraBytes });
  return out;
}

/**
 * `options.pdf` through the converters' validator (the worker and the CLI use the same one), as
 * ValidationErrors under `pdf` so the answer names e.g. `options.pdf.quality`. null is absent.
 */
function pdfOptionErrors(rawOptions: Record<string, unknown>, maxExtraBytes?: number): ValidationError[] {
  if (!Object.prototype.hasOwnProperty.call(rawOptions, 'pdf') || rawOptions.pdf == null) return [];
  return pdfOptionProblems(rawOptions.pdf, 'pdf', { maxExtraBytes }).map(({ field, problems }) =>
    Object.assign(new ValidationError(), {
      property: field,
      value: undefined,
      constraints: Object.fromEntries(problems.map((problem, i) => [`pdf${i}`, `${field} ${problem}`])),
      children: [],
    }),
  );
}
