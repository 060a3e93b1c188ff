/**
 * Runtime of the Jinja module: evaluates a compiled tag with our own evaluator and renders block
 * bodies through docxtemplater's own `render` and `joinUncorrupt`, as its loop module does.
 */
import { TemplateRuntimeError } from '../errors';
import type { DocxImageWriter } from './docx-images';
import { evaluate } from '../runtime/evaluator';
import { Frame, iterate, JinjaRuntimeError, LoopInfo, type RenderState } from '../runtime/ops';
import type { Statement } from '../syntax/parser';
import { ImageRef, str, truthy, Undefined, type Value } from '../runtime/values';
import { isJinja, type JinjaPart, type Part, type RenderOptions } from './parts';

/* eslint-disable no-control-regex -- matching control characters is the point here */
const XML_FORBIDDEN = new RegExp(
  '[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\ufffe\\uffff]|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]',
  'g',
);
/* eslint-enable no-control-regex */

/** Removes characters that XML 1.0 forbids (control characters, lone surrogates, U+FFFE/F). */
function xmlSafe(s: string): string {
  return s.replace(XML_FORBIDDEN, '');
}

/** Plain text as the inside of a `<w:t>`: escaped, line breaks and tabs as Word elements. */
export function textToRunXml(s: string): string {
  const escaped = xmlSafe(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return escaped
    .replace(/\r\n|\r|\n/g, '</w:t><w:br/><w:t xml:space="preserve">')
    .replace(/\t/g, '</w:t><w:tab/><w:t xml:space="preserve">');
}

export class BlockRenderer {
  private readonly rootFrames = new Map<string, Frame>();

  constructor(
    private readonly state: RenderState,
    private readonly images: DocxImageWriter,
  ) {}

  private frameFor(options: { jinjaFrame?: Frame; filePath: string }): Frame {
    if (options.jinjaFrame) return options.jinjaFrame;
    let f = this.rootFrames.get(options.filePath);
    if (!f) this.rootFrames.set(options.filePath, (f = new Frame()));
    return f;
  }

  render(part: Part, options: RenderOptions): { value: string; errors?: unknown[] } | null {
    if (!isJinja(part)) return null;
    const frame = this.frameFor(options);
    this.state.produced.length = 0;
    try {
      if (part.kind === 'expr')
        return { value: this.output(evaluate(part.expr!, frame, this.state), options) };
      const st = part.statement!;
      if (st.type === 'set') {
        const v = evaluate(st.value, frame, this.state);
        this.assign(frame, st.targets, v);
        return { value: '' };
      }
      if (st.type === 'if') {
        for (const b of part.branches ?? []) {
          if (!b.test || truthy(this.state.use(evaluate(b.test, frame, this.state))))
            return this.renderBody(b.body, frame, part, options);
        }
        return { value: '' };
      }
      if (st.type === 'for') return this.renderLoop(part, st, frame, options);
      return { value: '' };
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

  private renderLoop(
    part: JinjaPart,
    st: Extract<Statement, { type: 'for' }>,
    frame: Frame,
    options: RenderOptions,
  ) {
    let items = iterate(this.state.use(evaluate(st.iter, frame, this.state)), `for ${st.targets.join(', ')}`);
    if (st.filter) {
      const filter = st.filter;
      items = items.filter((item) => {
        const f = new Frame(frame);
        this.assign(f, st.targets, item);
        return truthy(this.state.use(evaluate(filter, f, this.state)));
      });
    }
    if (!items.length)
      return part.loopElse ? this.renderBody(part.loopElse, frame, part, options) : { value: '' };
    this.state.countIterations(items.length);
    const values: string[] = [];
    const errors: unknown[] = [];
    items.forEach((item, i) => {
      const f = new Frame(frame);
      this.assign(f, st.targets, item);
      f.set('loop', new LoopInfo(items, i));
      const r = options.render({ ...options, compiled: part.loopBody!, jinjaFrame: f });
      values.push(...r.parts);
      errors.push(...r.errors);
    });
    return { value: options.joinUncorrupt(values, { ...options, basePart: part }), errors };
  }

  private renderBody(body: Part[], frame: Frame, part: JinjaPart, options: RenderOptions) {
    const r = options.render({ ...options, compiled: body, jinjaFrame: frame });
    return { value: options.joinUncorrupt(r.parts, { ...options, basePart: part }), errors: r.errors };
  }

  private assign(frame: Frame, targets: string[], value: Value): void {
    if (targets.length === 1) {
      frame.set(targets[0], value);
      return;
    }
    const seq = value instanceof Undefined ? [] : iterate(value, 'unpacking');
    if (seq.length !== targets.length)
      throw new JinjaRuntimeError(
        `cannot unpack ${seq.length} values into ${targets.length} names (${targets.join(', ')})`,
      );
    targets.forEach((t, i) => frame.set(t, seq[i]));
  }

  /** An evaluated value as run XML: an image becomes a drawing, anything else escaped text. */
  private output(v: Value, options: RenderOptions): string {
    if (v instanceof ImageRef) {
      return `</w:t>${this.images.drawing(v.name, options.filePath)}<w:t xml:space="preserve">`;
    }
    this.state.use(v);
    return textToRunXml(str(v));
  }
}
