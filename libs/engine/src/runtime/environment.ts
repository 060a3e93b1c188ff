/**
 * Building a render's Environment (ops.ts): Jinja's own filters and tests plus what the caller
 * adds. Each environment is a fresh table, so two callers never see each other's filters, and a
 * table of a null prototype, so a filter named `constructor` finds nothing.
 */
import { JINJA_FILTERS, JINJA_TESTS } from './filters';
import type { Environment, FilterFn, TestFn } from './ops';

export type { Environment };

export interface EnvironmentTables {
  /** Filters beyond Jinja's, in tables (one per layer that owns some). */
  filters?: ReadonlyArray<Readonly<Record<string, FilterFn>>>;
  tests?: ReadonlyArray<Readonly<Record<string, TestFn>>>;
}

let environments = 0;

function merged<T>(
  own: Readonly<Record<string, T>>,
  added: ReadonlyArray<Readonly<Record<string, T>>>,
  what: string,
) {
  const out = Object.assign(Object.create(null) as Record<string, T>, own);
  for (const table of added)
    for (const [name, fn] of Object.entries(table)) {
      if (out[name] !== undefined && out[name] !== fn) throw new Error(`${what} ${name} is taken`);
      out[name] = fn;
    }
  return Object.freeze(out);
}

/** Jinja's filters and tests with `tables` added; a name taken by another function is refused. */
export function jinjaEnvironment(tables: EnvironmentTables = {}): Environment {
  return {
    id: `env${++environments}`,
    filters: merged(JINJA_FILTERS, tables.filters ?? [], 'filter'),
    tests: merged(JINJA_TESTS, tables.tests ?? [], 'test'),
  };
}
