/**
 * A deck's tags for lint and inspection, in the shape Word's outline has (template-outline.ts):
 * each paragraph of a slide (and of its notes) is one "paragraph", located by its part, the
 * slide's number in presentation order, the shape holding it and, in a table, the cell; and the
 * problems rendering would stop at, collected instead of thrown. The problems come from the very
 * compile the fill runs (SlideTemplate.compile: tag syntax, tags never closed, `{%p %}`, `{%tr %}`
 * and `{%slide %}` placements, blocks that do not close), plus unknown filters and tests.
 */
import { CONTENT_TYPES_PART, ContentTypes, relsPathOf, zipPathOf } from '@app/ooxml';
import { posix } from 'node:path';
import type { TemplateLimits } from '../docx/package';
import { TemplateSyntaxError, type TemplateProblem } from '../errors';
import {
  parseTag,
  type TemplateLocation,
  type TemplateOutline,
  type TemplateParagraph,
  type TemplateTag,
} from '../inspect/template-outline';
import { REL_CHART } from '../charts/chart-parts';
import {
  boundChartCall,
  boundChartShape,
  chartTitleTag,
  type BoundChart,
  type MisplacedChartTag,
} from '../charts/chart-writer';
import type PizZip from 'pizzip';
import { PRESENTATION, PRESENTATION_PARTS } from '../package/formats';
import { unknownNames } from '../runtime/evaluator';
import type { Environment } from '../runtime/ops';
import type { Expr, Statement } from '../syntax/parser';
import { decodeXmlText, markJinjaTags, TAG_END, TAG_START } from '../syntax/tag-scanner';
import { attr } from '../xlsx/sheet-xml';
import { openPresentationPackage } from './pptx-package';
import { altTextChartTag } from './slide-charts';
import { SlideTemplate } from './slide-template';

const REL_NOTES_SLIDE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide';

/**
 * Start tags, end tags and text of a slide part. A regular expression, as Word's outline reads
 * its parts: openPresentationPackage has proved the part well formed and free of DTDs.
 */
const XML_TOKEN =
  /<(\/?)([A-Za-z_][\w.:-]*)(?:[^>"']|"[^"]*"|'[^']*')*?(\/?)>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|([^<]+)/g;

const MARKED = new RegExp(`${TAG_START}([\\s\\S]*?)${TAG_END}`, 'g');

/** Shapes whose `p:cNvPr` names them (a text box, a table's frame, a picture, a group). */
const SHAPES = new Set(['p:sp', 'p:graphicFrame', 'p:pic', 'p:grpSp', 'p:cxnSp']);

/** A chart bound by `{{ chart(…) }}` on a slide, for inspection: located by slide and shape. */
export interface DeckChart extends BoundChart {
  location: TemplateLocation;
  shape: ReturnType<typeof boundChartShape>;
}

/** A `{{ chart(…) }}` on a shape that is not a chart: in its alternative text or in its text. */
export interface DeckMisplacedChartTag extends MisplacedChartTag {
  location: TemplateLocation;
  /** In the shape's text (a column in its paragraph), or null: in its alternative text. */
  column: number | null;
}

export interface DeckOutline {
  outline: TemplateOutline;
  problems: TemplateProblem[];
  charts: DeckChart[];
  misplacedCharts: DeckMisplacedChartTag[];
}

/** A shape of a part as partParagraphs reads it: its `p:cNvPr` attributes and the chart it shows. */
interface PartShape {
  n: number;
  name?: string;
  cNvPr?: string;
  /** The relationship id of the `c:chart` the shape (a graphic frame) shows. */
  chartRId?: string;
}

function targetOf(owner: string, target: string): string {
  return target.startsWith('/')
    ? zipPathOf(target)
    : posix.normalize(posix.join(posix.dirname(owner), target));
}

function relationships(xml: string, owner: string): { id: string; type: string; path: string }[] {
  return [...xml.matchAll(/<Relationship\b[^>]*>/g)].map((m) => ({
    id: attr(m[0], 'Id') ?? '',
    type: attr(m[0], 'Type') ?? '',
    path: targetOf(owner, attr(m[0], 'Target') ?? ''),
  }));
}

/** The paragraphs of one slide or notes part (marked XML), with their shape and table cell; and its shapes. */
function partParagraphs(
  part: string,
  slide: number,
  xml: string,
  firstLine: number,
): { paragraphs: TemplateParagraph[]; shapes: PartShape[] } {
  const out: TemplateParagraph[] = [];
  const all: PartShape[] = [];
  // Open shapes, innermost last: the shape's number in drawing order and its name once read.
  const shapes: PartShape[] = [];
  let shapeCount = 0;
  const tables: { table: number; row: number; cell: number }[] = [];
  let tableCount = 0;
  let text: string | null = null;
  let inText = false;
  const closeParagraph = () => {
    if (text === null) return;
    const t = tables[tables.length - 1];
    // The innermost shape (a table's cell paragraphs name the table's frame); Impress writes no names.
    const shape = shapes[shapes.length - 1];
    out.push({
      part,
      paragraph: out.length + 1,
      line: firstLine + out.length,
      table: t ? { ...t } : null,
      slide,
      ...(shape ? { shape: shape.n } : {}),
      ...(shape?.name ? { shape_name: shape.name } : {}),
      text,
    });
    text = null;
  };
  XML_TOKEN.lastIndex = 0;
  for (let m = XML_TOKEN.exec(xml); m; m = XML_TOKEN.exec(xml)) {
    const [whole, closing, name, selfClosing, chars] = m;
    if (chars !== undefined) {
      if (inText && text !== null) text += decodeXmlText(chars);
      continue;
    }
    if (!name) continue;
    if (closing) {
      if (SHAPES.has(name)) shapes.pop();
      else if (name === 'a:tbl') tables.pop();
      else if (name === 'a:t') inText = false;
      else if (name === 'a:p') closeParagraph();
      continue;
    }
    if (SHAPES.has(name) && !selfClosing) {
      shapes.push({ n: ++shapeCount });
      all.push(shapes[shapes.length - 1]);
    } else if (name === 'p:cNvPr' && shapes.length && shapes[shapes.length - 1].name === undefined) {
      shapes[shapes.length - 1].name = attr(whole, 'name') ?? '';
      shapes[shapes.length - 1].cNvPr = whole;
    } else if (name === 'c:chart' && shapes.length) shapes[shapes.length - 1].chartRId = attr(whole, 'r:id');
    else if (name === 'a:tbl') tables.push({ table: ++tableCount, row: 0, cell: 0 });
    else if (name === 'a:tr' && tables.length) {
      const t = tables[tables.length - 1];
      t.row++;
      t.cell = 0;
    } else if (name === 'a:tc' && tables.length) tables[tables.length - 1].cell++;
    else if (name === 'a:p') {
      text = '';
      if (selfClosing) closeParagraph();
    } else if (name === 'a:t') inText = !selfClosing;
    else if (name === 'a:br' && text !== null) text += '\n';
  }
  return { paragraphs: out, shapes: all };
}

/** `chart(…)` or `… | chart(…)`: a tag printing a chart, which a slide's text cannot hold. */
function makesChart(e: Expr | undefined): boolean {
  if (e?.type === 'Call') return e.callee.type === 'Name' && e.callee.name === 'chart';
  return e?.type === 'Filter' && e.name === 'chart';
}

/** A tag's kind and parse; `{%slide … %}` is a deck's own placement, which Word's parseTag does not know. */
function parseDeckTag(source: string): ReturnType<typeof parseTag> {
  const slide = /^(\{%[-+]?)slide(\s)/.exec(source);
  if (!slide) return parseTag(source);
  return { ...parseTag(source.replace(slide[0], `${slide[1]}p${slide[2]}`)), placement: 'slide' };
}

/** The expressions a statement evaluates (to find unknown filters and tests before rendering). */
function statementExprs(st: Statement): Expr[] {
  switch (st.type) {
    case 'if':
    case 'elif':
      return [st.test];
    case 'for':
      return [st.iter, ...(st.filter ? [st.filter] : [])];
    case 'set':
      return [st.value];
    default:
      return [];
  }
}

/** A tag's statement without delimiters, whitespace marks and placement prefix: `for row in rows`. */
function placementKey(tag: string): string {
  return tag
    .replace(/^\{%[-+]?/, '')
    .replace(/[-+]?%\}$/, '')
    .replace(/^\s*(?:p|tr|tc|slide)\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The slide compile's messages, said as Word's block checks say them so lint classifies them alike. */
function asLintMessage(message: string): string {
  const unclosed = /^'(\w+)' is never closed with '(end\w+)'/.exec(message);
  if (unclosed) return `'${unclosed[1]}' has no '${unclosed[2]}' in this slide`;
  const orphan = /^'(end(\w+)|elif|else)' has no opening tag/.exec(message);
  if (orphan) return `'${orphan[1]}' without an open '${orphan[2] ?? 'if'}'`;
  return message;
}

/**
 * The charts a slide's shapes bind (found as the fill finds them: slide-charts.ts) and the chart
 * tags on shapes that show no chart. A bound chart's tag is returned as the tag the fill evaluates
 * (`{{ chart(item.history, bound_chart=…) }}`, as Word's bindChartTags writes it), so inspection
 * reads its variables in the slide loop's scope.
 */
function slideChartTags(
  zip: PizZip,
  slidePath: string,
  slide: number,
  shapes: PartShape[],
  environment: Environment,
  out: Pick<DeckOutline, 'charts' | 'misplacedCharts' | 'problems'>,
): TemplateTag[] {
  const rels = relationships(zip.file(relsPathOf(slidePath))?.asText() ?? '', slidePath);
  const tags: TemplateTag[] = [];
  for (const shape of shapes) {
    const chartPath = shape.chartRId
      ? rels.find((r) => r.id === shape.chartRId && r.type === REL_CHART)?.path
      : undefined;
    const location: TemplateLocation = {
      part: slidePath,
      paragraph: 0,
      line: 0,
      table: null,
      slide,
      shape: shape.n,
      ...(shape.name ? { shape_name: shape.name } : {}),
    };
    const alt = altTextChartTag(shape.cNvPr ?? '');
    if (!chartPath || !zip.file(chartPath)) {
      if (alt)
        out.misplacedCharts.push({
          part: slidePath,
          drawing: shape.name ?? '',
          tag: alt.tag[0],
          location,
          column: null,
        });
      continue;
    }
    const tag = alt?.tag ?? chartTitleTag(zip.file(chartPath)!.asText());
    if (!tag) continue;
    const chart: BoundChart = {
      part: slidePath,
      chartPath,
      expression: tag[1].trim(),
      via: alt ? 'alt_text' : 'title',
    };
    out.charts.push({ ...chart, location, shape: boundChartShape(zip, chart) });
    const source = `{{ ${boundChartCall(chart.expression)} }}`;
    const parsed = parseTag(source);
    tags.push({ source, location, column: 1, paragraphText: source, alone: true, ...parsed });
    // What the fill would refuse in the tag, said of the tag as the author wrote it.
    const messages = parsed.syntaxError
      ? [parsed.syntaxError]
      : parsed.expr
        ? unknownNames(parsed.expr, environment)
        : [];
    for (const message of messages)
      out.problems.push({ message, tag: tag[0], context: slidePath, part: slidePath });
  }
  return tags;
}

export function deckOutline(
  template: Buffer,
  environment: Environment,
  limits: Partial<TemplateLimits> = {},
): DeckOutline {
  // Linting runs nothing: a macro-enabled deck is read as any other.
  const pkg = openPresentationPackage(template, { limits, allowMacros: true });
  const zip = pkg.zip;
  const types = new ContentTypes(pkg.readText(CONTENT_TYPES_PART));
  const templated = (path: string | undefined): path is string =>
    path !== undefined && zip.file(path) !== null && PRESENTATION_PARTS.isTemplated(types.typeOf(path));
  const officeDoc = relationships(zip.file('_rels/.rels')?.asText() ?? '', '').find((r) =>
    r.type.endsWith('/officeDocument'),
  );
  const presentationPath = officeDoc?.path ?? 'ppt/presentation.xml';
  const presentation = zip.file(presentationPath)?.asText() ?? '';
  const targets = new Map(
    relationships(zip.file(relsPathOf(presentationPath))?.asText() ?? '', presentationPath).map((r) => [
      r.id,
      r.path,
    ]),
  );
  const paragraphs: TemplateParagraph[] = [];
  const tags: TemplateTag[] = [];
  const problems: TemplateProblem[] = [];
  const charts: DeckChart[] = [];
  const misplacedCharts: DeckMisplacedChartTag[] = [];
  const list = /<p:sldIdLst>([\s\S]*?)<\/p:sldIdLst>/.exec(presentation)?.[1] ?? '';
  let slide = 0;
  for (const m of list.matchAll(/<p:sldId\b[^>]*>/g)) {
    const path = targets.get(attr(m[0], 'r:id') ?? '');
    slide++;
    if (!templated(path)) continue;
    const notes = relationships(zip.file(relsPathOf(path))?.asText() ?? '', path).find(
      (r) => r.type === REL_NOTES_SLIDE,
    )?.path;
    const firstTag = tags.length;
    for (const part of templated(notes) ? [path, notes] : [path]) {
      const xml = pkg.readText(part);
      const own = partParagraphs(
        part,
        slide,
        markJinjaTags(xml, PRESENTATION.elements).xml,
        paragraphs.length + 1,
      );
      for (const para of own.paragraphs) {
        const plain = para.text.replace(new RegExp(`[${TAG_START}${TAG_END}]`, 'g'), (c) =>
          c === TAG_START ? '{' : '}',
        );
        const { text: _text, ...location } = para;
        MARKED.lastIndex = 0;
        for (let t = MARKED.exec(para.text); t; t = MARKED.exec(para.text)) {
          const source = `{${t[1]}}`;
          const tag: TemplateTag = {
            source,
            location,
            column: t.index + 1,
            paragraphText: plain,
            alone: plain.trim() === source.trim(),
            ...parseDeckTag(source),
          };
          tags.push(tag);
          if (makesChart(tag.expr))
            misplacedCharts.push({
              part,
              drawing: location.shape_name ?? '',
              tag: source,
              location,
              column: tag.column,
            });
          const exprs = tag.expr ? [tag.expr] : tag.statement ? statementExprs(tag.statement) : [];
          for (const e of exprs)
            for (const message of unknownNames(e, environment))
              problems.push({ message, tag: source, context: part, part });
        }
        paragraphs.push({ ...para, text: plain });
      }
      if (part === path)
        tags.push(
          ...slideChartTags(zip, path, slide, own.shapes, environment, { charts, misplacedCharts, problems }),
        );
      // The fill's own compile: what it would refuse, every problem of the part at once.
      try {
        SlideTemplate.compile(xml, part, part === path);
      } catch (e) {
        if (!(e instanceof TemplateSyntaxError)) throw e;
        // The compile names a placement tag without its prefix (`{%for row in rows%}`, its
        // element gone): the author's tag as written is found by its statement.
        const placed = tags.filter((t) => t.location.part === part && t.placement);
        for (const p of e.problems) {
          const tag = p.tag
            ? (placed.find((t) => placementKey(t.source) === placementKey(p.tag!))?.source ?? p.tag)
            : p.tag;
          problems.push({ ...p, tag, message: asLintMessage(p.message), part });
        }
      }
    }
    // A slide loop or condition covers its whole slide and notes wherever its tags stand:
    // inspection reads scopes in tag order, so its opening goes first and its end last (their
    // locations stay).
    const isSlideTag = (t: TemplateTag, types: string[]) =>
      t.placement === 'slide' && types.includes(t.statement?.type ?? '');
    const open = tags.findIndex((t, i) => i >= firstTag && isSlideTag(t, ['for', 'if']));
    if (open >= 0) tags.splice(firstTag, 0, ...tags.splice(open, 1));
    const end = tags.findIndex((t, i) => i >= firstTag && isSlideTag(t, ['endfor', 'endif']));
    if (end >= 0) tags.push(...tags.splice(end, 1));
  }
  return { outline: { paragraphs, tags }, problems, charts, misplacedCharts };
}
