/**
 * How content beyond text and images plugs into the fill. The fill (render-blocks.ts) asks the
 * writer it was given for each value it prints; rich content (libs/engine/src/rich: HTML,
 * Markdown, sub-documents, `{{p x }}` paragraphs) is one such writer, which render.ts hands in.
 * The docx layer knows only this interface, so it never imports the rich layer.
 */
import type { Value } from '../runtime/values';

export interface ContentWriter {
  /**
   * The XML for a value at a tag, or undefined to let the fill print it as usual. `placement` is
   * the tag's docxtpl prefix (`p` replaces the paragraph, `r` or none sits in a run); `plain`
   * prints a value the usual way.
   */
  output(
    v: Value,
    placement: string | undefined,
    partPath: string,
    plain: (v: Value) => string,
  ): string | undefined;
}
