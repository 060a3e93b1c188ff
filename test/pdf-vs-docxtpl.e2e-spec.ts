/**
 * Page by page, our PDFs look like those of docxtpl + LibreOffice, the seed system's stack
 * (issue 23): the templates real users rely on (test/support/leniency-cases.ts: other alphabets,
 * `{{%tr` rows, curly quotes, merges across split tags, the empty paragraphs that space a page,
 * loops across table cells), a `{%p if %}` across table rows and a sub-document, each rendered
 * by docxtpl and by renderDocx, both converted by the same real LibreOffice, every page
 * rasterised (pdftoppm, grey, 50 dpi) and compared pixel by pixel. Then pictures and the benchmark
 * corpus, filled as the worker fills for a PDF, at 100 dpi (below).
 */
import { execFileSync } from 'node:child_process';
import PizZip from 'pizzip';
import { PNG } from 'pngjs';
import { libreOfficePasses, LibreOfficePool, SPLIT_DEFAULTS } from '@app/converters';
import { renderDocx } from '@app/engine';
import { corpusRequest, corpusTemplate, type CorpusRequest } from '../bench/corpus';
import { buildDocx, p, table, type BlockSpec, type DocxSpec } from './support/docx-builder';
import { pdfPageCount } from './support/converter-fixtures';
import { renderManyWithDocxtpl, type DocxtplResult } from './support/docxtpl';
import { LENIENCY_CASES } from './support/leniency-cases';
import { comparePages } from './support/page-compare';
import { pdfImages } from './support/pdf-inspect';

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

/*
 * The benchmark corpus as a caller sends it, pictures included (docxtpl's InlineImage at the
 * width the request gives), filled as the worker fills for a PDF (table styles resolved, unused
 * styles left out: what LibreOffice is handed), against docxtpl's fill of the same template, both
 * converted by the same pool: every page at 100 dpi (test/support/page-compare.ts). The logo, the
 * statement's header and the gallery's pictures found LibreOffice spacing an inline picture that
 * has distL/distR="0" otherwise than one without them (python-docx writes none).
 */
const WORKER_FILL = {
  packagePasses: libreOfficePasses({
    resolveTableStyles: true,
    resolveAllTableStylesFromRows: SPLIT_DEFAULTS.minRows,
    pruneUnusedStyles: true,
  }),
};

const SIGNATURE_PNG = new PNG({ width: 120, height: 40 });
for (let x = 0; x < 120; x++) {
  // A signature-like stroke on white: a sine line two pixels thick.
  for (let y = 0; y < 40; y++) {
    const on = Math.abs(y - (20 + 12 * Math.sin(x / 9))) < 1.5;
    SIGNATURE_PNG.data.set(on ? [20, 40, 120, 255] : [255, 255, 255, 255], (y * 120 + x) * 4);
  }
}

const PICTURE_CASES: Array<{ name: string; template: Buffer; request: CorpusRequest }> = [
  ...(
    [
      ['invoice', 20],
      ['statement', 60],
      ['gallery', 10],
      ['writer', 5],
      ['contract', 15],
    ] as const
  ).map(([name, rows]) => ({
    name: `corpus ${name}, ${rows} rows`,
    template: corpusTemplate(name),
    request: corpusRequest(name, { rows }),
  })),
  {
    name: 'a centred picture, and one within a line of text, in a table cell and a header',
    template: buildDocx({
      header: [p('{{ logo }}', { align: 'right' })],
      body: [
        p('Certificate of completion', { style: 'Title' }),
        p('{{ seal }}', { align: 'center' }),
        p('Awarded to {{ name }} on {{ date }}.'),
        table([
          ['Signed', 'Witness'],
          ['{{ sig }} {{ signer }}', 'Signed: {{ sig }}'],
        ]),
        p('Issued by {{ signer }}, {{ sig }} (signature), Lyon.'),
      ],
    }),
    request: {
      template_data: { name: 'Zoë Ødegård-Nakamura', date: '12 mars 2024', signer: 'Jean Dupont' },
      images: {
        logo: { data: corpusRequest('invoice').images!.logo.data, width_mm: 30 },
        seal: { data: corpusRequest('gallery', { rows: 1 }).images!.img0.data, width_mm: 50 },
        sig: { data: PNG.sync.write(SIGNATURE_PNG).toString('base64'), width_mm: 25 },
      },
    },
  },
];

describe('pictures and the corpus, filled as the worker fills for a PDF, look like docxtpl + LibreOffice’s', () => {
  let references: DocxtplResult[] = [];
  beforeAll(() => {
    references = renderManyWithDocxtpl(
      PICTURE_CASES.map((c) => ({
        template: c.template,
        context: c.request.template_data,
        images: c.request.images,
      })),
    );
  });

  it.each(PICTURE_CASES.map((c, i) => [c.name, i] as const))('%s', async (name, i) => {
    const reference = references[i];
    if (reference instanceof Error) throw reference;
    const { template, request } = PICTURE_CASES[i];
    const ours = renderDocx(template, request as never, WORKER_FILL);
    const [a, b] = [
      await pool.convert(reference, { timeoutMs: 120_000 }),
      await pool.convert(ours, { timeoutMs: 120_000 }),
    ];
    // Every picture of the request is in both PDFs (none lost on either side).
    const pictures = Object.keys(request.images ?? {}).length;
    expect(pdfImages(b).filter((x) => x.type === 'image').length).toBeGreaterThanOrEqual(pictures);
    expect(pdfImages(b).filter((x) => x.type === 'image').length).toBe(
      pdfImages(a).filter((x) => x.type === 'image').length,
    );
    // Up to 8 pages (rasterising is ~1 s a page): the first three (the contract's cover and table
    // of contents), then evenly spread to the last.
    const n = pdfPageCount(a);
    const sample =
      n <= 8
        ? undefined
        : [...new Set([1, 2, 3, ...[1, 2, 3, 4].map((k) => Math.round(3 + (k * (n - 3)) / 4))])];
    const cmp = comparePages(a, b, { pages: sample });
    expect({ name, pages: pdfPageCount(b), differing: cmp.differing }).toEqual({
      name,
      pages: n,
      differing: [],
    });
    expect(cmp.pagesB).toBe(sample?.length ?? n);
  });
});
