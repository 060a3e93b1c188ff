/**
 * Fills a Word template with a request's data and images: the library's one entry point for the
 * API's worker and the command line.
 */
import { isPlainObject, isTypedError, type RenderRequest, type UndefinedMode } from '@app/contracts';
import Docxtemplater, { type DXT } from 'docxtemplater';
import type PizZip from 'pizzip';
import { DocxImageWriter } from './docx/docx-images';
import { openDocxPackage, type TemplateLimits } from './docx/package';
import {
  InvalidRequestError,
  InvalidTemplateError,
  TemplateRuntimeError,
  TemplateSyntaxError,
  UndefinedVariableError,
  type TemplateProblem,
} from './errors';
import { prepareImages, type ImageLimits, type PreparedImage } from './docx/images';
import { CompiledTemplates } from './docx/compiled-templates';
import { renderCompiled, renderContextOf } from './docx/render-compiled';
import { JinjaModule, TAG_END, TAG_START } from './docx/jinja-module';
import { DEFAULT_EVAL_LIMITS, JinjaRuntimeError, RenderState } from './runtime/ops';
import type { Dict } from './runtime/values';
import { DEFAULT_FORMAT_DEFAULTS, parseLocale, parseTimeZone, type FormatDefaults } from './format/locale';
import { RichWriter, type RichLimits } from './rich/rich-writer';
import type { ContentWriter } from './docx/content-writer';
import { defaultEnvironment, type EngineEnvironment } from './environment';
import { bindChartTags, ChartWriter } from './charts/chart-writer';
import { countChartPoints, DEFAULT_CHART_LIMITS, type ChartLimits } from './charts/chart-data';

/** The checked request: defined in @app/contracts beside the parser that makes it. */
export type { RenderRequest };

export interface RenderOptions {
  /**
   * The filters, tests, content writers and package passes this render may use (environment.ts);
   * default: the engine's built-ins (defaultEnvironment()).
   */
  environment?: EngineEnvironment;
  /**
   * `empty` (default): a missing variable renders nothing. `strict`: every one is an error.
   * `debug`: `[Missing variable: customer.name]`. `property_missing`: `<property missing in json>`.
   */
  undefined?: UndefinedMode;
  /**
   * The formatting filters' default locale (`de_DE` or `de-DE`) and IANA time zone: the request's
   * options.locale / options.timezone, else the service's DEFAULT_LOCALE / DEFAULT_TIMEZONE.
   * An unknown one is an invalid request naming the field.
   */
  locale?: string;
  timezone?: string;
  /** Loop iterations in one render, all loops together. */
  maxLoopIterations?: number;
  /** Longest string or list one expression may build. */
  maxValueLength?: number;
  /** Sum of the uncompressed sizes of the template's files (zip bombs). */
  maxUncompressedBytes?: number;
  /** Sum of the Word XML parts the engine parses. */
  maxWordXmlBytes?: number;
  imageLimits?: Partial<ImageLimits>;
  /** Images already prepared in this process; used as they are. */
  preparedImages?: Map<string, PreparedImage>;
  /** The images' pixels were decoded before queueing (the API does): skip that decode here. */
  imagesVerified?: boolean;
  /**
   * Every request image placed needs `alt` or `decorative` (options.pdf.pdfua: an accessible PDF
   * describes every picture): else 422 missing_alt_text naming the image.
   */
  requireAltText?: boolean;
  /**
   * The template passed checkDocxTemplate before queueing (the API's verdict, carried by the
   * job): its XML is not scanned again. What is read is still inflated within bounds.
   */
  templateChecked?: boolean;
  /**
   * How changed parts are written: `DEFLATE` (default) for a .docx that leaves the service,
   * `STORE` for one handed straight to a converter, which then has nothing to inflate.
   */
  compression?: 'DEFLATE' | 'STORE';
  /**
   * Run in order on the filled package before it is written: what a converter needs done to the
   * document (libs/converters/src/prepare: LibreOffice's cell budget, table styles, unused
   * styles), which the engine itself knows nothing of. A pass may throw a typed error.
   */
  packagePasses?: ReadonlyArray<(zip: PizZip) => void>;
  /** Rich content (HTML, Markdown, sub-documents): input length, nesting, tables, documents. */
  richLimits?: Partial<RichLimits>;
  /** Chart points per chart and per request (MAX_CHART_POINTS, MAX_CHART_POINTS_PER_REQUEST). */
  chartLimits?: Partial<ChartLimits>;
  /**
   * Templates compiled by earlier renders in this process (the worker keeps one): a template
   * seen before is not compiled again, and one compiled here without errors is kept.
   */
  compiledTemplates?: CompiledTemplates;
  /**
   * The template's digest (digestOf, SHA-256 of its bytes) when the caller has it already (the
   * worker: the API's, carried by the job): the compile cache's key, not computed again.
   */
  templateDigest?: string;
}

interface DxtError extends Error {
  properties?: {
    id?: string;
    errors?: DxtError[];
    problem?: TemplateProblem;
    explanation?: string;
    file?: string;
    xtag?: string;
  };
}

/**
 * The template problems in docxtemplater's compile error; throws, typed, what is not a template
 * problem (a damaged package, the reserved characters, anything unexpected as it is). The
 * renderer raises them as one TemplateSyntaxError, the linter lists them.
 */
export function compileErrorProblems(e: unknown): TemplateProblem[] {
  if (isTypedError(e)) throw e;
  if (e instanceof JinjaRuntimeError)
    throw new InvalidTemplateError(e.message, { reason: 'reserved_characters' });
  const err = e as DxtError;
  const list = err.properties?.errors ?? (err.properties?.id ? [err] : []);
  if (!list.length) throw e;
  const xmlBroken = list.find((x) => /xml|malformed/i.test(x.properties?.id ?? ''));
  if (xmlBroken)
    throw new InvalidTemplateError(
      `The .docx is damaged: ${xmlBroken.properties?.file ?? 'a part'} is not well-formed XML`,
      {
        reason: 'malformed_xml',
        part: xmlBroken.properties?.file ?? null,
      },
    );
  return list.map(
    (x) =>
      x.properties?.problem ?? {
        message: x.properties?.explanation ?? x.message ?? 'template error',
        tag: (x.properties?.xtag ?? '').replace(new RegExp(`[${TAG_START}${TAG_END}]`, 'g'), ''),
        context: '',
        part: x.properties?.file ?? '',
      },
  );
}

/** docxtemplater's compile errors, as our typed errors. */
function translateCompileError(e: unknown): never {
  throw new TemplateSyntaxError(compileErrorProblems(e));
}

/** docxtemplater over the package with the Jinja module; its compile passes report every template problem. */
export function compileTemplate(zip: PizZip, module: JinjaModule): Docxtemplater {
  return new Docxtemplater(zip, {
    modules: [module as unknown as DXT.Module],
    delimiters: { start: TAG_START, end: TAG_END },
    syntax: { changeDelimiterPrefix: null },
    paragraphLoop: false,
    linebreaks: false,
    errorLogging: false,
  });
}

/** The render's locale and time zone, checked: a 400 naming `locale` or `timezone` when unknown. */
/**
 * The fill's state for a request, as every format's render builds it: the environment (the
 * default unless given), the data, the image keys, the undefined mode, the evaluation limits and
 * the locale and time zone.
 */
export function renderStateFor(
  options: {
    environment?: EngineEnvironment;
    undefined?: 'empty' | 'strict' | 'debug' | 'property_missing';
    maxLoopIterations?: number;
    maxValueLength?: number;
    locale?: unknown;
    timezone?: unknown;
  },
  data: Dict,
  imageKeys: Set<string>,
): RenderState {
  const state = new RenderState(
    options.environment ?? defaultEnvironment(),
    data,
    imageKeys,
    options.undefined === 'strict',
    {
      maxLoopIterations: options.maxLoopIterations ?? DEFAULT_EVAL_LIMITS.maxLoopIterations,
      maxValueLength: options.maxValueLength ?? DEFAULT_EVAL_LIMITS.maxValueLength,
    },
    options.undefined === 'debug' || options.undefined === 'property_missing' ? options.undefined : 'empty',
  );
  state.format = formatDefaultsOf(options);
  return state;
}

export function formatDefaultsOf(
  options: { locale?: unknown; timezone?: unknown },
  fields = { locale: 'options.locale', timezone: 'options.timezone' },
): FormatDefaults {
  const out = { ...DEFAULT_FORMAT_DEFAULTS };
  if (options.locale !== undefined) {
    const tag = parseLocale(options.locale);
    if (!tag)
      throw new InvalidRequestError(
        `${fields.locale}: unknown locale '${String(options.locale).slice(0, 50)}' (give one such as de_DE or en-US)`,
        {
          field: fields.locale,
        },
      );
    out.locale = tag;
  }
  if (options.timezone !== undefined) {
    const zone = parseTimeZone(options.timezone);
    if (!zone)
      throw new InvalidRequestError(
        `${fields.timezone}: unknown time zone '${String(options.timezone).slice(0, 64)}' (give an IANA name such as Europe/Berlin or UTC)`,
        { field: fields.timezone },
      );
    out.timezone = zone;
  }
  return out;
}

/** The caller's content writers before rich content's (only rich content's when there are none). */
function pluggedFirst(plugged: readonly ContentWriter[], rich: ContentWriter): ContentWriter {
  if (!plugged.length) return rich;
  return {
    output(v, placement, partPath, plain) {
      for (const writer of plugged) {
        const xml = writer.output(v, placement, partPath, plain);
        if (xml !== undefined) return xml;
      }
      return rich.output(v, placement, partPath, plain);
    },
  };
}

/** Fills the template; returns the .docx bytes or throws one of the typed errors. */
export function renderDocx(template: Buffer, request: RenderRequest, options: RenderOptions = {}): Buffer {
  if (!isPlainObject(request) || !isPlainObject(request.template_data))
    throw new InvalidRequestError('template_data must be a JSON object', { field: 'template_data' });
  // The template's package limits; sub-documents get the same.
  const templateLimits: Partial<TemplateLimits> = {
    ...(options.maxUncompressedBytes !== undefined
      ? { maxUncompressedBytes: options.maxUncompressedBytes }
      : {}),
    ...(options.maxWordXmlBytes !== undefined ? { maxWordXmlBytes: options.maxWordXmlBytes } : {}),
  };
  // Chart points are counted over the data before the template is even opened (413).
  const chartLimits = { ...DEFAULT_CHART_LIMITS, ...options.chartLimits };
  countChartPoints(request.template_data, chartLimits);
  const pkg = openDocxPackage(template, {
    checked: options.templateChecked === true,
    limits: templateLimits,
  });
  const zip = pkg.zip;
  // Tags in charts' titles and alternative text, moved where the fill evaluates them (charts/).
  bindChartTags(zip);
  const images =
    options.preparedImages ??
    prepareImages(request.images, options.imageLimits, { pixelsVerified: options.imagesVerified === true });
  const environment = options.environment ?? defaultEnvironment();
  const state = renderStateFor(options, request.template_data as Dict, new Set(images.keys()));
  const imageWriter = new DocxImageWriter(images, { requireAltText: options.requireAltText === true });
  const rich = new RichWriter({
    zip,
    state,
    images,
    request,
    options,
    templateLimits,
  });
  const cache = rich.templateChanged ? undefined : options.compiledTemplates;
  const digest = cache && (options.templateDigest ?? CompiledTemplates.keyOf(template));
  // A compile checks filter and test names against its environment: kept apart per environment.
  const cacheKey = digest && (environment === defaultEnvironment() ? digest : `${digest}#${environment.id}`);
  const compiled = cacheKey ? cache.get(cacheKey) : undefined;
  const plugged = environment.writers.map((make) => make({ zip, state, request }));
  const charts = new ChartWriter(zip, chartLimits);
  const module = new JinjaModule(state, imageWriter, pluggedFirst([...plugged, charts], rich), compiled);
  // A template compiled before renders without docxtemplater's constructor (render-compiled.ts).
  let doc: Docxtemplater | undefined;
  if (!compiled) {
    try {
      doc = compileTemplate(zip, module);
    } catch (e) {
      translateCompileError(e);
    }
    if (cacheKey) cache.set(cacheKey, module.compiled(renderContextOf(doc)));
  }
  try {
    if (compiled) renderCompiled(zip, compiled, module);
    else (doc as Docxtemplater).render({});
  } catch (e) {
    if (isTypedError(e)) throw e;
    if (e instanceof RangeError)
      throw new TemplateRuntimeError(`The filled document would be too large (${e.message})`, {
        reason: 'too_large',
      });
    translateCompileError(e);
  }
  const undefinedNames = state.undefinedNames;
  if (undefinedNames.length) throw new UndefinedVariableError(undefinedNames);
  imageWriter.finalize(zip);
  rich.finalize();
  charts.finalize();
  for (const writer of plugged) writer.finalize?.();
  for (const pass of environment.packagePasses) pass(zip);
  // The caller's passes for this render (the converter's preparation: libs/converters/src/prepare).
  for (const pass of options.packagePasses ?? []) pass(zip);
  try {
    return pkg.toBuffer(options.compression ?? 'DEFLATE');
  } catch (e) {
    if (e instanceof RangeError)
      throw new TemplateRuntimeError(`The filled document would be too large (${e.message})`, {
        reason: 'too_large',
      });
    throw e;
  }
}
