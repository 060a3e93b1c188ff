/**
 * Barcodes and QR codes end to end: each type drawn by its filter into a real template, converted
 * to PDF by the LibreOffice pool, rasterised by pdftoppm at 300 dpi and decoded back to its
 * payload by a real decoder: zbarimg (zbar-tools 0.23) for QR, Code 128, GS1-128, EAN-13, EAN-8,
 * UPC-A, Code 39, ITF-14 and the EPC QR code; ZXingReader (zxing-cpp-tools 1.4) for DataMatrix and
 * PDF417, which zbar 0.23 does not decode. The WordprocessingML is checked too: an inline
 * `w:drawing` at the size asked for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PizZip from 'pizzip';
import { LibreOfficePool } from '@app/converters';
import { renderDocx } from '@app/engine';
import { decodePdf, type Decoded } from './support/barcode-decode';
import { buildDocx, messy, p, table, SPLIT as S } from './support/docx-builder';
import { docxImages } from './support/docx-text';

const EMU_PER_MM = 36000;
const ROOT = join(__dirname, '..');

interface CodeCase {
  tag: string;
  value: unknown;
  /** The size asked for, in mm: the drawing's extent (2D codes: square or their own aspect). */
  widthMm: number;
  heightMm?: number;
  decoder: Decoded['decoder'];
  type: string;
  text: string;
}

const EPC = {
  name: 'Müller & Söhne GmbH',
  iban: 'DE89 3704 0044 0532 0130 00',
  bic: 'COBADEFFXXX',
  amount: 1234.5,
  remittance: 'Rechnung 2026-0042',
};

const CASES: CodeCase[] = [
  {
    tag: 'qrcode(size_mm=30, ecc="Q")',
    value: 'https://example.org/r/2026-0042?s=Ä',
    widthMm: 30,
    heightMm: 30,
    decoder: 'zbarimg',
    type: 'QR-Code',
    text: 'https://example.org/r/2026-0042?s=Ä',
  },
  {
    tag: 'barcode("code128", width_mm=60, height_mm=15)',
    value: 'PARCEL-123456',
    widthMm: 60,
    heightMm: 15,
    decoder: 'zbarimg',
    type: 'CODE-128',
    text: 'PARCEL-123456',
  },
  {
    tag: 'barcode("gs1-128", width_mm=90, height_mm=20)',
    value: '(01)09501101530003(17)260101(10)ABC123',
    widthMm: 90,
    heightMm: 20,
    decoder: 'zbarimg',
    type: 'CODE-128',
    text: '01095011015300031726010110ABC123',
  },
  {
    tag: 'barcode("ean13", width_mm=40, height_mm=25)',
    value: '4006381333931',
    widthMm: 40,
    heightMm: 25,
    decoder: 'zbarimg',
    type: 'EAN-13',
    text: '4006381333931',
  },
  {
    tag: 'barcode("ean8", width_mm=30, height_mm=20)',
    value: 96385074,
    widthMm: 30,
    heightMm: 20,
    decoder: 'zbarimg',
    type: 'EAN-8',
    text: '96385074',
  },
  {
    tag: 'barcode("upca", width_mm=40, height_mm=25)',
    value: '036000291452',
    widthMm: 40,
    heightMm: 25,
    decoder: 'zbarimg',
    type: 'UPC-A',
    text: '036000291452',
  },
  {
    tag: 'barcode("code39", width_mm=70, height_mm=15, text=false)',
    value: 'CODE-39 TEST',
    widthMm: 70,
    heightMm: 15,
    decoder: 'zbarimg',
    type: 'CODE-39',
    text: 'CODE-39 TEST',
  },
  {
    tag: 'barcode("itf14", width_mm=80, height_mm=25)',
    value: '15400141288763',
    widthMm: 80,
    heightMm: 25,
    decoder: 'zbarimg',
    type: 'I2/5',
    text: '15400141288763',
  },
  {
    tag: 'barcode("datamatrix", width_mm=25)',
    value: 'LOT 42 / Größe M',
    widthMm: 25,
    heightMm: 25,
    decoder: 'ZXingReader',
    type: 'DataMatrix',
    text: 'LOT 42 / Größe M',
  },
  {
    tag: 'barcode("pdf417", width_mm=70)',
    value: 'BOARDING PASS M1DOE/JANE 2026-11-25',
    widthMm: 70,
    decoder: 'ZXingReader',
    type: 'PDF417',
    text: 'BOARDING PASS M1DOE/JANE 2026-11-25',
  },
  {
    tag: 'epc_qr(size_mm=40)',
    value: EPC,
    widthMm: 40,
    heightMm: 40,
    decoder: 'zbarimg',
    type: 'QR-Code',
    text: 'BCD\n002\n1\nSCT\nCOBADEFFXXX\nMüller & Söhne GmbH\nDE89370400440532013000\nEUR1234.50\n\n\nRechnung 2026-0042',
  },
];

/**
 * The LibreOffice-saved template of the benchmark corpus (bench/fixtures/writer.docx: Writer's
 * styles, settings and section), its body replaced by one code per page. Each tag is split
 * across runs as editing leaves it.
 */
function writerTemplate(): Buffer {
  const zip = new PizZip(readFileSync(join(ROOT, 'bench/fixtures/writer.docx')));
  const xml = zip.file('word/document.xml')!.asText();
  const paragraphs = CASES.map((c, i) => {
    const [head, tail] = [`{{ v${i} | `, `${c.tag} }}`];
    const pageBreak = i ? '<w:r><w:br w:type="page"/></w:r>' : '';
    return (
      `<w:p><w:pPr><w:pStyle w:val="Normal"/><w:rPr></w:rPr></w:pPr>${pageBreak}` +
      `<w:r><w:rPr></w:rPr><w:t xml:space="preserve">${head}</w:t></w:r>` +
      `<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">${tail.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}</w:t></w:r></w:p>`
    );
  }).join('');
  const body = xml.replace(/(<w:body>)[\s\S]*?(<w:sectPr)/, `$1${paragraphs}$2`);
  expect(body).not.toBe(xml);
  zip.file('word/document.xml', body);
  return zip.generate({ type: 'nodebuffer' });
}

let pool: LibreOfficePool;

beforeAll(async () => {
  pool = new LibreOfficePool({ instances: 1 });
  await pool.start();
});

afterAll(async () => {
  await pool?.close();
});

describe('every barcode type, from a LibreOffice-saved template to PDF and back', () => {
  let docx: Buffer;
  let pages: Decoded[][];

  beforeAll(async () => {
    const data = Object.fromEntries(CASES.map((c, i) => [`v${i}`, c.value]));
    docx = renderDocx(writerTemplate(), { template_data: data });
    const pdf = await pool.convert(docx);
    pages = decodePdf(pdf, { crop: true, binary: true });
  }, 120_000);

  it('writes one inline drawing per code, at the size asked for', () => {
    const imgs = docxImages(docx);
    expect(imgs).toHaveLength(CASES.length);
    CASES.forEach((c, i) => {
      expect(imgs[i].inline).toBe(true);
      expect(imgs[i].exists).toBe(true);
      expect(imgs[i].cx).toBe(Math.round(c.widthMm * EMU_PER_MM));
      if (c.heightMm !== undefined) expect(imgs[i].cy).toBe(Math.round(c.heightMm * EMU_PER_MM));
      else expect(imgs[i].cy).toBeGreaterThan(0); // PDF417 keeps its own aspect
    });
  });

  it('puts each code on its own page of the PDF', () => {
    expect(pages).toHaveLength(CASES.length);
  });

  it.each(CASES.map((c, i) => [c.tag, i] as const))('%s decodes back to its payload', (_tag, i) => {
    const c = CASES[i];
    const found = pages[i].filter((d) => d.decoder === c.decoder);
    expect(found).toEqual([{ decoder: c.decoder, type: c.type, text: c.text }]);
  });
});

describe('codes in table rows of a loop, a header and a footer (Word-edited runs)', () => {
  it('all decode from the PDF page', async () => {
    const docx = renderDocx(
      buildDocx({
        header: [p(`Ticket {{ ticket.id }} {{ ticket.url | ${S}qrcode(size_mm=22) }}`)],
        footer: [messy(`{{ ticket.ean ${S}| barcode("ean13", width_mm=38, ${S}height_mm=20) }}`)],
        body: [
          p('Сборка / 出荷 / Lieferung'),
          table([
            ['Item', 'Code'],
            ['{%tr for i in items %}', ''],
            ['{{ i.name }}', `{{ i.code | barcode(${S}"code128", width_mm=55, height_mm=14) }}`],
            ['{%tr endfor %}', ''],
          ]),
        ],
      }),
      {
        template_data: {
          ticket: { id: 'T-7', url: 'https://example.org/t/7', ean: '5901234123457' },
          items: [
            { name: 'Стол', code: 'RU-0001' },
            { name: '椅子', code: 'JP-0002' },
            { name: 'Lampe', code: 'DE-0003' },
          ],
        },
      },
    );
    const parts = docxImages(docx).map((i) => i.part);
    expect(parts.filter((x) => x === 'word/document.xml')).toHaveLength(3);
    expect(parts.some((x) => /header/.test(x))).toBe(true);
    expect(parts.some((x) => /footer/.test(x))).toBe(true);
    const [page] = decodePdf(await pool.convert(docx));
    const texts = page.filter((d) => d.decoder === 'zbarimg').map((d) => `${d.type} ${d.text}`);
    expect(texts.sort()).toEqual(
      [
        'QR-Code https://example.org/t/7',
        'EAN-13 5901234123457',
        'CODE-128 RU-0001',
        'CODE-128 JP-0002',
        'CODE-128 DE-0003',
      ].sort(),
    );
  }, 120_000);
});
