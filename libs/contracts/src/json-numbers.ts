/**
 * JSON for template data that keeps a number's kind as the data wrote it: `9.0` (or `1e2`) is a
 * Python float and prints `9.0`, as in docxtpl, whose data is read by Python's json; `9` stays an
 * int. JavaScript numbers cannot tell 9.0 from 9, so integral floats become PyFloat values, which
 * behave as numbers in arithmetic, comparisons and filters.
 *
 * - Node ≥ 21: JSON.parse's reviver reads each number's source text (`context.source`) and
 *   JSON.rawJSON writes `9.0` back, so the value crosses the queue as written.
 * - Node 20 has neither. Number tokens are found in the text (outside strings) and each integral
 *   float is handed to JSON.parse as a string tagged with U+FDD2, a Unicode noncharacter, which
 *   the reviver turns into a PyFloat; writing does the reverse. Data that itself holds U+FDD2 is
 *   read with plain JSON.parse there (its integral floats print as ints: `9`), so no caller string
 *   can ever become a number. Both paths give JSON.parse's own values and errors otherwise
 *   (duplicate keys: the last wins; `__proto__` stays an own key).
 */
/** A Python float whose value happens to be integral (2.0): JS numbers cannot tell 2.0 from 2. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** Python's repr() of a float: shortest round-trip digits, `.0` on integral values, e+XX exponents. */
export function formatFloat(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const [mantissa, expPart] = n.toExponential().split('e');
  const exp = Number(expPart);
  if (exp < -4 || exp >= 16) {
    const m = mantissa.includes('.') ? mantissa : mantissa;
    const sign = exp < 0 ? '-' : '+';
    return `${m}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const s = String(n);
  if (/e/i.test(s)) {
    // JS switches to exponents earlier/later than Python; rebuild fixed notation from the digits.
    const neg = n < 0;
    const digits = mantissa.replace('-', '').replace('.', '');
    let out: string;
    if (exp < 0) out = '0.' + '0'.repeat(-exp - 1) + digits;
    else if (digits.length <= exp + 1) out = digits + '0'.repeat(exp + 1 - digits.length) + '.0';
    else out = digits.slice(0, exp + 1) + '.' + digits.slice(exp + 1);
    return (neg ? '-' : '') + out;
  }
  return Number.isInteger(n) ? `${s}.0` : s;
}

const TAG = '\uFDD2';
/**
 * A JSON string or a number token. The string branch is the unrolled `"[^"\\]*(?:\\.[^"\\]*)*"`:
 * the alternation form `(?:[^"\\]|\\.)*` took 146 ms on a payload with a 3 MB base64 image on
 * Node 20, this one 18 ms.
 */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
/** Cheap test: can the text hold an integral float at all? (`.0`, or an exponent.) */
const MAY_HOLD_FLOAT = /\.0|\d[eE]/;
/** U+FDD2 as the text may carry it: the character itself, or its `\u` escape. */
const HOLDS_TAG = /\uFDD2|\\u[fF][dD][dD]2/;

type Reviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;
interface RawJson {
  rawJSON?: (text: string) => unknown;
}

/** Whether this Node gives revivers the source text (Node ≥ 21). */
export const NATIVE_SOURCE_TEXT = (() => {
  let seen = false;
  JSON.parse('1.0', ((_k: string, v: unknown, ctx?: { source?: string }) => {
    seen = ctx?.source === '1.0';
    return v;
  }) as Reviver);
  return seen && typeof (JSON as RawJson).rawJSON === 'function';
})();

const isIntegralFloatText = (text: string, value: number) => /[.eE]/.test(text) && Number.isInteger(value);

/** JSON.parse for template data: integral floats written with a fraction or exponent are PyFloats. */
export function parseDataJson(text: string, native = NATIVE_SOURCE_TEXT): unknown {
  if (!MAY_HOLD_FLOAT.test(text)) return JSON.parse(text);
  if (native) {
    return JSON.parse(text, ((_k: string, v: unknown, ctx?: { source?: string }) =>
      typeof v === 'number' && ctx?.source !== undefined && isIntegralFloatText(ctx.source, v)
        ? new PyFloat(v)
        : v) as Reviver);
  }
  if (HOLDS_TAG.test(text)) return JSON.parse(text);
  let tagged = 0;
  const rewritten = text.replace(TOKENS, (token) => {
    if (token[0] === '"' || !isIntegralFloatText(token, Number(token))) return token;
    tagged++;
    return `"${TAG}${token}"`;
  });
  if (!tagged) return JSON.parse(text);
  try {
    return JSON.parse(rewritten, (_k, v: unknown) =>
      typeof v === 'string' && v[0] === TAG ? new PyFloat(Number(v.slice(1))) : v,
    );
  } catch {
    return JSON.parse(text); // the caller's own syntax error, with its own positions
  }
}

/**
 * The text a number must be written as to be read back as the same kind: a PyFloat as a float
 * (`9.0`), an integer of 21 digits or more as its digits (JSON.stringify would write `1e+21`,
 * which reads back as a float); undefined where JSON.stringify's own text does.
 */
function rawNumber(v: unknown): string | undefined {
  if (v instanceof PyFloat) return formatFloat(v.value);
  if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) >= 1e21) return BigInt(v).toString();
  return undefined;
}

/** JSON.stringify that writes a PyFloat as a float (`9.0`), for parseDataJson to read back. */
export function stringifyDataJson(value: unknown, native = NATIVE_SOURCE_TEXT): string {
  if (native) {
    const raw = (JSON as RawJson).rawJSON!;
    return JSON.stringify(value, (_k, v: unknown) => {
      const text = rawNumber(v);
      return text === undefined ? v : raw(text);
    });
  }
  let tagged = 0;
  let tagInData = false;
  const text = JSON.stringify(value, (_k, v: unknown) => {
    const number = rawNumber(v);
    if (number !== undefined) {
      tagged++;
      return `${TAG}${number}`;
    }
    if (typeof v === 'string' && v.includes(TAG)) tagInData = true;
    return v;
  });
  if (!tagged) return text;
  if (tagInData) return JSON.stringify(value, (_k, v: unknown) => (v instanceof PyFloat ? v.value : v));
  return text.replace(new RegExp(`"${TAG}([^"]*)"`, 'g'), '$1');
}

/** The same value with PyFloats as plain numbers: for fields that are not template data (image sizes). */
export function plainNumbers<T>(value: T): T {
  if (value instanceof PyFloat) return value.value as T;
  if (Array.isArray(value)) return value.map(plainNumbers) as T;
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, {
        value: plainNumbers(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out as T;
  }
  return value;
}
