/**
 * Outputs beyond PDF (issue 36, docs/outputs.md), on the corpus invoice (Word-made, with a logo),
 * the 35-page contract and the Writer-saved document: page images drawn from the PDF, ODT, HTML
 * and text through the pool's UNO bridge. The parts as the pipeline's format rows will call them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import jpeg from 'jpeg-js';
import { parse } from 'parse5';
import PizZip from 'pizzip';
import { PNG } from 'pngjs';

import {
  convertDocument,
  LibreOfficePool,
  PageOutOfRangeError,
  pdfToPageImages,
  ImageOutputTooLargeError,
  withDocumentLanguage,
} from '@app/converters';
import { MissingAltTextError, renderDocx } from '@app/engine';

import { corpusRequest, corpusTemplate, type CorpusName } from '../bench/corpus';
import { pdfPageCount, pdfToText } from './support/converter-fixtures';
import { docxText } from './support/docx-text';
import { differenceFromReference, meanDifference, pdftoppmPage } from './support/page-raster';

const DOCS: CorpusName[] = ['invoice', 'contract', 'writer'];

let pool: LibreOfficePool;
const docx = new Map<CorpusName, Buffer>();
const pdf = new Map<CorpusName, Buffer>();
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'outputs-e2e-'));
  pool = new LibreOfficePool({ instances: 1 });
  await pool.start();
  for (const name of DOCS) {
    const filled = await renderDocx(corpusTemplate(name), corpusRequest(name));
    docx.set(name, filled);
    pdf.set(name, await pool.convert(filled));
  }
}, 300_000);

afterAll(async () => {
  await pool?.close();
  rmSync(work, { recursive: true, force: true });
});

/** pdftoppm run directly on the same PDF: the reference the service's images must equal. */
const reference = (doc: Buffer, page: number, args: string[]): PNG => pdftoppmPage(doc, page, args, work);

/** Text as a list of words: whitespace (pdftotext's layout, HTML's indentation) does not count. */
function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

/**
 * The HTML's text content (style, script and title left out), by parse5's tree; with `labels`,
 * each list item starts with what a browser draws for it ("3.", "•").
 */
function htmlText(html: string, labels = false): string {
  type N = {
    nodeName: string;
    value?: string;
    attrs?: Array<{ name: string; value: string }>;
    childNodes?: N[];
  };
  const out: string[] = [];
  const walk = (n: N, list?: { ordered: boolean; next: number }): void => {
    if (n.nodeName === 'style' || n.nodeName === 'script' || n.nodeName === 'title') return;
    if (n.nodeName === '#text') out.push(n.value ?? '');
    if (n.nodeName === 'li' && labels && list) out.push(list.ordered ? ` ${list.next++}. ` : ' • ');
    const inner =
      n.nodeName === 'ol' || n.nodeName === 'ul'
        ? { ordered: n.nodeName === 'ol', next: Number(n.attrs?.find((a) => a.name === 'start')?.value ?? 1) }
        : list;
    n.childNodes?.forEach((c) => walk(c, inner));
    if (['p', 'td', 'th', 'li', 'br', 'div', 'h1', 'h2', 'h3'].includes(n.nodeName)) out.push(' ');
  };
  walk(parse(html) as unknown as N);
  return out.join('');
}

/** Every URL-bearing attribute of the document. */
function urls(html: string): string[] {
  type N = { nodeName: string; attrs?: Array<{ name: string; value: string }>; childNodes?: N[] };
  const found: string[] = [];
  const walk = (n: N): void => {
    for (const a of n.attrs ?? [])
      if (['src', 'href', 'srcset', 'background', 'data'].includes(a.name)) found.push(a.value);
    n.childNodes?.forEach(walk);
  };
  walk(parse(html) as unknown as N);
  return found;
}

describe('page images', () => {
  it.each(DOCS)(
    '%s: page 1 as PNG at 96 dpi is A4 at 96 dpi and equals pdftoppm of the PDF',
    async (name) => {
      const out = await pdfToPageImages(pdf.get(name)!, { format: 'png' });
      expect(out.contentType).toBe('image/png');
      expect(out.extension).toBe('png');
      const png = PNG.sync.read(out.body);
      expect([png.width, png.height]).toEqual([794, 1123]);
      const ref = reference(pdf.get(name)!, 1, ['-r', '96']);
      // PDFium draws PNG, pdftoppm the reference: glyph edges differ by a few grey levels (mean
      // absolute difference 0.6–5.5 per channel on these pages), so 8 × 8 squares are compared
      // against a blank page's distance (measured 0.12–0.23; a blank page is 1, another page > 1.5).
      expect(differenceFromReference(png, 4, ref, 4)).toBeLessThan(0.35);
    },
  );

  it('PNG beyond the in-process page limit is drawn by pdftoppm: then equal to it, pixel for pixel', async () => {
    const invoice = pdf.get('invoice')!;
    const ref = reference(invoice, 1, ['-r', '48']);
    const poppler = PNG.sync.read(
      (await pdfToPageImages(invoice, { format: 'png', dpi: 48 }, { maxInProcessPagePixels: 0 })).body,
    );
    expect(meanDifference(poppler, 4, ref, 4, ref.width * ref.height)).toBe(0);
    // Within it, PDFium draws: the same page, not the same grey levels.
    const pdfium = PNG.sync.read((await pdfToPageImages(invoice, { format: 'png', dpi: 48 })).body);
    expect([pdfium.width, pdfium.height]).toEqual([ref.width, ref.height]);
    expect(meanDifference(pdfium, 4, ref, 4, ref.width * ref.height)).toBeGreaterThan(0);
    expect(differenceFromReference(pdfium, 4, ref, 4)).toBeLessThan(0.35);
  });

  it('the invoice as JPEG 400 px wide keeps the aspect and is within JPEG loss of pdftoppm', async () => {
    const out = await pdfToPageImages(pdf.get('invoice')!, { format: 'jpeg', width_px: 400, quality: 90 });
    expect(out.contentType).toBe('image/jpeg');
    const img = jpeg.decode(out.body, { useTArray: true });
    expect([img.width, img.height]).toEqual([400, 566]);
    const ref = reference(pdf.get('invoice')!, 1, ['-scale-to-x', '400', '-scale-to-y', '-1']);
    expect([ref.width, ref.height]).toEqual([img.width, img.height]);
    expect(meanDifference(img, 4, ref, 4, img.width * img.height)).toBeLessThan(3);
    // Not blank: the invoice's text and logo are drawn.
    expect(
      meanDifference(img, 4, { data: new Uint8Array(img.data.length).fill(255) }, 4, img.width * img.height),
    ).toBeGreaterThan(2);
  });

  it('the contract: pages 2-4 at 72 dpi as a ZIP of page-2.png … page-4.png, each equal to pdftoppm', async () => {
    const out = await pdfToPageImages(pdf.get('contract')!, { format: 'png', dpi: 72, pages: '2-4' });
    expect(out.contentType).toBe('application/zip');
    const zip = new PizZip(out.body);
    expect(Object.keys(zip.files).sort()).toEqual(['page-2.png', 'page-3.png', 'page-4.png']);
    for (const page of [2, 3, 4]) {
      const png = PNG.sync.read(zip.file(`page-${page}.png`)!.asNodeBuffer());
      expect([png.width, png.height]).toEqual([596, 842]);
      const ref = reference(pdf.get('contract')!, page, ['-r', '72']);
      // PDFium draws PNG, pdftoppm the reference: glyph edges differ by a few grey levels (mean
      // absolute difference 0.6–5.5 per channel on these pages), so 8 × 8 squares are compared
      // against a blank page's distance (measured 0.12–0.23; a blank page is 1, another page > 1.5).
      expect(differenceFromReference(png, 4, ref, 4)).toBeLessThan(0.35);
      // The comparison tells a blank page and another page (pdftoppm's own page 1) apart.
      const blank = { ...ref, data: new Uint8Array(ref.data.length).fill(255) };
      expect(differenceFromReference(blank, 4, ref, 4)).toBe(1);
      expect(
        differenceFromReference(reference(pdf.get('contract')!, 1, ['-r', '72']), 4, ref, 4),
      ).toBeGreaterThan(1);
    }
  });

  it('the contract: a page beyond the document is a 422 naming the page count; too many pixels a 413', async () => {
    const pages = pdfPageCount(pdf.get('contract')!);
    expect(pages).toBeGreaterThan(30);
    const beyond = await pdfToPageImages(pdf.get('contract')!, {
      format: 'png',
      pages: `1,${pages + 1}`,
    }).catch((e: unknown) => e);
    expect(beyond).toBeInstanceOf(PageOutOfRangeError);
    expect((beyond as PageOutOfRangeError).details).toMatchObject({ pageCount: pages, pages: [pages + 1] });
    const big = await pdfToPageImages(
      pdf.get('contract')!,
      { format: 'png', pages: 'all', dpi: 300 },
      { maxPixels: 100_000_000 },
    ).catch((e: unknown) => e);
    expect(big).toBeInstanceOf(ImageOutputTooLargeError);
    // The first page alone (a thumbnail) is drawn while the sizes are read: refused all the same.
    const thumbnail = await pdfToPageImages(
      pdf.get('contract')!,
      { format: 'png', dpi: 1200 },
      { maxPixels: 10_000_000 },
    ).catch((e: unknown) => e);
    expect(thumbnail).toBeInstanceOf(ImageOutputTooLargeError);
    const all = await pdfToPageImages(pdf.get('contract')!, { format: 'png', pages: 'all', width_px: 60 });
    expect(Object.keys(new PizZip(all.body).files)).toHaveLength(pages);
  });
});

describe('odt, html and txt through the pool', () => {
  it.each(DOCS)(
    "%s: the ODT opens in LibreOffice and its text equals the PDF's",
    async (name) => {
      const odt = await convertDocument(pool, docx.get(name)!, 'odt');
      expect(odt.subarray(0, 2).toString('latin1')).toBe('PK');
      expect(new PizZip(odt).file('mimetype')!.asText()).toBe('application/vnd.oasis.opendocument.text');
      // A LibreOffice of its own (the pool loads Word files only) opens it and writes a PDF.
      const dir = mkdtempSync(join(work, 'odt-'));
      writeFileSync(join(dir, `${name}.odt`), odt);
      execFileSync(
        'soffice',
        [
          `-env:UserInstallation=file://${dir}/profile`,
          '--headless',
          '--convert-to',
          'pdf',
          '--outdir',
          dir,
          join(dir, `${name}.odt`),
        ],
        { timeout: 180_000, stdio: 'ignore' },
      );
      const again = readFileSync(join(dir, `${name}.pdf`));
      expect(words(pdfToText(again))).toEqual(words(pdfToText(pdf.get(name)!)));
    },
    240_000,
  );

  it.each(DOCS)(
    '%s: the HTML parses, loads nothing from outside, holds every picture, and reads as the PDF',
    async (name) => {
      const html = (await convertDocument(pool, docx.get(name)!, 'html')).toString('utf8');
      const external = urls(html).filter((u) => !u.startsWith('data:') && !u.startsWith('#'));
      expect(external).toEqual([]);
      const pictures = new PizZip(docx.get(name)!).file(/^word\/media\//).length;
      const inlined = urls(html).filter((u) => u.startsWith('data:image/'));
      expect(inlined.length).toBe(pictures);
      expectSameText(htmlText(html), name, false);
    },
  );

  it.each(DOCS)(
    "%s: the text is UTF-8, the HTML's words in order, paragraphs apart, and reads as the PDF",
    async (name) => {
      const txt = (await convertDocument(pool, docx.get(name)!, 'txt')).toString('utf8');
      expect(txt.charCodeAt(0)).not.toBe(0xfeff);
      expect(txt).toMatch(/\S\n\n\S/);
      expect(txt).not.toMatch(/\n\n\n/);
      const html = (await convertDocument(pool, docx.get(name)!, 'html')).toString('utf8');
      expect(words(txt)).toEqual(words(htmlText(html, true)));
      expectSameText(txt, name, true);
    },
  );

  it.each(['invoice', 'writer'] as const)(
    "%s: the text's words are the filled document's, in document order",
    async (name) => {
      const txt = (await convertDocument(pool, docx.get(name)!, 'txt')).toString('utf8');
      const t = docxText(docx.get(name)!);
      const documentWords = words(
        [...t.headers.flat(), ...t.body, ...t.footers.flat()].join('\n').replace(/ \| /g, ' '),
      );
      // Bullets are list labels the text writes and Word keeps in numbering.xml.
      expect(words(txt).filter((w) => w !== '•')).toEqual(documentWords);
    },
  );
});

/**
 * Word counts of a text, TOC leader dots and bullets taken out, numbered list labels ("104.")
 * kept or not: the PDF draws them, HTML leaves them to the browser (<ol start>), the text output
 * writes them (docs/outputs.md).
 */
function wordCounts(text: string, labels: boolean): Map<string, number> {
  const counts = new Map<string, number>();
  let plain = text.replace(/\.{3,}/g, ' ').replace(/[\uf000-\uf8ff\u2022]/g, ' ');
  // pdftotext glues a label to its item's first word when they stand close ("104.Each").
  plain = plain.replace(/(^|\s)(\d+\.)(?=\p{L})/gu, labels ? '$1$2 ' : '$1');
  if (!labels) plain = plain.replace(/(^|\s)\d+\.(?=\s)/g, '$1');
  for (const w of words(plain)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/**
 * `text` has the PDF's words, as many times each, but for the page furniture the PDF repeats on
 * every page (header and footer lines, page numbers), which a web page or text file has once or
 * not at all. pdftotext reads a table column by column, so order is compared elsewhere.
 */
function expectSameText(text: string, name: CorpusName, labels: boolean): void {
  const ours = wordCounts(text, labels);
  const pdfs = wordCounts(pdfToText(pdf.get(name)!), labels);
  const t = docxText(docx.get(name)!);
  const furniture = new Set(words([...t.headers.flat(), ...t.footers.flat()].join(' ')));
  const extra = [...ours].filter(([w, n]) => n > (pdfs.get(w) ?? 0)).map(([w]) => w);
  expect(extra).toEqual([]);
  const missing = [...pdfs].filter(
    ([w, n]) => n > (ours.get(w) ?? 0) && !furniture.has(w) && !/^\d+$/.test(w),
  );
  expect(missing).toEqual([]);
}

describe('accessible PDFs (options.pdf.pdfua)', () => {
  const LOGO_ALT = 'Müller & Söhne logo: a blue square';

  /** The catalog of a PDF, as qpdf prints it. */
  function catalog(doc: Buffer): string {
    const path = join(mkdtempSync(join(work, 'ua-')), 'in.pdf');
    writeFileSync(path, doc);
    const trailer = execFileSync('qpdf', ['--show-object=trailer', path]).toString('latin1');
    const root = /\/Root (\d+) 0 R/.exec(trailer)![1];
    return execFileSync('qpdf', [`--show-object=${root}`, path]).toString('latin1');
  }

  function struct(doc: Buffer): string {
    return execFileSync('pdfinfo', ['-struct', '-'], { input: doc }).toString('utf8');
  }

  /** Every /Alt of the structure tree, decoded by qpdf's JSON. */
  function alts(doc: Buffer): string[] {
    const path = join(mkdtempSync(join(work, 'alt-')), 'in.pdf');
    writeFileSync(path, doc);
    const json = JSON.parse(
      execFileSync('qpdf', ['--json', path], { maxBuffer: 1 << 28 }).toString('utf8'),
    ) as {
      qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>];
    };
    return Object.values(json.qpdf[1])
      .map((o) => o.value?.['/Alt'])
      .filter((a): a is string => typeof a === 'string')
      .map((a) => a.replace(/^u:/, ''));
  }

  async function invoice(images: Record<string, unknown>, locale?: string): Promise<Buffer> {
    const request = corpusRequest('invoice');
    const filled = await renderDocx(
      corpusTemplate('invoice'),
      { ...request, images: { logo: { ...request.images!.logo, ...images } } },
      { requireAltText: true },
    );
    return pool.convert(withDocumentLanguage(filled, locale), { pdf: { pdfua: true } });
  }

  it("the invoice: the logo's alt text is the Figure's /Alt, the locale the /Lang, the template's title shown", async () => {
    const out = await invoice({ alt: LOGO_ALT }, 'de_DE');
    expect(struct(out)).toMatch(/^\s+Figure\b/m);
    expect(alts(out)).toEqual([LOGO_ALT]);
    const root = catalog(out);
    expect(root).toMatch(/\/Lang \(de-DE\)/);
    expect(root).toMatch(/\/ViewerPreferences << \/DisplayDocTitle true >>/);
    // The template's docProps/core.xml dc:title, as no metadata.title was given.
    const info = execFileSync('pdfinfo', ['-'], { input: out }).toString('utf8');
    expect(info).toMatch(/^Title:\s+Invoice$/m);
  });

  it("without a locale the template's language stays (the invoice: en-US)", async () => {
    expect(catalog(await invoice({ alt: LOGO_ALT }))).toMatch(/\/Lang \(en-US\)/);
  });

  it('a decorative logo is an artifact: no Figure, no /Alt', async () => {
    const out = await invoice({ decorative: true });
    expect(struct(out)).not.toMatch(/^\s+Figure\b/m);
    expect(alts(out)).toEqual([]);
  });

  it('a logo without alt text is a 422 naming the image', async () => {
    const request = corpusRequest('invoice');
    let e: unknown;
    try {
      await renderDocx(corpusTemplate('invoice'), request, { requireAltText: true });
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(MissingAltTextError);
    expect((e as MissingAltTextError).details).toEqual({ field: 'images.logo.alt', image: 'logo' });
  });

  it("the statement's repeated header row (w:tblHeader) becomes TH cells", async () => {
    const filled = await renderDocx(corpusTemplate('statement'), corpusRequest('statement', { rows: 60 }));
    const out = await pool.convert(filled, { pdf: { pdfua: true } });
    const tree = struct(out);
    expect((tree.match(/^\s+TH\b/gm) ?? []).length).toBeGreaterThanOrEqual(4);
    expect(tree).toMatch(/^\s+TD\b/m);
  });
});
