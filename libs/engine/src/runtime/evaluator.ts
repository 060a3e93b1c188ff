/**
 * Evaluates parsed expressions against one render's data. Names resolve through the loop/set
 * frames, then the request's images, then the data (own properties only), then a short list of
 * safe globals. Only `Callable`s built by this package can be called.
 */
import { withWrittenPath } from './undefined-path';
import {
  binary,
  compare,
  Frame,
  getAttr,
  getItem,
  getSlice,
  JinjaRuntimeError,
  type Environment,
  type RenderState,
} from './ops';
import type { Expr } from '../syntax/parser';
import { FormatError, percentFormat } from './pyformat';
import {
  Callable,
  getOwn,
  ImageRef,
  isDict,
  Namespace,
  TemplateObject,
  isFloat,
  isNumber,
  num,
  PyFloat,
  str,
  truthy,
  tuple,
  typeName,
  Undefined,
  type Dict,
  type Value,
} from './values';

function rangeFn(st: RenderState): Callable {
  return new Callable('range', (args) => {
    const ints = args.map((a) => {
      if (typeof a === 'boolean') return Number(a);
      if (!isNumber(a) || isFloat(a))
        throw new JinjaRuntimeError(`range() arguments must be integers, not ${typeName(a)}`);
      return num(a);
    });
    const [start, stop, step] =
      ints.length === 1 ? [0, ints[0], 1] : [ints[0] ?? 0, ints[1] ?? 0, ints[2] ?? 1];
    if (step === 0) throw new JinjaRuntimeError('range() arg 3 must not be zero');
    const n = Math.max(0, Math.ceil((stop - start) / step));
    st.countIterations(n); // a range is only ever built to be looped over
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(start + i * step);
    return out;
  });
}

function kwargsDict(kwargs: Record<string, Value>): Dict {
  const d: Dict = {};
  for (const k of Object.keys(kwargs))
    Object.defineProperty(d, k, { value: kwargs[k], enumerable: true, writable: true, configurable: true });
  return d;
}

/** Jinja's `cycler(…)`: `next()`, `current`, `reset()`. */
class Cycler extends TemplateObject {
  private pos = 0;
  constructor(private readonly items: Value[]) {
    super();
  }
  attr(name: string): Value {
    switch (name) {
      case 'current':
        return this.items[this.pos];
      case 'next':
        return new Callable('cycler.next', () => {
          const v = this.items[this.pos];
          this.pos = (this.pos + 1) % this.items.length;
          return v;
        });
      case 'reset':
        return new Callable('cycler.reset', () => {
          this.pos = 0;
          return null;
        });
    }
    return new Undefined(name);
  }
}

/** Jinja's safe globals; everything else a name can reach is data. */
function globalFn(name: string, st: RenderState): Value | undefined {
  switch (name) {
    case 'range':
      return rangeFn(st);
    case 'namespace':
      return new Callable('namespace', (args, kwargs) => {
        const init: Dict = args[0] !== undefined && isDict(args[0]) ? { ...args[0] } : {};
        return new Namespace({ ...init, ...kwargsDict(kwargs) });
      });
    case 'dict':
      return new Callable('dict', (args, kwargs) => ({
        ...(args[0] !== undefined && isDict(args[0]) ? args[0] : {}),
        ...kwargsDict(kwargs),
      }));
    case 'cycler':
      return new Callable('cycler', (args) => {
        if (!args.length) throw new JinjaRuntimeError('at least one item has to be provided');
        return new Cycler(args);
      });
    case 'num2words': {
      // Python's num2words registered as a global (`{{ num2words(total, lang='ru') }}`): the filter
      // of that name, when the render's environment has one.
      const fn = st.environment.filters.num2words;
      if (!fn) return undefined;
      return new Callable('num2words', (args, kwargs) =>
        fn(st, args[0] ?? new Undefined('number'), args.slice(1), kwargs),
      );
    }
    case 'signature_field': {
      // Ours (format/signature-fields.ts): `signature_field('seller', width_mm=60, height_mm=25)`.
      const fn = st.environment.filters.signature_field;
      if (!fn) return undefined;
      return new Callable('signature_field', (args, kwargs) =>
        fn(st, args[0] ?? new Undefined('name'), args.slice(1), kwargs),
      );
    }
    case 'chart': {
      // `{{ chart(sales, type='line') }}` (docs/charts.md): the `chart` filter of the render's
      // environment called as a function, as num2words is.
      const fn = st.environment.filters.chart;
      if (!fn) return undefined;
      return new Callable('chart', (args, kwargs) =>
        fn(st, args[0] ?? new Undefined('chart data'), args.slice(1), kwargs),
      );
    }
    case 'joiner':
      return new Callable('joiner', (args) => {
        let used = false;
        const sep = args[0] ?? ', ';
        return new Callable('joiner', () => {
          if (!used) {
            used = true;
            return '';
          }
          return sep;
        });
      });
  }
  return undefined;
}

function lookupName(name: string, frame: Frame, st: RenderState): Value {
  const local = frame.lookup(name);
  if (local !== undefined) return local;
  if (st.imageNames.has(name)) return new ImageRef(name);
  const v = getOwn(st.data, name);
  if (v !== undefined) return v;
  return globalFn(name, st) ?? new Undefined(name);
}

export function evaluate(e: Expr, frame: Frame, st: RenderState): Value {
  const v = evaluateNode(e, frame, st);
  if (v instanceof Undefined && (e.type === 'Name' || e.type === 'Attr' || e.type === 'Item'))
    return st.noteUndefined(withWrittenPath(v, e));
  return v;
}

function evaluateNode(e: Expr, frame: Frame, st: RenderState): Value {
  switch (e.type) {
    case 'Const':
      return e.value;
    case 'Name':
      return lookupName(e.name, frame, st);
    case 'Attr':
      return getAttr(evaluate(e.obj, frame, st), e.name);
    case 'Item':
      return getItem(evaluate(e.obj, frame, st), evaluate(e.index, frame, st));
    case 'Slice':
      return getSlice(
        evaluate(e.obj, frame, st),
        e.start ? evaluate(e.start, frame, st) : null,
        e.stop ? evaluate(e.stop, frame, st) : null,
        e.step ? evaluate(e.step, frame, st) : null,
      );
    case 'Call': {
      const callee =
        e.callee.type === 'Attr'
          ? getAttr(evaluate(e.callee.obj, frame, st), e.callee.name, true)
          : evaluate(e.callee, frame, st);
      const args = e.args.map((a) => evaluate(a, frame, st));
      const kwargs: Record<string, Value> = Object.create(null);
      for (const [k, v] of e.kwargs) kwargs[k] = evaluate(v, frame, st);
      if (callee instanceof Undefined) {
        // Calling what does not exist is an author's mistake a blank would hide: say so.
        if (e.callee.type === 'Attr') {
          const owner = evaluate(e.callee.obj, frame, st);
          if (!(owner instanceof Undefined))
            throw new JinjaRuntimeError(`'${typeName(owner)}' object has no method '${e.callee.name}'`);
        }
        throw new JinjaRuntimeError(`'${callee.path || 'value'}' is undefined and cannot be called`);
      }
      if (callee instanceof TemplateObject && callee.call) return callee.call(args, kwargs);
      if (!(callee instanceof Callable))
        throw new JinjaRuntimeError(`'${typeName(callee)}' object is not callable`);
      return callee.fn(args, kwargs);
    }
    case 'Filter': {
      const fn = st.environment.filters[e.name];
      if (!fn) throw new JinjaRuntimeError(`no filter named '${e.name}'`);
      const input = evaluate(e.input, frame, st);
      const args = e.args.map((a) => evaluate(a, frame, st));
      const kwargs: Record<string, Value> = Object.create(null);
      for (const [k, v] of e.kwargs) kwargs[k] = evaluate(v, frame, st);
      return fn(st, input, args, kwargs);
    }
    case 'Test': {
      const fn = st.environment.tests[e.name];
      if (!fn) throw new JinjaRuntimeError(`no test named '${e.name}'`);
      const result = fn(
        st,
        evaluate(e.input, frame, st),
        e.args.map((a) => evaluate(a, frame, st)),
      );
      return e.negated ? !result : result;
    }
    case 'Unary': {
      const v = evaluate(e.operand, frame, st);
      if (e.op === 'not') return !truthy(st.use(v));
      if (v instanceof Undefined) return st.use(v);
      if (typeof v === 'boolean') return e.op === '-' ? -Number(v) : Number(v);
      if (!isNumber(v)) throw new JinjaRuntimeError(`bad operand type for unary ${e.op}: '${typeName(v)}'`);
      if (e.op === '+') return v;
      return v instanceof PyFloat ? new PyFloat(-v.value) : -v;
    }
    case 'Binary': {
      if (e.op === 'and') {
        const l = evaluate(e.left, frame, st);
        return truthy(st.use(l)) ? evaluate(e.right, frame, st) : l;
      }
      if (e.op === 'or') {
        const l = evaluate(e.left, frame, st);
        return truthy(st.use(l)) ? l : evaluate(e.right, frame, st);
      }
      const left = evaluate(e.left, frame, st);
      const right = evaluate(e.right, frame, st);
      if (e.op === '%' && typeof left === 'string') {
        try {
          return percentFormat(left, right);
        } catch (err) {
          if (err instanceof FormatError) throw new JinjaRuntimeError(err.message);
          throw err;
        }
      }
      return binary(e.op, left, right, st);
    }
    case 'Compare': {
      let left = evaluate(e.first, frame, st);
      for (const [op, rightExpr] of e.ops) {
        const right = evaluate(rightExpr, frame, st);
        if (!compare(op, left, right, st)) return false;
        left = right;
      }
      return true;
    }
    case 'Cond':
      if (truthy(st.use(evaluate(e.test, frame, st)))) return evaluate(e.then, frame, st);
      return e.otherwise ? evaluate(e.otherwise, frame, st) : new Undefined('');
    case 'List':
      return e.items.map((i) => evaluate(i, frame, st));
    case 'Tuple':
      return tuple(e.items.map((i) => evaluate(i, frame, st)));
    case 'Dict': {
      const d: Dict = {};
      for (const [k, v] of e.entries) {
        const key = evaluate(k, frame, st);
        // Plain-object keys from templates: define, never assign, so `__proto__` is just a key.
        Object.defineProperty(d, str(key), {
          value: evaluate(v, frame, st),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return d;
    }
  }
}

/** Names of filters and tests an expression uses that `env` lacks: reported as syntax errors. */
export function unknownNames(e: Expr, env: Environment, out: string[] = []): string[] {
  const visit = (x: Expr | undefined): void => {
    if (!x) return;
    switch (x.type) {
      case 'Filter':
        if (x.name === 'urlize')
          out.push("the filter 'urlize' makes HTML links, which a Word document cannot hold");
        else if (!env.filters[x.name]) out.push(`unknown filter '${x.name}'`);
        visit(x.input);
        x.args.forEach(visit);
        x.kwargs.forEach(([, v]) => visit(v));
        return;
      case 'Test':
        if (!env.tests[x.name]) out.push(`unknown test '${x.name}'`);
        visit(x.input);
        x.args.forEach(visit);
        return;
      case 'Attr':
        visit(x.obj);
        return;
      case 'Item':
        visit(x.obj);
        visit(x.index);
        return;
      case 'Slice':
        visit(x.obj);
        visit(x.start);
        visit(x.stop);
        visit(x.step);
        return;
      case 'Call':
        visit(x.callee);
        x.args.forEach(visit);
        x.kwargs.forEach(([, v]) => visit(v));
        return;
      case 'Unary':
        visit(x.operand);
        return;
      case 'Binary':
        visit(x.left);
        visit(x.right);
        return;
      case 'Compare':
        visit(x.first);
        x.ops.forEach(([, v]) => visit(v));
        return;
      case 'Cond':
        visit(x.test);
        visit(x.then);
        visit(x.otherwise);
        return;
      case 'List':
      case 'Tuple':
        x.items.forEach(visit);
        return;
      case 'Dict':
        x.entries.forEach(([k, v]) => {
          visit(k);
          visit(v);
        });
        return;
    }
  };
  visit(e);
  return out;
}

export { Frame };
