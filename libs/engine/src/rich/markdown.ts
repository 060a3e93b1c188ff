/**
 * Markdown (CommonMark with GFM tables and strikethrough) through markdown-it, rendered to HTML
 * and mapped by html.ts, so Markdown and HTML give the same Word output. Raw HTML inside the
 * Markdown is text unless the caller opts in (`markdown(html=true)`); markdown-it itself refuses
 * javascript:, vbscript:, file: and non-image data: links (they stay text).
 */
import MarkdownIt from 'markdown-it';
import type { ImageLimits } from '../docx/images';
import { htmlToBlocks } from './html';
import { markupTooLong, nestingTooDeep, type RichLimits } from './limits';
import type { Block } from './model';

function parser(allowHtml: boolean, maxNesting: number) {
  return new MarkdownIt('commonmark', { html: allowHtml, linkify: false, maxNesting }).enable([
    'table',
    'strikethrough',
  ]);
}

export function markdownToBlocks(
  markdown: string,
  allowHtml: boolean,
  limits: RichLimits,
  imageLimits: ImageLimits,
  images: { count: number },
): Block[] {
  if (markdown.length > limits.maxMarkupChars)
    throw markupTooLong('Markdown', markdown.length, limits.maxMarkupChars);
  // markdown-it stops nesting at maxNesting without saying so; one level more tells us it got there.
  const md = parser(allowHtml, limits.maxNestingDepth + 1);
  const env = {};
  const tokens = md.parse(markdown, env);
  let depth = 0;
  const deepest = (ts: typeof tokens): number => {
    let max = 0;
    for (const t of ts) {
      depth += t.nesting;
      max = Math.max(max, depth, t.level);
    }
    return max;
  };
  if (deepest(tokens) > limits.maxNestingDepth) throw nestingTooDeep('Markdown', limits.maxNestingDepth);
  const html = md.renderer.render(tokens, md.options, env);
  // The HTML nests about twice as deep as the Markdown (ul > li > p); its own limit is the same bound.
  return htmlToBlocks(
    html,
    { ...limits, maxMarkupChars: Number.MAX_SAFE_INTEGER, maxNestingDepth: limits.maxNestingDepth * 3 },
    imageLimits,
    images,
    'Markdown',
  );
}
