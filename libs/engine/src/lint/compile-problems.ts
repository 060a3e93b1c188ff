/**
 * Every template problem the engine's compile passes find (tag scanner, parser, block structure,
 * placement, table-cell balance), collected instead of thrown: rendering stops at them, a linter
 * lists them all.
 */
import type PizZip from 'pizzip';
import { DocxImageWriter } from '../docx/docx-images';
import { JinjaModule } from '../docx/jinja-module';
import type { TemplateProblem } from '../errors';
import { compileErrorProblems, compileTemplate } from '../render';
import { DEFAULT_EVAL_LIMITS, RenderState, type Environment } from '../runtime/ops';

/**
 * `zip` is consumed: the module marks its tags in place. `environment` decides which filter and
 * test names exist: give the one the template will be rendered with.
 */
export function compileProblems(
  zip: PizZip,
  environment: Environment,
): { problems: TemplateProblem[]; tagCount: number } {
  const module = new JinjaModule(
    new RenderState(environment, {}, new Set(), false, DEFAULT_EVAL_LIMITS),
    new DocxImageWriter(new Map()),
  );
  try {
    compileTemplate(zip, module);
    return { problems: [], tagCount: module.tagCount };
  } catch (e) {
    return { problems: compileErrorProblems(e), tagCount: module.tagCount };
  }
}
