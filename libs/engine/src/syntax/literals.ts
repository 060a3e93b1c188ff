/**
 * What a template's literals parse to. The runtime's values (runtime/values.ts) include these, so
 * the parser needs nothing of the runtime.
 */

/** A Python float whose value happens to be integral (2.0): JS numbers cannot tell 2.0 from 2. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A literal in an expression: `'text'`, `3`, `2.0`, `true`, `none`. */
export type Literal = string | number | boolean | null | PyFloat;
