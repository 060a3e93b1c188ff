/**
 * Where rich content meets the template: the Jinja module hands every output value here first
 * (one hook in docx/jinja-module.ts). Rich values become runs at a tag's place, or whole
 * paragraphs when the tag is `{{p x }}`; sub-documents go in as paragraphs. After rendering,
 * `finalize` writes what the content added to the package (relationships, media, numbering,
 * styles) and splits paragraphs where run-level text asked for `\a` or `\f`.
 */
import type PizZip from 'pizzip';
import { DEFAULT_IMAGE_LIMITS, type ImageLimits, type PreparedImage } from '../docx/images';
import type { ContentWriter } from '../docx/content-writer';
import type { TemplateLimits } from '../docx/package';
import { JinjaRuntimeError, type RenderState } from '../runtime/ops';
import { Undefined, type Value } from '../runtime/values';
import { htmlToBlocks } from './html';
import { DEFAULT_RICH_LIMITS, type RichLimits } from './limits';
import { markdownToBlocks } from './markdown';
import type { Block, Inline } from './model';
import { NumberingWriter } from './numbering';
import { parseParagraphs, parseRuns } from './paragraphs';
import { replacePicturePlaceholders } from './picture-placeholders';
import { RelationshipWriter } from './relationships';
import { jsonRichForm, RichMarkup } from './rich-value';
import { PAGE_BREAK_RUN } from './runs';
import { STYLES_PART, TemplateStyles } from './styles';
import { prepareDocuments, SubdocumentWriter, type PreparedDocument } from './subdocument';
import {
  blocksXml,
  flattenToInlines,
  inlinesXml,
  splitParagraphMarks,
  textWidthTwips,
  type WordContext,
} from './wordml';

/** Private characters (Unicode noncharacters) marking `\a` and `\f` in run-level output until finalize. */
const NEW_PARAGRAPH = '\uFDD2';
const PAGE_BREAK = '\uFDD3';
const markerRun = (mark: string) => `<w:r><w:t xml:space="preserve">${mark}</w:t></w:r>`;
const MARKER_RUN = /<w:r><w:t xml:space="preserve">([\uFDD2\uFDD3])<\/w:t><\/w:r>/;
const INNERMOST_PARAGRAPH = /<w:p[ >](?:(?!<w:p[ >])[\s\S])*?<\/w:p>/g;

export interface RichSetup {
  zip: PizZip;
  state: RenderState;
  /** The request's images, checked. */
  images: ReadonlyMap<string, PreparedImage>;
  /** The request's sub-documents and images (render.ts's RenderRequest). */
  request: { documents?: Record<string, { data: string }>; images?: unknown };
  options: { richLimits?: Partial<RichLimits>; imageLimits?: Partial<ImageLimits> };
  /** The template's package limits, which sub-documents get too. */
  templateLimits: Partial<TemplateLimits>;
}

/** Rich content, written where the fill meets it (ContentWriter) and finished after it. */
export class RichWriter implements ContentWriter {
  private readonly limits: RichLimits;
  private readonly imageLimits: ImageLimits;
  private readonly rels: RelationshipWriter;
  /** Read on first use, so a render without rich content pays nothing for them. */
  private package?: {
    styles: TemplateStyles;
    numbering: NumberingWriter;
    subdocuments: SubdocumentWriter;
    tableTwips: number;
  };
  private readonly documents: Map<string, PreparedDocument>;
  private readonly markedParts = new Set<string>();
  private readonly documentParts = new Set<string>();
  private readonly imageCount = { count: 0 };
  private drawingId = 200000;

  constructor(private readonly setup: RichSetup) {
    const { zip, request, options } = setup;
    this.limits = { ...DEFAULT_RICH_LIMITS, ...options.richLimits };
    this.imageLimits = { ...DEFAULT_IMAGE_LIMITS, ...options.imageLimits };
    this.rels = new RelationshipWriter(zip);
    this.documents = prepareDocuments(request.documents, this.limits, setup.templateLimits);
    const requestImages = request.images as Record<string, unknown> | undefined;
    this.templateChanged = replacePicturePlaceholders(zip, setup.images, requestImages, this.rels) > 0;
  }

  /**
   * Placeholder pictures were swapped in the templated parts before the compile: that compile
   * holds this request's images, so it must be neither kept nor replaced by a kept one.
   */
  readonly templateChanged: boolean;

  private word() {
    if (!this.package) {
      const { zip } = this.setup;
      const documentXml = zip.file('word/document.xml')?.asText();
      const styles = new TemplateStyles(zip.file(STYLES_PART)?.asText(), documentXml);
      const numbering = new NumberingWriter(zip);
      this.package = {
        styles,
        numbering,
        subdocuments: new SubdocumentWriter(zip, styles, this.rels, numbering),
        tableTwips: textWidthTwips(documentXml),
      };
    }
    return this.package;
  }

  private context(partPath: string): WordContext {
    const { styles, numbering, tableTwips } = this.word();
    return {
      partPath,
      styles,
      rels: this.rels,
      numbering,
      strict: this.setup.state.strict,
      tableTwips,
      nextDrawingId: () => ++this.drawingId,
    };
  }

  /** Rich content as the model; undefined for every other value. */
  private model(v: Value): { blocks?: Block[]; inlines?: Inline[] } | undefined {
    if (v instanceof RichMarkup) {
      const blocks =
        v.kind === 'html'
          ? htmlToBlocks(v.source, this.limits, this.imageLimits, this.imageCount)
          : markdownToBlocks(v.source, v.allowHtml, this.limits, this.imageLimits, this.imageCount);
      return { blocks };
    }
    const form = jsonRichForm(v);
    if (!form) return undefined;
    return form.kind === '$rich'
      ? { inlines: parseRuns(form.runs, '$rich') }
      : { blocks: parseParagraphs(form.paragraphs) };
  }

  /**
   * The XML for a value at a tag, or undefined to let the module print it as usual.
   * `placement` is the tag's docxtpl prefix: `p` replaces the paragraph, `r` (or none) sits in a run.
   */
  output(
    v: Value,
    placement: string | undefined,
    partPath: string,
    plain: (v: Value) => string,
  ): string | undefined {
    if (v instanceof Undefined && this.documents.has(v.path)) {
      if (placement !== 'p')
        throw new JinjaRuntimeError(`the sub-document '${v.path}' must be placed with {{p ${v.path} }}`);
      this.documentParts.add(partPath);
      return (
        this.word().subdocuments.bodyFor(this.documents.get(v.path)!, partPath, () => ++this.drawingId) ||
        '<w:p/>'
      );
    }
    const model = this.model(v);
    if (!model)
      return placement === 'p'
        ? `<w:p><w:r><w:t xml:space="preserve">${plain(v)}</w:t></w:r></w:p>`
        : undefined;
    const ctx = this.context(partPath);
    if (placement === 'p') {
      const blocks = model.blocks ?? [{ kind: 'paragraph' as const, inlines: model.inlines! }];
      return blocksXml(blocks, ctx, true);
    }
    const segments = splitParagraphMarks(model.inlines ?? flattenToInlines(model.blocks!));
    if (segments.length > 1) this.markedParts.add(partPath);
    const runs = segments
      .map(
        (seg, i) =>
          (i ? markerRun(seg.pageBreakBefore ? PAGE_BREAK : NEW_PARAGRAPH) : '') +
          inlinesXml(seg.inlines, ctx),
      )
      .join('');
    return `</w:t></w:r>${runs}<w:r><w:t xml:space="preserve">`;
  }

  /** `\a` / `\f` markers: the paragraph holding them is split there, each piece with its properties. */
  private splitMarkedParagraphs(): void {
    for (const part of this.markedParts) {
      const xml = this.setup.zip.file(part)?.asText();
      if (!xml) continue;
      const out = xml.replace(INNERMOST_PARAGRAPH, (para) => {
        if (!MARKER_RUN.test(para)) return para;
        const pPr = (/^<w:p[^>]*>(<w:pPr>[\s\S]*?<\/w:pPr>)?/.exec(para)?.[1] ?? '').replace(
          /<w:sectPr\b[\s\S]*?<\/w:sectPr>/g,
          '',
        );
        return para.replace(new RegExp(MARKER_RUN.source, 'g'), (_m, mark: string) =>
          mark === PAGE_BREAK ? `</w:p><w:p>${PAGE_BREAK_RUN}</w:p><w:p>${pPr}` : `</w:p><w:p>${pPr}`,
        );
      });
      this.setup.zip.file(part, out);
    }
  }

  finalize(): void {
    this.splitMarkedParagraphs();
    if (this.package) {
      this.package.subdocuments.finalize(this.documentParts);
      this.package.numbering.finalize(this.rels);
    }
    this.rels.finalize();
  }
}

export { DEFAULT_RICH_LIMITS };
export type { RichLimits };
