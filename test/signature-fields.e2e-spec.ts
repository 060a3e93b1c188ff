/**
 * Signature places (issue 37, docs/pdf.md): `signature_field()` printed in a paragraph, a table
 * cell, a loop of three and on page 2 of a long document, converted by LibreOffice through the
 * real pipeline (produceDocument). Each place must lie where the tag printed: its box's top left
 * corner within 2 mm of the top left of a text marker printed instead of the tag, in a PDF made
 * from the same template without the field. Every place sits where the box's height cannot move
 * what follows (the last paragraph, or a table row kept taller than the box by its other cell),
 * so both PDFs have the same layout and the comparison is fair.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { PDFDocument } from 'pdf-lib';

import { LibreOfficePool } from '@app/converters';
import { produceDocument, type SignRequest } from '@app/pipeline';
import type { PdfOptions } from '@app/contracts';

import { buildDocx, p, table } from './support/docx-builder';
import { pdfXmp, qpdfCheck } from './support/pdf-inspect';

const MM = 72 / 25.4;
const TOLERANCE = 2 * MM;

let pool: LibreOfficePool;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'signature-fields-e2e-'));
  pool = new LibreOfficePool({ instances: 1 });
  await pool.start();
}, 120_000);

afterAll(async () => {
  await pool?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A field's tag, or (control) a text marker printed where the tag stands. */
type Field = (nameExpr: string, size: string) => string;
const tag: Field = (nameExpr, size) => `{{ signature_field(${nameExpr}, ${size}) }}`;
const marker: Field = (nameExpr) => `{{ 'SIG' ~ ${nameExpr} }}`;

// Lines that keep a table row taller than a 25 mm box, with or without it.
const TALL = Array.from({ length: 8 }, (_, i) => `line ${i + 1}`).join('\n');

/** Page 1: a cell, a loop of three table rows, then the seller's paragraph last. */
const onePage = (field: Field) =>
  buildDocx([
    p('Agreement'),
    table(
      [
        [TALL, `Witness: ${field("'witness'", 'width_mm=40, height_mm=15')}`],
        ['{%tr for s in signers %}', ''],
        [`{{ s }}\n${TALL}`, field("'signer_' ~ loop.index", 'width_mm=50, height_mm=20')],
        ['{%tr endfor %}', ''],
      ],
      { widthsMm: [60, 100] },
    ),
    p(`Seller: ${field("'seller'", 'width_mm=60, height_mm=25')}`),
  ]);

/** A long document: the place on page 2, its last paragraph. */
const twoPages = (field: Field) =>
  buildDocx([
    p('{%p for i in lines %}'),
    p('Clause {{ i }}: the parties agree on what this line says.'),
    p('{%p endfor %}'),
    p(`Signed: ${field("'page2'", 'width_mm=60, height_mm=25')}`),
  ]);

const DATA = { signers: ['Ann', 'Bob', 'Cy'], lines: Array.from({ length: 60 }, (_, i) => i + 1) };

/** The PDF of `template` through the pipeline, and what it asked the signer. */
async function produce(template: Buffer, pdf: PdfOptions = {}) {
  let asked: SignRequest | undefined;
  const made = await produceDocument(
    template,
    { output: 'pdf', request: { template_data: DATA }, pdf },
    {},
    {
      converter: pool,
      // The signer is libs/signing's (another part): here it only reports what it was asked.
      sign: (bytes, request) => {
        asked = request;
        return Promise.resolve(bytes);
      },
    },
  );
  return { pdf: made.body, asked };
}

interface Word {
  page: number;
  pageHeight: number;
  xMin: number;
  yMin: number;
}

/** The words of a PDF with their boxes (pdftotext -bbox: top-left origin). */
function words(pdf: Buffer): Map<string, Word> {
  const file = join(work, `words-${process.hrtime.bigint()}.pdf`);
  writeFileSync(file, pdf);
  const html = execFileSync('pdftotext', ['-bbox', file, '-'], { encoding: 'utf8' });
  const out = new Map<string, Word>();
  let page = 0;
  let pageHeight = 0;
  for (const m of html.matchAll(
    /<page width="[\d.]+" height="([\d.]+)">|<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>([^<]*)<\/word>/g,
  )) {
    if (m[1]) {
      page++;
      pageHeight = Number(m[1]);
    } else out.set(m[4], { page, pageHeight, xMin: Number(m[2]), yMin: Number(m[3]) });
  }
  return out;
}

/** Every place asked of the signer must lie where the control PDF prints its marker. */
function expectWhereTheTagPrinted(
  asked: SignRequest,
  control: Buffer,
  sizes: Record<string, [number, number]>,
) {
  const places = [asked.visible!, ...asked.emptyFields];
  expect(places.map((pl) => pl.name).sort()).toEqual(Object.keys(sizes).sort());
  const markers = words(control);
  for (const place of places) {
    const m = markers.get(`SIG${place.name}`);
    expect({ name: place.name, page: place.page }).toEqual({ name: place.name, page: m?.page });
    const [x1, y1, x2, y2] = place.rect;
    const [w, h] = sizes[place.name];
    expect(Math.abs(x2 - x1 - w * MM)).toBeLessThan(0.5);
    expect(Math.abs(y2 - y1 - h * MM)).toBeLessThan(0.5);
    // The box's top left corner, from the page's top, against the marker's.
    expect(Math.abs(x1 - m!.xMin)).toBeLessThan(TOLERANCE);
    expect(Math.abs(m!.pageHeight - y2 - m!.yMin)).toBeLessThan(TOLERANCE);
  }
}

const MARKER_HOST = 'signature-field.invalid';

describe('signature_field places in the PDF LibreOffice makes', () => {
  it('a paragraph, a table cell and a loop of three: each on page 1 where its tag printed; no marker link left', async () => {
    const signed = await produce(onePage(tag), { signature: { profile: 'test', field: 'seller' } });
    const control = await produce(onePage(marker));
    expect(signed.asked?.visible?.name).toBe('seller');
    expectWhereTheTagPrinted(signed.asked!, control.pdf, {
      seller: [60, 25],
      witness: [40, 15],
      signer_1: [50, 20],
      signer_2: [50, 20],
      signer_3: [50, 20],
    });
    expect(signed.pdf.includes(MARKER_HOST)).toBe(false);
    expect(qpdfCheck(signed.pdf)).toMatch(/No syntax or stream encoding errors/);
  }, 60_000);

  it('page 2 of a long document; without a signature the markers go too, and the PDF stays sound', async () => {
    const signed = await produce(twoPages(tag), { signature: { profile: 'test', field: 'page2' } });
    const control = await produce(twoPages(marker));
    expect(signed.asked?.visible?.page).toBe(2);
    expectWhereTheTagPrinted(signed.asked!, control.pdf, { page2: [60, 25] });
    const unsigned = await produce(twoPages(tag));
    expect(unsigned.asked).toBeUndefined();
    expect(unsigned.pdf.includes(MARKER_HOST)).toBe(false);
    expect(qpdfCheck(unsigned.pdf)).toMatch(/No syntax or stream encoding errors/);
  }, 60_000);

  it('beside PDF/A, a watermark and a prepended page: the places move by the prepended page, PDF/A stays', async () => {
    const cover = await PDFDocument.create();
    cover.addPage([595, 842]);
    const prepend = Buffer.from(await cover.save()).toString('base64');
    const plain = await produce(onePage(tag), { signature: { profile: 'test', field: 'seller' } });
    const finished = await produce(onePage(tag), {
      pdfa: 'PDF/A-2b',
      watermark: { text: 'DRAFT', opacity: 0.2 },
      prepend: [{ data: prepend }],
      signature: { profile: 'test', field: 'seller' },
    });
    expect(finished.asked!.visible).toEqual({ ...plain.asked!.visible, page: 2 });
    expect(finished.asked!.emptyFields.map((f) => f.page)).toEqual([2, 2, 2, 2]);
    expect(finished.pdf.includes(MARKER_HOST)).toBe(false);
    expect(pdfXmp(finished.pdf)).toMatch(/pdfaid:part[^0-9]*2/);
    expect(qpdfCheck(finished.pdf)).toMatch(/No syntax or stream encoding errors/);
  }, 60_000);

  it('a field the document does not hold: 422 signature_field_not_found naming it and those it holds', async () => {
    const error = await produce(onePage(tag), { signature: { profile: 'test', field: 'buyer' } }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      errorType: 'signature_field_not_found',
      details: {
        field: 'options.pdf.signature.field',
        requested: 'buyer',
        fields: ['witness', 'signer_1', 'signer_2', 'signer_3', 'seller'],
      },
    });
    expect(String((error as Error).message)).toContain('"buyer"');
    expect(String((error as Error).message)).toContain('"seller"');
  }, 60_000);
});
