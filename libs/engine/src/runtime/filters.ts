/**
 * Jinja's built-in filters and tests that templates for documents use, with Jinja 3's arguments
 * and results. A filter name that is not here is a template syntax error naming it.
 */
import {
  getItem,
  getPythonAttr,
  iterate,
  JinjaRuntimeError,
  length,
  pyReplace,
  pyStrip,
  type FilterFn,
  type RenderState,
  type TestFn,
} from './ops';
import { FormatError, percentFormat, pyRound } from './pyformat';
import {
  Callable,
  dictKeys,
  groupTuple,
  groupTupleAttr,
  ImageRef,
  isDict,
  isFloat,
  isNumber,
  isTuple,
  num,
  repr,
  PyFloat,
  pyEquals,
  str,
  toFloat,
  truthy,
  tuple,
  typeName,
  Undefined,
  type Value,
} from './values';

export type { FilterFn, TestFn };

export function arg(args: Value[], kwargs: Record<string, Value>, i: number, name: string, d: Value): Value {
  if (Object.prototype.hasOwnProperty.call(kwargs, name)) return kwargs[name];
  return i < args.length ? args[i] : d;
}

function text(st: RenderState, v: Value): string {
  st.use(v);
  return str(v);
}

function intArg(v: Value, what: string): number {
  if (typeof v === 'boolean') return Number(v);
  if (!isNumber(v) || isFloat(v))
    throw new JinjaRuntimeError(`${what} must be an integer, not ${typeName(v)}`);
  return num(v);
}

/** `attribute='a.b'` as Jinja resolves it: dots, with integer segments as indexes. */
function attrPath(item: Value, path: Value): Value {
  if (path === null) return item;
  const parts = typeof path === 'string' ? path.split('.') : [path];
  let v = item;
  for (const p of parts) {
    const group = Array.isArray(v) && typeof p === 'string' ? groupTupleAttr(v, p) : undefined;
    v = group ?? (typeof p === 'string' && /^\d+$/.test(p) ? getItem(v, Number(p)) : getItem(v, p));
  }
  return v;
}

function sortKey(v: Value, caseSensitive: boolean): Value {
  return !caseSensitive && typeof v === 'string' ? v.toLowerCase() : v;
}

function cmp(a: Value, b: Value): number {
  if (isNumber(a) || typeof a === 'boolean') {
    if (isNumber(b) || typeof b === 'boolean') return Number(num(a as number)) - Number(num(b as number));
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!pyEquals(a[i], b[i])) return cmp(a[i], b[i]);
    }
    return a.length - b.length;
  }
  if (a instanceof Undefined || b instanceof Undefined) return 0;
  throw new JinjaRuntimeError(`'<' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

/** Python's json.dumps(v, sort_keys=True): `, ` and `: ` separators, ASCII-only output. */
function pyJson(v: Value): string {
  if (v === null || v instanceof Undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (isNumber(v)) {
    const n = num(v);
    if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
    return str(v);
  }
  if (typeof v === 'string')
    return JSON.stringify(v).replace(
      /[\u007f-\uffff]/g,
      (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'),
    );
  if (Array.isArray(v)) return `[${v.map(pyJson).join(', ')}]`;
  if (isDict(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${pyJson(k)}: ${pyJson(v[k])}`)
      .join(', ')}}`;
  throw new JinjaRuntimeError(`Object of type ${typeName(v)} is not JSON serializable`);
}

function parsePyFloat(s: string): number | undefined {
  const t = s.trim().replace(/_/g, '');
  if (/^[+-]?((\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?)$/.test(t)) return Number(t);
  const m = /^([+-]?)(inf|infinity|nan)$/i.exec(t);
  if (m) return m[2].toLowerCase() === 'nan' ? NaN : m[1] === '-' ? -Infinity : Infinity;
  return undefined;
}

function toInt(v: Value, d: Value, base: number): Value {
  if (typeof v === 'boolean') return Number(v);
  if (isNumber(v)) return Number.isFinite(num(v)) ? Math.trunc(num(v)) : d;
  if (typeof v === 'string') {
    const t = v.trim().replace(/_/g, '');
    const digits =
      base === 10
        ? /^[+-]?\d+$/
        : base === 16
          ? /^[+-]?(0x)?[0-9a-f]+$/i
          : base === 8
            ? /^[+-]?(0o)?[0-7]+$/i
            : base === 2
              ? /^[+-]?(0b)?[01]+$/i
              : null;
    if (digits && digits.test(t)) return parseInt(t.replace(/^([+-]?)0[xob]/i, '$1'), base);
    const f = parsePyFloat(t);
    if (f !== undefined && Number.isFinite(f)) return Math.trunc(f);
  }
  return d;
}

function select(st: RenderState, input: Value, args: Value[], keep: boolean, byAttr: boolean): Value {
  const items = iterate(st.use(input), 'select');
  let attribute: Value = null;
  let rest = args;
  if (byAttr) {
    attribute = args[0] ?? null;
    rest = args.slice(1);
  }
  const testName = rest[0];
  const testArgs = rest.slice(1);
  let test: (v: Value) => boolean;
  if (testName === undefined) test = (v) => truthy(v);
  else {
    const fn = typeof testName === 'string' ? st.environment.tests[testName] : undefined;
    if (!fn) throw new JinjaRuntimeError(`no test named '${str(testName)}'`);
    test = (v) => fn(st, v, testArgs);
  }
  return items.filter((it) => test(byAttr ? attrPath(it, attribute) : it) === keep);
}

/** Python's str.splitlines(). */
function splitLines(s: string): string[] {
  // eslint-disable-next-line no-control-regex -- Python's line boundaries include these controls
  const out = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

/**
 * Python's textwrap.wrap with Jinja's wordwrap settings (tabs and whitespace kept, whitespace
 * dropped at the line ends): greedy, word by word. Hand-written: no library wraps the Python way.
 */
function wrapLine(line: string, width: number, breakLong: boolean, breakOnHyphens: boolean): string[] {
  const chunks = line.split(breakOnHyphens ? /(\s+|(?<=[^\s-]-)(?=[^\s-]))/ : /(\s+)/).filter((c) => c);
  const lines: string[] = [];
  let cur: string[] = [];
  let len = 0;
  const isSpace = (c: string) => /^\s+$/.test(c);
  while (chunks.length) {
    if (cur.length === 0 && isSpace(chunks[0]) && lines.length) chunks.shift();
    if (!chunks.length) break;
    const c = chunks[0];
    if (len + [...c].length <= width) {
      cur.push(chunks.shift()!);
      len += [...c].length;
      continue;
    }
    if ([...c].length > width && breakLong) {
      const room = width - len;
      cur.push([...c].slice(0, room).join(''));
      chunks[0] = [...c].slice(room).join('');
    } else if (!cur.length) cur.push(chunks.shift()!);
    while (cur.length && isSpace(cur[cur.length - 1])) cur.pop();
    if (cur.length) lines.push(cur.join(''));
    cur = [];
    len = 0;
  }
  while (cur.length && isSpace(cur[cur.length - 1])) cur.pop();
  if (cur.length) lines.push(cur.join(''));
  return lines;
}

const HTML_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

function unescapeHtml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return HTML_ENTITIES[e] ?? m;
  });
}

/** Jinja's url_quote: UTF-8 percent-encoding; `/` kept outside query strings, spaces as `+` in them. */
function urlQuote(s: string, forQuery: boolean): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9_.\-~]/.test(c) || (!forQuery && c === '/')) out += c;
    else if (forQuery && c === ' ') out += '+';
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** pprint.pformat for short values: repr with dict keys sorted. */
function sortedRepr(v: Value): string {
  if (Array.isArray(v)) {
    const inner = v.map(sortedRepr).join(', ');
    if (isTuple(v)) return v.length === 1 ? `(${inner},)` : `(${inner})`;
    return `[${inner}]`;
  }
  if (isDict(v))
    return `{${Object.keys(v)
      .sort()
      .map((key) => `${repr(key)}: ${sortedRepr(v[key])}`)
      .join(', ')}}`;
  return repr(v);
}

const FILTERS_TABLE: Record<string, FilterFn> = {
  abs: (st, v) => {
    st.use(v);
    if (typeof v === 'boolean') return Number(v);
    if (!isNumber(v)) throw new JinjaRuntimeError(`bad operand type for abs(): '${typeName(v)}'`);
    return v instanceof PyFloat ? new PyFloat(Math.abs(v.value)) : Math.abs(v);
  },
  attr: (_st, v, a) => getPythonAttr(v, str(a[0] ?? '')),
  batch: (st, v, a, k) => {
    const items = iterate(st.use(v), 'batch');
    const n = intArg(arg(a, k, 0, 'linecount', 1), 'batch size');
    if (n <= 0) throw new JinjaRuntimeError('batch size must be positive');
    const fill = arg(a, k, 1, 'fill_with', null);
    const out: Value[][] = [];
    for (let i = 0; i < items.length; i += n) out.push(items.slice(i, i + n));
    const lastRow = out[out.length - 1];
    if (fill !== null && lastRow && lastRow.length < n) while (lastRow.length < n) lastRow.push(fill);
    return out;
  },
  capitalize: (st, v) => {
    const s = text(st, v);
    return s ? s[0].toUpperCase() + s.slice(1).toLowerCase() : s;
  },
  center: (st, v, a, k) => {
    const s = text(st, v);
    const w = intArg(arg(a, k, 0, 'width', 80), 'width');
    st.checkLength(w);
    const pad = w - [...s].length;
    if (pad <= 0) return s;
    const left = Math.floor(pad / 2) + (pad & w & 1);
    return ' '.repeat(left) + s + ' '.repeat(pad - left);
  },
  default: (_st, v, a, k) => {
    const d = arg(a, k, 0, 'default_value', '');
    const boolean = truthy(arg(a, k, 1, 'boolean', false));
    if (v instanceof Undefined || (boolean && !truthy(v))) return d;
    return v;
  },
  dictsort: (st, v, a, k) => {
    st.use(v);
    if (!isDict(v)) throw new JinjaRuntimeError('dictsort expects a mapping');
    const cs = truthy(arg(a, k, 0, 'case_sensitive', false));
    const by = arg(a, k, 1, 'by', 'key');
    const rev = truthy(arg(a, k, 2, 'reverse', false));
    const pos = by === 'value' ? 1 : 0;
    const pairs = dictKeys(v).map((key) => tuple([key, v[key]]));
    pairs.sort((x, y) => cmp(sortKey(x[pos], cs), sortKey(y[pos], cs)) * (rev ? -1 : 1));
    return pairs;
  },
  escape: (st, v) => text(st, v), // output is always XML-escaped once; nothing to add
  first: (st, v) => {
    const items = iterate(st.use(v), 'first');
    return items.length ? items[0] : new Undefined('first');
  },
  float: (st, v, a, k) => {
    st.use(v);
    const d = arg(a, k, 0, 'default', new PyFloat(0));
    if (typeof v === 'boolean') return new PyFloat(Number(v));
    if (isNumber(v)) return toFloat(num(v));
    if (typeof v === 'string') {
      const f = parsePyFloat(v);
      if (f !== undefined) return toFloat(f);
    }
    return d;
  },
  format: (st, v, a, k) => {
    const template = text(st, v);
    if (a.length && Object.keys(k).length)
      throw new JinjaRuntimeError("format: can't handle positional and keyword arguments at the same time");
    try {
      return percentFormat(template, Object.keys(k).length ? { ...k } : tuple(a));
    } catch (e) {
      if (e instanceof FormatError) throw new JinjaRuntimeError(`format: ${e.message}`);
      throw e;
    }
  },
  image: (st, v) => {
    if (v instanceof ImageRef) return v;
    st.use(v);
    if (v instanceof Undefined) return v;
    const name = str(v);
    if (!st.imageNames.has(name))
      throw new JinjaRuntimeError(`no image named '${name}' in the request's images`);
    return new ImageRef(name);
  },
  int: (st, v, a, k) => {
    st.use(v);
    return toInt(v, arg(a, k, 0, 'default', 0), intArg(arg(a, k, 1, 'base', 10), 'base'));
  },
  items: (st, v) => {
    st.use(v);
    if (v instanceof Undefined) return [];
    if (!isDict(v)) throw new JinjaRuntimeError('items expects a mapping');
    return dictKeys(v).map((key) => tuple([key, v[key]]));
  },
  join: (st, v, a, k) => {
    const sep = str(arg(a, k, 0, 'd', ''));
    const attribute = arg(a, k, 1, 'attribute', null);
    // Checked while joining: a huge separator times many items must fail before it is built.
    let total = 0;
    const parts = iterate(st.use(v), 'join').map((x, i) => {
      const part = str(attrPath(x, attribute));
      total += part.length + (i ? sep.length : 0);
      st.checkLength(total);
      return part;
    });
    return parts.join(sep);
  },
  last: (st, v) => {
    const items = iterate(st.use(v), 'last');
    return items.length ? items[items.length - 1] : new Undefined('last');
  },
  length: (st, v) => length(st.use(v)),
  list: (st, v) => [...iterate(st.use(v), 'list')],
  lower: (st, v) => text(st, v).toLowerCase(),
  map: (st, v, a, k) => {
    const items = iterate(st.use(v), 'map');
    if (Object.prototype.hasOwnProperty.call(k, 'attribute')) {
      const d = Object.prototype.hasOwnProperty.call(k, 'default') ? k.default : undefined;
      return items.map((x) => {
        const r = attrPath(x, k.attribute);
        return r instanceof Undefined && d !== undefined ? d : r;
      });
    }
    const name = a[0];
    const fn = typeof name === 'string' ? st.environment.filters[name] : undefined;
    if (!fn) throw new JinjaRuntimeError(`map: no filter named '${str(name ?? null)}'`);
    return items.map((x) => fn(st, x, a.slice(1), k));
  },
  max: (st, v, a, k) => {
    const cs = truthy(arg(a, k, 0, 'case_sensitive', false));
    const attribute = arg(a, k, 1, 'attribute', null);
    const items = iterate(st.use(v), 'max');
    if (!items.length) return new Undefined('max');
    return items.reduce((m, x) =>
      cmp(sortKey(attrPath(x, attribute), cs), sortKey(attrPath(m, attribute), cs)) > 0 ? x : m,
    );
  },
  min: (st, v, a, k) => {
    const cs = truthy(arg(a, k, 0, 'case_sensitive', false));
    const attribute = arg(a, k, 1, 'attribute', null);
    const items = iterate(st.use(v), 'min');
    if (!items.length) return new Undefined('min');
    return items.reduce((m, x) =>
      cmp(sortKey(attrPath(x, attribute), cs), sortKey(attrPath(m, attribute), cs)) < 0 ? x : m,
    );
  },
  reject: (st, v, a) => select(st, v, a, false, false),
  rejectattr: (st, v, a) => select(st, v, a, false, true),
  replace: (st, v, a, k) => {
    const s = text(st, v);
    const count = arg(a, k, 2, 'count', null);
    const old = str(arg(a, k, 0, 'old', ''));
    const neu = str(arg(a, k, 1, 'new', ''));
    // The result's length is known before building it: refuse an explosion up front.
    const hits = old ? s.split(old).length - 1 : [...s].length + 1;
    st.checkLength(s.length + hits * Math.max(0, neu.length - old.length));
    const out = pyReplace(
      s,
      str(arg(a, k, 0, 'old', '')),
      str(arg(a, k, 1, 'new', '')),
      count === null ? -1 : intArg(count, 'count'),
    );
    st.checkLength(out.length);
    return out;
  },
  reverse: (st, v) => {
    st.use(v);
    if (typeof v === 'string') return [...v].reverse().join('');
    return [...iterate(v, 'reverse')].reverse();
  },
  round: (st, v, a, k) => {
    st.use(v);
    const precision = intArg(arg(a, k, 0, 'precision', 0), 'precision');
    const method = str(arg(a, k, 1, 'method', 'common'));
    if (typeof v === 'boolean') return Number(v);
    if (!isNumber(v)) throw new JinjaRuntimeError(`round: expected a number, not ${typeName(v)}`);
    const x = num(v);
    if (method === 'common') {
      // Python's round(int, n) stays an int; round(float, n) is a float.
      return isFloat(v) ? toFloat(pyRound(x, precision)) : pyRound(x, precision);
    }
    if (method !== 'floor' && method !== 'ceil')
      throw new JinjaRuntimeError('method must be common, ceil or floor');
    const f = 10 ** precision;
    return toFloat((method === 'floor' ? Math.floor(x * f) : Math.ceil(x * f)) / f);
  },
  safe: (st, v) => text(st, v), // docxtpl inserts raw XML here; we keep the text and escape it
  select: (st, v, a) => select(st, v, a, true, false),
  selectattr: (st, v, a) => select(st, v, a, true, true),
  sort: (st, v, a, k) => {
    const rev = truthy(arg(a, k, 0, 'reverse', false));
    const cs = truthy(arg(a, k, 1, 'case_sensitive', false));
    const attribute = arg(a, k, 2, 'attribute', null);
    const items = [...iterate(st.use(v), 'sort')];
    items.sort(
      (x, y) =>
        cmp(sortKey(attrPath(x, attribute), cs), sortKey(attrPath(y, attribute), cs)) * (rev ? -1 : 1),
    );
    return items;
  },
  string: (st, v) => text(st, v),
  sum: (st, v, a, k) => {
    const attribute = arg(a, k, 0, 'attribute', null);
    let total: Value = arg(a, k, 1, 'start', 0);
    for (const x of iterate(st.use(v), 'sum')) {
      const y = attrPath(x, attribute);
      const nt = typeof total === 'boolean' ? Number(total) : total;
      const ny = typeof y === 'boolean' ? Number(y) : y;
      if (!isNumber(nt) || !isNumber(ny))
        throw new JinjaRuntimeError(
          `unsupported operand type(s) for +: '${typeName(total)}' and '${typeName(y)}'`,
        );
      const float = isFloat(nt) || isFloat(ny);
      total = float ? toFloat(num(nt) + num(ny)) : num(nt) + num(ny);
    }
    return total;
  },
  title: (st, v) =>
    text(st, v)
      .split(/([-\s({[<]+)/)
      .map((w) => (w ? w[0].toUpperCase() + w.slice(1).toLowerCase() : w))
      .join(''),
  tojson: (st, v) => {
    st.use(v);
    // Jinja: json.dumps(sort_keys=True), then <, >, & and ' as \u escapes for HTML safety.
    return pyJson(v)
      .replace(/</g, '\\u003c')
      .replace(/>/g, '\\u003e')
      .replace(/&/g, '\\u0026')
      .replace(/'/g, '\\u0027');
  },
  trim: (st, v, a, k) => pyStrip(text(st, v), (arg(a, k, 0, 'chars', null) as string | null) ?? null),
  truncate: (st, v, a, k) => {
    const s = text(st, v);
    const len = intArg(arg(a, k, 0, 'length', 255), 'length');
    const killwords = truthy(arg(a, k, 1, 'killwords', false));
    const end = str(arg(a, k, 2, 'end', '...'));
    const leeway = intArg(arg(a, k, 3, 'leeway', 5), 'leeway');
    const cs = [...s];
    if (cs.length <= len + leeway) return s;
    const head = cs.slice(0, Math.max(0, len - end.length)).join('');
    if (killwords) return head + end;
    const at = head.lastIndexOf(' ');
    return (at >= 0 ? head.slice(0, at) : head) + end;
  },
  unique: (st, v, a, k) => {
    const cs = truthy(arg(a, k, 0, 'case_sensitive', false));
    const attribute = arg(a, k, 1, 'attribute', null);
    const out: Value[] = [];
    const seen: Value[] = [];
    for (const x of iterate(st.use(v), 'unique')) {
      const key = sortKey(attrPath(x, attribute), cs);
      if (!seen.some((s) => pyEquals(s, key))) {
        seen.push(key);
        out.push(x);
      }
    }
    return out;
  },
  upper: (st, v) => text(st, v).toUpperCase(),
  filesizeformat: (st, v, a, k) => {
    st.use(v);
    const n = typeof v === 'string' ? Number(parsePyFloat(v) ?? NaN) : isNumber(v) ? num(v) : NaN;
    if (Number.isNaN(n))
      throw new JinjaRuntimeError(`filesizeformat: could not convert ${typeName(v)} to float`);
    const binary = truthy(arg(a, k, 0, 'binary', false));
    const base = binary ? 1024 : 1000;
    const prefixes = binary
      ? ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB']
      : ['kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
    if (n === 1) return '1 Byte';
    if (n < base) return `${Math.trunc(n)} Bytes`;
    let unit = base;
    for (const prefix of prefixes) {
      unit *= base;
      if (n < unit || prefix === prefixes[prefixes.length - 1])
        return `${percentFormat('%.1f', (base * n) / unit)} ${prefix}`;
    }
    return '';
  },
  // Jinja escapes for HTML; in a document the text is escaped once for XML, so it reads as written.
  forceescape: (st, v) => text(st, v),
  groupby: (st, v, a, k) => {
    const attribute = arg(a, k, 0, 'attribute', null);
    const dflt = arg(a, k, 1, 'default', null);
    const cs = truthy(arg(a, k, 2, 'case_sensitive', false));
    const keyOf = (x: Value): Value => {
      const r = attrPath(x, attribute);
      return r instanceof Undefined && dflt !== null ? dflt : r;
    };
    const items = [...iterate(st.use(v), 'groupby')];
    items.sort((x, y) => cmp(sortKey(keyOf(x), cs), sortKey(keyOf(y), cs)));
    const groups: Value[] = [];
    let current: Value[] | undefined;
    let currentKey: Value = null;
    for (const x of items) {
      const key = sortKey(keyOf(x), cs);
      if (!current || !pyEquals(key, currentKey)) {
        current = [];
        currentKey = key;
        // The grouper is the first item's own value (its case kept), as Jinja 3.1 prints it.
        groups.push(groupTuple(keyOf(x), current));
      }
      current.push(x);
    }
    return groups;
  },
  indent: (st, v, a, k) => {
    const width = arg(a, k, 0, 'width', 4);
    const indention = typeof width === 'string' ? width : ' '.repeat(intArg(width, 'width'));
    const first = truthy(arg(a, k, 1, 'first', false));
    const blank = truthy(arg(a, k, 2, 'blank', false));
    const lines = splitLines(text(st, v) + '\n');
    let rv: string;
    if (blank) rv = lines.join('\n' + indention);
    else {
      rv = lines.shift() ?? '';
      if (lines.length) rv += '\n' + lines.map((l) => (l ? indention + l : l)).join('\n');
    }
    rv = first ? indention + rv : rv;
    st.checkLength(rv.length);
    return rv;
  },
  pprint: (st, v) => {
    st.use(v);
    return sortedRepr(v);
  },
  random: (st, v) => {
    const items = iterate(st.use(v), 'random');
    if (!items.length) throw new JinjaRuntimeError('No random item, sequence was empty.');
    return items[Math.floor(Math.random() * items.length)];
  },
  slice: (st, v, a, k) => {
    const seq = iterate(st.use(v), 'slice');
    const slices = intArg(arg(a, k, 0, 'slices', 1), 'slices');
    if (slices <= 0) throw new JinjaRuntimeError('slices must be positive');
    st.countIterations(slices);
    const fill = arg(a, k, 1, 'fill_with', null);
    const per = Math.floor(seq.length / slices);
    const extra = seq.length % slices;
    const out: Value[] = [];
    let offset = 0;
    for (let i = 0; i < slices; i++) {
      const start = offset + i * per;
      if (i < extra) offset++;
      const tmp = seq.slice(start, offset + (i + 1) * per);
      if (fill !== null && i >= extra) tmp.push(fill);
      out.push(tmp);
    }
    return out;
  },
  striptags: (st, v) => {
    const s = text(st, v)
      .replace(/<!--[\s\S]*?-->/g, '')
      .replace(/<[\s\S]*?>/g, '');
    return unescapeHtml(
      s
        .split(/\s+/)
        .filter((w) => w !== '')
        .join(' '),
    );
  },
  urlencode: (st, v) => {
    st.use(v);
    if (typeof v === 'string' || !(Array.isArray(v) || isDict(v))) return urlQuote(str(v), false);
    const pairs = isDict(v) ? dictKeys(v).map((key) => [key, v[key]] as Value[]) : iterate(v, 'urlencode');
    return pairs
      .map((pair) => {
        const [key, val] = iterate(pair, 'urlencode');
        return `${urlQuote(str(key), true)}=${urlQuote(str(val), true)}`;
      })
      .join('&');
  },
  wordwrap: (st, v, a, k) => {
    const width = intArg(arg(a, k, 0, 'width', 79), 'width');
    if (width <= 0) throw new JinjaRuntimeError(`invalid width ${width} (must be > 0)`);
    const breakLong = truthy(arg(a, k, 1, 'break_long_words', true));
    const wrapstring = arg(a, k, 2, 'wrapstring', null);
    const sep = wrapstring === null ? '\n' : str(wrapstring);
    const breakOnHyphens = truthy(arg(a, k, 3, 'break_on_hyphens', true));
    const out = splitLines(text(st, v))
      .map((line) => wrapLine(line, width, breakLong, breakOnHyphens).join(sep))
      .join(sep);
    st.checkLength(out.length);
    return out;
  },
  xmlattr: (st, v, a, k) => {
    st.use(v);
    if (!isDict(v)) throw new JinjaRuntimeError('xmlattr expects a mapping');
    const autospace = truthy(arg(a, k, 0, 'autospace', true));
    const parts: string[] = [];
    for (const key of dictKeys(v)) {
      const val = v[key];
      if (val === null || val instanceof Undefined) continue;
      if (/[\s/>=]/.test(key))
        throw new JinjaRuntimeError(`Invalid character in attribute name: ${repr(key)}`);
      parts.push(`${key}="${str(val)}"`);
    }
    const rv = parts.join(' ');
    return autospace && rv ? ' ' + rv : rv;
  },
  wordcount: (st, v) => (text(st, v).match(/[\p{L}\p{N}_]+/gu) ?? []).length,
};
FILTERS_TABLE.count = FILTERS_TABLE.length;
FILTERS_TABLE.d = FILTERS_TABLE.default;
FILTERS_TABLE.e = FILTERS_TABLE.escape;

/** Jinja's own filters (environment.ts adds the other layers' to a render's environment). */
export const JINJA_FILTERS: Readonly<Record<string, FilterFn>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, FilterFn>, FILTERS_TABLE),
);

const isInt = (v: Value) => typeof v === 'number' && Number.isInteger(v);

const TESTS_TABLE: Record<string, TestFn> = {
  boolean: (_s, v) => typeof v === 'boolean',
  callable: (_s, v) => v instanceof Callable,
  defined: (_s, v) => !(v instanceof Undefined),
  divisibleby: (st, v, a) => {
    st.use(v);
    const n = a[0];
    if (!isNumber(v) || n === undefined || !isNumber(n))
      throw new JinjaRuntimeError('divisibleby expects numbers');
    if (num(n) === 0) throw new JinjaRuntimeError('integer division or modulo by zero');
    return num(v) % num(n) === 0;
  },
  eq: (_s, v, a) => pyEquals(v, a[0] ?? null),
  escaped: () => false,
  filter: (st, v) => typeof v === 'string' && Object.hasOwn(st.environment.filters, v),
  test: (st, v) => typeof v === 'string' && Object.hasOwn(st.environment.tests, v),
  even: (st, v) => {
    st.use(v);
    return isNumber(v) && num(v) % 2 === 0;
  },
  false: (_s, v) => v === false,
  float: (_s, v) => isNumber(v) && isFloat(v),
  ge: (_s, v, a) => cmp(v, a[0] ?? null) >= 0,
  gt: (_s, v, a) => cmp(v, a[0] ?? null) > 0,
  in: (st, v, a) => {
    const c = a[0] ?? null;
    if (typeof c === 'string') return typeof v === 'string' && c.includes(v);
    return iterate(st.use(c), 'in').some((x) => pyEquals(x, v));
  },
  integer: (_s, v) => isInt(v),
  iterable: (_s, v) => typeof v === 'string' || Array.isArray(v) || isDict(v),
  le: (_s, v, a) => cmp(v, a[0] ?? null) <= 0,
  lower: (_s, v) => typeof v === 'string' && v === v.toLowerCase(),
  lt: (_s, v, a) => cmp(v, a[0] ?? null) < 0,
  mapping: (_s, v) => isDict(v),
  ne: (_s, v, a) => !pyEquals(v, a[0] ?? null),
  none: (_s, v) => v === null,
  number: (_s, v) => isNumber(v),
  odd: (st, v) => {
    st.use(v);
    return isNumber(v) && Math.abs(num(v) % 2) === 1;
  },
  sameas: (_s, v, a) =>
    v === (a[0] ?? null) || (v instanceof PyFloat && a[0] instanceof PyFloat && v.value === a[0].value),
  sequence: (_s, v) => typeof v === 'string' || Array.isArray(v) || isDict(v),
  string: (_s, v) => typeof v === 'string',
  true: (_s, v) => v === true,
  undefined: (_s, v) => v instanceof Undefined,
  upper: (_s, v) => typeof v === 'string' && v === v.toUpperCase(),
};
Object.assign(TESTS_TABLE, {
  '==': TESTS_TABLE.eq,
  equalto: TESTS_TABLE.eq,
  '!=': TESTS_TABLE.ne,
  '<': TESTS_TABLE.lt,
  lessthan: TESTS_TABLE.lt,
  '<=': TESTS_TABLE.le,
  '>': TESTS_TABLE.gt,
  greaterthan: TESTS_TABLE.gt,
  '>=': TESTS_TABLE.ge,
});

/** Jinja's own tests. */
export const JINJA_TESTS: Readonly<Record<string, TestFn>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, TestFn>, TESTS_TABLE),
);
