/**
 * Every template problem the engine's compile passes find (tag scanner, parser, block structure,
 * placement, table-cell balance), collected instead of thrown: rendering stops at them, a linter
 * lists them all.
 */
import type PizZip from 'pizzip';
import { isTypedError } from '@app/contracts';
import { DocxImageWriter } from '../docx/docx-images';
import { JinjaModule } from '../docx/jinja-module';
import { InvalidTemplateError, type TemplateProblem } from '../errors';
import { compileTemplate } from '../render';
import { DEFAULT_EVAL_LIMITS, JinjaRuntimeError, RenderState } from '../runtime/ops';

interface CompileError {
  message?: string;
  properties?: {
    id?: string;
    errors?: CompileError[];
    problem?: TemplateProblem;
    explanation?: string;
    file?: string;
    xtag?: string;
  };
}

/** `zip` is consumed: the module marks its tags in place. */
export function compileProblems(zip: PizZip): { problems: TemplateProblem[]; tagCount: number } {
  const module = new JinjaModule(
    new RenderState({}, new Set(), false, DEFAULT_EVAL_LIMITS),
    new DocxImageWriter(new Map()),
  );
  try {
    compileTemplate(zip, module);
    return { problems: [], tagCount: module.tagCount };
  } catch (e) {
    if (isTypedError(e)) throw e;
    if (e instanceof JinjaRuntimeError)
      throw new InvalidTemplateError(e.message, { reason: 'reserved_characters' });
    const err = e as CompileError;
    const list = err.properties?.errors ?? (err.properties?.id ? [err] : []);
    if (!list.length) throw e;
    const xmlBroken = list.find((x) => /xml|malformed/i.test(x.properties?.id ?? ''));
    if (xmlBroken)
      throw new InvalidTemplateError(
        `The .docx is damaged: ${xmlBroken.properties?.file ?? 'a part'} is not well-formed XML`,
        { reason: 'malformed_xml', part: xmlBroken.properties?.file ?? null },
      );
    const problems = list.map(
      (x) =>
        x.properties?.problem ?? {
          message: x.properties?.explanation ?? x.message ?? 'template error',
          tag: x.properties?.xtag ?? '',
          context: '',
          part: x.properties?.file ?? '',
        },
    );
    return { problems, tagCount: module.tagCount };
  }
}
