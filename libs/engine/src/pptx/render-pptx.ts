/**
 * Fills a slide deck (.pptx): tags in the text of shapes, tables and notes (slide-template.ts),
 * slide loops (`{%slide for item in items %}` … `{%slide endfor %}` on one slide: the slide is
 * repeated once per item, each copy a slide part of its own with its own relationships, notes
 * and pictures), slide conditions (`{%slide if x %}` … `{%slide endif %}`: kept or removed as an
 * empty loop's slide is), and pictures replaced by the request's images when their name or alternative
 * text names one (as docxtpl's replace_pic does in Word), keeping the picture's frame; charts
 * bound by `{{ chart(expr) }}` filled from data, each slide copy's chart a part of its own
 * (slide-charts.ts).
 */
import {
  CONTENT_TYPES_PART,
  ContentTypes,
  NOTES_SLIDE_TYPE,
  REL_IMAGE,
  relsPathOf,
  SLIDE_TYPE,
  withDefaultContentType,
  withOverrideContentType,
  withRelationships,
  zipPathOf,
} from '@app/ooxml';
import { isPlainObject, type RenderRequest } from '@app/contracts';
import { posix } from 'node:path';
import type { TemplateLimits } from '../docx/package';
import { prepareImages, type ImageLimits, type PreparedImage } from '../docx/images';
import {
  InvalidRequestError,
  PayloadTooLargeError,
  TemplateRuntimeError,
  UndefinedVariableError,
} from '../errors';
import { type EngineEnvironment } from '../environment';
import { renderStateFor } from '../render';
import { Frame, RenderState } from '../runtime/ops';
import { truthy, type Dict } from '../runtime/values';
import { evaluate } from '../runtime/evaluator';
import { CompiledCell, hasTags, runLoop } from '../xlsx/cell-template';
import { attr, escapeXml, setAttr } from '../xlsx/sheet-xml';
import { PRESENTATION_PARTS } from '../package/formats';
import { openPresentationPackage } from './pptx-package';
import { SlideCharts } from './slide-charts';
import { countChartPoints, DEFAULT_CHART_LIMITS, type ChartLimits } from '../charts/chart-data';
import { runtimeError, SlideTemplate } from './slide-template';

export const DEFAULT_MAX_SLIDES_PER_DECK = 500;

export interface PptxRenderOptions {
  environment?: EngineEnvironment;
  undefined?: 'empty' | 'strict' | 'debug' | 'property_missing';
  locale?: string;
  timezone?: string;
  maxLoopIterations?: number;
  maxValueLength?: number;
  maxUncompressedBytes?: number;
  maxWordXmlBytes?: number;
  /** Slides of the filled deck (the slide loops' copies included): beyond it, 413 before writing. */
  maxSlidesPerDeck?: number;
  /** ALLOW_MACRO_TEMPLATES: fill a .pptm (its macros are kept, never run). */
  allowMacros?: boolean;
  templateChecked?: boolean;
  compression?: 'DEFLATE' | 'STORE';
  imageLimits?: Partial<ImageLimits>;
  preparedImages?: Map<string, PreparedImage>;
  imagesVerified?: boolean;
  /** MAX_CHART_POINTS and MAX_CHART_POINTS_PER_REQUEST: 413 before the deck is opened. */
  chartLimits?: Partial<ChartLimits>;
}

const REL_TAG = /<Relationship\b[^>]*>/g;
const REL_NOTES_SLIDE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/notesSlide';
const REL_SLIDE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide';

function resolveTarget(ownerPath: string, target: string): string {
  if (target.startsWith('/')) return zipPathOf(target);
  return posix.normalize(posix.join(posix.dirname(ownerPath), target));
}

function relsOf(xml: string): { tag: string; id: string; type: string; target: string }[] {
  return [...xml.matchAll(REL_TAG)].map((m) => ({
    tag: m[0],
    id: attr(m[0], 'Id') ?? '',
    type: attr(m[0], 'Type') ?? '',
    target: attr(m[0], 'Target') ?? '',
  }));
}

/** The first free `prefix` + number above every one `taken` uses. */
function nextNumber(taken: Iterable<string>, pattern: RegExp): number {
  let max = 0;
  for (const t of taken) {
    const m = pattern.exec(t);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}

interface SlideEntry {
  /** The `<p:sldId …/>` element in presentation.xml. */
  tag: string;
  relId: string;
  path: string;
  template: SlideTemplate;
  notesPath?: string;
  notes?: SlideTemplate;
  frames: Frame[];
}

/** One filled slide: its XML, rels, notes and where they go. */
interface FilledSlide {
  path: string;
  xml: string;
  rels: string;
  notesPath?: string;
  notesXml?: string;
  notesRels?: string;
}

class PictureWriter {
  private readonly media = new Map<string, string>();
  private count = 0;

  constructor(
    private readonly images: Map<string, PreparedImage>,
    private readonly files: { file(name: string, data: Buffer): void },
    private readonly taken: Set<string>,
  ) {}

  /**
   * The slide's pictures whose name or alternative text (a tag in it filled in `frame`) names
   * an image: their blip points at that image, their frame (p:spPr) as it was. Returns the XML
   * and the relationships to add.
   */
  replace(
    xml: string,
    slidePath: string,
    relIds: Set<string>,
    frame: Frame,
    state: RenderState,
  ): { xml: string; rels: string } {
    let rels = '';
    const out = xml.replace(/<p:pic>[\s\S]*?<\/p:pic>/g, (pic) => {
      const cNvPr = /<p:cNvPr\b([^>]*?)(\/?)>/.exec(pic);
      if (!cNvPr) return pic;
      const filled = (name: string) => {
        const v = attr(cNvPr[1], name);
        if (v === undefined || !hasTags(v)) return v;
        state.produced.length = 0;
        try {
          return CompiledCell.compile(v).render(frame, state).trim();
        } catch (e) {
          throw runtimeError(e, state, v, slidePath);
        }
      };
      const name = filled('name');
      const descr = filled('descr');
      const key = [descr, name].find((k) => k !== undefined && this.images.has(k));
      let attrs = cNvPr[1];
      if (descr !== attr(cNvPr[1], 'descr')) attrs = setAttr(attrs, 'descr', descr);
      if (name !== attr(cNvPr[1], 'name')) attrs = setAttr(attrs, 'name', name);
      let result = pic.replace(cNvPr[0], `<p:cNvPr${attrs}${cNvPr[2]}>`);
      if (key === undefined) return result;
      const image = this.images.get(key)!;
      if (image.alt !== undefined)
        result = result.replace(
          /<p:cNvPr\b([^>]*?)(\/?)>/,
          (_m, a: string, c: string) => `<p:cNvPr${setAttr(a, 'descr', image.alt)}${c}>`,
        );
      const mediaPath = this.mediaOf(key, image);
      let n = relIds.size + 1;
      while (relIds.has(`rId${n}`)) n++;
      const id = `rId${n}`;
      relIds.add(id);
      rels += `<Relationship Id="${id}" Type="${REL_IMAGE}" Target="${escapeXml(posix.relative(posix.dirname(slidePath), mediaPath))}"/>`;
      return result.replace(/(<a:blip\b[^>]*?\br:embed=")[^"]*(")/, `$1${id}$2`);
    });
    return { xml: out, rels };
  }

  private mediaOf(key: string, image: PreparedImage): string {
    let path = this.media.get(key);
    if (!path) {
      do path = `ppt/media/filled-image${++this.count}.png`;
      while (this.taken.has(path));
      this.media.set(key, path);
      this.files.file(path, image.png);
    }
    return path;
  }

  get used(): boolean {
    return this.media.size > 0;
  }
}

/** Fills the deck; returns the .pptx bytes or throws one of the typed errors. */
export function renderPptx(
  template: Buffer,
  request: RenderRequest,
  options: PptxRenderOptions = {},
): Buffer {
  if (!isPlainObject(request) || !isPlainObject(request.template_data))
    throw new InvalidRequestError('template_data must be a JSON object', { field: 'template_data' });
  const limits: Partial<TemplateLimits> = {
    ...(options.maxUncompressedBytes !== undefined
      ? { maxUncompressedBytes: options.maxUncompressedBytes }
      : {}),
    ...(options.maxWordXmlBytes !== undefined ? { maxWordXmlBytes: options.maxWordXmlBytes } : {}),
  };
  // Chart points are counted over the data before the deck is even opened (413), as for Word.
  const chartLimits = { ...DEFAULT_CHART_LIMITS, ...options.chartLimits };
  countChartPoints(request.template_data, chartLimits);
  const pkg = openPresentationPackage(template, {
    limits,
    allowMacros: options.allowMacros === true,
    checked: options.templateChecked === true,
  });
  const zip = pkg.zip;
  const images =
    options.preparedImages ??
    prepareImages(request.images, options.imageLimits, { pixelsVerified: options.imagesVerified === true });
  const state = renderStateFor(options, request.template_data as Dict, new Set(images.keys()));

  const rootRels = relsOf(zip.file('_rels/.rels')?.asText() ?? '');
  const officeDoc = rootRels.find((r) => r.type.endsWith('/officeDocument'));
  const presentationPath = officeDoc ? resolveTarget('', officeDoc.target) : 'ppt/presentation.xml';
  const presentationRelsPath = relsPathOf(presentationPath);
  let presentation = zip.file(presentationPath)?.asText();
  if (presentation === undefined)
    throw new TemplateRuntimeError('The .pptx has no presentation part', { reason: 'not_presentation' });
  let presentationRels = zip.file(presentationRelsPath)?.asText() ?? '';
  const slideTargets = new Map(
    relsOf(presentationRels).map((r) => [r.id, resolveTarget(presentationPath, r.target)] as const),
  );

  // Phase 1: every slide compiled (all syntax errors before any work), its loop's items counted.
  const slideList = /<p:sldIdLst>([\s\S]*?)<\/p:sldIdLst>/.exec(presentation);
  const entries: SlideEntry[] = [];
  /** Slide-list entries the fill leaves as they are, by the index of the filled entry they precede. */
  const kept = new Map<number, string[]>();
  const root = new Frame();
  const contentTypes = new ContentTypes(zip.file(CONTENT_TYPES_PART)!.asText());
  // The package description says which parts are filled, by content type (never by part name).
  const templated = (path: string | undefined): path is string =>
    path !== undefined &&
    zip.file(path) !== null &&
    PRESENTATION_PARTS.isTemplated(contentTypes.typeOf(path));
  for (const m of (slideList?.[1] ?? '').matchAll(/<p:sldId\b[^>]*>/g)) {
    const relId = attr(m[0], 'r:id') ?? '';
    const path = slideTargets.get(relId);
    if (!templated(path)) {
      // Not filled (a part the description leaves alone, or a dangling entry): listed as it was.
      kept.set(entries.length, [...(kept.get(entries.length) ?? []), m[0]]);
      continue;
    }
    const template = SlideTemplate.compile(pkg.readText(path), path, true);
    const slideRels = relsOf(zip.file(relsPathOf(path))?.asText() ?? '');
    const notesRel = slideRels.find((r) => r.type === REL_NOTES_SLIDE);
    const notesPath = notesRel ? resolveTarget(path, notesRel.target) : undefined;
    const notes = templated(notesPath)
      ? SlideTemplate.compile(pkg.readText(notesPath), notesPath, false)
      : undefined;
    const frames: Frame[] = [];
    if (template.loop) {
      const loop = template.loop;
      state.produced.length = 0;
      try {
        runLoop(loop.st, root, state, (f) => frames.push(f));
      } catch (e) {
        throw runtimeError(e, state, loop.source, path);
      }
    } else if (template.condition) {
      // `{%slide if %}`: the slide kept once when its test is truthy (as `{% if %}` tests it), else gone.
      const condition = template.condition;
      state.produced.length = 0;
      try {
        if (truthy(state.use(evaluate(condition.test, root, state)))) frames.push(root);
      } catch (e) {
        throw runtimeError(e, state, condition.source, path);
      }
    } else frames.push(root);
    entries.push({
      tag: m[0],
      relId,
      path,
      template,
      notesPath: notes ? notesPath : undefined,
      notes,
      frames,
    });
  }
  const maxSlides = options.maxSlidesPerDeck ?? DEFAULT_MAX_SLIDES_PER_DECK;
  let slideCount = entries.reduce((n, e) => n + e.frames.length, 0);
  for (const list of kept.values()) slideCount += list.length;
  if (slideCount > maxSlides)
    throw new PayloadTooLargeError(`The deck would hold ${slideCount} slides; the limit is ${maxSlides}`, {
      slides: slideCount,
      limit: maxSlides,
    });

  // Phase 2: each slide filled once per frame; copies after the first get parts of their own.
  const files = Object.keys(zip.files);
  const taken = new Set(files);
  const pictures = new PictureWriter(images, zip, taken);
  const charts = new SlideCharts(zip, chartLimits);
  let slideNumber = nextNumber(files, /^ppt\/slides\/slide(\d+)\.xml$/);
  let notesNumber = nextNumber(files, /^ppt\/notesSlides\/notesSlide(\d+)\.xml$/);
  const presentationRelIds = new Set(relsOf(presentationRels).map((r) => r.id));
  let nextSlideId = Math.max(
    255,
    ...[...(slideList?.[1] ?? '').matchAll(/\bid="(\d+)"/g)].map((m) => Number(m[1])),
  );
  let types = zip.file(CONTENT_TYPES_PART)!.asText();
  const newList: string[] = [];
  let newRels = '';
  const removed: string[] = [];
  /** Slides an empty loop removed. */
  const removedSlides: string[] = [];
  for (const [index, entry] of entries.entries()) {
    newList.push(...(kept.get(index) ?? []));
    const templateRels = zip.file(relsPathOf(entry.path))?.asText();
    const notesRels = entry.notesPath ? zip.file(relsPathOf(entry.notesPath))?.asText() : undefined;
    if (!entry.frames.length) {
      // An empty loop or a false condition: the slide goes, with its notes.
      removed.push(entry.path, relsPathOf(entry.path));
      removedSlides.push(entry.path);
      if (entry.notesPath) removed.push(entry.notesPath, relsPathOf(entry.notesPath));
      presentationRels = presentationRels.replace(
        relsOf(presentationRels).find((r) => r.id === entry.relId)?.tag ?? '\u0000',
        '',
      );
      continue;
    }
    entry.frames.forEach((frame, i) => {
      const first = i === 0;
      const path = first ? entry.path : `ppt/slides/slide${slideNumber++}.xml`;
      const notesPath =
        entry.notes && (first ? entry.notesPath : `ppt/notesSlides/notesSlide${notesNumber++}.xml`);
      // A loop's variables stay its copy's: the notes see the same frame as their slide.
      const slideFrame = new Frame(frame);
      let xml = entry.template.render(slideFrame, state);
      let rels =
        templateRels ??
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>';
      if (!first && entry.notesPath && notesPath)
        rels = rels.replace(relsOf(rels).find((r) => r.type === REL_NOTES_SLIDE)!.tag, (tag) =>
          tag.replace(/Target="[^"]*"/, `Target="${posix.relative(posix.dirname(path), notesPath)}"`),
        );
      const relIds = new Set(relsOf(rels).map((r) => r.id));
      const replaced = pictures.replace(xml, path, relIds, slideFrame, state);
      xml = replaced.xml;
      if (replaced.rels) rels = withRelationships(rels, replaced.rels);
      ({ xml, rels } = charts.place(xml, rels, path, slideFrame, state));
      const filled: FilledSlide = { path, xml, rels };
      if (entry.notes && notesPath) {
        filled.notesPath = notesPath;
        filled.notesXml = entry.notes.render(new Frame(frame), state);
        if (notesRels !== undefined)
          filled.notesRels = first
            ? notesRels
            : notesRels.replace(relsOf(notesRels).find((r) => r.type === REL_SLIDE)?.tag ?? '\u0000', (tag) =>
                tag.replace(/Target="[^"]*"/, `Target="${posix.relative(posix.dirname(notesPath), path)}"`),
              );
      }
      zip.file(filled.path, filled.xml);
      zip.file(relsPathOf(filled.path), filled.rels);
      if (filled.notesPath && filled.notesXml !== undefined) {
        zip.file(filled.notesPath, filled.notesXml);
        if (filled.notesRels !== undefined) zip.file(relsPathOf(filled.notesPath), filled.notesRels);
      }
      if (first) {
        newList.push(entry.tag);
        return;
      }
      let n = presentationRelIds.size + 1;
      while (presentationRelIds.has(`rId${n}`)) n++;
      const relId = `rId${n}`;
      presentationRelIds.add(relId);
      newRels += `<Relationship Id="${relId}" Type="${REL_SLIDE}" Target="${posix.relative(posix.dirname(presentationPath), path)}"/>`;
      newList.push(`<p:sldId id="${++nextSlideId}" r:id="${relId}"/>`);
      types = withOverrideContentType(types, `/${path}`, SLIDE_TYPE);
      if (filled.notesPath) types = withOverrideContentType(types, `/${filled.notesPath}`, NOTES_SLIDE_TYPE);
    });
  }
  newList.push(...(kept.get(entries.length) ?? []));
  const allUndefined = state.undefinedNames;
  if (allUndefined.length) throw new UndefinedVariableError(allUndefined);

  removed.push(...charts.orphansOf(removedSlides, zip));
  for (const name of removed) {
    if (!zip.file(name)) continue;
    zip.remove(name);
    types = types.replace(
      new RegExp(`<Override\\s+PartName="/${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^>]*/>`),
      '',
    );
  }
  if (slideList)
    presentation = presentation.replace(slideList[0], `<p:sldIdLst>${newList.join('')}</p:sldIdLst>`);
  if (newRels) presentationRels = withRelationships(presentationRels, newRels);
  if (pictures.used) types = withDefaultContentType(types, 'png', 'image/png');
  types = charts.withContentTypes(types);
  zip.file(presentationPath, presentation);
  zip.file(presentationRelsPath, presentationRels);
  zip.file(CONTENT_TYPES_PART, types);
  // docProps/app.xml counts the slides (PowerPoint shows it in the file's properties).
  const app = zip.file('docProps/app.xml')?.asText();
  if (app && /<Slides>\d+<\/Slides>/.test(app))
    zip.file('docProps/app.xml', app.replace(/<Slides>\d+<\/Slides>/, `<Slides>${slideCount}</Slides>`));
  try {
    return pkg.toBuffer(options.compression ?? 'DEFLATE');
  } catch (e) {
    if (e instanceof RangeError)
      throw new TemplateRuntimeError(`The filled deck would be too large (${e.message})`, {
        reason: 'too_large',
      });
    throw e;
  }
}
