/**
 * The settings loader. Each library declares the environment variables it reads as a TypeBox
 * object (its "settings group": names, types, ranges, defaults) and the slice it hands to its
 * code; an app composes the groups it runs and loads them once at start-up. A wrong value stops
 * the process with one ConfigurationError naming every bad variable of every group.
 *
 * libs/config imports no other library (it stays at the bottom of the import graph: the
 * converters and logging libraries import it), so the groups are given to the loader by the app
 * rather than imported here.
 */
import {
  type Static,
  type TInteger,
  type TLiteral,
  type TObject,
  type TProperties,
  type TSchema,
  type TString,
  type TUnion,
  Kind,
  Type,
} from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

export class ConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigurationError';
  }
}

/** Builders for the variables of a group: each one a TypeBox schema with the messages it needs. */
export const Setting = {
  /** A whole number (`_` allowed as separator) within the bounds. */
  integer(options: { default?: number; minimum?: number; maximum?: number; description?: string }) {
    return Type.Integer(options);
  },
  /** A string; with a pattern, `message` says what is expected (it names the variable). */
  string(options: { default?: string; pattern?: RegExp; message?: string; description?: string } = {}) {
    const { pattern, message, ...rest } = options;
    return Type.String({
      ...rest,
      ...(pattern ? { pattern: pattern.source } : {}),
      ...(message ? { message } : {}),
    });
  },
  /** One of a few words, e.g. `on` / `off`. */
  oneOf<const T extends readonly string[]>(
    values: T,
    options: { default?: T[number]; description?: string },
  ) {
    return Type.Union(
      values.map((value) => Type.Literal(value)),
      options,
    ) as unknown as TUnion<TLiteral<T[number]>[]>;
  },
  /** `on` or `off`, read as a boolean by the group's slice. */
  onOff(options: { default: 'on' | 'off'; description?: string }) {
    return Setting.oneOf(['on', 'off'] as const, options);
  },
  optional<T extends TSchema>(schema: T) {
    return Type.Optional(schema);
  },
};

/** One library's settings: its variables, checks across them, and the slice its code receives. */
export interface SettingsGroup<V extends TProperties = TProperties, S = unknown> {
  variables: TObject<V>;
  /** Problems no single variable's schema can see (one variable against another, ICU, the file system). */
  check?: (values: Static<TObject<V>>) => string[];
  slice: (values: Static<TObject<V>>) => S;
}

export function defineSettings<V extends TProperties, S>(group: {
  variables: V;
  check?: (values: Static<TObject<V>>) => string[];
  slice: (values: Static<TObject<V>>) => S;
}): SettingsGroup<V, S> {
  return { ...group, variables: Type.Object(group.variables) };
}

/** Any group, as the loader sees it (it reads the variables by their schemas). */
type AnyGroup = {
  variables: TObject;
  check?: (values: never) => string[];
  slice: (values: never) => unknown;
};
/** A composition: group name → group. */
export type Groups = Record<string, AnyGroup>;

/** What loadSettings returns for a composition of groups: each group's slice under its name. */
export type SettingsOf<G extends Groups> = { [K in keyof G]: ReturnType<G[K]['slice']> };

/** The variables the groups read, each once (a variable two groups share is one schema object). */
export function settingsVariables(groups: Groups): string[] {
  return [...new Set(Object.values(groups).flatMap((g) => Object.keys(g.variables.properties)))];
}

/**
 * Reads every group's variables from `env` (an empty variable counts as unset), checks them with
 * their schemas and the groups' own checks, and returns each group's slice. Throws
 * ConfigurationError listing every problem.
 */
export function loadSettings<G extends Groups>(
  groups: G,
  env: NodeJS.ProcessEnv = process.env,
): SettingsOf<G> {
  const problems: string[] = [];
  const read = new Map<string, { ok: boolean; value: unknown }>();
  const values: Record<string, Record<string, unknown>> = {};
  const shared = new Map<string, TSchema>();
  for (const [name, group] of Object.entries(groups)) {
    values[name] = {};
    for (const [key, schema] of Object.entries(group.variables.properties)) {
      if (shared.has(key) && shared.get(key) !== schema) {
        throw new Error(`settings: ${key} is declared by two groups with different schemas`);
      }
      shared.set(key, schema);
      let entry = read.get(key);
      if (!entry) {
        entry = readVariable(key, schema, env[key], problems);
        read.set(key, entry);
      }
      if (entry.ok && entry.value !== undefined) values[name][key] = entry.value;
    }
  }
  const slices: Record<string, unknown> = {};
  const failedBefore = problems.length;
  for (const [name, group] of Object.entries(groups)) {
    const own = values[name];
    // Cross checks only over values that passed their own schema.
    const valid = Object.keys(group.variables.properties).every((key) => read.get(key)?.ok);
    if (valid && group.check) problems.push(...group.check(own as never));
    if (problems.length === failedBefore) slices[name] = group.slice(own as never);
  }
  if (problems.length > 0) throw new ConfigurationError(problems);
  return slices as SettingsOf<G>;
}

/** One variable: parsed by its schema's kind, defaulted, checked; a problem names it and its value. */
function readVariable(
  key: string,
  schema: TSchema,
  rawValue: string | undefined,
  problems: string[],
): { ok: boolean; value: unknown } {
  const raw = rawValue?.trim();
  if (raw === undefined || raw === '') return { ok: true, value: schema.default };
  let value: unknown = raw;
  if (schema[Kind] === 'Integer') {
    const digits = raw.replace(/_/g, '');
    if (!/^[+-]?\d+$/.test(digits)) {
      problems.push(`${key} must be an integer (got '${raw}')`);
      return { ok: false, value: undefined };
    }
    value = Number(digits);
  }
  if (Value.Check(schema, value)) return { ok: true, value };
  problems.push(`${expectation(key, schema)} (got '${raw}')`);
  return { ok: false, value: undefined };
}

/** What a variable must be, in words, from its schema. */
function expectation(key: string, schema: TSchema): string {
  if (typeof schema.message === 'string') return schema.message;
  if (schema[Kind] === 'Integer') {
    const { minimum, maximum } = schema as TInteger;
    if (minimum !== undefined && maximum !== undefined)
      return `${key} must be an integer from ${minimum} to ${maximum}`;
    if (minimum !== undefined) return `${key} must be an integer of at least ${minimum}`;
    return `${key} must be an integer of at most ${maximum}`;
  }
  if (schema[Kind] === 'Union') {
    const words = (schema as TUnion<TLiteral<string>[]>).anyOf.map((l) => l.const);
    return `${key} must be one of ${words.join(', ')}`;
  }
  const { pattern } = schema as TString;
  return pattern ? `${key} must match ${pattern}` : `${key} is not valid`;
}

/**
 * The address every listener of the service binds (the API's, each worker's metrics and health):
 * one schema that the API's and the worker's groups share.
 */
export const HOST_SETTING = Setting.string({ default: '0.0.0.0' });
