/**
 * Styles nobody uses, left out of the filled document before a PDF conversion (PRUNE_UNUSED_STYLES).
 *
 * Word's default template (python-docx's, and so most Word-made templates) carries 164 styles and
 * their latent-style table in a 349 KB styles.xml; a filled invoice uses about 14 of them.
 * LibreOffice imports every style, which is a quarter of a one-page invoice's conversion: the
 * corpus invoice, 20 rows, LibreOffice 25.2, 109 -> 81 ms, with the same page
 * (test/unused-styles.e2e-spec.ts compares the corpus page by page).
 *
 * Kept: every style a part of the document names (paragraph, run, table and numbering styles, in
 * the body, headers, footers, notes, comments and numbering definitions), the defaults, and what
 * those are based on, linked to or followed by. The latent styles (Word's list of built-in styles
 * it has not written out, for its own style gallery) go. Nothing is pruned when a field could
 * bring an unused style into play at conversion: a table of contents or index (LibreOffice formats
 * the entries it rebuilds with the TOC 1… and Index 1… styles) or STYLEREF (which looks a style up
 * by name).
 *
 * Hand-written over regular expressions rather than a DOM: styles.xml is a flat list of
 * `w:style` elements, and the per-fill work (finding the style names a document uses) is one
 * scan of its parts; the style graph is read once per styles.xml (kept by digest).
 */
import type PizZip from 'pizzip';
import { DigestLru, readStylesPart, STYLES_PART, type StylesPart } from '@app/engine';
import { packagePartsOfType } from '@app/ooxml';
import { STYLE_NAMING_PART_TYPES } from './word-parts';
const STYLE_REFERENCE = /<w:(?:pStyle|rStyle|tblStyle|numStyleLink|styleLink)\b[^>]*?\bw:val="([^"]*)"/g;
/** Field instructions under which LibreOffice may apply a style the document does not name yet. */
const STYLE_FIELDS = /\b(TOC|INDEX|TOA|STYLEREF)\b/;
const INSTRUCTION = /<w:instrText\b[^>]*>([^<]*)<\/w:instrText>|<w:fldSimple\b[^>]*?\bw:instr="([^"]*)"/g;

interface StyleGraph {
  /** The text before the first w:style (declaration, w:styles, w:docDefaults, w:latentStyles). */
  head: string;
  /** After the last w:style (`</w:styles>`). */
  tail: string;
  styles: GraphStyle[];
  byId: Map<string, GraphStyle>;
}

interface GraphStyle {
  id: string;
  xml: string;
  refs: string[];
  isDefault: boolean;
}

const GRAPHS = new DigestLru<StyleGraph | null>(32);
const PRUNED = new DigestLru<string>(64);

function readGraph(xml: string): StyleGraph | null {
  const styles: StyleGraph['styles'] = [];
  let first = -1;
  let last = -1;
  for (const m of xml.matchAll(/<w:style\b[^>]*?(?:\/>|>[\s\S]*?<\/w:style>)/g)) {
    const id = /\bw:styleId="([^"]*)"/.exec(m[0].slice(0, m[0].indexOf('>') + 1))?.[1];
    if (id === undefined) return null; // a style no one could name: leave the sheet alone
    if (first < 0) first = m.index;
    last = m.index + m[0].length;
    styles.push({
      id,
      xml: m[0],
      refs: [...m[0].matchAll(/<w:(?:basedOn|link|next)\b[^>]*?\bw:val="([^"]*)"/g)].map((r) => r[1]),
      isDefault: /^<w:style\b[^>]*?\bw:default="(1|true|on)"/.test(m[0]),
    });
  }
  if (first < 0) return null;
  // Anything but white space between the styles (a comment, an unknown element): leave it alone.
  let at = first;
  for (const s of styles) {
    const gap = xml.slice(at, xml.indexOf(s.xml, at));
    if (gap.trim() !== '') return null;
    at += gap.length + s.xml.length;
  }
  const head = xml.slice(0, first).replace(/<w:latentStyles\b[^>]*?(?:\/>|>[\s\S]*?<\/w:latentStyles>)/, '');
  return { head, tail: xml.slice(last), styles, byId: new Map(styles.map((s) => [s.id, s])) };
}

/** Style ids the document's parts name; null when a field may apply styles it does not name. */
function namedStyles(zip: PizZip): Set<string> | null {
  const used = new Set<string>();
  for (const name of packagePartsOfType(zip, STYLE_NAMING_PART_TYPES)) {
    const text = zip.file(name)?.asText() ?? '';
    for (const m of text.matchAll(INSTRUCTION)) if (STYLE_FIELDS.test(m[1] ?? m[2] ?? '')) return null;
    for (const m of text.matchAll(STYLE_REFERENCE)) used.add(m[1]);
  }
  return used;
}

/**
 * Leaves out of `zip`'s styles.xml the styles no part of it uses, and the latent styles. Returns
 * how many styles went (0 when the sheet was left as it is). `styles`: the package's styles.xml
 * already read (renderDocx reads it once for this and the table-style resolver).
 */
export function pruneUnusedStyles(zip: PizZip, styles?: StylesPart): number {
  const part = styles ?? readStylesPart(zip);
  if (!part) return 0;
  const used = namedStyles(zip);
  if (!used) return 0;
  const { xml, digest } = part;
  let graph = GRAPHS.get(digest);
  if (graph === undefined) {
    graph = readGraph(xml);
    GRAPHS.set(digest, graph);
  }
  if (!graph) return 0;
  const { byId } = graph;
  const keep = new Set<string>();
  const visit = (id: string) => {
    if (keep.has(id)) return;
    const style = byId.get(id);
    if (!style) return;
    keep.add(id);
    for (const ref of style.refs) visit(ref);
  };
  for (const s of graph.styles) if (s.isDefault) visit(s.id);
  for (const id of used) visit(id);
  const removed = graph.styles.length - keep.size;
  const key = `${digest}\n${[...keep].sort().join('\n')}`;
  let pruned = PRUNED.get(key);
  if (pruned === undefined) {
    pruned =
      graph.head +
      graph.styles
        .filter((s) => keep.has(s.id))
        .map((s) => s.xml)
        .join('') +
      graph.tail;
    PRUNED.set(key, pruned);
  }
  if (removed === 0 && pruned.length === xml.length) return 0;
  zip.file(STYLES_PART, pruned);
  return removed;
}
