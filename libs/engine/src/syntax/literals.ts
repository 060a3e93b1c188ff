/**
 * What a template's literals parse to. The runtime's values (runtime/values.ts) include these, so
 * the parser needs nothing of the runtime.
 */

import { PyFloat } from '@app/contracts';

/** Defined in @app/contracts beside the data reader (json-numbers.ts), which makes them. */
export { PyFloat };

/** A literal in an expression: `'text'`, `3`, `2.0`, `true`, `none`. */
export type Literal = string | number | boolean | null | PyFloat;
