/**
 * Python's str methods that templates may call (a fixed, side-effect-free list), with Python's
 * arguments and results.
 */
import { Callable, isFloat, isNumber, num, str, truthy, tuple, typeName, type Value } from './values';
import { FormatError, strFormat } from './pyformat';
import { chars, DEFAULT_EVAL_LIMITS, getSlice, iterate, JinjaRuntimeError, normIndex } from './sequences';

/** str.format's look-up of a field's attribute or item (ops.ts gives the runtime's own). */
export type FormatFieldLookup = (obj: Value, key: string, bracket: boolean) => Value;

function pyTitle(s: string): string {
  let out = '';
  let prevCased = false;
  for (const ch of s) {
    const cased = ch.toLowerCase() !== ch.toUpperCase();
    out += cased ? (prevCased ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    prevCased = cased;
  }
  return out;
}

const PY_WHITESPACE =
  ' \t\n\r\x0b\x0c\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

export function pyStrip(s: string, chars_?: string | null, left = true, right = true): string {
  const set = chars_ ?? PY_WHITESPACE;
  const cs = chars(s);
  let a = 0;
  let b = cs.length;
  if (left) while (a < b && set.includes(cs[a])) a++;
  if (right) while (b > a && set.includes(cs[b - 1])) b--;
  return cs.slice(a, b).join('');
}

function argStr(v: Value | undefined, what: string): string {
  if (typeof v !== 'string')
    throw new JinjaRuntimeError(`${what} must be a string, not ${typeName(v ?? null)}`);
  return v;
}

/** Methods templates may call on strings and dicts (a fixed, side-effect-free list). */
export function stringMethod(s: string, name: string, lookup: FormatFieldLookup): Callable | undefined {
  const m = (fn: (args: Value[]) => Value) => new Callable(`str.${name}`, (args) => fn(args));
  switch (name) {
    case 'upper':
      return m(() => s.toUpperCase());
    case 'lower':
      return m(() => s.toLowerCase());
    case 'title':
      return m(() => pyTitle(s));
    case 'capitalize':
      return m(() => (s ? s[0].toUpperCase() + s.slice(1).toLowerCase() : s));
    case 'isidentifier':
      return m(() => /^[\p{L}_][\p{L}\p{N}_]*$/u.test(s));
    case 'strip':
      return m((a) => pyStrip(s, (a[0] as string | null | undefined) ?? null));
    case 'lstrip':
      return m((a) => pyStrip(s, (a[0] as string | null | undefined) ?? null, true, false));
    case 'rstrip':
      return m((a) => pyStrip(s, (a[0] as string | null | undefined) ?? null, false, true));
    case 'startswith':
    case 'endswith':
      return m((a) => {
        // Python accepts a tuple (here: any list) of candidates.
        const options = Array.isArray(a[0]) ? a[0] : [a[0]];
        const hay = sliceChars(s, a[1], a[2]);
        return options.some((o) => {
          const x = argStr(o, `${name} argument`);
          return name === 'startswith' ? hay.startsWith(x) : hay.endsWith(x);
        });
      });
    case 'replace':
      return m((a) =>
        pyReplace(s, argStr(a[0], 'replace argument'), argStr(a[1], 'replace argument'), intOr(a[2], -1)),
      );
    case 'split':
    case 'rsplit':
      return new Callable(`str.${name}`, (a, k) =>
        pySplit(s, a[0] ?? k.sep ?? null, intOr(a[1] ?? k.maxsplit, -1), name === 'rsplit'),
      );
    case 'count':
      return m((a) => {
        const sub = argStr(a[0], 'count argument');
        const hay = sliceChars(s, a[1], a[2]);
        return sub === '' ? chars(hay).length + 1 : hay.split(sub).length - 1;
      });
    case 'find':
    case 'index':
    case 'rfind':
    case 'rindex':
      return m((a) => {
        const sub = argStr(a[0], `${name} argument`);
        const start = a[1] === undefined || a[1] === null ? 0 : normIndex(intOr(a[1], 0), chars(s).length);
        const hay = sliceChars(s, a[1], a[2]);
        const at = name.startsWith('r') ? hay.lastIndexOf(sub) : hay.indexOf(sub);
        if (at < 0 && name.endsWith('index')) throw new JinjaRuntimeError('substring not found');
        return at < 0 ? -1 : Math.max(0, start) + chars(hay.slice(0, at)).length;
      });
    case 'partition':
    case 'rpartition':
      return m((a) => {
        const sep = argStr(a[0], `${name} separator`);
        if (sep === '') throw new JinjaRuntimeError('empty separator');
        const at = name === 'partition' ? s.indexOf(sep) : s.lastIndexOf(sep);
        if (at < 0) return tuple(name === 'partition' ? [s, '', ''] : ['', '', s]);
        return tuple([s.slice(0, at), sep, s.slice(at + sep.length)]);
      });
    case 'ljust':
    case 'rjust':
    case 'center':
      return m((a) => {
        const w = intOr(a[0], 0);
        const fill = a[1] === undefined ? ' ' : argStr(a[1], 'fill character');
        if (chars(fill).length !== 1)
          throw new JinjaRuntimeError('The fill character must be exactly one character long');
        if (w > DEFAULT_EVAL_LIMITS.maxValueLength) throw new JinjaRuntimeError(`width ${w} is too large`);
        const pad = w - chars(s).length;
        if (pad <= 0) return s;
        if (name === 'ljust') return s + fill.repeat(pad);
        if (name === 'rjust') return fill.repeat(pad) + s;
        const left = Math.floor(pad / 2) + (pad & w & 1);
        return fill.repeat(left) + s + fill.repeat(pad - left);
      });
    case 'splitlines':
      return m((a) => {
        const keep = truthy(a[0] ?? false);
        const out: string[] = [];
        // eslint-disable-next-line no-control-regex -- Python counts these controls as line ends / spaces
        const re = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/g;
        let last = 0;
        for (let mm = re.exec(s); mm; mm = re.exec(s)) {
          out.push(s.slice(last, keep ? mm.index + mm[0].length : mm.index));
          last = mm.index + mm[0].length;
        }
        if (last < s.length) out.push(s.slice(last));
        return out;
      });
    case 'swapcase':
      return m(() =>
        chars(s)
          .map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()))
          .join(''),
      );
    case 'casefold':
      return m(() => s.toLowerCase().replace(/ß/g, 'ss'));
    case 'isdigit':
    case 'isdecimal':
    case 'isnumeric':
      return m(() => s !== '' && /^\p{Nd}+$/u.test(s));
    case 'isalpha':
      return m(() => s !== '' && /^\p{L}+$/u.test(s));
    case 'isalnum':
      return m(() => s !== '' && /^[\p{L}\p{Nd}]+$/u.test(s));
    case 'isspace':
      return m(
        // eslint-disable-next-line no-control-regex -- Python counts these controls as line ends / spaces
        () => s !== '' && chars(s).every((c) => PY_WHITESPACE.includes(c) || /[\x1c-\x1f\x85]/.test(c)),
      );
    case 'islower':
      return m(() => /\p{Ll}/u.test(s) && !/\p{Lu}|\p{Lt}/u.test(s));
    case 'isupper':
      return m(() => /\p{Lu}/u.test(s) && !/\p{Ll}/u.test(s));
    case 'istitle':
      return m(() => /\p{L}/u.test(s) && pyTitle(s) === s);
    case 'removeprefix':
      return m((a) => {
        const pre = argStr(a[0], 'removeprefix argument');
        return pre && s.startsWith(pre) ? s.slice(pre.length) : s;
      });
    case 'removesuffix':
      return m((a) => {
        const suf = argStr(a[0], 'removesuffix argument');
        return suf && s.endsWith(suf) ? s.slice(0, -suf.length) : s;
      });
    case 'expandtabs':
      return m((a) => {
        const size = intOr(a[0], 8);
        let col = 0;
        let out = '';
        for (const c of s) {
          if (c === '\t') {
            const n = size > 0 ? size - (col % size) : 0;
            out += ' '.repeat(n);
            col += n;
          } else {
            out += c;
            col = c === '\n' || c === '\r' ? 0 : col + 1;
          }
        }
        return out;
      });
    case 'join':
      return m((a) =>
        iterate(a[0] ?? [], 'join')
          .map(str)
          .join(s),
      );
    case 'format':
      return new Callable('str.format', (args, kwargs) => {
        try {
          return strFormat(s, args, kwargs, lookup);
        } catch (e) {
          if (e instanceof FormatError) throw new JinjaRuntimeError(`str.format: ${e.message}`);
          throw e;
        }
      });
    case 'zfill':
      return m((a) => {
        const w = Number(a[0] ?? 0);
        if (w > DEFAULT_EVAL_LIMITS.maxValueLength)
          throw new JinjaRuntimeError(`zfill width ${w} is too large`);
        const neg = s.startsWith('-') || s.startsWith('+');
        const body = neg ? s.slice(1) : s;
        return (neg ? s[0] : '') + body.padStart(Math.max(0, w - (neg ? 1 : 0)), '0');
      });
  }
  return undefined;
}

function intOr(v: Value | undefined, d: number): number {
  if (v === undefined || v === null) return d;
  if (typeof v === 'boolean') return Number(v);
  if (!isNumber(v) || isFloat(v)) throw new JinjaRuntimeError(`an integer is required, not ${typeName(v)}`);
  return num(v);
}

/** s[start:end] in code points, as Python's optional start/end arguments of str methods. */
function sliceChars(s: string, start: Value | undefined, end: Value | undefined): string {
  if ((start === undefined || start === null) && (end === undefined || end === null)) return s;
  return getSlice(s, start ?? null, end ?? null, null) as string;
}

/** Python's str.split / str.rsplit: None splits on runs of whitespace, maxsplit counts from its end. */
function pySplit(s: string, sep: Value, maxsplit: number, fromRight: boolean): string[] {
  if (sep === null) {
    const words = s.split(new RegExp(`[${PY_WHITESPACE}]+`)).filter((x) => x !== '');
    if (maxsplit < 0 || words.length <= maxsplit) return words;
    // Keep the rest of the string (with its inner spacing) as the last piece.
    const re = new RegExp(`[${PY_WHITESPACE}]+`, 'g');
    // Python strips the side it splits from; the rest keeps its spacing.
    const t = fromRight ? pyStrip(s, null, false, true) : pyStrip(s, null, true, false);
    const cuts: [number, number][] = [];
    for (let mm = re.exec(t); mm; mm = re.exec(t)) cuts.push([mm.index, mm.index + mm[0].length]);
    if (!fromRight) {
      const out: string[] = [];
      let last = 0;
      for (const [a, b] of cuts.slice(0, maxsplit)) {
        out.push(t.slice(last, a));
        last = b;
      }
      out.push(t.slice(last));
      return out;
    }
    const out: string[] = [];
    let end = t.length;
    for (const [a, b] of cuts.slice(-maxsplit).reverse()) {
      out.unshift(t.slice(b, end));
      end = a;
    }
    out.unshift(t.slice(0, end));
    return out;
  }
  const sp = argStr(sep, 'split separator');
  if (sp === '') throw new JinjaRuntimeError('empty separator');
  const all = s.split(sp);
  if (maxsplit < 0 || all.length <= maxsplit + 1) return all;
  if (!fromRight) return [...all.slice(0, maxsplit), all.slice(maxsplit).join(sp)];
  return [all.slice(0, all.length - maxsplit).join(sp), ...all.slice(all.length - maxsplit)];
}

export function pyReplace(s: string, old: string, neu: string, count = -1): string {
  if (count < 0) return s.split(old).join(neu);
  let out = s;
  let from = 0;
  for (let i = 0; i < count; i++) {
    const at = out.indexOf(old, from);
    if (at < 0) break;
    out = out.slice(0, at) + neu + out.slice(at + old.length);
    from = at + neu.length + (old === '' ? 1 : 0);
  }
  return out;
}
