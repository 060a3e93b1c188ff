/**
 * ODT, HTML and text (`options.output` odt / html / txt): the filled .docx through another of
 * LibreOffice's export filters, on the embedded pool's instances (the UNO bridge's `target`).
 * Gotenberg's route converts to PDF only (gotenberg-converter.ts implements no convertTo): there
 * these formats are a typed 400 naming the route (docs/outputs.md).
 *
 *   html  LibreOffice's "HTML (StarWriter)" filter with its EmbedImages option: pictures as
 *         data: URIs. selfContainedHtml() then removes whatever still points outside the file.
 *   txt   the "Text (encoded)" filter in UTF-8: one line per paragraph (a table row's cells
 *         tab-separated); plainText() gives UTF-8 without BOM, paragraphs separated by blank lines.
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
    target: { filter: 'Text (encoded)', options: 'UTF8,LF' },
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
  if (format === 'txt') return Buffer.from(plainText(raw.toString('utf8')), 'utf8');
  return raw;
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

/**
 * LibreOffice's text export made plain: no byte-order mark, LF line ends, one paragraph per
 * line become paragraphs separated by one blank line, empty paragraphs dropped, trailing blanks
 * trimmed, and a final newline.
 */
export function plainText(text: string): string {
  const paragraphs = text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .map((line) => line.replace(/[ \t]+$/, ''))
    .filter((line) => line.trim() !== '');
  return paragraphs.length ? paragraphs.join('\n\n') + '\n' : '';
}
