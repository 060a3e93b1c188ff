/**
 * ODT, HTML and text (`options.output` odt / html / txt): the filled .docx through another of
 * LibreOffice's export filters, on the embedded pool's instances (the UNO bridge's `target`).
 * Gotenberg's route converts to PDF only (gotenberg-converter.ts implements no convertTo): there
 * these formats are a typed 400 naming the route (docs/outputs.md).
 *
 *   html  LibreOffice's "HTML (StarWriter)" filter with its EmbedImages option: pictures as
 *         data: URIs. selfContainedHtml() then removes whatever still points outside the file.
 *   txt   the same HTML export, read as text by htmlToPlainText(): paragraphs in document order
 *         separated by blank lines, a table row's cells by tabs. Not LibreOffice's "Text (encoded)"
 *         filter: on the corpus contract (a table of contents, 35 pages) it did not finish within
 *         the 30 s conversion timeout, here through UNO as with `soffice --convert-to txt`.
 *   odt   "writer8", as written.
 */
import { parse, serialize } from 'parse5';

import { TypedError, type ErrorDetails } from '@app/contracts';

import type { ConvertOptions, PdfConverter } from '../pdf-converter';
import type { ExportTarget } from '../pdf-options';

export type DocumentFormat = 'odt' | 'html' | 'txt';

export interface DocumentFormatSpec {
  target: ExportTarget;
  contentType: string;
  extension: string;
}

export const DOCUMENT_FORMATS: Readonly<Record<DocumentFormat, DocumentFormatSpec>> = {
  odt: {
    target: { filter: 'writer8' },
    contentType: 'application/vnd.oasis.opendocument.text',
    extension: 'odt',
  },
  html: {
    target: { filter: 'HTML (StarWriter)', options: 'EmbedImages' },
    contentType: 'text/html; charset=utf-8',
    extension: 'html',
  },
  txt: {
    target: { filter: 'HTML (StarWriter)' },
    contentType: 'text/plain; charset=utf-8',
    extension: 'txt',
  },
};

/** options.output names a format the deployment's converter cannot write (400). */
export class UnsupportedOutputError extends TypedError {
  readonly errorType = 'unsupported_output';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** A converter that writes other formats than PDF (the embedded pool and its splitter). */
export interface DocumentConverter extends PdfConverter {
  convertTo(docx: Buffer, target: ExportTarget, options?: ConvertOptions): Promise<Buffer>;
}

export function writesDocumentFormats(converter: PdfConverter): converter is DocumentConverter {
  return typeof (converter as Partial<DocumentConverter>).convertTo === 'function';
}

/** `docx` as `format`, finished (HTML self-contained, text normalised); 400 on the Gotenberg route. */
export async function convertDocument(
  converter: PdfConverter,
  docx: Buffer,
  format: DocumentFormat,
  options: ConvertOptions = {},
): Promise<Buffer> {
  if (!writesDocumentFormats(converter)) {
    throw new UnsupportedOutputError(
      `options.output "${format}" needs the embedded LibreOffice pool; this worker converts through ` +
        `${converter.name}, which writes PDF only (png and jpeg work: they are drawn from the PDF)`,
      { field: 'options.output', output: format, route: converter.name },
    );
  }
  const raw = await converter.convertTo(docx, DOCUMENT_FORMATS[format].target, options);
  if (format === 'html') return Buffer.from(selfContainedHtml(raw.toString('utf8')), 'utf8');
  if (format === 'txt') return Buffer.from(htmlToPlainText(raw.toString('utf8')), 'utf8');
  return raw;
}

/** The outputs a filled spreadsheet (.xlsx) is converted to, through Calc's filters. */
export type SpreadsheetConversion = 'pdf' | 'ods';

const CALC_IMPORT = 'Calc MS Excel 2007 XML';

/**
 * Calc's export filters: its PDF filter takes the same FilterData as Writer's (PDF/A, image
 * compression, page ranges) and prints each sheet's print area; ODS as written.
 */
export const SPREADSHEET_TARGETS: Readonly<Record<SpreadsheetConversion, ExportTarget>> = {
  pdf: { filter: 'calc_pdf_Export', importFilter: CALC_IMPORT, withFilterData: true },
  ods: { filter: 'calc8', importFilter: CALC_IMPORT },
};

/** A filled .xlsx as PDF or ODS through Calc; 400 on the Gotenberg route (it converts Word only here). */
export async function convertSpreadsheet(
  converter: PdfConverter,
  xlsx: Buffer,
  format: SpreadsheetConversion,
  options: ConvertOptions = {},
): Promise<Buffer> {
  if (!writesDocumentFormats(converter))
    throw new UnsupportedOutputError(
      `a spreadsheet template to "${format}" needs the embedded LibreOffice pool; this worker converts through ` +
        `${converter.name}`,
      { field: 'options.output', output: format, route: converter.name },
    );
  return converter.convertTo(xlsx, SPREADSHEET_TARGETS[format], options);
}

/** The outputs a filled slide deck (.pptx) is converted to, through Impress's filters. */
export type PresentationConversion = 'pdf' | 'odp';

const IMPRESS_IMPORT = 'Impress MS PowerPoint 2007 XML';

/**
 * Impress's export filters: its PDF filter takes the same FilterData as Writer's (PDF/A, image
 * compression, page ranges) and prints one page per slide; ODP as written.
 */
export const PRESENTATION_TARGETS: Readonly<Record<PresentationConversion, ExportTarget>> = {
  pdf: { filter: 'impress_pdf_Export', importFilter: IMPRESS_IMPORT, withFilterData: true },
  odp: { filter: 'impress8', importFilter: IMPRESS_IMPORT },
};

/** A filled .pptx as PDF or ODP through Impress; 400 on the Gotenberg route (it converts Word only here). */
export async function convertPresentation(
  converter: PdfConverter,
  pptx: Buffer,
  format: PresentationConversion,
  options: ConvertOptions = {},
): Promise<Buffer> {
  if (!writesDocumentFormats(converter))
    throw new UnsupportedOutputError(
      `a slide-deck template to "${format}" needs the embedded LibreOffice pool; this worker converts through ` +
        `${converter.name}`,
      { field: 'options.output', output: format, route: converter.name },
    );
  return converter.convertTo(pptx, PRESENTATION_TARGETS[format], options);
}

/** Attributes through which a browser loads something (not navigation: a's href stays). */
const RESOURCE_ATTRIBUTES = new Set(['src', 'srcset', 'background', 'poster', 'data', 'lowsrc', 'dynsrc']);

type Node = {
  nodeName: string;
  attrs?: Array<{ name: string; value: string }>;
  childNodes?: Node[];
  content?: Node;
  value?: string;
};

function isInline(url: string): boolean {
  const u = url.trim().toLowerCase();
  return u === '' || u.startsWith('data:') || u.startsWith('#');
}

/** CSS url(...) that is not a data: URI. */
const EXTERNAL_CSS_URL = /url\(\s*(?!['"]?\s*data:)[^)]*\)/gi;

/**
 * The HTML with nothing that a browser would fetch: resource attributes that are not data:
 * URIs, <link> elements (LibreOffice writes none with EmbedImages, a linked picture could) and
 * CSS url()s are removed. Returns the input unchanged when there is nothing to remove (the
 * usual case: serialising again would only reformat it).
 */
export function selfContainedHtml(html: string): string {
  const doc = parse(html) as unknown as Node;
  let changed = false;
  const walk = (node: Node): void => {
    if (node.childNodes) {
      node.childNodes = node.childNodes.filter((child) => {
        if (child.nodeName === 'link' || child.nodeName === 'base') {
          changed = true;
          return false;
        }
        return true;
      });
    }
    if (node.attrs) {
      node.attrs = node.attrs.filter((a) => {
        const external =
          (RESOURCE_ATTRIBUTES.has(a.name) && !isInline(a.value)) ||
          (a.name === 'style' && EXTERNAL_CSS_URL.test(a.value));
        EXTERNAL_CSS_URL.lastIndex = 0;
        if (external) changed = true;
        return !external;
      });
    }
    if (node.nodeName === '#text' && node.value !== undefined && EXTERNAL_CSS_URL.test(node.value)) {
      EXTERNAL_CSS_URL.lastIndex = 0;
      node.value = node.value.replace(EXTERNAL_CSS_URL, 'none');
      changed = true;
    }
    node.childNodes?.forEach(walk);
    if (node.content) walk(node.content);
  };
  walk(doc);
  return changed ? serialize(doc as never) : html;
}

/** Elements that end a paragraph of the text (LibreOffice writes p, h1–h6, li, pre, td, th). */
const BLOCKS = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'li',
  'pre',
  'dt',
  'dd',
  'caption',
  'div',
  'blockquote',
  'address',
  'title',
]);

/**
 * The text of an HTML document in reading (document) order: each block a paragraph, a table row
 * one paragraph of tab-separated cells, a list item with its label ("3. ", "• "), <br> a line break; style, script and the head's title
 * left out; whitespace collapsed as a browser does. Hand-written over parse5's tree: the rules
 * are this service's text contract (docs/outputs.md), which no HTML-to-text package states.
 */
export function htmlToPlainText(html: string): string {
  const paragraphs: string[] = [];
  let line = '';
  const flush = (): void => {
    if (/^(\d+\.|•) $/.test(line)) return; // a list label waits for its item's first paragraph
    paragraphs.push(line);
    line = '';
  };
  const walk = (node: Node, inRow: boolean): void => {
    const name = node.nodeName;
    if (name === 'style' || name === 'script' || name === 'head' || name === 'template') return;
    if (name === '#text') {
      // Whitespace collapsed as a browser does (a no-break space is text and stays).
      line += (node.value ?? '').replace(/[ \t\n\r\f]+/g, ' ');
      return;
    }
    if (name === 'br') {
      line = line.replace(/ +$/, '') + '\n';
      return;
    }
    if (name === 'tr') {
      flush();
      const cells = (node.childNodes ?? []).filter((c) => c.nodeName === 'td' || c.nodeName === 'th');
      cells.forEach((cell, i) => {
        if (i > 0) line += '\t';
        const before = paragraphs.length;
        const start = line;
        line = '';
        walk(cell, true);
        // A cell's paragraphs joined by spaces: the row stays one line.
        const inner = [...paragraphs.splice(before), line]
          .map((t) => t.trim())
          .filter(Boolean)
          .join(' ');
        line = start + inner;
      });
      flush();
      return;
    }
    if (name === 'ol' || name === 'ul') {
      // List labels as the PDF draws them: LibreOffice writes a continued numbered list as
      // <ol start="n">, so counting its items gives the numbers ("1.", "2." …); bullets as "•".
      // Word's multi-level labels ("2.1") and other number formats are not reconstructed.
      let n = Number(node.attrs?.find((a) => a.name === 'start')?.value ?? '1');
      for (const child of node.childNodes ?? []) {
        if (child.nodeName === 'li' && !inRow) {
          flush();
          line = name === 'ol' ? `${n++}. ` : '• ';
          child.childNodes?.forEach((c) => walk(c, inRow));
          flush();
        } else walk(child, inRow);
      }
      return;
    }
    const block = BLOCKS.has(name);
    if (block && !inRow) flush();
    node.childNodes?.forEach((child) => walk(child, inRow));
    if (node.content) walk(node.content, inRow);
    if (block && !inRow) flush();
    else if (block) line += ' ';
  };
  walk(parse(html) as unknown as Node, false);
  flush();
  return joinParagraphs(paragraphs.map((p) => p.replace(/[ \t]*\n[ \t]*/g, '\n')));
}

/** Paragraphs trimmed, empty ones dropped, one blank line between, a final newline. */
function joinParagraphs(paragraphs: string[]): string {
  const kept = paragraphs.map((p) => p.replace(/^[ \t\n]+|[ \t\n]+$/g, '')).filter((p) => p !== '');
  return kept.length ? kept.join('\n\n') + '\n' : '';
}
