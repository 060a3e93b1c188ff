/**
 * What a template expects from its data, read from its tags without any data: every variable path
 * (`customer.name`, `items[].price`) and how it is used, the loops, the conditions and the images.
 * Loop variables are followed back to the list they iterate, so `{{ item.price }}` inside
 * `{% for item in order.items %}` is the field `order.items[].price`.
 */
import type { Expr } from '../syntax/parser';
import type {
  InspectedVariable,
  TemplateCondition,
  TemplateImage,
  TemplateLoop,
  VariableUsage,
} from './inspection-schema';
import type { TemplateOutline, TemplateTag } from './template-outline';

// How a variable is used (printed, looped over, tested, placed as an image, …) and what the answer shows is defined once, as schemas (inspection-schema.ts).
export type { TemplateCondition, TemplateImage, TemplateLoop, VariableUsage };

export type TemplateVariable = InspectedVariable & {
  /** The path's segments; `[]` stands for "each element of the list". */
  segments: string[];
};

export interface TemplateVariables {
  variables: TemplateVariable[];
  loops: TemplateLoop[];
  conditions: TemplateCondition[];
  images: TemplateImage[];
}

/** Names that usually mean an image placeholder (`{{ logo }}`, `{{ signature }}`). */
export const IMAGE_LIKE_NAME =
  /(logo|image|img|photo|picture|pic|signature|stamp|seal|qr|barcode|icon|chart)/i;

const NUMERIC_FILTERS = new Set(['round', 'abs', 'int', 'float', 'sum', 'filesizeformat', 'num2words']);
const ARITHMETIC = new Set(['+', '-', '*', '/', '//', '%', '**']);
const DICT_METHODS = new Set(['items', 'keys', 'values']);

function pathText(segments: string[]): string {
  let out = '';
  for (const s of segments) {
    if (s === '[]') out += '[]';
    else if (/^[\p{ID_Start}_]\p{ID_Continue}*$/u.test(s)) out += out ? `.${s}` : s;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** Names bound by loops and `set`: a loop target maps to its list's element path; null is opaque. */
type Scope = Map<string, string[] | null>;

interface Flags {
  usage: VariableUsage;
  optional?: boolean;
  numeric?: boolean;
}

export function templateVariables(outline: TemplateOutline): TemplateVariables {
  const vars = new Map<string, TemplateVariable>();
  const loops: TemplateLoop[] = [];
  const conditions: TemplateCondition[] = [];
  const images: TemplateImage[] = [];
  const openLoops: { loop: TemplateLoop; element: string[] | null }[] = [];
  let scopes: Scope[] = [new Map()];
  let part = '';
  let tag: TemplateTag;
  let seenInTag = new Set<string>();
  let collected: string[] = [];

  const lookup = (name: string): string[] | null | undefined => {
    for (let i = scopes.length - 1; i >= 0; i--) if (scopes[i].has(name)) return scopes[i].get(name);
    return undefined;
  };

  const record = (segments: string[], flags: Flags, mapping = false) => {
    const path = pathText(segments);
    let v = vars.get(path);
    if (!v) {
      v = {
        path,
        segments,
        usages: [],
        count: 0,
        optional: false,
        numeric: false,
        mapping: false,
        locations: [],
      };
      vars.set(path, v);
    }
    if (!v.usages.includes(flags.usage)) v.usages.push(flags.usage);
    if (flags.optional) v.optional = true;
    if (flags.numeric) v.numeric = true;
    if (mapping) v.mapping = true;
    if (!seenInTag.has(path)) {
      seenInTag.add(path);
      v.count++;
      if (v.locations.length < 10) v.locations.push(tag.location);
    }
    collected.push(path);
    // A loop body's use of the element's fields names the loop's item fields.
    for (const { loop, element } of openLoops) {
      if (element && segments.length > element.length && element.every((s, i) => segments[i] === s)) {
        const field = pathText(segments.slice(element.length));
        if (!loop.item_fields.includes(field)) loop.item_fields.push(field);
      }
    }
  };

  /** The data path of a chain of names, attributes and constant keys; null when not data. */
  const resolve = (e: Expr): string[] | null => {
    switch (e.type) {
      case 'Name': {
        if (e.name === 'loop' && openLoops.length) return null;
        const bound = lookup(e.name);
        if (bound === null) return null;
        return bound ?? [e.name];
      }
      case 'Attr': {
        const base = resolve(e.obj);
        return base && [...base, e.name];
      }
      case 'Item': {
        const base = resolve(e.obj);
        if (!base) return null;
        if (e.index.type === 'Const' && typeof e.index.value === 'string') return [...base, e.index.value];
        if (e.index.type === 'Const' && typeof e.index.value === 'number') return [...base, '[]'];
        return null;
      }
      default:
        return null;
    }
  };

  const collect = (e: Expr | undefined, flags: Flags): void => {
    if (!e) return;
    switch (e.type) {
      case 'Name':
      case 'Attr':
      case 'Item': {
        const segments = resolve(e);
        if (segments) record(segments, flags);
        else if (e.type === 'Attr') collect(e.obj, { usage: 'computed' });
        else if (e.type === 'Item') {
          collect(e.obj, { usage: 'computed' });
          collect(e.index, { usage: 'computed' });
        }
        return;
      }
      case 'Filter': {
        const name = e.name;
        if (name === 'image') collect(e.input, { ...flags, usage: 'image' });
        else if (name === 'default' || name === 'd') collect(e.input, { ...flags, optional: true });
        else collect(e.input, { ...flags, numeric: flags.numeric || NUMERIC_FILTERS.has(name) });
        // `"%.2f" | format(total)` prints its arguments.
        const argFlags: Flags = name === 'format' ? flags : { usage: 'computed' };
        e.args.forEach((a) => collect(a, argFlags));
        e.kwargs.forEach(([, a]) => collect(a, { usage: 'computed' }));
        return;
      }
      case 'Test':
        collect(e.input, {
          usage: 'tested',
          optional: flags.optional || ['defined', 'undefined', 'none'].includes(e.name),
        });
        e.args.forEach((a) => collect(a, { usage: 'computed' }));
        return;
      case 'Call':
        if (e.callee.type === 'Attr') collect(e.callee.obj, flags);
        else if (e.callee.type !== 'Name') collect(e.callee, flags);
        e.args.forEach((a) => collect(a, { usage: 'computed' }));
        e.kwargs.forEach(([, a]) => collect(a, { usage: 'computed' }));
        return;
      case 'Unary':
        collect(e.operand, e.op === 'not' ? { usage: 'tested' } : { ...flags, numeric: true });
        return;
      case 'Binary': {
        const numeric = ARITHMETIC.has(e.op);
        collect(e.left, { ...flags, numeric: flags.numeric || numeric });
        collect(e.right, { ...flags, numeric: flags.numeric || numeric });
        return;
      }
      case 'Compare':
        [e.first, ...e.ops.map(([, x]) => x)].forEach((x) => collect(x, { usage: 'tested' }));
        return;
      case 'Cond':
        collect(e.test, { usage: 'tested' });
        collect(e.then, flags);
        collect(e.otherwise, flags);
        return;
      case 'Slice':
        collect(e.obj, flags);
        [e.start, e.stop, e.step].forEach((x) => collect(x, { usage: 'computed' }));
        return;
      case 'List':
      case 'Tuple':
        e.items.forEach((x) => collect(x, flags));
        return;
      case 'Dict':
        e.entries.forEach(([k, v]) => {
          collect(k, flags);
          collect(v, flags);
        });
        return;
      default:
        return;
    }
  };

  for (const t of outline.tags) {
    tag = t;
    seenInTag = new Set();
    collected = [];
    // A deck's slide and its notes share one scope: a slide loop fills both with each item.
    const tagScope = t.location.slide !== undefined ? `slide ${t.location.slide}` : t.location.part;
    if (tagScope !== part) {
      part = tagScope;
      scopes = [new Map()]; // `set` at the top level is per part, as in the renderer
      openLoops.length = 0;
    }
    if (t.kind === 'expr' && t.expr) {
      const segments = resolve(t.expr);
      const topLevelName = t.expr.type === 'Name' && segments?.length === 1;
      if (topLevelName && t.alone && IMAGE_LIKE_NAME.test(t.expr.type === 'Name' ? t.expr.name : '')) {
        record(segments!, { usage: 'image' });
        images.push({ kind: 'placeholder', name: segments![0], location: t.location });
      } else {
        collect(t.expr, { usage: t.placement === 'p' || t.placement === 'r' ? 'rich' : 'printed' });
        if (t.expr.type === 'Filter' && t.expr.name === 'image') {
          const target = resolve(t.expr.input);
          images.push({ kind: 'by_value', name: target ? pathText(target) : t.source, location: t.location });
        }
      }
      continue;
    }
    const st = t.statement;
    if (!st) continue;
    switch (st.type) {
      case 'if':
      case 'elif':
        collect(st.test, { usage: 'tested' });
        conditions.push({ tag: t.source, variables: [...new Set(collected)], location: t.location });
        break;
      case 'for': {
        const loop: TemplateLoop = {
          tag: t.source,
          iterable: null,
          targets: st.targets,
          item_fields: [],
          placement: t.placement,
          location: t.location,
        };
        const scope: Scope = new Map(st.targets.map((n) => [n, null]));
        let element: string[] | null = null;
        const iter = st.iter;
        const dictBase =
          iter.type === 'Call' && iter.callee.type === 'Attr' && DICT_METHODS.has(iter.callee.name)
            ? resolve(iter.callee.obj)
            : null;
        if (dictBase) {
          record(dictBase, { usage: 'looped' }, true);
          loop.iterable = pathText(dictBase);
        } else {
          const segments = resolve(iter);
          if (segments) {
            record(segments, { usage: 'looped' });
            loop.iterable = pathText(segments);
            element = [...segments, '[]'];
            if (st.targets.length === 1) scope.set(st.targets[0], element);
          } else collect(iter, { usage: 'computed' });
        }
        scopes.push(scope);
        openLoops.push({ loop, element });
        if (st.filter) collect(st.filter, { usage: 'tested' });
        loops.push(loop);
        break;
      }
      case 'endfor':
        if (scopes.length > 1) scopes.pop();
        openLoops.pop();
        break;
      case 'set':
        collect(st.value, { usage: 'computed' });
        for (const n of st.targets) scopes[scopes.length - 1].set(n, null);
        break;
      default:
        break;
    }
  }
  return { variables: [...vars.values()], loops, conditions, images };
}
