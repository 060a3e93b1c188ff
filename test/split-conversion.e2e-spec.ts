/**
 * Split conversion (libs/converters/src/split/) prints the pages the whole document prints: each
 * document is filled as the worker fills it for a PDF (table styles resolved), converted whole by
 * the real LibreOffice pool and in parts by the SplittingConverter on the same pool, and every page
 * of the two PDFs is rasterised at 100 dpi and compared pixel by pixel
 * (test/support/page-compare.ts). Parts are made small here (a few pages each) so that a test of a
 * few hundred rows crosses several cuts, page-number continuations and "Page X of Y" fields.
 *
 * Documents: the corpus statement (Word table style, repeated header row, PAGE/NUMPAGES in the
 * footer, one-line rows), the corpus invoice (python-docx's default template, Word's styles.xml,
 * its logo), a template built here whose rows wrap to one, two or three lines in several
 * scripts, so rows per page vary and the converter's predictions of where parts start miss, and
 * the statement in the shapes of test/support/statement-shapes.ts: two-line rows breaking across
 * pages without a repeated header, footnotes in cells, a landscape appendix section, two long
 * tables.
 */
import { execFileSync } from 'node:child_process';
import PizZip from 'pizzip';
import {
  libreOfficePasses,
  LibreOfficePool,
  planParts,
  replaceTotalFields,
  SplittingConverter,
  totalPagesProperty,
} from '@app/converters';
import { renderDocx, type RenderRequest } from '@app/engine';
import { corpusRequest, corpusTemplate, type CorpusName } from '../bench/corpus';
import { buildDocx, p, table } from './support/docx-builder';
import { pdfPageCount, pdfToText } from './support/converter-fixtures';
import { comparePages } from './support/page-compare';
import { filledShape } from './support/statement-shapes';

const TIMEOUT = 240_000;
let pool: LibreOfficePool;
let splitter: SplittingConverter;
/** What the converter said: why a document planned for parts went whole. */
const logged: string[] = [];

beforeAll(async () => {
  pool = new LibreOfficePool({ instances: 2, conversionTimeoutMs: TIMEOUT });
  // Parts of ~3 pages from 100 rows on: every case below is cut several times.
  splitter = new SplittingConverter(pool, { minRows: 100, partPages: 3 }, (line) => logged.push(line));
  await splitter.start();
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

function filled(template: Buffer, request: RenderRequest): Buffer {
  return renderDocx(template, request, {
    packagePasses: libreOfficePasses({ resolveTableStyles: true }),
  });
}

function corpus(name: CorpusName, rows: number): Buffer {
  return filled(corpusTemplate(name), corpusRequest(name, { rows }) as RenderRequest);
}

/** Converts whole and in parts, and holds the two to the same pages. */
async function expectSplitSamePages(
  docx: Buffer,
  label: string,
): Promise<{ pages: number; parts: number; whole: Buffer }> {
  const whole = await pool.convert(docx, { jobId: `${label}-whole`, timeoutMs: TIMEOUT });
  const before = { ...splitter.counts };
  const parted = await splitter.convert(docx, { jobId: `${label}-parts`, timeoutMs: TIMEOUT });
  // It was converted in parts (not whole after all), from more than one part.
  expect({
    split: splitter.counts.split - before.split,
    fellBack: splitter.counts.fellBack - before.fellBack,
    // Why it went whole, if it did.
    said: logged.filter((line) => line.includes(`${label}-parts`)),
  }).toEqual({ split: 1, fellBack: 0, said: [] });
  const parts = splitter.counts.parts - before.parts;
  expect(parts).toBeGreaterThan(1);
  const cmp = comparePages(whole, parted);
  expect({ label, pages: cmp.pagesB, differing: cmp.differing }).toEqual({
    label,
    pages: cmp.pagesA,
    differing: [],
  });
  // The same words in the same order on every page (a raster could hide a swapped digit).
  expect(pdfToText(parted)).toBe(pdfToText(whole));
  return { pages: cmp.pagesA, parts, whole };
}

describe('split conversion draws the pages of the whole document', () => {
  it(
    'the corpus statement, 700 rows: header row on each page, Page X of Y across parts',
    async () => {
      const docx = corpus('statement', 700);
      const { pages } = await expectSplitSamePages(docx, 'statement-700');
      expect(pages).toBeGreaterThan(10);
    },
    TIMEOUT * 3,
  );

  it(
    'the corpus invoice, 500 rows (Word default template, logo, totals after the table)',
    async () => {
      const docx = corpus('invoice', 500);
      const { pages } = await expectSplitSamePages(docx, 'invoice-500');
      expect(pages).toBeGreaterThan(8);
    },
    TIMEOUT * 3,
  );

  it(
    "rows of two lines that break across pages, no repeated header, Word's Light Grid Accent 1 (python-docx's template)",
    async () => {
      // Every other page starts inside a row: a cut's lead page is laid out with a spacer
      // (leadTop), and the first part's page 1 (the text before the table) is one too.
      // 700 rows: a large table, whose parts LibreOffice lays out as such only when padded
      // (docx-parts.ts, LARGE_TABLE_ROWS).
      const docx = filledShape('breaking', 700);
      expect(planParts(docx, { minRows: 100 })?.headerRows).toBe(0);
      const { pages, whole } = await expectSplitSamePages(docx, 'breaking-rows');
      expect(pages).toBeGreaterThan(12);
      // Pages that start inside a row: their first line under the page header is a description's
      // second line, in its column, with no date before it.
      const tops = execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], { input: whole })
        .toString('utf8')
        .split('\f')
        .map((page) => page.split('\n').filter((line) => line.trim() !== '')[2] ?? '');
      const insideRow = tops.filter((line) => /^\s+\S/.test(line) && !/\d{4}-\d\d-\d\d {2}/.test(line));
      expect(insideRow.length).toBeGreaterThan(pages / 4);
    },
    TIMEOUT * 3,
  );

  it(
    'footnotes referenced from cells: numbered on across parts, at the bottom of the pages they are referenced on',
    async () => {
      // A note every 25 rows: about two a page, so a part's lead page and its first pages hold some.
      const docx = filledShape('footnotes', 600);
      expect(planParts(docx, { minRows: 100 })).not.toBeNull();
      const { pages, parts, whole } = await expectSplitSamePages(docx, 'footnotes');
      expect(pages).toBeGreaterThan(10);
      expect(parts).toBeGreaterThan(2);
      // The last note's number is the count of rows that reference one (600 / 25): its line
      // begins with that number at the bottom of the last page of the table.
      const text = execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], {
        input: whole,
      }).toString('utf8');
      expect(text).toMatch(/^\s*24 Booked after the cut-off/m);
    },
    TIMEOUT * 3,
  );

  it(
    'a landscape appendix in a section after the table: the table not in the last section, Page X of Y counting the appendix',
    async () => {
      const docx = filledShape('appendix', 500);
      const { pages, parts, whole } = await expectSplitSamePages(docx, 'appendix');
      expect(parts).toBeGreaterThan(2);
      // The last page is the appendix's, landscape; the footer counts it in the total.
      const sizes = execFileSync('pdfinfo', ['-l', String(pages), '-'], { input: whole }).toString('utf8');
      expect(sizes).toMatch(new RegExp(`Page +${pages} size: +841\\.89 x 595\\.3`));
      expect(sizes).toMatch(/Page +1 size: +595\.3\d* x 841\.89/);
      expect(pdfToText(whole)).toContain(`Page ${pages} of ${pages}`);
    },
    TIMEOUT * 3,
  );

  it(
    'two long tables with text between and after them: both cut, a part across the two',
    async () => {
      const docx = filledShape('two-tables', 700);
      const plan = planParts(docx, { minRows: 100 })!;
      expect(plan.tables.map((t) => t.rows)).toEqual([350, 350]);
      const { pages, parts } = await expectSplitSamePages(docx, 'two-tables');
      expect(pages).toBeGreaterThan(12);
      // Parts of about three pages over some fourteen pages: more than the two tables alone.
      expect(parts).toBeGreaterThan(3);
    },
    TIMEOUT * 3,
  );

  /**
   * A template built here: a numbered table whose rows wrap to one to four lines in Latin,
   * Cyrillic and CJK text, "Seite X von Y" in the footer; `layout` fixed is Word's "Fixed column
   * width", autofit its default. With `cantSplit` each row stays on one page (Word's "Allow row to
   * break across pages" off).
   */
  function mixedHeights(cantSplit: boolean, layout: 'fixed' | 'autofit'): Buffer {
    const words = [
      'Überweisung Müller',
      'Перевод средств ООО «Ромашка»',
      '東京支店 振込手数料',
      'Café Œuvre — Zoë',
    ];
    const rows = Array.from({ length: 260 }, (_, i) => ({
      n: i + 1,
      text: Array.from({ length: 1 + ((i * 7) % 5) * 2 }, (_, k) => words[(i + k) % words.length]).join(
        ' · ',
      ),
      amount: `${(i * 37) % 1000},${String(i % 100).padStart(2, '0')} €`,
    }));
    let template = buildDocx({
      body: [
        p('Kontoauszug {{ account }}', { style: 'Heading1' }),
        p('Inhaber: {{ holder }}'),
        table(
          [
            ['Nr.', 'Buchungstext', 'Betrag'],
            ['{%tr for r in rows %}', '', ''],
            ['{{ r.n }}', '{{ r.text }}', '{{ r.amount }}'],
            ['{%tr endfor %}', '', ''],
          ],
          { widthsMm: [15, 115, 30] },
        ),
        p('Ende des Auszugs, {{ rows|length }} Buchungen.'),
      ],
      footer: [
        { runs: ['Seite ', { field: 'PAGE', result: '1' }, ' von ', { field: 'NUMPAGES', result: '1' }] },
      ],
    });
    const zip = new PizZip(template);
    let xml = zip.file('word/document.xml')!.asText();
    if (layout === 'fixed') xml = xml.replace('</w:tblPr>', '<w:tblLayout w:type="fixed"/></w:tblPr>');
    if (cantSplit) xml = xml.replace(/<w:tr>/g, '<w:tr><w:trPr><w:cantSplit/></w:trPr>');
    zip.file('word/document.xml', xml);
    template = zip.generate({ type: 'nodebuffer' });
    return filled(template, { template_data: { account: 'DE89 3704 0044', holder: 'Zoë Ørsted', rows } });
  }

  it(
    'rows of one to four lines in Latin, Cyrillic and CJK text that stay on one page, autofit, with PAGE and NUMPAGES',
    async () => {
      // Word's default table (autofit layout, automatic width).
      const docx = mixedHeights(true, 'autofit');
      expect(planParts(docx, { minRows: 100 })).not.toBeNull();
      const { pages } = await expectSplitSamePages(docx, 'mixed-heights');
      expect(pages).toBeGreaterThan(8);
      const parted = await splitter.convert(docx, { jobId: 'mixed-heights-text' });
      const text = pdfToText(parted);
      // The footer counts on across the parts and shows the whole count on every page.
      expect(text).toContain(`Seite 1 von ${pages}`);
      expect(text).toContain(`Seite ${pages} von ${pages}`);
      expect(pdfPageCount(parted)).toBe(pages);
    },
    TIMEOUT * 4,
  );

  it(
    'rows that break across pages: where no page can be cut the document goes whole, and the pages are the same either way',
    async () => {
      const docx = mixedHeights(false, 'fixed');
      const whole = await pool.convert(docx, { jobId: 'breaking-whole', timeoutMs: TIMEOUT });
      const before = { ...splitter.counts };
      const parted = await splitter.convert(docx, { jobId: 'breaking-parts', timeoutMs: TIMEOUT });
      // One of the two happened, and told why when it went whole.
      const split = splitter.counts.split - before.split;
      const fellBack = splitter.counts.fellBack - before.fellBack;
      expect(split + fellBack).toBe(1);
      if (fellBack) expect(logged.at(-1)).toMatch(/converting breaking-parts whole: /);
      const cmp = comparePages(whole, parted);
      expect({ pages: cmp.pagesB, differing: cmp.differing }).toEqual({ pages: cmp.pagesA, differing: [] });
      expect(pdfToText(parted)).toBe(pdfToText(whole));
    },
    TIMEOUT * 4,
  );
});

describe("a part's total prints as LibreOffice's own page count does", () => {
  /**
   * The corpus statement's footer ("… · Page X of Y", 8 pt, right-aligned) over `pages` pages:
   * its 20 rows, then page breaks. As the whole document has it (NUMPAGES), and as a part shows
   * the total (replaceTotalFields and totalPagesProperty, what the part builder applies).
   */
  function pages(count: number, asPart: boolean): Buffer {
    const zip = new PizZip(corpus('statement', 20));
    const doc = zip.file('word/document.xml')!.asText();
    const at = doc.lastIndexOf('<w:sectPr');
    // As many breaks as pages: the last one's paragraph, empty, does not begin a page of its own.
    const breaks = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>'.repeat(count);
    zip.file('word/document.xml', doc.slice(0, at) + breaks + doc.slice(at));
    if (asPart) {
      for (const name of Object.keys(zip.files).filter((n) => /^word\/footer\d*\.xml$/.test(n)))
        zip.file(name, replaceTotalFields(zip.file(name)!.asText(), count));
      const props = totalPagesProperty(
        {
          custom: zip.file('docProps/custom.xml')?.asText(),
          contentTypes: zip.file('[Content_Types].xml')!.asText(),
          rootRels: zip.file('_rels/.rels')!.asText(),
        },
        count,
      )!;
      zip.file('docProps/custom.xml', props.custom);
      zip.file('[Content_Types].xml', props.contentTypes);
      zip.file('_rels/.rels', props.rootRels);
    }
    return zip.generate({ type: 'nodebuffer', compression: 'STORE' });
  }

  // 186: the 10,000-row statement's count, whose footer sat 0.05 pt left of the whole document's
  // when parts printed it as text (a field's digits are placed apart from the text around them).
  it.each([186, 12])(
    '%i pages',
    async (count) => {
      const [whole, part] = await Promise.all([
        pool.convert(pages(count, false), { jobId: `total-${count}-whole`, timeoutMs: TIMEOUT }),
        pool.convert(pages(count, true), { jobId: `total-${count}-part`, timeoutMs: TIMEOUT }),
      ]);
      expect(pdfPageCount(whole)).toBe(count);
      expect(pdfPageCount(part)).toBe(count);
      // The footer is the same on every page but for its page number: a few pages stand for all.
      const some = [1, 2, Math.ceil(count / 2), count - 1, count];
      const cmp = comparePages(whole, part, { pages: some });
      expect({ pages: cmp.pagesB, differing: cmp.differing }).toEqual({ pages: some.length, differing: [] });
      expect(pdfToText(part)).toBe(pdfToText(whole));
      expect(pdfToText(part)).toContain(`Page ${count} of ${count}`);
    },
    TIMEOUT,
  );
});
