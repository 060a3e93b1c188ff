/**
 * What a reader sees in the PDF, with the real LibreOffice: every script drawn by a font that has
 * its glyphs, tables of contents refreshed, PNG images kept lossless, PDF/A, PDF/UA and the other
 * options of `options.pdf` in effect. (The same options on the Gotenberg route: see
 * test/gotenberg-converter.e2e-spec.ts.)
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { PNG } from 'pngjs';
import { LibreOfficePool } from '@app/converters';
import { renderDocx } from '@app/engine';
import { buildDocx, escapeXml, type BlockSpec } from './support/docx-builder';
import { pdfPageCount, pdfToText } from './support/converter-fixtures';
import {
  fontCovers,
  pdfFonts,
  qpdfCheck,
  pdfImages,
  pdfInfo,
  pdfTextRuns,
  pdfXmp,
} from './support/pdf-inspect';
import { drawnChars, SCRIPT_SAMPLES } from './support/script-samples';

const PAGE_BREAK = { raw: '<w:r><w:br w:type="page"/></w:r>' };

/** A run in Calibri for every script slot, as Word writes a Calibri template. */
function calibriRun(text: string) {
  return {
    raw:
      '<w:r><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="Calibri" w:cs="Calibri"/>' +
      `<w:sz w:val="28"/></w:rPr><w:t xml:space="preserve">${escapeXml(text)}</w:t></w:r>`,
  };
}

/** Dark pixels of one page rendered in grey (pdftoppm): 0 means nothing was drawn. */
function inkOnPage(pdf: Buffer, page: number): number {
  const pgm = execFileSync('pdftoppm', ['-f', String(page), '-l', String(page), '-r', '40', '-gray', '-'], {
    input: pdf,
    maxBuffer: 1 << 26,
  });
  // P5 header: magic, width height, maxval, each followed by one whitespace byte.
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 50).toString('latin1'))!;
  const pixels = pgm.subarray(header[0].length);
  let dark = 0;
  for (const v of pixels) if (v < 160) dark++;
  return dark;
}

/** A photo-like PNG (noise over a gradient): the kind LibreOffice's default export turns into JPEG. */
function photoPng(): Buffer {
  const png = new PNG({ width: 240, height: 160 });
  let seed = 7;
  for (let i = 0; i < png.width * png.height; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const x = i % png.width;
    png.data[i * 4] = (x + (seed % 64)) & 0xff;
    png.data[i * 4 + 1] = (seed >> 8) & 0xff;
    png.data[i * 4 + 2] = (255 - x) & 0xff;
    png.data[i * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}

let pool: LibreOfficePool;

beforeAll(async () => {
  pool = new LibreOfficePool({ instances: 1 });
  await pool.start();
});

afterAll(async () => {
  await pool?.close();
});

describe('fonts: every script is drawn by a font that has its glyphs', () => {
  let pdf: Buffer;

  beforeAll(async () => {
    // A page per sample: first the literal text of the template, then the same text from data.
    const blocks: BlockSpec[] = [];
    SCRIPT_SAMPLES.forEach((s, i) => {
      blocks.push({ runs: [calibriRun(s.text), PAGE_BREAK] });
      blocks.push({
        runs: [calibriRun(`{{ samples[${i}] }}`), ...(i < SCRIPT_SAMPLES.length - 1 ? [PAGE_BREAK] : [])],
      });
    });
    const docx = renderDocx(buildDocx(blocks), {
      template_data: { samples: SCRIPT_SAMPLES.map((s) => s.text) },
    });
    pdf = await pool.convert(docx);
    expect(pdfPageCount(pdf)).toBe(SCRIPT_SAMPLES.length * 2);
  });

  const cases = SCRIPT_SAMPLES.flatMap((s, i) => [
    { ...s, source: 'template text', page: 2 * i + 1 },
    { ...s, source: 'data', page: 2 * i + 2 },
  ]);

  it.each(cases)('$script ($source): each character drawn in a font that covers it', ({ text, page }) => {
    const runs = pdfTextRuns(pdf).filter((r) => r.page === page);
    const undrawn = drawnChars(text).filter(
      (c) => !runs.some((r) => r.text.includes(c) && fontCovers(r.font, c)),
    );
    expect({ page, undrawn, runs }).toEqual({ page, undrawn: [], runs });
    // A colour-bitmap font (Noto Color Emoji) covers emoji by fontconfig yet LibreOffice 7.4
    // exports nothing: the page must show ink.
    expect(inkOnPage(pdf, page)).toBeGreaterThan(0);
  });

  it('embeds every font it uses', () => {
    const fonts = pdfFonts(pdf);
    expect(fonts.length).toBeGreaterThan(1);
    expect(fonts.filter((f) => !f.embedded)).toEqual([]);
  });
});

describe('tables of contents and fields are refreshed before export', () => {
  const TOC_FIELD = [
    { raw: '<w:r><w:fldChar w:fldCharType="begin"/></w:r>' },
    { raw: '<w:r><w:instrText xml:space="preserve"> TOC \\o "1-3" \\h \\z \\u </w:instrText></w:r>' },
    { raw: '<w:r><w:fldChar w:fldCharType="separate"/></w:r>' },
    { raw: '<w:r><w:t>Right-click to update the table of contents.</w:t></w:r>' },
    { raw: '<w:r><w:fldChar w:fldCharType="end"/></w:r>' },
  ];
  const chapters = ['Scope of work', 'Fees and payment', 'Liability', 'Termination'];
  let docx: Buffer;

  beforeAll(() => {
    const template = buildDocx([
      { runs: TOC_FIELD },
      { runs: [PAGE_BREAK] },
      '{%p for ch in chapters %}',
      { text: '{{ ch }}', style: 'Heading1' },
      { runs: ['Body of {{ ch }}.', PAGE_BREAK] },
      '{%p endfor %}',
      { runs: ['Page ', { field: 'PAGE', result: '1' }, ' of ', { field: 'NUMPAGES', result: '1' }] },
    ]);
    docx = renderDocx(template, { template_data: { chapters } });
  });

  it('lists every heading with the page it is on', async () => {
    const pages = pdfToText(await pool.convert(docx)).split('\f');
    const toc = pages[0];
    expect(toc).not.toContain('Right-click');
    chapters.forEach((title) => {
      const page = pages.findIndex((p, i) => i > 0 && p.includes(title)) + 1;
      expect(page).toBeGreaterThan(1);
      expect(toc).toMatch(new RegExp(`${title}[ .…]*${page}\\s`));
    });
    // NUMPAGES recomputed: the cached "1" would be wrong.
    expect(pages.join('')).toContain(`Page ${pages.length - 1} of ${pages.length - 1}`);
  });

  it('keeps the cached table with update_indexes false', async () => {
    const text = pdfToText(await pool.convert(docx, { pdf: { update_indexes: false } }));
    expect(text).toContain('Right-click to update the table of contents.');
  });

  it("drops no entry of a Word-made table of contents (LibreOffice's known pitfall)", async () => {
    // bench corpus contract: TOC \o "1-3" \h \z \u with stale cached entries (made by Word's rules).
    const contract = readFileSync(join(__dirname, 'fixtures', 'contract-toc.docx'));
    const xml = new PizZip(contract).file('word/document.xml')!.asText();
    const paragraphs = xml.split('</w:p>');
    const textOf = (p: string) =>
      [...p.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)]
        .map((m) => m[1])
        .join('')
        .replace(/\s+/g, ' ')
        .trim();
    const headings = paragraphs.filter((p) => /<w:pStyle w:val="Heading[123]"\/>/.test(p)).map(textOf);
    const cached = paragraphs
      .filter((p) => /<w:pStyle w:val="TOC[123]"\/>/.test(p))
      .map((p) => textOf(p).replace(/\d+$/, '').trim());
    expect(headings.length).toBeGreaterThan(10);

    const pdfText = pdfToText(await pool.convert(contract)).replace(/\s+/g, ' ');
    const tocPage = pdfText.slice(pdfText.indexOf('Contents'), pdfText.indexOf('Contents') + 4000);
    const decode = (t: string) =>
      t
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&apos;/g, "'");
    // Every heading is listed with a page number, and so is every cached entry still a heading.
    for (const h of headings) expect(tocPage).toMatch(new RegExp(`${escapeRe(decode(h))}[ .…]*\\d+`));
    const kept = cached.filter((c) => headings.includes(c));
    expect(kept.length).toBeGreaterThan(0);
    for (const c of kept) expect(tocPage).toContain(decode(c));
  });
});

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('images', () => {
  let docx: Buffer;

  beforeAll(() => {
    const template = buildDocx(['{{ photo }}']);
    docx = renderDocx(template, {
      template_data: {},
      images: { photo: { data: photoPng().toString('base64'), width_mm: 80 } },
    });
  });

  it('keeps a PNG lossless by default (no DCT/JPEG stream)', async () => {
    const images = pdfImages(await pool.convert(docx));
    expect(images.length).toBeGreaterThan(0);
    expect(images.map((i) => i.enc)).not.toContain('jpeg');
  });

  it('compresses it as JPEG when asked (lossless_images false, quality)', async () => {
    const images = pdfImages(await pool.convert(docx, { pdf: { lossless_images: false, quality: 40 } }));
    expect(images.map((i) => i.enc)).toContain('jpeg');
  });
});

describe('PDF/A, PDF/UA, metadata and page ranges', () => {
  let docx: Buffer;

  beforeAll(() => {
    docx = renderDocx(
      buildDocx([
        { runs: [calibriRun('Archive copy: {{ text }}'), PAGE_BREAK] },
        { text: 'Second page', style: 'Heading1' },
        { runs: [PAGE_BREAK, 'Third page'] },
      ]),
      { template_data: { text: 'Grüße, Καλημέρα, 你好' } },
    );
  });

  it('PDF/A-2b: declares pdfaid part 2 conformance B in its XMP and embeds every font', async () => {
    const pdf = await pool.convert(docx, { pdf: { pdfa: 'PDF/A-2b' } });
    const xmp = pdfXmp(pdf);
    expect(xmp).toMatch(/pdfaid:part(="|>)2/);
    expect(xmp).toMatch(/pdfaid:conformance(="|>)B/);
    const fonts = pdfFonts(pdf);
    expect(fonts.length).toBeGreaterThan(0);
    expect(fonts.filter((f) => !f.embedded)).toEqual([]);
    // What qpdf can check of the file's structure (xref, streams, object syntax).
    expect(qpdfCheck(pdf)).toContain('No syntax or stream encoding errors found');
  });

  it('PDF/A-1b and PDF/A-3b declare their part', async () => {
    expect(pdfXmp(await pool.convert(docx, { pdf: { pdfa: 'PDF/A-1b' } }))).toMatch(/pdfaid:part(="|>)1/);
    expect(pdfXmp(await pool.convert(docx, { pdf: { pdfa: 'PDF/A-3b' } }))).toMatch(/pdfaid:part(="|>)3/);
  });

  it('PDF/UA: a tagged PDF declaring pdfuaid part 1', async () => {
    const pdf = await pool.convert(docx, { pdf: { pdfua: true } });
    expect(pdfInfo(pdf).Tagged).toBe('yes');
    expect(pdfXmp(pdf)).toMatch(/pdfuaid:part(="|>)1/);
  });

  it('writes the metadata and exports only the page ranges asked for', async () => {
    const metadata = {
      title: 'Contract 7',
      author: 'Ada Lovelace',
      subject: 'Terms',
      keywords: 'alpha, beta',
      creator: 'Our CRM',
    };
    const pdf = await pool.convert(docx, { pdf: { metadata, page_ranges: '1,3' } });
    const info = pdfInfo(pdf);
    expect(info).toMatchObject({ Title: metadata.title, Author: metadata.author, Subject: metadata.subject });
    expect(info.Keywords).toContain('alpha');
    expect(info.Keywords).toContain('beta');
    // `creator` reaches the PDF on the Gotenberg route only: LibreOffice 7.4 writes "Writer".
    expect(pdfPageCount(pdf)).toBe(2);
    const text = pdfToText(pdf);
    expect(text).toContain('Third page');
    expect(text).not.toContain('Second page');
  });
});
