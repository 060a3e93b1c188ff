/**
 * Signature places in a converted PDF. The engine's `signature_field()` prints an invisible
 * picture linked to SIGNATURE_PLACE_URI + name; LibreOffice (directly, or inside Gotenberg)
 * exports that link as a /Link annotation whose /Rect is the picture's box. Here we read those
 * boxes back (page, rectangle in PDF points) and drop the links, so no stray link to a `.invalid`
 * host stays in the document. pdf-lib parses and writes: walking /Annots by hand would mean our
 * own PDF parser.
 */
import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString } from 'pdf-lib';
import { SignatureFieldNotFoundError } from '../errors';

/** The URI prefix of a place's link: the engine's SIGNATURE_PLACE_URI (one spelling, both ends). */
export const SIGNATURE_PLACE_URI = 'https://signature-field.invalid/';

export interface SignaturePlace {
  name: string;
  /** From 1. */
  page: number;
  /** [x1, y1, x2, y2] in PDF points, from the page's lower left corner (x1 < x2, y1 < y2). */
  rect: [number, number, number, number];
}

// Cheap test before parsing: LibreOffice writes annotations uncompressed, so a PDF without the
// marker's host in its bytes has no place (and most documents pay no parse).
const MARKER_BYTES = Buffer.from('signature-field.invalid', 'latin1');

function placeName(annot: PDFDict): string | undefined {
  if (annot.lookup(PDFName.of('Subtype')) !== PDFName.of('Link')) return undefined;
  const action = annot.lookup(PDFName.of('A'));
  if (!(action instanceof PDFDict)) return undefined;
  const uri = action.lookup(PDFName.of('URI'));
  if (!(uri instanceof PDFString || uri instanceof PDFHexString)) return undefined;
  const text = uri.decodeText();
  return text.startsWith(SIGNATURE_PLACE_URI)
    ? decodeURIComponent(text.slice(SIGNATURE_PLACE_URI.length))
    : undefined;
}

function rectOf(annot: PDFDict): SignaturePlace['rect'] | undefined {
  const rect = annot.lookup(PDFName.of('Rect'));
  if (!(rect instanceof PDFArray) || rect.size() !== 4) return undefined;
  const n = rect.asArray().map((v) => (v instanceof PDFNumber ? v.asNumber() : NaN));
  if (n.some((v) => !Number.isFinite(v))) return undefined;
  return [Math.min(n[0], n[2]), Math.min(n[1], n[3]), Math.max(n[0], n[2]), Math.max(n[1], n[3])];
}

interface Scan {
  doc: PDFDocument;
  places: SignaturePlace[];
  /** Each page's /Annots with the place markers, to rewrite without them. */
  marked: Array<{ annots: PDFArray; owner: PDFDict; keep: unknown[]; drop: PDFRef[] }>;
  /** The dropped links' names, by their object (to retag their structure elements). */
  dropped: Map<PDFRef, string>;
}

async function scan(pdf: Buffer): Promise<Scan | undefined> {
  if (!pdf.includes(MARKER_BYTES)) return undefined;
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, ignoreEncryption: true });
  const places: SignaturePlace[] = [];
  const marked: Scan['marked'] = [];
  const dropped = new Map<PDFRef, string>();
  doc.getPages().forEach((page, i) => {
    const annots = page.node.lookup(PDFName.of('Annots'));
    if (!(annots instanceof PDFArray)) return;
    const keep: unknown[] = [];
    const drop: PDFRef[] = [];
    for (let j = 0; j < annots.size(); j++) {
      const entry = annots.get(j);
      const annot = annots.lookup(j);
      const name = annot instanceof PDFDict ? placeName(annot) : undefined;
      const rect = name !== undefined && annot instanceof PDFDict ? rectOf(annot) : undefined;
      if (name === undefined || !rect) {
        keep.push(entry);
        continue;
      }
      places.push({ name, page: i + 1, rect });
      if (entry instanceof PDFRef) {
        drop.push(entry);
        dropped.set(entry, name);
      }
    }
    if (keep.length !== annots.size()) marked.push({ annots, owner: page.node, keep, drop });
  });
  return { doc, places, marked, dropped };
}

// Structure elements visited at most: a tagged document of thousands of pages stays well under.
const MAX_STRUCT_NODES = 1_000_000;

/**
 * In a tagged PDF LibreOffice wraps the place's picture in a /Link structure element whose
 * object reference (OBJR) is the link we drop: the reference goes with it, and the element
 * becomes a /Figure with alternative text (a Link without its annotation is not valid PDF/UA).
 */
function retagPlaces(doc: PDFDocument, dropped: Map<PDFRef, string>): void {
  const root = doc.catalog.lookup(PDFName.of('StructTreeRoot'));
  if (!(root instanceof PDFDict) || dropped.size === 0) return;
  const K = PDFName.of('K');
  const seen = new Set<PDFRef>();
  const stack: unknown[] = [root.get(K)];
  let visited = 0;
  while (stack.length && visited++ < MAX_STRUCT_NODES) {
    let node = stack.pop();
    if (node instanceof PDFRef) {
      if (seen.has(node)) continue;
      seen.add(node);
      node = doc.context.lookup(node);
    }
    if (node instanceof PDFArray) {
      for (let i = 0; i < node.size(); i++) stack.push(node.get(i));
      continue;
    }
    if (!(node instanceof PDFDict)) continue;
    const kids = node.get(K);
    const list = kids instanceof PDFArray ? kids.asArray() : kids ? [kids] : [];
    const name = list.map((kid) => objrTarget(doc, kid, dropped)).find((n) => n !== undefined);
    if (name !== undefined) {
      const rest = list.filter((kid) => objrTarget(doc, kid, dropped) === undefined);
      if (rest.length) node.set(K, doc.context.obj(rest as never[]));
      else node.delete(K);
      node.set(PDFName.of('S'), PDFName.of('Figure'));
      node.set(PDFName.of('Alt'), PDFString.of(`Signature field ${name}`));
    }
    for (const kid of list) stack.push(kid);
  }
}

/** The dropped link an OBJR kid points at, by its place's name. */
function objrTarget(doc: PDFDocument, kid: unknown, dropped: Map<PDFRef, string>): string | undefined {
  const dict = kid instanceof PDFRef ? doc.context.lookup(kid) : kid;
  if (!(dict instanceof PDFDict) || dict.get(PDFName.of('Type')) !== PDFName.of('OBJR')) return undefined;
  const obj = dict.get(PDFName.of('Obj'));
  return obj instanceof PDFRef ? dropped.get(obj) : undefined;
}

/** The signature places of a PDF LibreOffice made, in page order. */
export async function findSignaturePlaces(pdf: Buffer): Promise<SignaturePlace[]> {
  return (await scan(pdf))?.places ?? [];
}

/**
 * The places, and the PDF without their marker links (the same bytes when it has none). Both at
 * once: one parse for the finishing step.
 */
export async function takeSignaturePlaces(pdf: Buffer): Promise<{ pdf: Buffer; places: SignaturePlace[] }> {
  const found = await scan(pdf);
  if (!found || found.marked.length === 0) return { pdf, places: found?.places ?? [] };
  for (const { owner, keep, drop } of found.marked) {
    if (keep.length === 0) owner.delete(PDFName.of('Annots'));
    else owner.set(PDFName.of('Annots'), found.doc.context.obj(keep as never[]));
    for (const ref of drop) found.doc.context.delete(ref);
  }
  retagPlaces(found.doc, found.dropped);
  // No object streams: the PDF stays as LibreOffice writes it for the finishing after us.
  const bytes = await found.doc.save({ useObjectStreams: false, updateFieldAppearances: false });
  return { pdf: Buffer.from(bytes), places: found.places };
}

/** The PDF without the place markers' links. */
export async function removePlaceMarkers(pdf: Buffer): Promise<Buffer> {
  return (await takeSignaturePlaces(pdf)).pdf;
}

/** The pages of a PDF the finishing step accepted (a prepended file): where the document's pages start. */
export async function pdfPageCount(pdf: Buffer): Promise<number> {
  return (await PDFDocument.load(pdf, { updateMetadata: false, ignoreEncryption: true })).getPageCount();
}

/** The place `requested` names; else 422 signature_field_not_found naming it and those the document holds. */
export function checkSignatureField(requested: string, places: readonly SignaturePlace[]): SignaturePlace {
  const place = places.find((p) => p.name === requested);
  if (place) return place;
  const fields = places.map((p) => p.name);
  throw new SignatureFieldNotFoundError(
    `options.pdf.signature.field: the document has no signature field ${JSON.stringify(requested)}` +
      (fields.length
        ? `; it holds ${fields.map((f) => JSON.stringify(f)).join(', ')}`
        : `; it holds none (a template marks one with {{ signature_field('name') }})`),
    { field: 'options.pdf.signature.field', requested, fields },
  );
}
