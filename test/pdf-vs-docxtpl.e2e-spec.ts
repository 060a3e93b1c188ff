/**
 * Page by page, our PDFs look like those of docxtpl + LibreOffice, the seed system's stack
 * (issue 23): the templates real users rely on (test/support/leniency-cases.ts: other alphabets,
 * `{{%tr` rows, curly quotes, merges across split tags, the empty paragraphs that space a page,
 * loops across table cells), a `{%p if %}` across table rows and a sub-document, each rendered
 * by docxtpl and by renderDocx, both converted by the same real LibreOffice, every page
 * rasterised (pdftoppm, grey, 50 dpi) and compared pixel by pixel.
 */
import { execFileSync } from 'node:child_process';
import PizZip from 'pizzip';
import { LibreOfficePool } from '@app/converters';
import { renderDocx } from '@app/engine';
import { buildDocx, p, table, type BlockSpec, type DocxSpec } from './support/docx-builder';
import { pdfPageCount } from './support/converter-fixtures';
import { renderManyWithDocxtpl, type DocxtplResult } from './support/docxtpl';
import { LENIENCY_CASES } from './support/leniency-cases';

jest.setTimeout(180_000);

/** Grey pixels of each page. */
function pages(pdf: Buffer): { width: number; height: number; pixels: Buffer }[] {
  const out = [];
  for (let page = 1; page <= pdfPageCount(pdf); page++) {
    const pgm = execFileSync('pdftoppm', ['-f', String(page), '-l', String(page), '-r', '50', '-gray', '-'], {
      input: pdf,
      maxBuffer: 1 << 26,
    });
    const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 50).toString('latin1'))!;
    out.push({ width: Number(header[1]), height: Number(header[2]), pixels: pgm.subarray(header[0].length) });
  }
  return out;
}

/** Pixels whose grey differs by more than anti-aliasing does (a quarter of the range). */
function differingPixels(a: Buffer, b: Buffer): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (Math.abs(a[i] - b[i]) > 64) n++;
  return n;
}

function annex(): Buffer {
  const zip = new PizZip(buildDocx([p('Annexe', { style: 'Heading1' }), p('Texte de l’annexe.')]));
  zip.file(
    'word/styles.xml',
    zip
      .file('word/styles.xml')!
      .asText()
      .replace(
        '<w:name w:val="Normal"/>',
        '<w:name w:val="Normal"/><w:pPr><w:spacing w:after="600"/></w:pPr>',
      ),
  );
  return zip.generate({ type: 'nodebuffer' });
}

interface PdfCase {
  name: string;
  doc: DocxSpec | BlockSpec[];
  context: Record<string, unknown>;
  subdocs?: Record<string, Buffer>;
}

const CASES: PdfCase[] = [
  ...LENIENCY_CASES.map((c) => ({ name: c.name, doc: c.doc, context: c.context })),
  {
    name: '{%p if %} opening in one row and closing in the next (the Russian reports)',
    doc: [
      p('Акт осмотра'),
      table([
        ['Узел', 'Состояние'],
        ['Насос', '{%p if ok %}'],
        ['Исправно', '{%p endif %}'],
        ['Итог', '{{ итог }}'],
      ]),
    ],
    context: { ok: true, итог: 'годен' },
  },
  {
    name: 'a sub-document whose Normal style spaces differently',
    doc: [p('Avant'), p('{{p annexe }}'), p('Après')],
    context: {},
    subdocs: { annexe: annex() },
  },
];

let pool: LibreOfficePool;
let theirs: DocxtplResult[] = [];
const templates = CASES.map((c) => buildDocx(c.doc));

beforeAll(async () => {
  theirs = renderManyWithDocxtpl(
    CASES.map((c, i) => ({ template: templates[i], context: c.context, subdocs: c.subdocs })),
  );
  pool = new LibreOfficePool({ instances: 1 });
  await pool.start();
});

afterAll(async () => {
  await pool?.close();
});

describe.each(CASES.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
  it('every page of our PDF looks like docxtpl + LibreOffice’s', async () => {
    const reference = theirs[i];
    if (reference instanceof Error) throw reference;
    const c = CASES[i];
    const ours = renderDocx(templates[i], {
      template_data: c.context,
      documents: Object.fromEntries(
        Object.entries(c.subdocs ?? {}).map(([k, v]) => [k, { data: v.toString('base64') }]),
      ),
    });
    const [a, b] = [pages(await pool.convert(reference)), pages(await pool.convert(ours))];
    expect(b.length).toBe(a.length);
    a.forEach((page, k) => {
      expect([b[k].width, b[k].height]).toEqual([page.width, page.height]);
      // The test is only as good as its pages: each holds the case's text.
      expect(page.pixels.some((v) => v < 128)).toBe(true);
      expect(differingPixels(page.pixels, b[k].pixels)).toBeLessThanOrEqual(page.pixels.length / 2000);
    });
  });
});
