/**
 * Python's printf-style formatting (`"%.2f" | format(x)`, `"%s" % x`) and round(). Hand-written
 * because template authors copy these from Python and expect Python's exact output: half-even
 * rounding on the exact binary value, `%s` through str(), `%r` through repr().
 */
import {
  formatFloat,
  isDict,
  isFloat,
  isNumber,
  isTuple,
  num,
  repr,
  str,
  typeName,
  type Value,
} from './values';

export class FormatError extends Error {}

/** Widths and precisions beyond these are mistakes or attacks, not formatting. */
const MAX_WIDTH = 10_000;
const MAX_PRECISION = 100;

function checkWidths(width: number, precision: number | undefined): void {
  if (width > MAX_WIDTH) throw new FormatError(`width ${width} is larger than ${MAX_WIDTH}`);
  if (precision !== undefined && precision > MAX_PRECISION)
    throw new FormatError(`precision ${precision} is larger than ${MAX_PRECISION}`);
}

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
      checkWidths(w, pr);
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

const SPEC_RE = /^(?:(.)?([<>=^]))?([-+ ])?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?([bcdeEfFgGnosxX%])?$/;

function group(intDigits: string, sep: string): string {
  return intDigits.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
}

/** Python's format(value, spec): the mini-language of str.format (`{:,.2f}`, `{:>8}`, `{:05d}`, `{:.1%}`). */
function formatSpec(v: Value, spec: string): string {
  const m = SPEC_RE.exec(spec);
  if (!m) throw new FormatError(`invalid format specifier '${spec}'`);
  const [, fillChar, alignChar, signChar, alt, zero, widthText, grouping, precText, typeChar] = m;
  const width = widthText ? Number(widthText) : 0;
  const precision = precText !== undefined ? Number(precText) : undefined;
  checkWidths(width, precision);
  let align = alignChar ?? '';
  let fill = fillChar ?? ' ';
  if (zero && !alignChar) {
    fill = '0';
    align = '=';
  }
  let sign = '';
  let body: string;
  const numeric = isNumber(v) || typeof v === 'boolean';
  if (!numeric || typeChar === 's') {
    if (typeChar && typeChar !== 's')
      throw new FormatError(`unknown format code '${typeChar}' for object of type '${typeName(v)}'`);
    body = str(v);
    if (precision !== undefined) body = [...body].slice(0, precision).join('');
    if (!align) align = '<';
  } else {
    const n = typeof v === 'boolean' ? Number(v) : num(v);
    const floatValue = typeof v !== 'boolean' && isFloat(v as number);
    const type = typeChar ?? (floatValue ? (precision !== undefined ? 'g' : '') : 'd');
    const a = Math.abs(n);
    if (type === '') body = formatFloat(a);
    else if (type === 'd' || type === 'n') {
      if (floatValue) throw new FormatError("unknown format code 'd' for object of type 'float'");
      body = String(Math.trunc(a));
    } else if (type === 'f' || type === 'F') body = fixed(a, precision ?? 6);
    else if (type === 'e' || type === 'E') body = exponent(a, precision ?? 6, type === 'E');
    else if (type === 'g' || type === 'G') body = general(a, precision ?? 6, !!alt, type === 'G');
    else if (type === '%') body = fixed(a * 100, precision ?? 6) + '%';
    else if (type === 'x' || type === 'X') body = (alt ? '0x' : '') + Math.trunc(a).toString(16);
    else if (type === 'o') body = (alt ? '0o' : '') + Math.trunc(a).toString(8);
    else if (type === 'b') body = (alt ? '0b' : '') + Math.trunc(a).toString(2);
    else body = String.fromCodePoint(Math.trunc(a));
    if (type === 'X') body = body.toUpperCase();
    if (grouping) {
      const [i, ...rest] = body.split('.');
      body = [group(i, grouping), ...rest].join('.');
    }
    const negative = n < 0 || Object.is(n, -0);
    if (negative && /[1-9]/.test(body)) sign = '-';
    else if (signChar === '+') sign = '+';
    else if (signChar === ' ') sign = ' ';
    if (!align) align = '>';
  }
  const len = sign.length + [...body].length;
  if (width <= len) return sign + body;
  const pad = width - len;
  switch (align) {
    case '<':
      return sign + body + fill.repeat(pad);
    case '^':
      return fill.repeat(Math.floor(pad / 2)) + sign + body + fill.repeat(pad - Math.floor(pad / 2));
    case '=':
      return sign + fill.repeat(pad) + body;
    default:
      return fill.repeat(pad) + sign + body;
  }
}

/**
 * Python's str.format: `{}`, `{0}`, `{name}`, `{0.attr}`, `{0[key]}`, `!s`/`!r`, `:spec`, and
 * `{{`/`}}` escapes. `lookup` resolves `.attr` and `[key]` with the template's own access rules.
 */
export function strFormat(
  template: string,
  args: Value[],
  kwargs: Record<string, Value>,
  lookup: (obj: Value, key: string, bracket: boolean) => Value,
): string {
  let auto = 0;
  let out = '';
  let i = 0;
  while (i < template.length) {
    const ch = template[i];
    if (ch === '}') {
      if (template[i + 1] !== '}') throw new FormatError("single '}' encountered in format string");
      out += '}';
      i += 2;
      continue;
    }
    if (ch !== '{') {
      out += ch;
      i++;
      continue;
    }
    if (template[i + 1] === '{') {
      out += '{';
      i += 2;
      continue;
    }
    const close = template.indexOf('}', i);
    if (close < 0) throw new FormatError("single '{' encountered in format string");
    const field = template.slice(i + 1, close);
    i = close + 1;
    const fm = /^([^.[!:]*)((?:\.[A-Za-z_]\w*|\[[^\]]*\])*)(?:!([rsa]))?(?::(.*))?$/.exec(field);
    if (!fm) throw new FormatError(`invalid replacement field '{${field}}'`);
    const [, name, accessors, conversion, spec] = fm;
    let value: Value;
    if (name === '') {
      if (auto >= args.length)
        throw new FormatError('Replacement index out of range for positional args tuple');
      value = args[auto++];
    } else if (/^\d+$/.test(name)) {
      const k = Number(name);
      if (k >= args.length)
        throw new FormatError(`Replacement index ${k} out of range for positional args tuple`);
      value = args[k];
    } else {
      if (!Object.prototype.hasOwnProperty.call(kwargs, name))
        throw new FormatError(`missing format key '${name}'`);
      value = kwargs[name];
    }
    for (const acc of accessors.match(/\.[A-Za-z_]\w*|\[[^\]]*\]/g) ?? []) {
      value = acc[0] === '.' ? lookup(value, acc.slice(1), false) : lookup(value, acc.slice(1, -1), true);
    }
    if (conversion === 'r' || conversion === 'a') value = repr(value);
    else if (conversion === 's') value = str(value);
    out += formatSpec(value, spec ?? '');
  }
  return out;
}
