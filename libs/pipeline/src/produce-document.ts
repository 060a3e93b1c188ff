/**
 * The document pipeline: template + parsed request + deployment settings → the document's bytes,
 * its media type and extension. fill (libs/engine) → prepare (the row's passes, inside the fill)
 * → convert → finish, as the output format's row (output-formats.ts) says. The worker calls it for
 * single documents and batch items alike, the command line for its one document.
 */
import type { ImageOutputOptions, OutputFormat, PdfOptions } from '@app/contracts';
import { packagePasses, type PdfConverter, type PrepareSettings } from '@app/converters';
import {
  CompiledTemplates,
  renderTemplate,
  templateFormatOf,
  type RenderRequest,
  type TemplateFormat,
  type TemplateRenderOptions,
} from '@app/engine';
import {
  checkOutputForFormat,
  outputFormatOf,
  sourceRowOf,
  type OutputFormatRow,
  type ProduceContext,
  type RowResult,
} from './output-formats';
import { withSpan } from '@app/telemetry';

/**
 * The engine's fill options that are plain data (they cross to a fill thread): limits, the
 * undefined mode, locale and time zone, what the API checked already. How the .docx is written
 * and what is done to it before are the row's.
 */
export type FillOptions = Omit<
  TemplateRenderOptions,
  'compiledTemplates' | 'preparedImages' | 'packagePasses' | 'compression' | 'onWarning'
>;

/** One fill, as a fill thread takes it: plain data. */
export interface FillJob {
  output: OutputFormat;
  options: FillOptions;
  prepare: PrepareSettings;
}

/** Fills off the event loop (the worker's FillPool): parses the request's JSON itself. */
export interface OffLoopFill {
  fill(template: Buffer, requestJson: string, job: FillJob): Promise<Buffer>;
}

/** The request, parsed: what to make and from what. */
export interface DocumentRequest {
  output: OutputFormat;
  /** The parsed request; may be absent when `requestJson` goes to a fill thread that parses it. */
  request?: RenderRequest;
  requestJson?: string;
  /** The request's own fill options (undefined mode, locale, time zone, template digest…). */
  fill?: FillOptions;
  /** options.pdf, parsed (parsePdfOptions); none for a .docx. */
  pdf?: PdfOptions;
  /** options.image (png / jpeg). */
  image?: ImageOutputOptions;
  /** options.locale when the request names it (not a default): pdfua's document language. */
  documentLocale?: string;
}

/** The deployment's choices: taken as plain values, whoever reads the configuration. */
export interface PipelineSettings {
  /** The engine's limits and defaults (ServiceConfig.renderLimits, DEFAULT_LOCALE…); the request's own win. */
  fill?: FillOptions;
  /** LibreOffice's preparation: cell budget, table styles, unused styles. */
  prepare?: PrepareSettings;
  /** MAX_IMAGE_OUTPUT_PIXELS (limits.imageOutputPixels): page images beyond it are a 413. */
  maxImagePixels?: number;
}

export interface PipelineDeps extends Omit<
  ProduceContext,
  'converter' | 'pdf' | 'image' | 'maxImagePixels' | 'documentLocale' | 'signaturePlaces'
> {
  /** The converter, or a maker of it called only when a row needs one (after the fill). */
  converter?: PdfConverter | (() => PdfConverter);
  /** Templates compiled by earlier fills in this process. */
  compiledTemplates?: CompiledTemplates;
  /** With `request.requestJson`: the fill runs there, off the event loop, its preparation too. */
  offLoop?: OffLoopFill;
  /** Told the fill's milliseconds as soon as it ends (the worker's metric), before the conversion. */
  onFilled?: (ms: number) => void;
}

export interface ProducedDocument {
  body: Buffer;
  contentType: string;
  extension: string;
  timings: {
    /** Filling and preparing the .docx. */
    fillMs: number;
    /** Converting and finishing (0 for a row without either). */
    convertMs: number;
  };
}

/**
 * The filled .docx for `job.output`, its row's preparation done: what a fill thread runs, and
 * produceDocument on the event loop. Throws the engine's and the passes' typed errors.
 */
export function fillDocument(
  template: Buffer,
  request: RenderRequest,
  job: FillJob,
  caches: { compiledTemplates?: CompiledTemplates } = {},
  format: TemplateFormat = templateFormatOf(template),
): Buffer {
  const source = sourceRowOf(outputFormatOf(job.output));
  // The converter's preparation passes are Word's (cell budget, table styles): a workbook has none.
  const passes =
    format === 'docx' && source.prepare.length ? packagePasses(source.prepare, job.prepare) : undefined;
  return renderTemplate(
    template,
    request,
    {
      ...job.options,
      compression: source.fillCompression,
      ...(passes ? { packagePasses: passes } : {}),
      ...(caches.compiledTemplates ? { compiledTemplates: caches.compiledTemplates } : {}),
    },
    format,
  );
}

/** `row`'s result from the filled .docx: its source row's first, then its conversion and finishing. */
async function resultOf(row: OutputFormatRow, docx: Buffer, ctx: ProduceContext): Promise<RowResult> {
  const input = row.from !== undefined ? (await resultOf(outputFormatOf(row.from), docx, ctx)).body : docx;
  // A span for what takes time: the converter's work and each finishing step (docs/operations.md, "Traces").
  const made = row.needsConverter
    ? await withSpan('convert', () => row.convert(input, ctx), {
        attributes: { output: row.output, input_bytes: input.length },
      })
    : await row.convert(input, ctx);
  const result: RowResult = Buffer.isBuffer(made)
    ? { body: made, contentType: row.contentType, extension: row.extension }
    : made;
  for (const step of row.finish) {
    if (!step.applies(ctx)) continue;
    const body = result.body;
    result.body = await withSpan('finish', () => step.run(body, ctx), { attributes: { step: step.name } });
  }
  return result;
}

/** Whether `row` or a row it is made from needs the converter. */
export function needsConverter(row: OutputFormatRow): boolean {
  return row.needsConverter || (row.from !== undefined && needsConverter(outputFormatOf(row.from)));
}

/**
 * The document `parsed.output` names, made from `template`: filled (on `deps.offLoop` when the
 * request is left as JSON), prepared, converted and finished as its row says. Throws the typed
 * errors of the request (an unknown output), the engine, the passes (the cell budget, before any
 * conversion), the converter and the finishing step.
 */
export async function produceDocument(
  template: Buffer,
  parsed: DocumentRequest,
  settings: PipelineSettings,
  deps: PipelineDeps = {},
): Promise<ProducedDocument> {
  const row = outputFormatOf(parsed.output);
  // Told by the package's content types, before any fill or conversion.
  const templateFormat = templateFormatOf(template);
  checkOutputForFormat(row, templateFormat, parsed.pdf);
  if (needsConverter(row) && !deps.converter)
    throw new Error(`produceDocument: output ${row.output} needs a converter`);
  const pdfua = sourceRowOf(row).output === 'pdf' && parsed.pdf?.pdfua === true;
  const job: FillJob = {
    output: row.output,
    // PDF/UA: a picture without alternative text (nor marked decorative) is refused by the fill (422).
    options: { ...settings.fill, ...parsed.fill, ...(pdfua ? { requireAltText: true } : {}) },
    prepare: settings.prepare ?? {},
  };
  const t0 = performance.now();
  const docx = await withSpan(
    'fill',
    async (span): Promise<Buffer> => {
      if (deps.offLoop && parsed.requestJson !== undefined) {
        span.setAttributes({ fill_thread: true });
        return deps.offLoop.fill(template, parsed.requestJson, job);
      }
      if (!parsed.request)
        throw new Error('produceDocument: no parsed request and no fill thread to parse it');
      return fillDocument(template, parsed.request, job, deps, templateFormat);
    },
    { attributes: { output: row.output, template_bytes: template.length } },
  );
  const t1 = performance.now();
  deps.onFilled?.(t1 - t0);
  const { converter, compiledTemplates: _c, offLoop: _o, onFilled: _f, ...rest } = deps;
  let made: PdfConverter | undefined;
  const ctx: ProduceContext = {
    ...rest,
    templateFormat,
    pdf: parsed.pdf ?? {},
    ...(parsed.image ? { image: parsed.image } : {}),
    ...(parsed.documentLocale ? { documentLocale: parsed.documentLocale } : {}),
    ...(settings.maxImagePixels !== undefined ? { maxImagePixels: settings.maxImagePixels } : {}),
    get converter(): PdfConverter {
      if (!converter) throw new Error(`produceDocument: output ${row.output} needs a converter`);
      // Made on first use: a fill refused before conversion starts no LibreOffice.
      return (made ??= typeof converter === 'function' ? converter() : converter);
    },
  };
  const { body, contentType, extension } = await resultOf(row, docx, ctx);
  const t2 = performance.now();
  return {
    body,
    contentType,
    extension,
    timings: { fillMs: t1 - t0, convertMs: t2 - t1 },
  };
}
