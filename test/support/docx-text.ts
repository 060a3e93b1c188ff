/**
 * The visible text of a .docx, for comparing documents in tests without caring how the text is cut
 * into runs.
 *
 * Rules (per part: the main document, its headers, footers and footnotes):
 * - one line per paragraph, in document order, empty paragraphs included as '';
 * - inside a line `<w:br/>` and `<w:cr/>` are '\n' (a page break `<w:br w:type="page"/>` is '\f'),
 *   `<w:tab/>` is '\t', `<w:noBreakHyphen/>` is '-';
 * - a table row is one line: its cells joined with ' | ', the paragraphs of one cell joined with
 *   ' / ' (a nested table's rows too);
 * - paragraphs of a text box (`w:txbxContent`) follow, as lines of their own, the line of the
 *   paragraph that anchors the text box; the VML copy Word keeps in `mc:Fallback` is ignored, so
 *   each text box counts once;
 * - deleted text (`w:del`), field instructions and footnote/endnote reference marks have no text;
 *   separator footnotes are left out.
 *
 * Parsing is strict: malformed XML throws, which makes every call a well-formedness check too.
 */
import { DOMParser } from '@xmldom/xmldom';
import type { Document as XmlDocument, Element as XmlElement, Node as XmlNode } from '@xmldom/xmldom';
import { createHash } from 'node:crypto';
import PizZip from 'pizzip';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const WP = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const MC = 'http://schemas.openxmlformats.org/markup-compatibility/2006';
const PKG_RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const REL_BASE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/';

const ELEMENT_NODE = 1;

export interface DocxText {
  /** Lines of the main document. */
  body: string[];
  /** Lines of each header part, parts in natural order of their names (header1, header2, …). */
  headers: string[][];
  footers: string[][];
  /** Lines of all (non-separator) footnotes, in order. */
  footnotes: string[];
}

export interface DocxImage {
  /** Part holding the drawing, e.g. 'word/document.xml', 'word/header1.xml'. */
  part: string;
  /** The `r:embed` relationship id of the `a:blip`. */
  embed: string;
  /** Zip path the relationship points to, e.g. 'word/media/image1.png'; undefined if unresolved. */
  target: string | undefined;
  /** Whether the target exists in the package. */
  exists: boolean;
  /** `wp:extent`, in EMU (914400 per inch, 36000 per mm). */
  cx: number;
  cy: number;
  /** `wp:docPr/@id` (must be unique in the document). */
  docPrId: string | undefined;
  inline: boolean;
}

function parseXml(xml: string, name: string): XmlDocument {
  const parser = new DOMParser({
    onError: (level, message) => {
      if (level !== 'warning') throw new Error(`${name}: malformed XML: ${message}`);
    },
  });
  return parser.parseFromString(xml, 'application/xml');
}

function children(node: XmlNode): XmlElement[] {
  const out: XmlElement[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === ELEMENT_NODE) out.push(c as XmlElement);
  }
  return out;
}

function isW(el: XmlElement, local: string): boolean {
  return el.namespaceURI === W && el.localName === local;
}

/** Opens a .docx, with its parts located through the package relationships. */
export class DocxPackage {
  readonly zip: PizZip;
  readonly mainPart: string;

  constructor(buf: Buffer) {
    this.zip = new PizZip(buf);
    const main = this.rels('').find((r) => r.type.endsWith('/officeDocument'));
    if (!main?.target) throw new Error('Not a Word document: no officeDocument relationship');
    this.mainPart = main.target;
  }

  has(path: string): boolean {
    return this.zip.file(path) !== null;
  }

  /** Every part by name with a digest of its bytes: equal for packages that read the same, whatever their zip dates. */
  partsDigest(): Record<string, string> {
    return Object.fromEntries(
      Object.keys(this.zip.files)
        .filter((name) => !this.zip.files[name].dir)
        .sort()
        .map((name) => [
          name,
          createHash('sha256').update(this.zip.files[name].asNodeBuffer()).digest('hex'),
        ]),
    );
  }

  text(path: string): string {
    const file = this.zip.file(path);
    if (!file) throw new Error(`Missing part ${path}`);
    return file.asText();
  }

  xml(path: string): XmlDocument {
    return parseXml(this.text(path), path);
  }

  /** Relationships of a part ('' for the package), targets resolved to zip paths. */
  rels(part: string): { id: string; type: string; target: string | undefined; external: boolean }[] {
    const dir = part.includes('/') ? part.slice(0, part.lastIndexOf('/') + 1) : '';
    const file = part.slice(dir.length);
    const relsPath = `${dir}_rels/${file}.rels`;
    if (!this.has(relsPath)) return [];
    const doc = this.xml(relsPath);
    const out = [];
    const list = doc.getElementsByTagNameNS(PKG_RELS, 'Relationship');
    for (let i = 0; i < list.length; i++) {
      const el = list.item(i) as XmlElement;
      const external = el.getAttribute('TargetMode') === 'External';
      const raw = el.getAttribute('Target') ?? '';
      out.push({
        id: el.getAttribute('Id') ?? '',
        type: el.getAttribute('Type') ?? '',
        target: external ? undefined : resolvePath(dir, raw),
        external,
      });
    }
    return out;
  }

  /** Parts the main document points to with a relationship of this type ('header', …), sorted. */
  partsOfType(type: string): string[] {
    return this.rels(this.mainPart)
      .filter((r) => r.type === REL_BASE + type && r.target !== undefined)
      .map((r) => r.target as string)
      .filter((t, i, all) => all.indexOf(t) === i)
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  }
}

function resolvePath(dir: string, target: string): string {
  const segments = (target.startsWith('/') ? target.slice(1) : dir + target).split('/');
  const out: string[] = [];
  for (const s of segments) {
    if (s === '..') out.pop();
    else if (s !== '.' && s !== '') out.push(s);
  }
  return out.join('/');
}

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

/** Subtrees whose text is not shown (or shown elsewhere). */
function skipped(el: XmlElement): boolean {
  if (el.namespaceURI === MC && el.localName === 'Fallback') return true;
  if (el.namespaceURI !== W) return false;
  return ['del', 'pPr', 'rPr', 'txbxContent', 'instrText', 'delText', 'moveFrom'].includes(
    el.localName ?? '',
  );
}

/** Text of one paragraph, and the text box contents it anchors (in order). */
function paragraphText(p: XmlElement): { text: string; boxes: XmlElement[] } {
  let text = '';
  const boxes: XmlElement[] = [];
  const walk = (node: XmlElement) => {
    for (const el of children(node)) {
      if (isW(el, 'txbxContent')) {
        boxes.push(el);
        continue;
      }
      if (skipped(el)) continue;
      if (el.namespaceURI === W) {
        switch (el.localName) {
          case 't':
            text += el.textContent ?? '';
            continue;
          case 'tab':
            text += '\t';
            continue;
          case 'br':
            text += el.getAttributeNS(W, 'type') === 'page' ? '\f' : '\n';
            continue;
          case 'cr':
            text += '\n';
            continue;
          case 'noBreakHyphen':
            text += '-';
            continue;
        }
      }
      walk(el);
    }
  };
  walk(p);
  return { text, boxes };
}

/** Lines of a block container (body, cell, header, text box, footnote…). */
function blockLines(container: XmlElement): string[] {
  const lines: string[] = [];
  for (const el of children(container)) {
    if (isW(el, 'p')) {
      const { text, boxes } = paragraphText(el);
      lines.push(text);
      for (const box of boxes) lines.push(...blockLines(box));
    } else if (isW(el, 'tbl')) {
      for (const tr of children(el).filter((c) => isW(c, 'tr'))) lines.push(rowLine(tr));
    } else if (isW(el, 'sdt')) {
      const content = children(el).find((c) => isW(c, 'sdtContent'));
      if (content) lines.push(...blockLines(content));
    } else if (isW(el, 'customXml') || isW(el, 'ins') || isW(el, 'moveTo')) {
      lines.push(...blockLines(el));
    } else if (el.namespaceURI === MC && el.localName === 'AlternateContent') {
      const choice = children(el).find((c) => c.namespaceURI === MC && c.localName === 'Choice');
      if (choice) lines.push(...blockLines(choice));
    }
  }
  return lines;
}

function rowLine(tr: XmlElement): string {
  const cells: string[] = [];
  const collect = (node: XmlElement) => {
    for (const el of children(node)) {
      if (isW(el, 'tc')) cells.push(blockLines(el).join(' / '));
      else if (isW(el, 'sdt') || isW(el, 'sdtContent') || isW(el, 'customXml')) collect(el);
    }
  };
  collect(tr);
  return cells.join(' | ');
}

function partLines(pkg: DocxPackage, path: string): string[] {
  const root = pkg.xml(path).documentElement;
  if (!root) throw new Error(`${path}: empty part`);
  if (isW(root, 'document')) {
    const body = children(root).find((c) => isW(c, 'body'));
    return body ? blockLines(body) : [];
  }
  if (isW(root, 'footnotes') || isW(root, 'endnotes')) {
    const lines: string[] = [];
    for (const note of children(root)) {
      const type = note.getAttributeNS(W, 'type');
      if (type && type !== 'normal') continue;
      lines.push(...blockLines(note));
    }
    return lines;
  }
  return blockLines(root);
}

/** The visible text of a .docx: see the rules at the top of this file. */
export function docxText(buf: Buffer): DocxText {
  const pkg = new DocxPackage(buf);
  return {
    body: partLines(pkg, pkg.mainPart),
    headers: pkg.partsOfType('header').map((p) => partLines(pkg, p)),
    footers: pkg.partsOfType('footer').map((p) => partLines(pkg, p)),
    footnotes: pkg.partsOfType('footnotes').flatMap((p) => partLines(pkg, p)),
  };
}

/** All lines of all parts in one string (body, headers, footers, footnotes), for `toContain`. */
export function docxPlainText(buf: Buffer): string {
  const t = docxText(buf);
  return [...t.body, ...t.headers.flat(), ...t.footers.flat(), ...t.footnotes].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Images
// ---------------------------------------------------------------------------------------------

/** Pictures (`w:drawing` with an `a:blip`) in the document, its headers, footers and footnotes. */
export function docxImages(buf: Buffer): DocxImage[] {
  const pkg = new DocxPackage(buf);
  const parts = [
    pkg.mainPart,
    ...pkg.partsOfType('header'),
    ...pkg.partsOfType('footer'),
    ...pkg.partsOfType('footnotes'),
  ];
  const images: DocxImage[] = [];
  for (const part of parts) {
    const rels = new Map(pkg.rels(part).map((r) => [r.id, r]));
    const drawings: XmlElement[] = [];
    const walk = (node: XmlElement) => {
      for (const el of children(node)) {
        if (el.namespaceURI === MC && el.localName === 'Fallback') continue;
        if (isW(el, 'drawing')) drawings.push(el);
        walk(el);
      }
    };
    const root = pkg.xml(part).documentElement;
    if (root) walk(root);
    for (const drawing of drawings) {
      const frame = children(drawing).find(
        (c) => c.namespaceURI === WP && (c.localName === 'inline' || c.localName === 'anchor'),
      );
      if (!frame) continue;
      const extent = children(frame).find((c) => c.namespaceURI === WP && c.localName === 'extent');
      const docPr = children(frame).find((c) => c.namespaceURI === WP && c.localName === 'docPr');
      const blips = frame.getElementsByTagNameNS(A, 'blip');
      for (let i = 0; i < blips.length; i++) {
        const blip = blips.item(i) as XmlElement;
        const embed = blip.getAttributeNS(R, 'embed') ?? '';
        const target = rels.get(embed)?.target;
        images.push({
          part,
          embed,
          target,
          exists: target !== undefined && pkg.has(target),
          cx: Number(extent?.getAttribute('cx') ?? NaN),
          cy: Number(extent?.getAttribute('cy') ?? NaN),
          docPrId: docPr?.getAttribute('id') ?? undefined,
          inline: frame.localName === 'inline',
        });
      }
    }
  }
  return images;
}
