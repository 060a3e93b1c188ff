/**
 * Unused styles left out before conversion (PRUNE_UNUSED_STYLES, libs/converters/src/prepare/unused-styles.ts)
 * draw the same pages: each document filled as the worker fills it for a PDF (table styles
 * resolved), converted by the real LibreOffice pool with its whole style sheet and with the unused
 * styles left out, every page rasterised at 100 dpi and compared pixel by pixel
 * (test/support/page-compare.ts). The benchmark corpus (Word's default template, a document saved
 * by LibreOffice Writer, a Word table style, images), and a template with headings, a footnote and
 * Markdown lists, whose numbering definitions name styles too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { libreOfficePasses, LibreOfficePool, pruneUnusedStyles } from '@app/converters';
import { renderDocx, type RenderRequest } from '@app/engine';
import { corpusRequest, corpusTemplate, type CorpusName } from '../bench/corpus';
import { buildDocx, p } from './support/docx-builder';
import { onBase, para } from './support/styled-tables';
import { pdfToText } from './support/converter-fixtures';
import { comparePages } from './support/page-compare';

let pool: LibreOfficePool;

beforeAll(async () => {
  pool = new LibreOfficePool({ instances: 2 });
  await pool.start();
}, 120_000);

afterAll(async () => {
  await pool?.close();
});

function styleCount(docx: Buffer): number {
  return (
    new PizZip(docx)
      .file('word/styles.xml')!
      .asText()
      .match(/<w:style\b/g) ?? []
  ).length;
}

/** Filled with and without the unused styles; both convert to the same pages. Returns the styles left out. */
async function expectSamePages(template: Buffer, request: RenderRequest, label: string): Promise<number> {
  const whole = renderDocx(template, request, {
    packagePasses: libreOfficePasses({ resolveTableStyles: true }),
  });
  const pruned = renderDocx(template, request, {
    packagePasses: libreOfficePasses({ resolveTableStyles: true, pruneUnusedStyles: true }),
  });
  const [a, b] = await Promise.all([
    pool.convert(whole, { jobId: `${label}-all-styles`, timeoutMs: 120_000 }),
    pool.convert(pruned, { jobId: `${label}-used-styles`, timeoutMs: 120_000 }),
  ]);
  const cmp = comparePages(a, b);
  expect({ label, pages: cmp.pagesB, differing: cmp.differing }).toEqual({
    label,
    pages: cmp.pagesA,
    differing: [],
  });
  expect(pdfToText(b)).toBe(pdfToText(a));
  expect(cmp.pagesA).toBeGreaterThan(0);
  return styleCount(whole) - styleCount(pruned);
}

describe('the pages are the same without the unused styles', () => {
  const cases: [CorpusName, number, 'pruned' | 'kept'][] = [
    ['invoice', 20, 'pruned'],
    ['invoice', 120, 'pruned'],
    ['writer', 5, 'pruned'],
    ['gallery', 200, 'pruned'],
    ['statement', 200, 'pruned'],
    // A table of contents: LibreOffice rebuilds it with the TOC styles, so the sheet stays whole.
    ['contract', 15, 'kept'],
  ];
  it.each(cases)(
    'corpus %s, %i rows: styles %s',
    async (name, rows, expected) => {
      const removed = await expectSamePages(
        corpusTemplate(name),
        corpusRequest(name, { rows }) as RenderRequest,
        `${name}-${rows}`,
      );
      if (expected === 'pruned') expect(removed).toBeGreaterThan(0);
      else expect(removed).toBe(0);
    },
    240_000,
  );

  const notes =
    '## Lieferung\n\n1. Erste Position\n2. Zweite Position\n   - Unterpunkt\n\n> Zitat mit **fett**.\n\n- Punkt\n- Пункт';

  /** Every style the filled document names that its whole sheet defines, the pruned sheet defines too. */
  function expectNamedStylesKept(template: Buffer, request: RenderRequest): void {
    const whole = new PizZip(renderDocx(template, request));
    const pruned = new PizZip(
      renderDocx(template, request, { packagePasses: libreOfficePasses({ pruneUnusedStyles: true }) }),
    );
    const defined = (zip: PizZip) =>
      new Set(
        [
          ...zip
            .file('word/styles.xml')!
            .asText()
            .matchAll(/w:styleId="([^"]+)"/g),
        ].map((m) => m[1]),
      );
    const [all, kept] = [defined(whole), defined(pruned)];
    const named = [
      ...pruned
        .file('word/document.xml')!
        .asText()
        .matchAll(/<w:(?:pStyle|rStyle) w:val="([^"]+)"/g),
    ].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const id of named) expect({ id, kept: kept.has(id) }).toEqual({ id, kept: all.has(id) });
  }

  it('headings, a footnote and Markdown lists on a small sheet (numbering definitions name styles too)', async () => {
    const template = buildDocx({
      body: [
        p('{{ title }}', { style: 'Heading1' }),
        { runs: ['Terms apply', { footnote: [p('{{ footnote }}')] }, '.'] },
        p('{{p notes | markdown }}'),
        p('Подпись: {{ signer }}'),
      ],
    });
    const request: RenderRequest = {
      template_data: {
        title: 'Contrat de service — Zoë Ørsted',
        footnote: 'Valable 30 jours. 有效期三十天。',
        notes,
        signer: 'Иван Петров',
      },
    };
    expect(await expectSamePages(template, request, 'markdown-footnote')).toBeGreaterThan(0);
    expectNamedStylesKept(template, request);
  }, 240_000);

  it("Markdown lists, headings and a quote on Word's default template (its list and heading styles)", async () => {
    const template = onBase([
      para('{{ title }}', 'Title'),
      para('{{p notes | markdown }}'),
      para('{{ closing }}', 'Heading2'),
    ]);
    const request: RenderRequest = {
      template_data: { title: 'Lieferschein Nr. 4711', notes, closing: '東京支店 — 署名' },
    };
    expect(await expectSamePages(template, request, 'markdown-word')).toBeGreaterThan(100);
    expectNamedStylesKept(template, request);
  }, 240_000);

  it('a Word-made table of contents (test/fixtures/contract-toc.docx) keeps the whole sheet', () => {
    const zip = new PizZip(readFileSync(join(__dirname, 'fixtures', 'contract-toc.docx')));
    const before = zip.file('word/styles.xml')!.asText();
    expect(pruneUnusedStyles(zip)).toBe(0);
    expect(zip.file('word/styles.xml')!.asText()).toBe(before);
  });
});
