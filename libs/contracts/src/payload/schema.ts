/**
 * One definition per payload. Each request payload is written once, as a TypeBox schema (JSON
 * Schema): its TypeScript type is `Static<typeof Schema>`, checkPayload() validates against it,
 * and openApiSchemas() turns the same objects into the OpenAPI document's components.
 *
 * Two keywords of our own ride along in a schema (JSON Schema ignores unknown keywords; the
 * OpenAPI conversion drops them): `problem`, the sentence a caller reads when a value breaks that
 * schema ("must be a positive number"), and `unknownProblem`, what an object says of a key it does
 * not know. What JSON Schema cannot say (one field only together with another, page ranges that
 * run backwards) is a small `refine` function beside the schema.
 */
import { FormatRegistry, type SchemaOptions, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Strict base64: padded, no whitespace. */
export function isBase64(text: string): boolean {
  return text.length % 4 === 0 && BASE64.test(text);
}
// OpenAPI's `format: byte` (base64), checked as strictly as the PDF files need it.
if (!FormatRegistry.Has('byte')) FormatRegistry.Set('byte', isBase64);

export interface FieldProblem {
  /** `images.logo.width_mm`: the path from the form field down. */
  field: string;
  problems: string[];
}

/** Our keywords beside JSON Schema's. */
export interface ProblemOptions extends SchemaOptions {
  /** What a value must be, said to the caller after the field's name: `must be true or false`. */
  problem?: string;
  /** What an object says of a key it does not know; default `should not exist`. */
  unknownProblem?: string;
  /** What a string breaking its `pattern` or `format` is told; default `problem`. */
  patternProblem?: string;
  /** What an array over its `maxItems` is told; default `must hold at most N items`. */
  tooMany?: string;
}

/**
 * One of a fixed list of strings or numbers (OpenAPI: an enum). A union of literals underneath,
 * which the checker knows, typed as the list's members.
 */
export function OneOf<const T extends readonly (string | number)[]>(
  values: T,
  options: ProblemOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      options,
    ),
  );
}

/** The property names a schema of an object declares, in order. */
export function fieldsOf(schema: TSchema): string[] {
  return Object.keys((schema as { properties?: object }).properties ?? {});
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `/images/logo/width_mm` → ['images', 'logo', 'width_mm'] (JSON Pointer, RFC 6901). */
function pointerKeys(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Every problem of `value` against `schema`, grouped by field ([] when it is fine), each said as
 * `<key> <problem>` like class-validator does. `path` names the value itself (`options.pdf`).
 * Reads own keys only (an own `__proto__` is a key like any other) and runs no code of the value.
 */
export function checkPayload(schema: TSchema, value: unknown, path: string): FieldProblem[] {
  const byField = new Map<string, string[]>();
  for (const error of Value.Errors(schema, value)) {
    const keys = pointerKeys(error.path);
    const field = [path, ...keys].filter((k) => k !== '').join('.');
    const name = keys.length ? keys[keys.length - 1] : (path.split('.').pop() ?? '');
    const own = error.schema as ProblemOptions;
    const unknown = error.type === 42; // ValueErrorType.ObjectAdditionalProperties
    const problem = unknown
      ? `${name} ${own.unknownProblem ?? 'should not exist'}`
      : `${name} ${own.problem ?? error.message.replace(/^Expected/, 'must be').toLowerCase()}`;
    const list = byField.get(field) ?? [];
    if (!list.includes(problem)) list.push(problem);
    byField.set(field, list);
  }
  return [...byField].map(([field, problems]) => ({ field, problems }));
}

/** One error as a sentence without the field's name: `must be true or false`. */
function sentence(error: ValueError): string {
  const s = error.schema as ProblemOptions & Record<string, unknown>;
  const T = ValueErrorType;
  switch (error.type) {
    case T.ObjectRequiredProperty:
      return 'is required';
    case T.ObjectAdditionalProperties:
      return s.unknownProblem ?? 'should not exist';
    case T.StringMinLength:
      return s.minLength === 1 ? 'must not be empty' : `must be at least ${String(s.minLength)} characters`;
    case T.StringMaxLength:
      return `must be at most ${String(s.maxLength)} characters`;
    case T.ArrayMaxItems:
      return s.tooMany ?? `must hold at most ${String(s.maxItems)} items`;
    case T.StringPattern:
    case T.StringFormat:
      return s.patternProblem ?? s.problem ?? 'has the wrong form';
  }
  if (s.problem) return s.problem;
  switch (error.type) {
    case T.Object:
      return 'must be an object';
    case T.Array:
      return 'must be an array';
    case T.String:
      return 'must be a string';
    case T.Boolean:
      return 'must be true or false';
    case T.Union: {
      const values = ((s.anyOf ?? []) as Json[]).map((o) => o.const);
      return `must be one of ${values.map((v) => (typeof v === 'string' ? `"${v}"` : String(v))).join(', ')}`;
    }
    case T.Number:
    case T.NumberMinimum:
    case T.NumberMaximum:
      return `must be a number from ${String(s.minimum)} to ${String(s.maximum)}`;
  }
  return error.message.replace(/^Expected/, 'must be').toLowerCase();
}

/** `['append', '0', 'data']` → `append[0].data`: indices of arrays in brackets, as JS writes them. */
function fieldOf(path: string, keys: string[], value: unknown): string {
  let field = path;
  let at: unknown = value;
  for (const key of keys) {
    field = Array.isArray(at) ? `${field}[${key}]` : field === '' ? key : `${field}.${key}`;
    at = isPlainObject(at) || Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined;
  }
  return field;
}

/**
 * Every problem of `value` against `schema`, one sentence per field (the first the schema finds),
 * without the field's name (`must be true or false`), fields named as JS writes them
 * (`options.pdf.append[0].data`). Reads own keys only and runs no code of the value.
 */
export function schemaProblems(schema: TSchema, value: unknown, path: string): FieldProblem[] {
  const byField = new Map<string, string>();
  for (const error of Value.Errors(schema, value)) {
    const field = fieldOf(path, pointerKeys(error.path), value);
    if (!byField.has(field)) byField.set(field, sentence(error));
  }
  return [...byField].map(([field, problem]) => ({ field, problems: [problem] }));
}

type Json = Record<string, unknown>;

const OWN_KEYWORDS = new Set(['$id', 'problem', 'unknownProblem', 'patternProblem', 'tooMany']);

/**
 * A schema as OpenAPI 3.0 writes it: a subschema with an `$id` becomes a reference to the
 * component of that name, unions of literals become enums, `X or null` is X `nullable`, records
 * `additionalProperties`, and our own keywords go.
 */
export function toOpenApi(schema: TSchema, root = true): Json {
  const s = schema as Json;
  if (!root && typeof s.$id === 'string') return { $ref: `#/components/schemas/${s.$id}` };
  const out: Json = {};
  for (const [key, value] of Object.entries(s)) {
    if (OWN_KEYWORDS.has(key)) continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, TSchema>).map(([k, v]) => [k, toOpenApi(v, false)]),
      );
    } else if (key === 'patternProperties') {
      const [inner] = Object.values(value as Record<string, TSchema>);
      const converted = toOpenApi(inner, false);
      out.additionalProperties = Object.keys(converted).length === 0 ? true : converted;
    } else if (key === 'anyOf') {
      const options = value as Json[];
      const notNull = options.filter((o) => o.type !== 'null');
      // `X or null`: OpenAPI 3.0 has no null type, it says `nullable`.
      if (notNull.length === 1 && options.length === 2)
        Object.assign(out, toOpenApi(notNull[0] as TSchema, false), { nullable: true });
      else if (options.every((o) => 'const' in o)) {
        out.type = typeof options[0].const === 'number' ? 'integer' : 'string';
        out.enum = options.map((o) => o.const);
      } else out.anyOf = options.map((o) => toOpenApi(o as TSchema, false));
    } else if (key === 'const') {
      out.enum = [value];
    } else if (key === 'exclusiveMinimum' && typeof value === 'number') {
      out.minimum = value;
      out.exclusiveMinimum = true;
    } else if (key === 'items') {
      out.items = toOpenApi(value as TSchema, false);
    } else out[key] = value;
  }
  return out;
}

/** The named schemas (each with an `$id`) as the OpenAPI document's components.schemas. */
export function openApiSchemas(schemas: readonly TSchema[]): Record<string, Json> {
  return Object.fromEntries(schemas.map((s) => [String((s as Json).$id), toOpenApi(s)]));
}
