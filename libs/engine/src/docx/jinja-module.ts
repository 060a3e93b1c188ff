/**
 * The Jinja dialect of docxtpl as a docxtemplater module, through its module API only:
 *
 * - `on('before-preparse')`: marks every Jinja tag in the templated parts (tag-scanner.ts), so
 *   docxtemplater's lexer gathers tags that Word split across runs.
 * - `matchers`: claims those tags.
 * - `postparse`: the compile passes in compile/ — parse every tag (all syntax errors at once),
 *   whitespace control, docxtpl's placement prefixes, then the block tree.
 * - `render`: render-blocks.ts evaluates tags and renders block bodies.
 *
 * A template compiled before (compiled-templates.ts) is rendered by render-compiled.ts with this
 * module's `render` and `postrender`, without docxtemplater's compile.
 */
import type { TemplateProblem } from '../errors';
import type { DocxImageWriter } from './docx-images';
import type { ContentWriter } from './content-writer';
import { JinjaRuntimeError, type Environment, type RenderState } from '../runtime/ops';
import { markJinjaTags, TAG_END, TAG_START } from '../syntax/tag-scanner';
import { annotate } from './compile/annotate';
import { buildTree } from './compile/block-tree';
import { mergeStaticParts } from './compile/merge-static';
import { applyPlacement } from './compile/placement';
import { applyRaw } from './compile/raw';
import { CORE_PROPERTIES_PART, markPropertyTags, TEMPLATED_PROPERTIES } from './doc-properties';
import { applyTableTags } from './compile/table-tags';
import { applyWhitespaceControl } from './compile/whitespace';
import { isJinja, isTextContent, MODULE, type JinjaPart, type Part, type RenderOptions } from './parts';
import type { CompiledTemplate, RenderContext } from './compiled-templates';
import { BlockRenderer } from './render-blocks';
import { unescapeLiteralBraces } from './run-text';
import { fixTableGrids } from './table-grid';
import { joinUncorrupt, type JoinUncorruptOptions } from './join-uncorrupt';
import { WORD, WORD_PARTS } from '../package/formats';

export { TAG_START, TAG_END };

export class JinjaModule {
  readonly name = 'JinjaModule';
  // Set by docxtemplater when the module is attached (module API).
  zip?: { files: Record<string, { asText(): string }>; file(path: string, data: string): void };
  docxtemplater?: {
    templatedFiles?: string[];
    /** Each file's content type, from [Content_Types].xml. */
    filesContentTypes?: Record<string, string | undefined>;
    fileTypeConfig?: { tagsXmlLexedArray: string[]; tagsXmlTextArray: string[] };
  };

  private readonly scanProblems = new Map<string, TemplateProblem[]>();
  private readonly renderer: BlockRenderer;
  tagCount = 0;
  private gridsMayChange = false;
  /** What this compile produced, part by part (kept by the caller when it succeeds). */
  private readonly postparsedParts = new Map<string, Part[]>();
  private xmlChars = 0;
  private readonly environment: Environment;

  constructor(
    state: RenderState,
    images: DocxImageWriter,
    rich?: ContentWriter,
    /** The template's compile kept from an earlier render, when render-compiled.ts renders it. */
    kept?: CompiledTemplate,
  ) {
    this.environment = state.environment;
    this.renderer = new BlockRenderer(state, images, rich);
    if (kept) this.gridsMayChange = kept.gridsMayChange;
  }

  /** This compile's result, to render the same template again without compiling it. */
  compiled(render: RenderContext): CompiledTemplate {
    return {
      parts: this.postparsedParts,
      gridsMayChange: this.gridsMayChange,
      xmlChars: this.xmlChars,
      render,
    };
  }

  optionsTransformer(
    options: Record<string, unknown>,
    doc: JinjaModule['docxtemplater'],
  ): Record<string, unknown> {
    // Lex the wrappers runs can sit in, so placement and balance checks see them as elements.
    const lexed = doc?.fileTypeConfig?.tagsXmlLexedArray;
    if (lexed) {
      for (const t of WORD.lexedElements) if (!lexed.includes(t)) lexed.push(t);
    }
    // docxtemplater reads most core properties as text already; docxtpl also renders these two.
    const text = doc?.fileTypeConfig?.tagsXmlTextArray;
    if (text) for (const t of TEMPLATED_PROPERTIES) if (!text.includes(t)) text.push(t);
    return options;
  }

  on(event: string): void {
    if (event !== 'before-preparse' || !this.zip || !this.docxtemplater) return;
    const types = this.docxtemplater.filesContentTypes ?? {};
    for (const path of this.docxtemplater.templatedFiles ?? []) {
      const file = this.zip.files[path];
      const properties = path === CORE_PROPERTIES_PART;
      if (!file || !(WORD_PARTS.isTemplated(types[path]) || properties)) continue;
      const xml = file.asText();
      this.xmlChars += xml.length;
      if (xml.includes(TAG_START) || xml.includes(TAG_END)) {
        throw new JinjaRuntimeError(`${path} contains the reserved characters U+FDD0/U+FDD1`);
      }
      const {
        xml: marked,
        tagCount,
        unclosed,
        unjoinable,
      } = properties ? markPropertyTags(xml) : markJinjaTags(xml, WORD_PARTS.format.elements);
      this.tagCount += tagCount;
      if (tagCount) this.zip.file(path, marked);
      const problems: TemplateProblem[] = [
        ...unclosed.map((u) => ({
          message: 'tag is not closed before the end of its paragraph',
          tag: u.tag,
          context: u.context,
          part: path,
        })),
        ...unjoinable.map((u) => ({
          message:
            u.across === 'table cells'
              ? 'tag is split across table cells (docxtpl would join the cells and drop one from the row)'
              : 'tag is split across paragraphs around a hyperlink, field, text box or table, which cannot be joined',
          // The half an author sees where the tag opens (lint locates it there).
          tag: u.opening,
          context: u.context,
          part: path,
        })),
      ];
      if (problems.length) this.scanProblems.set(path, problems);
    }
  }

  matchers(): [string, string, Record<string, unknown>][] {
    // Priority over docxtemplater's loop module, whose `#` prefix would claim `{# comments #}`.
    return [
      [`{`, MODULE, { kind: 'expr', priority: 1000 }],
      [`%`, MODULE, { kind: 'block', priority: 1000 }],
      [`#`, MODULE, { kind: 'comment', priority: 1000 }],
    ];
  }

  postparse(
    parsed: Part[],
    options: { filePath: string; contentType?: string },
  ): { postparsed: Part[]; errors: Error[] } {
    const filePath = options.filePath;
    const problems: TemplateProblem[] = [...(this.scanProblems.get(filePath) ?? [])];
    const report = (p: JinjaPart, message: string) => {
      p.broken = true;
      problems.push({ message, tag: p.source, context: p.context, part: filePath });
    };

    const literal = applyRaw(parsed, report);
    literal.forEach((p, i) => {
      if (isJinja(p)) annotate(p, literal, i, filePath, report, this.environment);
      // docxtpl turns `{_{` into `{{` in Word's parts only, not in the document properties.
      else if (isTextContent(p) && filePath !== CORE_PROPERTIES_PART)
        p.value = unescapeLiteralBraces(p.value);
    });
    if (
      WORD_PARTS.isMain(options.contentType) &&
      literal.some(
        (p) =>
          isJinja(p) &&
          (p.placement === 'tc' || p.statement?.type === 'hm' || p.statement?.type === 'colspan'),
      )
    )
      this.gridsMayChange = true;
    const cells = applyTableTags(literal, report);
    const ws = applyWhitespaceControl(cells);
    const placed = applyPlacement(ws, report);
    const postparsed = mergeStaticParts(buildTree(placed, report));
    this.postparsedParts.set(filePath, postparsed);

    const errors = problems.map((problem) => {
      const e = new Error(problem.message) as Error & { properties: Record<string, unknown> };
      e.properties = { id: 'jinja_template_problem', explanation: problem.message, problem };
      return e;
    });
    return { postparsed, errors };
  }

  /**
   * After rendering, as docxtemplater's last module: its corruption fixes (joinUncorrupt, as its
   * own postrender would run next, in join-uncorrupt.ts's faster form with the same result), then
   * docxtpl's table-grid repair where columns may have been added or merged, then the part as one
   * UTF-8 buffer. docxtemplater would encode the tens of thousands of parts of a long table
   * character by character in JavaScript and join them again; Buffer.from does it natively (a
   * fifth of a 500-row fill, before static parts were merged at compile). Its own joinUncorrupt
   * skips a buffer, so nothing runs twice.
   */
  postrender(
    parts: Array<string | Uint8Array>,
    options: JoinUncorruptOptions & {
      filePath: string;
      contentType?: string;
      joinUncorrupt<T>(parts: T[], options: JoinUncorruptOptions): T[];
    },
  ): unknown[] {
    let xml = joinUncorrupt(parts, options, options.joinUncorrupt).join('');
    if (this.gridsMayChange && WORD_PARTS.isMain(options.contentType)) xml = fixTableGrids(xml);
    return [Buffer.from(xml, 'utf8')];
  }

  render(part: Part, options: RenderOptions): { value: string | string[]; errors?: unknown[] } | null {
    return this.renderer.render(part, options);
  }
}
