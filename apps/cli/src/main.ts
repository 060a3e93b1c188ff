/**
 * Command line for template authors: try a template without a server.
 *
 *   npm run render -- TEMPLATE.docx|TEMPLATE.xlsx|TEMPLATE.pptx REQUEST.json OUT.docx|OUT.pdf|OUT.xlsx|OUT.ods|OUT.pptx|OUT.odp
 *
 * REQUEST.json is the interface's enhanced request (checked by the service's own parser, so refused
 * exactly as the API would refuse it as request_data): {"template_data": {…}, "images": {…}}, with
 * optional "documents": {"name": {"data": "<base64 .docx>"}} (sub-documents), optionally with
 * "options": {"undefined": "strict", "pdf": {"pdfa": "PDF/A-2b"}, "locale": "de_DE", "timezone": "Europe/Berlin"}
 * (the formatting filters' defaults; else DEFAULT_LOCALE / DEFAULT_TIMEZONE). Writes the document and exits 0, or prints
 * the typed error body as JSON on stderr and exits 1 (2 for wrong usage; EXIT_TRY_LATER, 75, when no
 * LibreOffice instance could start: nothing is wrong with the document, run it again later).
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { ConfigurationError } from '@app/config';
import { type CliSettings, loadCliSettings } from './settings';
import {
  converterUnavailableError,
  type ImageOutputOptions,
  InvalidRequestError,
  isImageOutput,
  isTypedError,
  type OutputFormat,
  parseDataJson,
  parseJobFields,
  PayloadTooLargeError,
  type PdfOptions,
  type RenderRequest,
  stringifyDataJson,
  type TypedError,
} from '@app/contracts';
import { createConverter, preparationOf, splitMinRowsOf, type PdfConverter } from '@app/converters';
import { formatDefaultsOf, type RenderOptions } from '@app/engine';
import { OUTPUT_FORMATS, produceDocument, type OutputFormatRow } from '@app/pipeline';

/**
 * sysexits.h's EX_TEMPFAIL ("a temporary failure; the user is invited to retry"): no LibreOffice
 * instance could start, on a starved or broken machine. A script can tell it from a bad template (1).
 */
export const EXIT_TRY_LATER = 75;

/** Seconds the CLI suggests waiting when the converter gives no estimate of its own. */
const TRY_LATER_FALLBACK_SECONDS = 30;

/**
 * Prints a typed error's body on stderr; returns the exit code: EXIT_TRY_LATER, with a line
 * saying so, when no LibreOffice instance could start, else 1.
 */
export function reportTypedError(
  e: TypedError,
  write: (text: string) => unknown = (text) => process.stderr.write(text),
): number {
  const later = converterUnavailableError(e, TRY_LATER_FALLBACK_SECONDS);
  write(JSON.stringify((later ?? e).toBody(), null, 2) + '\n');
  if (!later) return 1;
  write(
    `LibreOffice could not be started; nothing is wrong with the document. Try again in ` +
      `${later.retryAfterSeconds} s (exit code ${EXIT_TRY_LATER}).\n`,
  );
  return EXIT_TRY_LATER;
}

/**
 * REQUEST.json through the service's own parser (@app/contracts' parseJobFields), as the text of
 * the form field `request_data`: what the API refuses, the CLI refuses with the same error type
 * and message (unknown keys, image shapes, options, depth, sub-document count). The CLI writes
 * one document, so a batch or a webhook (the jobs' fields) is refused here.
 */
export function parseRequest(
  text: string,
  limits: CliSettings['limits'],
): { request: RenderRequest; options: RenderOptions; pdf: PdfOptions; image?: ImageOutputOptions } {
  const parsed = parseJobFields(
    { request_data: text },
    {
      maxJsonDepth: limits.jsonDepth,
      maxDocuments: limits.subdocuments,
      maxPdfExtraBytes: limits.pdfExtraBytes,
      maxBatchItems: limits.batchItems,
      formatDefaults: formatDefaultsOf,
    },
  );
  if (parsed.items || parsed.webhookUrl !== undefined || parsed.deliverTo)
    throw new InvalidRequestError(
      'The command line renders one document: request_data.batch, webhook_url and deliver_to are for POST /api/v1/jobs',
      { fields: parsed.items ? ['batch'] : parsed.deliverTo ? ['deliver_to'] : ['webhook_url'] },
    );
  const { undefined: undefinedMode, locale, timezone, pdf, image } = parsed.options;
  return {
    request: parsed.request,
    options: {
      ...(undefinedMode ? { undefined: undefinedMode } : {}),
      ...(locale ? { locale } : {}),
      ...(timezone ? { timezone } : {}),
    },
    pdf: pdf ?? {},
    ...(image ? { image } : {}),
  };
}

/** The output format whose extension OUT ends in (`.pdf`, `.png`, `.jpg` or `.jpeg`…), from the pipeline's table. */
function rowOfPath(path: string): OutputFormatRow | undefined {
  const ext = extname(path).toLowerCase();
  if (ext === '.jpeg') return OUTPUT_FORMATS.jpeg;
  return Object.values(OUTPUT_FORMATS).find((row) => `.${row.extension}` === ext);
}

/**
 * REQUEST.json for OUT's format: a page image's options.image is read as the API reads it, which
 * takes it only beside options.output "png" or "jpeg". OUT names the format, so a request that
 * names none is given OUT's (through the service's own JSON reader, which keeps 9.0 a float).
 */
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function requestTextFor(text: string, output: OutputFormat): string {
  if (!isImageOutput(output)) return text;
  let json: unknown;
  try {
    json = parseDataJson(text);
  } catch {
    return text; // the service's parser reports it, as the API does
  }
  if (!isPlainObject(json)) return text;
  const options = json.options;
  if (options !== undefined && !isPlainObject(options)) return text;
  if (options?.output !== undefined) return text;
  return stringifyDataJson({ ...json, options: { ...options, output } });
}

function readBounded(path: string, limit: number, what: string): Buffer {
  const size = statSync(path).size;
  if (size > limit)
    throw new PayloadTooLargeError(`${what} is ${size} bytes; the service's limit is ${limit} bytes`, {
      bytes: size,
      limit,
    });
  return readFileSync(path);
}

export async function main(argv: string[], cwd = process.env.INIT_CWD ?? process.cwd()): Promise<number> {
  if (!argv[0] || !argv[1] || !argv[2] || argv.length > 3) {
    process.stderr.write(
      'usage: npm run render -- TEMPLATE.docx REQUEST.json OUT.pdf|.docx|.odt|.html|.txt|.png|.jpg\n',
    );
    return 2;
  }
  // npm runs scripts from the package root; INIT_CWD is where the caller typed the command.
  const [templatePath, requestPath, outPath] = argv.map((a) => resolve(cwd, a));
  const row = rowOfPath(outPath);
  if (!row) {
    process.stderr.write(
      `OUT must end in ${Object.values(OUTPUT_FORMATS)
        .map((r) => `.${r.extension}`)
        .join(' or ')}\n`,
    );
    return 2;
  }
  let config: CliSettings;
  try {
    config = loadCliSettings();
  } catch (e) {
    process.stderr.write(`${e instanceof ConfigurationError ? e.message : String(e)}\n`);
    return 2;
  }
  let converter: PdfConverter | undefined;
  try {
    const { request, options, pdf, image } = parseRequest(
      requestTextFor(
        readBounded(requestPath, config.limits.requestBytes, 'REQUEST.json').toString('utf8'),
        row.output,
      ),
      config.limits,
    );
    const template = readBounded(templatePath, config.limits.templateBytes, 'The template');
    const converterConfig = config.converter;
    // The service's own pipeline (libs/pipeline): fill, LibreOffice's preparation, conversion and
    // the finishing step (prepend/append, watermark, files, encryption), as the worker runs them.
    const produced = await produceDocument(
      template,
      {
        output: row.output,
        request,
        fill: options,
        pdf,
        ...(image ? { image } : {}),
        ...(options.locale ? { documentLocale: options.locale } : {}),
      },
      {
        maxImagePixels: config.limits.imageOutputPixels,
        fill: { ...config.limits.render, locale: config.defaults.locale, timezone: config.defaults.timezone },
        // As the worker: a PDF of more table cells would not convert within the service's budget.
        prepare: {
          maxTableCells: config.conversion.tableCells,
          ...preparationOf({
            ...config.conversion,
            resolveAllTableStylesFromRows: splitMinRowsOf(converterConfig),
          }),
        },
      },
      // Started only once the fill succeeded, and only for a format that needs it.
      { converter: () => (converter = createConverter(converterConfig)) },
    );
    if (produced.extension !== row.extension) {
      // Several page images are a ZIP of page-1.png, …: written beside OUT under its own extension.
      const zipPath = `${outPath.slice(0, -extname(outPath).length)}.${produced.extension}`;
      writeFileSync(zipPath, produced.body);
      process.stderr.write(`several pages: wrote ${zipPath}\n`);
      return 0;
    }
    writeFileSync(outPath, produced.body);
    return 0;
  } catch (e) {
    if (isTypedError(e)) return reportTypedError(e);
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'EISDIR') {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw e;
  } finally {
    await converter?.close();
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`internal error: ${(e as Error).stack ?? e}\n`);
      process.exit(3);
    },
  );
}
