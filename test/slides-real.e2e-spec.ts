/**
 * Decks that PowerPoint wrote for python-pptx's tests (test/fixtures/slides/python-pptx) go through
 * the pipeline as templates. Untouched, the filled deck reads back (test/support/pptx_read.py:
 * Python's zipfile and ElementTree, not the engine's reader) as the original does: slides in
 * order, their text, pictures and notes; with a tag put into a slide's first text, only that
 * paragraph changes; and Impress prints the filled deck as it prints the original, page for page.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import PizZip from 'pizzip';

import { LibreOfficePool, PRESENTATION_TARGETS } from '@app/converters';
import { produceDocument } from '@app/pipeline';

import { DOCXTPL_PYTHON } from './support/docxtpl';

const DIR = join(__dirname, 'fixtures/slides/python-pptx');
const DECKS = readdirSync(DIR).filter((f) => f.endsWith('.pptx'));
const deck = (file: string) => readFileSync(join(DIR, file));

interface Slide {
  part: string;
  text: string[];
  pictures: number;
  notes: string[];
}

function pptxRead(pptx: Buffer): Slide[] {
  const script = join(__dirname, 'support/pptx_read.py');
  return (
    JSON.parse(execFileSync(DOCXTPL_PYTHON, [script], { input: pptx }).toString('utf8')) as {
      slides: Slide[];
    }
  ).slides;
}

const fill = async (template: Buffer, templateData: Record<string, unknown>) =>
  (await produceDocument(template, { output: 'pptx', request: { template_data: templateData } }, {})).body;

/** The deck with the first text run of its first slide with text replaced by `{{ tag }}`. */
function withTag(template: Buffer): { tagged: Buffer; slide: number; replaced: string } | undefined {
  const zip = new PizZip(template);
  const slides = pptxRead(template);
  const slide = slides.findIndex((s) => s.text.length > 0);
  if (slide < 0) return undefined;
  const part = slides[slide].part;
  const xml = zip.file(part)!.asText();
  // A paragraph of one run, so the whole paragraph's text is the tag's.
  const para =
    /<a:p>(?:(?!<\/a:p>).)*?<a:r>(?:(?!<\/a:r>).)*?<a:t>([^<{}]+)<\/a:t><\/a:r>(?:<a:endParaRPr[^>]*\/>)?<\/a:p>/s.exec(
      xml,
    );
  if (!para) return undefined;
  zip.file(part, xml.replace(para[0], para[0].replace(`<a:t>${para[1]}</a:t>`, '<a:t>{{ tag }}</a:t>')));
  const replaced = para[1].replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return { tagged: zip.generate({ type: 'nodebuffer' }), slide, replaced };
}

const TAGGABLE = DECKS.filter((f) => withTag(deck(f)));

describe('decks written by PowerPoint', () => {
  it('has the files this test is about, most with text to put a tag in', () => {
    expect(DECKS.length).toBeGreaterThanOrEqual(12);
    expect(TAGGABLE.length).toBeGreaterThanOrEqual(5);
  });

  it.each(DECKS)('%s: untouched, it reads back as the original does', async (file) => {
    const original = deck(file);
    expect(pptxRead(await fill(original, {}))).toEqual(pptxRead(original));
  });

  it.each(TAGGABLE)('%s: a tag in a slide changes that paragraph only', async (file) => {
    const { tagged, slide, replaced } = withTag(deck(file))!;
    const before = pptxRead(deck(file));
    const after = pptxRead(await fill(tagged, { tag: 'Filled by the service' }));
    const expected = before.map((s, i) => {
      if (i !== slide) return s;
      const at = s.text.indexOf(replaced);
      return { ...s, text: s.text.map((t, j) => (j === at ? 'Filled by the service' : t)) };
    });
    expect(after).toEqual(expected);
  });

  it('tbl-cell.pptx: {%slide if show_terms %} on slide 2 keeps it when true and removes it cleanly when false', async () => {
    const zip = new PizZip(deck('tbl-cell.pptx'));
    const slide2 = zip.file('ppt/slides/slide2.xml')!.asText();
    const tags = ['{%slide if show_terms %}', '{%slide endif %}']
      .map((t) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${t}</a:t></a:r></a:p>`)
      .join('');
    expect(slide2).toContain('</p:spTree>');
    zip.file(
      'ppt/slides/slide2.xml',
      slide2.replace(
        '</p:spTree>',
        `<p:sp><p:nvSpPr><p:cNvPr id="99" name="Terms"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/>` +
          `<p:txBody><a:bodyPr/><a:lstStyle/>${tags}</p:txBody></p:sp></p:spTree>`,
      ),
    );
    const template = zip.generate({ type: 'nodebuffer' });
    const original = pptxRead(deck('tbl-cell.pptx'));
    expect(original).toHaveLength(3);

    // Read back by Python (zipfile and ElementTree): every listed slide resolves and parses.
    expect(pptxRead(await fill(template, { show_terms: true }))).toEqual(original);
    const without = await fill(template, { show_terms: false });
    expect(pptxRead(without)).toEqual([original[0], original[2]]);
    // Nothing names the removed slide any more, and every part the content types name exists.
    const out = new PizZip(without);
    expect(out.file('ppt/slides/slide2.xml')).toBeNull();
    const types = out.file('[Content_Types].xml')!.asText();
    for (const m of types.matchAll(/PartName="\/([^"]+)"/g)) expect(out.file(m[1])).not.toBeNull();
    expect(out.file('ppt/_rels/presentation.xml.rels')!.asText()).not.toContain('slides/slide2.xml');
  });

  describe('Impress prints the filled deck as it prints the original', () => {
    let pool: LibreOfficePool;
    beforeAll(async () => {
      pool = new LibreOfficePool({ instances: 1 });
      await pool.start();
    }, 120_000);
    afterAll(async () => {
      await pool?.close();
    });

    const pages = (pdf: Buffer) =>
      execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], { input: pdf })
        .toString('utf8')
        .split('\f')
        .slice(0, -1)
        .map((page) => page.replace(/\s+/g, ' ').trim());

    it.each(['test_slides.pptx', 'tbl-cell.pptx', 'shp-shapes.pptx', 'prs-notes.pptx'])(
      '%s',
      async (file) => {
        const original = deck(file);
        const filled = await produceDocument(
          original,
          { output: 'pdf', request: { template_data: {} }, pdf: {} },
          {},
          { converter: pool },
        );
        const reference = await pool.convertTo(original, PRESENTATION_TARGETS.pdf);
        const slides = pptxRead(original).length;
        expect(pages(filled.body)).toHaveLength(slides);
        expect(pages(filled.body)).toEqual(pages(reference));
      },
    );
  });
});
