/**
 * Runtime of the Jinja module: evaluates a compiled tag with our own evaluator and renders block
 * bodies through docxtemplater's own `render`, then its corruption fixes (joinUncorrupt, in
 * join-uncorrupt.ts's faster form with the same result), as its loop module does.
 */
import { TemplateRuntimeError } from '../errors';
import type { DocxImageWriter } from './docx-images';
import type { ContentWriter } from './content-writer';
import { evaluate } from '../runtime/evaluator';
import {
  Frame,
  iterate,
  JinjaRuntimeError,
  LoopInfo,
  LoopRun,
  MAX_LOOP_RECURSION_DEPTH,
  MAX_MACRO_CALL_DEPTH,
  type RenderState,
} from '../runtime/ops';
import type { Expr, FilterCall, Param, Statement } from '../syntax/parser';
import {
  Callable,
  ImageRef,
  Markup,
  Namespace,
  num,
  isNumber,
  str,
  truthy,
  Undefined,
  type Value,
} from '../runtime/values';
import { CORE_PROPERTIES_PART } from './doc-properties';
import { joinUncorrupt, type JoinUncorruptOptions } from './join-uncorrupt';
import { isJinja, type JinjaPart, type Part, type RenderOptions } from './parts';
import { escapeText, escapeXml, markup, textToRunXml } from './run-text';

type Rendered = { value: string | string[]; errors?: unknown[] };

/** joinUncorrupt hands back the parts (docxtemplater joins them); a value needs the string. */
function joined(v: string | string[]): string {
  return Array.isArray(v) ? v.join('') : v;
}

/**
 * docxtemplater's render options for a body, as its loop module makes them but without copying:
 * its loop module spreads ~30 options per iteration; a derived object reads the rest through its
 * prototype, and render's own writes (index, resolvedId) stay on the derived object. Nothing
 * that renders our parts spreads options, so no property is lost.
 */
function derive<T extends object, E extends object>(options: T, extra: E): T & E {
  return Object.assign(Object.create(options) as T, extra);
}

/** A block's rendered parts after docxtemplater's corruption fixes, as its loop module applies them. */
function fixCorruption(parts: string[], part: JinjaPart, options: RenderOptions): string[] {
  return joinUncorrupt(parts, options as unknown as JoinUncorruptOptions, (ps) =>
    options.joinUncorrupt(ps, derive(options, { basePart: part })),
  );
}

export class BlockRenderer {
  private readonly rootFrames = new Map<string, Frame>();
  private callDepth = 0;

  constructor(
    private readonly state: RenderState,
    private readonly images: DocxImageWriter,
    private readonly rich?: ContentWriter,
  ) {}

  private frameFor(options: { jinjaFrame?: Frame; filePath: string }): Frame {
    if (options.jinjaFrame) return options.jinjaFrame;
    let f = this.rootFrames.get(options.filePath);
    if (!f) this.rootFrames.set(options.filePath, (f = new Frame()));
    return f;
  }

  render(part: Part, options: RenderOptions): Rendered | null {
    if (!isJinja(part)) return null;
    const frame = this.frameFor(options);
    this.state.produced.length = 0;
    try {
      if (part.kind === 'expr')
        return { value: this.output(evaluate(part.expr!, frame, this.state), options, part) };
      return this.renderStatement(part, part.statement!, frame, options);
    } catch (e) {
      if (e instanceof JinjaRuntimeError) {
        const { handled, names } = this.state.explainFailure();
        if (handled) return { value: '' }; // strict mode: reported with every undefined variable
        const cause = names.length ? ` (undefined: ${names.join(', ')})` : '';
        throw new TemplateRuntimeError(`${e.message}${cause} in ${part.source}`, {
          tag: part.source,
          context: part.context,
          part: part.filePath,
        });
      }
      // A value too long for a string or data nested too deep to print: the data's fault, not ours.
      if (e instanceof RangeError) {
        throw new TemplateRuntimeError(
          `a value is too large or too deeply nested (${e.message}) in ${part.source}`,
          {
            tag: part.source,
            context: part.context,
            part: part.filePath,
          },
        );
      }
      throw e;
    }
  }

  private renderStatement(part: JinjaPart, st: Statement, frame: Frame, options: RenderOptions): Rendered {
    const ev = (e: Expr, f: Frame = frame) => evaluate(e, f, this.state);
    switch (st.type) {
      case 'set': {
        const v = ev(st.value);
        if (st.attr === undefined) frame.assign(st.targets, v);
        else {
          const ns = frame.lookup(st.targets[0]);
          if (!(ns instanceof Namespace))
            throw new JinjaRuntimeError(`cannot assign attribute on non-namespace object '${st.targets[0]}'`);
          ns.setAttr(st.attr, v);
        }
        return { value: '' };
      }
      case 'setblock': {
        const v = this.applyFilters(
          markup(this.renderToXml(part.body!, frame, part, options)),
          st.filters,
          frame,
        );
        frame.set(st.target, v);
        return { value: '' };
      }
      case 'if':
        for (const b of part.branches ?? []) {
          if (!b.test || truthy(this.state.use(ev(b.test))))
            return this.renderBody(b.body, frame, part, options);
        }
        return { value: '' };
      case 'for':
        return this.renderLoop(part, st, frame, options, ev(st.iter), 0);
      case 'macro':
        frame.set(st.name, this.macro(st.name, st.params, part, frame, options));
        return { value: '' };
      case 'call': {
        const call = st.call as Extract<Expr, { type: 'Call' }>;
        const callee = ev(call.callee);
        if (!(callee instanceof Callable))
          throw new JinjaRuntimeError(`'call' needs a macro, and '${str(callee) || 'this'}' is not one`);
        const kwargs: Record<string, Value> = Object.create(null);
        for (const [k, e] of call.kwargs) kwargs[k] = ev(e);
        kwargs.caller = this.macro('caller', st.params, part, frame, options);
        const args = call.args.map((a) => ev(a));
        return {
          value: this.output(
            this.callNested(() => callee.fn(args, kwargs)),
            options,
            part,
          ),
        };
      }
      case 'with': {
        const f = new Frame(frame);
        for (const [name, e] of st.assignments) f.set(name, ev(e));
        return this.renderBody(part.body!, f, part, options);
      }
      case 'filter': {
        const v = this.applyFilters(
          markup(this.renderToXml(part.body!, frame, part, options)),
          st.filters,
          frame,
        );
        return { value: this.output(v, options, part) };
      }
      case 'vm': {
        const first = truthy(this.loopAttr(frame, 'first'));
        return { value: `<w:vMerge w:val="${first ? 'restart' : 'continue'}"/>` };
      }
      case 'hm': {
        const n = this.loopAttr(frame, 'length');
        const span = (part.cellSpan ?? 1) * (isNumber(n) ? num(n) : 0);
        return { value: `<w:gridSpan w:val="${span}"/>` };
      }
      case 'colspan':
        return { value: `<w:gridSpan w:val="${escapeXml(str(this.state.use(ev(st.value))))}"/>` };
      case 'cellbg':
        return {
          value: `<w:shd w:val="clear" w:color="auto" w:fill="${escapeXml(str(this.state.use(ev(st.value))))}"/>`,
        };
      default:
        return { value: '' };
    }
  }

  private loopAttr(frame: Frame, name: string): Value {
    const loop = frame.lookup('loop');
    return loop instanceof LoopInfo ? loop.attr(name) : new Undefined(`loop.${name}`);
  }

  private applyFilters(v: Value, filters: FilterCall[], frame: Frame): Value {
    for (const f of filters) {
      const fn = this.state.environment.filters[f.name];
      if (!fn) throw new JinjaRuntimeError(`no filter named '${f.name}'`);
      const kwargs: Record<string, Value> = Object.create(null);
      for (const [k, e] of f.kwargs) kwargs[k] = evaluate(e, frame, this.state);
      v = fn(
        this.state,
        v instanceof Markup ? v.plain : v,
        f.args.map((a) => evaluate(a, frame, this.state)),
        kwargs,
      );
    }
    return v;
  }

  /** Macro calls nest (a macro calling itself, `caller()` inside): bounded like Python's stack. */
  private callNested<T>(fn: () => T): T {
    if (this.callDepth >= MAX_MACRO_CALL_DEPTH)
      throw new JinjaRuntimeError(`macro calls nest more than ${MAX_MACRO_CALL_DEPTH} deep (limit)`);
    // A macro calling itself twice per call stays shallow but grows exponentially: every call
    // counts against the render's loop budget.
    this.state.countIterations(1);
    this.callDepth++;
    try {
      return fn();
    } finally {
      this.callDepth--;
    }
  }

  /** A `{% macro %}` (or a `{% call %}` body as `caller`): renders its body with the arguments bound. */
  private macro(name: string, params: Param[], part: JinjaPart, defining: Frame, options: RenderOptions) {
    return new Callable(
      name,
      (args, kwargs) =>
        this.callNested(() => {
          const f = new Frame(defining);
          const extraKw: Record<string, Value> = {};
          for (const k of Object.keys(kwargs))
            if (k !== 'caller' && !params.some((q) => q.name === k)) extraKw[k] = kwargs[k];
          params.forEach((q, i) => {
            let v: Value;
            if (i < args.length) v = args[i];
            else if (Object.prototype.hasOwnProperty.call(kwargs, q.name)) v = kwargs[q.name];
            else if (q.default) v = evaluate(q.default, f, this.state);
            else v = new Undefined(q.name);
            f.set(q.name, v);
          });
          f.set('varargs', args.slice(params.length));
          f.set('kwargs', extraKw);
          if (kwargs.caller instanceof Callable) f.set('caller', kwargs.caller);
          return markup(this.renderToXml(part.body!, f, part, options));
        }),
      `<Macro '${name}'>`,
    );
  }

  private renderLoop(
    part: JinjaPart,
    st: Extract<Statement, { type: 'for' }>,
    frame: Frame,
    options: RenderOptions,
    iterable: Value,
    depth0: number,
  ): Rendered {
    let items = iterate(this.state.use(iterable), `for ${st.targets.join(', ')}`);
    if (st.filter) {
      const filter = st.filter;
      items = items.filter((item) => {
        const f = new Frame(frame);
        f.assign(st.targets, item);
        return truthy(this.state.use(evaluate(filter, f, this.state)));
      });
    }
    if (!items.length)
      return part.loopElse ? this.renderBody(part.loopElse, frame, part, options) : { value: '' };
    this.state.countIterations(items.length);
    const values: string[] = [];
    const errors: unknown[] = [];
    const run = new LoopRun();
    const recurse = st.recursive
      ? (children: Value) => {
          if (depth0 + 1 >= MAX_LOOP_RECURSION_DEPTH)
            throw new JinjaRuntimeError(
              `a recursive loop went more than ${MAX_LOOP_RECURSION_DEPTH} levels deep (limit)`,
            );
          const r = this.renderLoop(part, st, frame, options, children, depth0 + 1);
          if (r.errors?.length) throw r.errors[0];
          return markup(joined(r.value));
        }
      : undefined;
    const body = derive(options, { compiled: part.loopBody!, jinjaFrame: frame });
    for (let i = 0; i < items.length; i++) {
      const f = new Frame(frame);
      f.assign(st.targets, items[i]);
      f.set('loop', new LoopInfo(items, i, depth0, run, recurse));
      body.jinjaFrame = f;
      const r = options.render(body);
      for (const p of r.parts) values.push(p);
      for (const e of r.errors) errors.push(e);
    }
    return { value: fixCorruption(values, part, options), errors };
  }

  private renderBody(body: Part[], frame: Frame, part: JinjaPart, options: RenderOptions): Rendered {
    const r = options.render(derive(options, { compiled: body, jinjaFrame: frame }));
    return { value: fixCorruption(r.parts, part, options), errors: r.errors };
  }

  /** A body rendered into a value (macro output, block set): its errors are raised at once. */
  private renderToXml(body: Part[], frame: Frame, part: JinjaPart, options: RenderOptions): string {
    const r = this.renderBody(body, frame, part, options);
    if (r.errors?.length) throw r.errors[0];
    const xml = joined(r.value);
    this.state.checkLength(xml.length); // a value built from values (`{% set x %}{{ x }}{{ x }}…`)
    return xml;
  }

  /** An evaluated value as run XML: an image becomes a drawing, anything else escaped text. */
  private output(v: Value, options: RenderOptions, part?: JinjaPart): string {
    // RICH HOOK (libs/engine/src/rich): rich values, sub-documents and `{{p x }}` paragraphs.
    if (options.filePath !== CORE_PROPERTIES_PART) {
      const rich = this.rich?.output(v, part?.placement, options.filePath, (plain) =>
        this.output(plain, options),
      );
      if (rich !== undefined) return rich;
    }
    if (v instanceof ImageRef) {
      if (options.filePath === CORE_PROPERTIES_PART) return '';
      return `</w:t>${this.images.drawing(v.name, options.filePath, v.generated)}<w:t xml:space="preserve">`;
    }
    if (v instanceof Markup) return v.xml;
    this.state.use(v);
    // A document property is plain text: no runs, breaks or paragraphs to make there.
    if (options.filePath === CORE_PROPERTIES_PART) return escapeText(str(v));
    return textToRunXml(v instanceof Undefined ? this.state.missingText(v) : str(v), part ?? {});
  }
}
