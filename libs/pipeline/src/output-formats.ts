/**
 * The output formats, as rows of one table: what each is (media type, extension), whether it
 * needs the converter, what the converter needs done to the filled .docx first, how it is made,
 * and the steps that finish it. produceDocument (produce-document.ts) runs any row the same way,
 * so a new format is a new row, not a new branch. In the manner of docxtemplater's file-type
 * config (es6/file-type-config.js): the formats as data.
 *
 * A row may be made from another row's result (`from`): it then starts from that row's finished
 * bytes and shares its preparation (e.g. an image of each page made from the PDF of the same
 * request).
 */
import {
  type ImageOutputOptions,
  InvalidRequestError,
  OUTPUT_FORMAT_NAMES,
  OUTPUT_MEDIA,
  type OutputFormat,
  type PdfOptions,
  type SignatureLevel,
} from '@app/contracts';
import type { TemplateFormat } from '@app/engine';
import {
  convertDocument,
  convertSpreadsheet,
  convertPresentation,
  type DocumentFormat,
  finishPdf,
  LIBREOFFICE_PREPARE,
  needsFinishing,
  pdfToPageImages,
  type PdfConverter,
  type PreparePass,
  checkSignatureField,
  pdfPageCount,
  type SignaturePlace,
  SigningNotConfiguredError,
  takeSignaturePlaces,
  withDocumentLanguage,
} from '@app/converters';
import { addEmptySignatureFields } from '@app/signing';

/**
 * What the signing step asks of the signer (libs/signing's signPdf, bound by the worker): the
 * request's options.pdf.signature in the signer's terms, with the template's places.
 */
export interface SignRequest {
  profile: string;
  level?: SignatureLevel;
  reason?: string;
  location?: string;
  contactInfo?: string;
  /** options.pdf.signature.field's place, signed with a visible appearance. */
  visible?: SignaturePlace & { image?: Buffer };
  /** The template's other places: empty signature fields, to be signed later. */
  emptyFields: SignaturePlace[];
}

/** What one production of a document hands the rows' conversion and finishing steps. */
export interface ProduceContext {
  converter: PdfConverter;
  /** The template's format (its content types): the converter's import and export filters follow it. */
  templateFormat?: TemplateFormat;
  /** The request's options.pdf, parsed (parsePdfOptions); `{}` when it has none. */
  pdf: PdfOptions;
  /** Names the conversion in the converter's logs and errors (the request id). */
  jobId?: string;
  /** The conversion's and each finishing step's time limit, asked when each starts (the time left). */
  timeoutMs?: () => number | undefined;
  /** An asynchronous job's item: no caller waits on it. */
  background?: boolean;
  /** Wraps each conversion (the worker's convertWhenUp for background items); default: runs it. */
  runConversion?: (convert: () => Promise<Buffer>) => Promise<Buffer>;
  /** Parent directory of the finishing step's job directories (the converter's work dir). */
  finishTmpDir?: string;
  /** A finishing process's own failures (never its input). */
  log?: (message: string) => void;
  /** options.image (png / jpeg): size, pages, JPEG quality. */
  image?: ImageOutputOptions;
  /** MAX_IMAGE_OUTPUT_PIXELS: page images beyond it are refused (413) before pdftoppm runs. */
  maxImagePixels?: number;
  /**
   * The locale the request itself named (options.locale; not the deployment's default): with
   * options.pdf.pdfua it becomes the document's language, hence the PDF's /Lang. Without it the
   * template's own language stays.
   */
  documentLocale?: string;
  /**
   * Signs the finished PDF (options.pdf.signature); the worker binds it to libs/signing. Without
   * it a request with a signature is 400 signing_not_configured.
   */
  sign?: (pdf: Buffer, request: SignRequest) => Promise<Buffer>;
  /**
   * The template's signature places (signature_field), set by SIGNATURE_PLACES_STEP from the
   * converter's PDF and read by SIGNATURE_STEP: pages of the converted document, from 1.
   */
  signaturePlaces?: SignaturePlace[];
}

/** What a row's conversion made when its media type depends on the result (one page or a ZIP). */
export interface RowResult {
  body: Buffer;
  contentType: string;
  extension: string;
}

/** One step after the conversion: run when `applies` says so (e.g. the request asks for it). */
export interface FinishStep {
  name: string;
  applies(ctx: ProduceContext): boolean;
  run(bytes: Buffer, ctx: ProduceContext): Promise<Buffer>;
}

export interface OutputFormatRow {
  output: OutputFormat;
  contentType: string;
  extension: string;
  /** Made from this row's finished result rather than from the filled .docx. */
  from?: OutputFormat;
  /** The template formats it is made from (a spreadsheet is never made into a Word file). */
  inputs: readonly TemplateFormat[];
  /** Needs the converter (LibreOffice or Gotenberg): a row without one never touches it. */
  needsConverter: boolean;
  /**
   * How the fill writes its .docx: `DEFLATE` for one that leaves the service, `STORE` for one
   * read once by the converter, which then has nothing to inflate.
   */
  fillCompression: 'STORE' | 'DEFLATE';
  /** Passes run on the filled package before it is written (libs/converters/src/prepare). */
  prepare: readonly PreparePass[];
  /**
   * The row's bytes from its input: the filled .docx, or the `from` row's result. A RowResult
   * when the media type is the result's (several page images: a ZIP), else the row's own.
   */
  convert(input: Buffer, ctx: ProduceContext): Promise<Buffer | RowResult>;
  /** Run in order on convert's result. */
  finish: readonly FinishStep[];
}

/** The service's PDF finishing (pdf-finish.ts): prepend/append, watermark, files, Factur-X, metadata, encryption. */
export const PDF_FINISH: FinishStep = {
  name: 'pdf_finish',
  applies: (ctx) => needsFinishing(ctx.pdf),
  run: (pdf, ctx) =>
    finishPdf(pdf, ctx.pdf, {
      timeoutMs: ctx.timeoutMs?.(),
      tmpDir: ctx.finishTmpDir,
      ...(ctx.log ? { log: ctx.log } : {}),
    }),
};

/**
 * The template's signature places, read off the converter's own PDF, and their marker links
 * dropped, so that a PDF of a template with signature_field and no signing holds no stray link.
 * Before PDF_FINISH rather than after: encryption would hide the markers, and a caller's
 * prepended or appended PDF can then never bring a place of its own.
 */
export const SIGNATURE_PLACES_STEP: FinishStep = {
  name: 'signature_places',
  // Always: a PDF without the marker's bytes costs one search, not a parse.
  applies: () => true,
  run: async (pdf, ctx) => {
    const { pdf: unmarked, places } = await takeSignaturePlaces(pdf);
    ctx.signaturePlaces = places;
    return unmarked;
  },
};

/**
 * options.pdf.signature: the signer's, last, on the finished PDF (after watermark, prepend/append,
 * attachments and Factur-X). The places move by the pages prepended before the document.
 */
export const SIGNATURE_STEP: FinishStep = {
  name: 'signature',
  applies: (ctx) => ctx.pdf.signature !== undefined,
  run: async (pdf, ctx) => {
    const signature = ctx.pdf.signature!;
    if (!ctx.sign)
      throw new SigningNotConfiguredError(
        'options.pdf.signature: this service has no signing profiles configured',
        { field: 'options.pdf.signature' },
      );
    const own = ctx.signaturePlaces ?? [];
    if (signature.field !== undefined) checkSignatureField(signature.field, own);
    const places = await finishedPlaces(own, ctx);
    const visible = places.find((p) => p.name === signature.field);
    const image = signature.appearance?.image;
    return ctx.sign(pdf, {
      profile: signature.profile,
      ...(signature.level ? { level: signature.level } : {}),
      ...(signature.reason !== undefined ? { reason: signature.reason } : {}),
      ...(signature.location !== undefined ? { location: signature.location } : {}),
      ...(signature.contact_info !== undefined ? { contactInfo: signature.contact_info } : {}),
      ...(visible
        ? { visible: { ...visible, ...(image ? { image: Buffer.from(image, 'base64') } : {}) } }
        : {}),
      emptyFields: places.filter((p) => p !== visible),
    });
  },
};

/**
 * A template's signature places when the request signs nothing: empty, signable signature fields
 * for a reader or an e-signature provider to sign later. Not on an encrypted PDF (pdf-lib cannot
 * write into one; docs/pdf.md): there the places are dropped with their markers.
 */
export const EMPTY_SIGNATURE_FIELDS_STEP: FinishStep = {
  name: 'empty_signature_fields',
  applies: (ctx) =>
    ctx.pdf.signature === undefined &&
    ctx.pdf.encryption === undefined &&
    (ctx.signaturePlaces?.length ?? 0) > 0,
  run: async (pdf, ctx) => addEmptySignatureFields(pdf, await finishedPlaces(ctx.signaturePlaces ?? [], ctx)),
};

/** The places of the converted document in the finished one: moved by the pages prepended. */
async function finishedPlaces(places: SignaturePlace[], ctx: ProduceContext): Promise<SignaturePlace[]> {
  let shift = 0;
  for (const file of ctx.pdf.prepend ?? []) shift += await pdfPageCount(Buffer.from(file.data, 'base64'));
  return shift === 0 ? places : places.map((p) => ({ ...p, page: p.page + shift }));
}

/** The conversion's own options: the request id, the time left, a job's item. */
function convertOptions(ctx: ProduceContext) {
  return {
    ...(ctx.jobId ? { jobId: ctx.jobId } : {}),
    timeoutMs: ctx.timeoutMs?.(),
    // A job's item refused as beyond its time is not told to become a job.
    ...(ctx.background ? { background: true } : {}),
  };
}

/** The converter's PDF of the filled .docx. */
function convertToPdf(filled: Buffer, ctx: ProduceContext): Promise<Buffer> {
  if (ctx.templateFormat === 'xlsx') {
    // Calc's PDF filter: each sheet's print area, the same FilterData as Writer's.
    const calc = () =>
      convertSpreadsheet(ctx.converter, filled, 'pdf', { ...convertOptions(ctx), pdf: ctx.pdf });
    return ctx.runConversion ? ctx.runConversion(calc) : calc();
  }
  if (ctx.templateFormat === 'pptx') {
    // Impress's PDF filter: one page per slide, the same FilterData as Writer's.
    const impress = () =>
      convertPresentation(ctx.converter, filled, 'pdf', { ...convertOptions(ctx), pdf: ctx.pdf });
    return ctx.runConversion ? ctx.runConversion(impress) : impress();
  }
  // PDF/UA: the request's locale as the document's language, which LibreOffice writes as /Lang.
  const docx = ctx.pdf.pdfua ? withDocumentLanguage(filled, ctx.documentLocale) : filled;
  const convert = () => ctx.converter.convert(docx, { ...convertOptions(ctx), pdf: ctx.pdf });
  return ctx.runConversion ? ctx.runConversion(convert) : convert();
}

/** ODT, HTML or text: another of LibreOffice's export filters (400 on the Gotenberg route). */
function documentRow<F extends DocumentFormat>(output: F): OutputFormatRow & { output: F } {
  return {
    output,
    ...OUTPUT_MEDIA[output],
    inputs: ['docx'],
    needsConverter: true,
    fillCompression: 'STORE',
    // The same preparation as the PDF's: LibreOffice imports the same .docx.
    prepare: LIBREOFFICE_PREPARE,
    convert: (docx, ctx) => {
      const convert = () => convertDocument(ctx.converter, docx, output, convertOptions(ctx));
      return ctx.runConversion ? ctx.runConversion(convert) : convert();
    },
    finish: [],
  };
}

/** PNG or JPEG: the pages of the finished PDF of the same request, drawn by pdftoppm. */
function imageRow<F extends 'png' | 'jpeg'>(output: F): OutputFormatRow & { output: F } {
  return {
    output,
    ...OUTPUT_MEDIA[output],
    from: 'pdf',
    inputs: ['docx', 'xlsx', 'pptx'],
    needsConverter: false,
    fillCompression: 'STORE',
    prepare: [],
    convert: async (pdf, ctx) => {
      const images = await pdfToPageImages(
        pdf,
        { ...ctx.image, format: output },
        {
          ...(ctx.maxImagePixels !== undefined ? { maxPixels: ctx.maxImagePixels } : {}),
          ...(ctx.timeoutMs?.() !== undefined ? { timeoutMs: ctx.timeoutMs() } : {}),
        },
      );
      return { body: images.body, contentType: images.contentType, extension: images.extension };
    },
    finish: [],
  };
}

export const OUTPUT_FORMATS: { readonly [F in OutputFormat]: OutputFormatRow & { output: F } } = {
  pdf: {
    output: 'pdf',
    ...OUTPUT_MEDIA.pdf,
    inputs: ['docx', 'xlsx', 'pptx'],
    needsConverter: true,
    fillCompression: 'STORE',
    prepare: LIBREOFFICE_PREPARE,
    convert: convertToPdf,
    finish: [SIGNATURE_PLACES_STEP, PDF_FINISH, SIGNATURE_STEP, EMPTY_SIGNATURE_FIELDS_STEP],
  },
  docx: {
    output: 'docx',
    ...OUTPUT_MEDIA.docx,
    inputs: ['docx'],
    needsConverter: false,
    // The caller edits it in Word: its styles stay as the template has them.
    fillCompression: 'DEFLATE',
    prepare: [],
    convert: (docx) => Promise.resolve(docx),
    finish: [],
  },
  odt: documentRow('odt'),
  html: documentRow('html'),
  txt: documentRow('txt'),
  png: imageRow('png'),
  jpeg: imageRow('jpeg'),
  xlsx: {
    output: 'xlsx',
    ...OUTPUT_MEDIA.xlsx,
    inputs: ['xlsx'],
    needsConverter: false,
    // The caller opens it in Excel or Calc: the filled workbook as it is.
    fillCompression: 'DEFLATE',
    prepare: [],
    convert: (xlsx) => Promise.resolve(xlsx),
    finish: [],
  },
  ods: {
    output: 'ods',
    ...OUTPUT_MEDIA.ods,
    inputs: ['xlsx'],
    needsConverter: true,
    fillCompression: 'STORE',
    prepare: [],
    convert: (xlsx, ctx) => {
      const convert = () => convertSpreadsheet(ctx.converter, xlsx, 'ods', convertOptions(ctx));
      return ctx.runConversion ? ctx.runConversion(convert) : convert();
    },
    finish: [],
  },
  pptx: {
    output: 'pptx',
    ...OUTPUT_MEDIA.pptx,
    inputs: ['pptx'],
    needsConverter: false,
    // The caller opens it in PowerPoint or Impress: the filled deck as it is.
    fillCompression: 'DEFLATE',
    prepare: [],
    convert: (pptx) => Promise.resolve(pptx),
    finish: [],
  },
  odp: {
    output: 'odp',
    ...OUTPUT_MEDIA.odp,
    inputs: ['pptx'],
    needsConverter: true,
    fillCompression: 'STORE',
    prepare: [],
    convert: (pptx, ctx) => {
      const convert = () => convertPresentation(ctx.converter, pptx, 'odp', convertOptions(ctx));
      return ctx.runConversion ? ctx.runConversion(convert) : convert();
    },
    finish: [],
  },
};

/** options.pdf fields only a Word template can honour: on a spreadsheet or deck they are a 400 naming them. */
export const WORD_ONLY_PDF_OPTIONS = ['pdfua', 'update_indexes'] as const;

const FORMAT_NAMES: Readonly<Record<TemplateFormat, string>> = {
  docx: 'a Word (.docx)',
  xlsx: 'a spreadsheet (.xlsx)',
  pptx: 'a slide deck (.pptx)',
};

/**
 * The request's output and PDF options checked against the template's format: an output the
 * format is not made into, or a Word-only PDF option on a spreadsheet, is a 400 naming it.
 */
export function checkOutputForFormat(
  row: OutputFormatRow,
  format: TemplateFormat,
  pdf: PdfOptions = {},
): void {
  if (!row.inputs.includes(format))
    throw new InvalidRequestError(
      `options.output: "${row.output}" is not made from ${FORMAT_NAMES[format]} template`,
      { field: 'options.output', output: row.output, template_format: format },
    );
  if (format !== 'docx' && sourceRowOf(row).output === 'pdf')
    for (const name of WORD_ONLY_PDF_OPTIONS)
      if (pdf[name] !== undefined)
        throw new InvalidRequestError(
          `options.pdf.${name}: only a Word (.docx) template can honour it; this template is ${FORMAT_NAMES[format]}`,
          { field: `options.pdf.${name}`, template_format: format },
        );
}

/** The row of `output`; an output the table has not is the request's typed error. */
export function outputFormatOf(output: unknown): OutputFormatRow {
  if (typeof output === 'string' && Object.hasOwn(OUTPUT_FORMATS, output))
    return OUTPUT_FORMATS[output as OutputFormat];
  throw new InvalidRequestError(
    `options.output: must be one of the following values: ${OUTPUT_FORMAT_NAMES.join(', ')}`,
    { field: 'options.output' },
  );
}

/** The row whose prepared .docx `row` starts from: itself, or the end of its `from` chain. */
export function sourceRowOf(row: OutputFormatRow): OutputFormatRow {
  const seen = new Set<OutputFormat>();
  let at = row;
  while (at.from !== undefined) {
    if (seen.has(at.output)) throw new Error(`output format ${row.output}: its 'from' chain loops`);
    seen.add(at.output);
    at = outputFormatOf(at.from);
  }
  return at;
}
