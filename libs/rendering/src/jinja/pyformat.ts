/**
 * Python's printf-style formatting (`"%.2f" | format(x)`, `"%s" % x`) and round(). Hand-written
 * because template authors copy these from Python and expect Python's exact output: half-even
 * rounding on the exact binary value, `%s` through str(), `%r` through repr().
 */
import { isDict, isNumber, isTuple, num, repr, str, typeName, type Value } from './values';

export class FormatError extends Error {}

/** The exact decimal expansion of a double, to `digits` places (JS toFixed is exact up to 100). */
function exactDecimal(x: number, digits: number): string {
  return Math.abs(x).toFixed(Math.min(100, digits));
}

/** Round |x| to `places` decimals (may be negative) with ties to even, Python's round(). */
export function pyRound(x: number, places: number): number {
  if (!Number.isFinite(x)) return x;
  if (places > 22) return x;
  const sign = x < 0 ? -1 : 1;
  const shift = places < 0 ? -places : 0;
  const scaled = shift ? Math.abs(x) / 10 ** shift : Math.abs(x);
  const p = shift ? 0 : places;
  const s = exactDecimal(scaled, p + 40);
  const [intPart, frac = ''] = s.split('.');
  const kept = intPart + frac.slice(0, p);
  const rest = frac.slice(p);
  let digits = BigInt(kept);
  const half = rest[0] > '5' || (rest[0] === '5' && /[1-9]/.test(rest.slice(1)));
  const tie = rest[0] === '5' && !/[1-9]/.test(rest.slice(1));
  if (half || (tie && digits % 2n === 1n)) digits += 1n;
  let result = Number(digits) / 10 ** p;
  if (shift) result = Number(digits) * 10 ** shift;
  return sign * result;
}

function fixed(x: number, precision: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  // Python rounds %f ties to even on the exact value; toFixed picks the larger on exact ties.
  const r = pyRound(x, precision);
  const out = Math.abs(r).toFixed(precision);
  return (x < 0 || Object.is(x, -0)) && /[1-9]/.test(out) ? '-' + out : out;
}

function exponent(x: number, precision: number, upper: boolean): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const [m, e] = x.toExponential(precision).split('e');
  const ex = Number(e);
  const s = `${m}e${ex < 0 ? '-' : '+'}${String(Math.abs(ex)).padStart(2, '0')}`;
  return upper ? s.toUpperCase() : s;
}

function general(x: number, precision: number, alt: boolean, upper: boolean): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  const p = precision === 0 ? 1 : precision;
  if (x === 0) return '0';
  const ex = Number(x.toExponential(p - 1).split('e')[1]);
  let s: string;
  if (ex >= -4 && ex < p) s = fixed(x, p - 1 - ex);
  else s = exponent(x, p - 1, upper);
  if (!alt) {
    s = s.replace(/(\.\d*?)0+(e|E|$)/, '$1$2').replace(/\.(e|E|$)/, '$1');
  }
  return s;
}

function toNumberArg(v: Value, conv: string): number {
  if (typeof v === 'boolean') return Number(v);
  if (isNumber(v)) return num(v);
  throw new FormatError(`%${conv} format: a real number is required, not ${typeName(v)}`);
}

const SPEC = /%(?:\(([^)]*)\))?([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfFgGcrsa%])/g;

/** `template % args`, as Python does it. `args` is one value, a tuple/list of values, or a dict. */
export function percentFormat(template: string, args: Value): string {
  // Only a tuple spreads over the specifiers; a list is one value, as in Python.
  const positional: Value[] = isTuple(args) ? (args as Value[]) : [args];
  const mapping = isDict(args) ? args : null;
  let index = 0;
  const take = (): Value => {
    if (index >= positional.length) throw new FormatError('not enough arguments for format string');
    return positional[index++];
  };
  const out = template.replace(
    SPEC,
    (_m, key: string | undefined, flags: string, width?: string, prec?: string, conv?: string) => {
      if (conv === '%') return '%';
      let value: Value;
      if (key !== undefined) {
        if (!mapping) throw new FormatError('format requires a mapping');
        if (!Object.prototype.hasOwnProperty.call(mapping, key))
          throw new FormatError(`missing format key '${key}'`);
        value = mapping[key];
      }
      const w = width === '*' ? toNumberArg(take(), 'd') : width ? Number(width) : 0;
      const pr = prec === '*' ? toNumberArg(take(), 'd') : prec !== undefined ? Number(prec) : undefined;
      if (key === undefined) value = take();
      const v = value!;
      let body: string;
      let sign = '';
      switch (conv) {
        case 's':
          body = str(v);
          if (pr !== undefined) body = body.slice(0, pr);
          break;
        case 'r':
        case 'a':
          body = repr(v);
          if (pr !== undefined) body = body.slice(0, pr);
          break;
        case 'c':
          body = typeof v === 'string' ? v : String.fromCodePoint(toNumberArg(v, 'c'));
          break;
        default: {
          const n = toNumberArg(v, conv!);
          const neg = n < 0 || Object.is(n, -0);
          const a = Math.abs(n);
          switch (conv) {
            case 'd':
            case 'i':
            case 'u':
              body = Math.trunc(a).toString();
              if (pr !== undefined) body = body.padStart(pr, '0');
              break;
            case 'o':
              body = Math.trunc(a).toString(8);
              if (flags.includes('#')) body = '0o' + body;
              break;
            case 'x':
            case 'X':
              body = Math.trunc(a).toString(16);
              if (flags.includes('#')) body = '0x' + body;
              if (conv === 'X') body = body.toUpperCase();
              break;
            case 'e':
            case 'E':
              body = exponent(a, pr ?? 6, conv === 'E');
              break;
            case 'f':
            case 'F':
              body = fixed(a, pr ?? 6);
              break;
            default:
              body = general(a, pr ?? 6, flags.includes('#'), conv === 'G');
          }
          if (
            neg &&
            (conv === 'd' || conv === 'i' || conv === 'u' ? Math.trunc(a) !== 0 : /[1-9]/.test(body))
          )
            sign = '-';
          else if (flags.includes('+')) sign = '+';
          else if (flags.includes(' ')) sign = ' ';
        }
      }
      const len = sign.length + [...body].length;
      if (w > len) {
        if (flags.includes('-')) return sign + body + ' '.repeat(w - len);
        if (flags.includes('0') && conv !== 's' && conv !== 'r' && conv !== 'c')
          return sign + '0'.repeat(w - len) + body;
        return ' '.repeat(w - len) + sign + body;
      }
      return sign + body;
    },
  );
  if (!mapping && index < positional.length && isTuple(args))
    throw new FormatError('not all arguments converted during string formatting');
  return out;
}
