/**
 * Reads the charts of a .docx back for the chart tests: each chart part's series as their caches
 * hold them (name, categories or x, values, formulas), the drawings that show them and the
 * embedded workbook's cells (through exceljs, a reader independent of the engine's writer).
 */
import { DOMParser, type Element } from '@xmldom/xmldom';
import ExcelJS from 'exceljs';
import PizZip from 'pizzip';

const NS_C = 'http://schemas.openxmlformats.org/drawingml/2006/chart';
const NS_A = 'http://schemas.openxmlformats.org/drawingml/2006/main';

export interface CachedSeries {
  idx: number;
  name: string;
  nameF: string;
  categories: string[];
  categoriesF: string;
  values: Array<number | null>;
  valuesF: string;
  formatCode: string;
}

function kids(el: Element, name: string): Element[] {
  return Array.from(el.childNodes).filter(
    (n): n is Element => n.nodeType === 1 && (n as Element).localName === name,
  );
}

function cache(source: Element | undefined): {
  f: string;
  pts: Map<number, string>;
  count: number;
  format: string;
} {
  const f = source?.getElementsByTagNameNS(NS_C, 'f')[0]?.textContent ?? '';
  const pts = new Map<number, string>();
  for (const pt of Array.from(source?.getElementsByTagNameNS(NS_C, 'pt') ?? []))
    pts.set(Number(pt.getAttribute('idx')), pt.getElementsByTagNameNS(NS_C, 'v')[0]?.textContent ?? '');
  const count = Number(source?.getElementsByTagNameNS(NS_C, 'ptCount')[0]?.getAttribute('val') ?? '0');
  const format = source?.getElementsByTagNameNS(NS_C, 'formatCode')[0]?.textContent ?? '';
  return { f, pts, count, format };
}

/** The series of a chart part, in document order, as their caches say. */
export function cachedSeries(chartXml: string): CachedSeries[] {
  const doc = new DOMParser().parseFromString(chartXml, 'text/xml');
  return Array.from(doc.getElementsByTagNameNS(NS_C, 'ser')).map((ser) => {
    const tx = cache(kids(ser, 'tx')[0]);
    const cat = cache(kids(ser, 'cat')[0] ?? kids(ser, 'xVal')[0]);
    const val = cache(kids(ser, 'val')[0] ?? kids(ser, 'yVal')[0]);
    return {
      idx: Number(kids(ser, 'idx')[0]?.getAttribute('val')),
      name: tx.pts.get(0) ?? '',
      nameF: tx.f,
      categories: Array.from({ length: cat.count }, (_, i) => cat.pts.get(i) ?? ''),
      categoriesF: cat.f,
      values: Array.from({ length: val.count }, (_, i) => (val.pts.has(i) ? Number(val.pts.get(i)) : null)),
      valuesF: val.f,
      formatCode: val.format,
    };
  });
}

/** The chart's own title text ('' without one). */
export function chartTitle(chartXml: string): string {
  const doc = new DOMParser().parseFromString(chartXml, 'text/xml');
  const chart = doc.getElementsByTagNameNS(NS_C, 'chart')[0];
  const title = chart && kids(chart, 'title')[0];
  return title
    ? Array.from(title.getElementsByTagNameNS(NS_A, 't'))
        .map((t) => t.textContent)
        .join('')
    : '';
}

export interface DocxChart {
  /** The chart part's path in the package. */
  path: string;
  xml: string;
  /** The drawing's alternative text. */
  descr: string;
  /** The embedded workbook's path, when the chart has one. */
  workbook?: string;
}

function resolve(base: string, target: string): string {
  const parts = base.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '..') parts.pop();
    else if (seg !== '.') parts.push(seg);
  }
  return parts.join('/');
}

function relTargets(zip: PizZip, part: string): Map<string, string> {
  const rels = zip.file(part.replace(/([^/]+)$/, '_rels/$1.rels'))?.asText() ?? '';
  const out = new Map<string, string>();
  for (const m of rels.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /Id="([^"]*)"/.exec(m[0])?.[1];
    const target = /Target="([^"]*)"/.exec(m[0])?.[1];
    if (id && target) out.set(id, resolve(part, target));
  }
  return out;
}

/** The charts the main document shows, in the order of their drawings. */
export function docxCharts(docx: Buffer, part = 'word/document.xml'): DocxChart[] {
  const zip = new PizZip(docx);
  const xml = zip.file(part)!.asText();
  const rels = relTargets(zip, part);
  return [...xml.matchAll(/<w:drawing\b[\s\S]*?<\/w:drawing>/g)]
    .map((m) => {
      const rId = /<c:chart\b[^>]*r:id="([^"]+)"/.exec(m[0])?.[1];
      if (!rId) return undefined;
      const path = rels.get(rId)!;
      const chartRels = zip.file(path.replace(/([^/]+)$/, '_rels/$1.rels'))?.asText() ?? '';
      const wb = /Type="[^"]*\/package"[^>]*Target="([^"]*)"|Target="([^"]*)"[^>]*Type="[^"]*\/package"/.exec(
        chartRels,
      );
      return {
        path,
        xml: zip.file(path)!.asText(),
        descr: /<wp:docPr\b[^>]*\sdescr="([^"]*)"/.exec(m[0])?.[1] ?? '',
        ...(wb ? { workbook: resolve(path, wb[1] ?? wb[2]) } : {}),
      };
    })
    .filter((c): c is DocxChart => c !== undefined);
}

/** The first sheet of an embedded workbook as rows of cell values (exceljs's reading). */
export async function workbookCells(
  docx: Buffer,
  path: string,
): Promise<Array<Array<string | number | null>>> {
  const bytes = new PizZip(docx).file(path)!.asNodeBuffer();
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(bytes as never);
  const ws = wb.worksheets[0];
  const rows: Array<Array<string | number | null>> = [];
  ws.eachRow({ includeEmpty: true }, (row, r) => {
    const cells: Array<string | number | null> = [];
    for (let c = 1; c <= ws.columnCount; c++) {
      const v = row.getCell(c).value;
      cells.push(v === null || v === undefined ? null : typeof v === 'number' ? v : String(v));
    }
    rows[r - 1] = cells;
  });
  return rows;
}

/** `docx` with the drawing of chart `n` (0-based) given alternative text `descr`: binds a Word-made chart. */
export function withChartAltText(docx: Buffer, descr: string, n = 0, part = 'word/document.xml'): Buffer {
  const zip = new PizZip(docx);
  let i = 0;
  const xml = zip
    .file(part)!
    .asText()
    .replace(/<w:drawing\b[\s\S]*?<\/w:drawing>/g, (d) => {
      if (!d.includes('<c:chart') || i++ !== n) return d;
      const esc = descr.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
      return /<wp:docPr\b[^>]*\sdescr="/.test(d)
        ? d.replace(/(<wp:docPr\b[^>]*\sdescr=")[^"]*"/, `$1${esc}"`)
        : d.replace(/<wp:docPr\b/, `<wp:docPr descr="${esc}"`);
    });
  zip.file(part, xml);
  return zip.generate({ type: 'nodebuffer' });
}

export interface DeckChart extends DocxChart {
  /** The slide part that shows the chart. */
  slide: string;
  /** 0-based position of that slide in the deck. */
  slideIndex: number;
}

/** The charts a deck's slides show, slide by slide in presentation order, each frame in order. */
export function deckCharts(pptx: Buffer): DeckChart[] {
  const zip = new PizZip(pptx);
  const presentation = zip.file('ppt/presentation.xml')!.asText();
  const presRels = relTargets(zip, 'ppt/presentation.xml');
  const slides = [...presentation.matchAll(/<p:sldId\b[^>]*\br:id="([^"]+)"/g)].map((m) =>
    presRels.get(m[1])!,
  );
  const out: DeckChart[] = [];
  slides.forEach((slide, slideIndex) => {
    const xml = zip.file(slide)!.asText();
    const rels = relTargets(zip, slide);
    for (const m of xml.matchAll(/<p:graphicFrame\b[\s\S]*?<\/p:graphicFrame>/g)) {
      const rId = /<c:chart\b[^>]*r:id="([^"]+)"/.exec(m[0])?.[1];
      if (!rId) continue;
      const path = rels.get(rId)!;
      const chartRels = zip.file(path.replace(/([^/]+)$/, '_rels/$1.rels'))?.asText() ?? '';
      const wb = /Type="[^"]*\/package"[^>]*Target="([^"]*)"|Target="([^"]*)"[^>]*Type="[^"]*\/package"/.exec(
        chartRels,
      );
      out.push({
        slide,
        slideIndex,
        path,
        xml: zip.file(path)!.asText(),
        descr: unescapeAttr(/<p:cNvPr\b[^>]*\sdescr="([^"]*)"/.exec(m[0])?.[1] ?? ''),
        ...(wb ? { workbook: resolve(path, wb[1] ?? wb[2]) } : {}),
      });
    }
  });
  return out;
}

function unescapeAttr(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
