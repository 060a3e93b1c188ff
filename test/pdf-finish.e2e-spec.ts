/**
 * options.pdf's finishing step (docs/pdf.md) on both routes, against real files: the corpus
 * invoice converted by the real LibreOffice pool and by the Gotenberg client (against the Gotenberg
 * 8 double, which converts with LibreOffice too), then finished as the worker does it. What qpdf
 * and poppler read back: AES-256 R6 and its permissions, the watermark on every page, the pages
 * of prepended and appended PDFs, the attachments, a Factur-X invoice; and the refusals of
 * hostile or unusable inputs, each naming its field.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpStatusOf, type PdfOptions } from '@app/contracts';
import {
  DEFAULT_PYTHON,
  finishPdf,
  GotenbergConverter,
  InvalidEInvoiceError,
  InvalidPdfInputError,
  LibreOfficePool,
  needsFinishing,
  parsePdfOptions,
  type PdfConverter,
} from '@app/converters';
import { renderDocx } from '@app/engine';
import { corpusRequest, corpusTemplate } from '../bench/corpus';
import { pdfPageCount } from './support/converter-fixtures';
import { GotenbergDouble } from './support/hostile-gotenberg';
import {
  associatedFiles,
  onFileStatus,
  pageText,
  pdfAttachments,
  pdfEncryption,
  pdfXmp,
  qpdfCheck,
  qpdfCheckWith,
  qpdfEncrypt,
  qdf,
} from './support/pdf-inspect';

jest.setTimeout(180_000);

const FX_XML = readFileSync(join(__dirname, 'fixtures/facturx/en16931-invoice.xml'));
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');

let pool: LibreOfficePool;
let double: GotenbergDouble;
let gotenberg: GotenbergConverter;
let invoiceDocx: Buffer;
/** Real LibreOffice output, as callers' own PDFs would be: a cover (writer) and terms (contract). */
let coverPdf: Buffer;
let termsPdf: Buffer;

const render = (name: 'invoice' | 'contract' | 'writer') =>
  renderDocx(corpusTemplate(name), corpusRequest(name, { rows: name === 'contract' ? 4 : undefined }));

beforeAll(async () => {
  pool = new LibreOfficePool({ instances: 1 });
  double = new GotenbergDouble();
  await Promise.all([pool.start(), double.up()]);
  gotenberg = new GotenbergConverter({ url: double.url, retries: 0 });
  invoiceDocx = render('invoice');
  coverPdf = await pool.convert(render('writer'));
  termsPdf = await pool.convert(render('contract'));
});

afterAll(async () => {
  await gotenberg?.close();
  await Promise.all([pool?.close(), double?.close()]);
});

/** What the worker does: the options validated, the converter, then the finishing step. */
async function produce(converter: PdfConverter, raw: unknown): Promise<Buffer> {
  const pdf = parsePdfOptions(raw);
  const converted = await converter.convert(invoiceDocx, { pdf });
  return needsFinishing(pdf) ? finishPdf(converted, pdf) : converted;
}

const ROUTES: Array<[string, () => PdfConverter]> = [
  ['the LibreOffice pool', () => pool],
  ['the Gotenberg client', () => gotenberg],
];

describe.each(ROUTES)('on %s', (_route, converter) => {
  it('encrypts with AES-256 (R6): no text without the user password, the permissions asked for', async () => {
    const pdf = await produce(converter(), {
      encryption: {
        owner_password: 'Propriétaire-2026',
        user_password: 'Öffnen-42',
        permissions: { print: 'low', copy: false, modify: false, annotate: true, fill_forms: true },
      },
    });
    const enc = pdfEncryption(pdf, 'Öffnen-42');
    expect(enc).toMatchObject({
      R: '6',
      'Supplied password is user password': 'yes',
      'print low resolution': 'allowed',
      'print high resolution': 'not allowed',
      'extract for any purpose': 'not allowed',
      'modify other': 'not allowed',
      'modify annotations': 'allowed',
      'modify forms': 'allowed',
      'extract for accessibility': 'allowed',
      'file encryption method': 'AESv3',
    });
    qpdfCheckWith(pdf, 'Öffnen-42');
    const locked = onFileStatus(pdf, 'pdftotext', []);
    expect(locked.status).not.toBe(0);
    expect(locked.out).toMatch(/password/i);
    expect(pageText(pdf, 1, 'Öffnen-42')).toMatch(/Invoice/i);
    // The owner password opens it too.
    expect(pdfEncryption(pdf, 'Propriétaire-2026')['Supplied password is owner password']).toBe('yes');
  });

  it('with the owner password alone, opens for anyone under the permissions', async () => {
    const pdf = await produce(converter(), {
      encryption: { owner_password: 'only-the-owner', permissions: { print: 'none', copy: false } },
    });
    const enc = pdfEncryption(pdf);
    expect(enc).toMatchObject({
      R: '6',
      'print low resolution': 'not allowed',
      'print high resolution': 'not allowed',
      'extract for any purpose': 'not allowed',
      'modify other': 'allowed',
    });
    qpdfCheck(pdf);
    expect(pageText(pdf, 1)).toMatch(/Invoice/i);
  });

  it('prepends a cover and appends the terms, with the watermark on every page', async () => {
    const pdf = await produce(converter(), {
      prepend: [{ data: b64(coverPdf) }],
      append: [{ data: b64(termsPdf) }, { data: b64(coverPdf) }],
      watermark: { text: 'BROUILLON – ЧЕРНОВИК', color: '#C00000', opacity: 0.25 },
    });
    qpdfCheck(pdf);
    const invoicePages = pdfPageCount(await converter().convert(invoiceDocx));
    const [cover, terms] = [pdfPageCount(coverPdf), pdfPageCount(termsPdf)];
    expect(terms).toBeGreaterThan(1);
    const pages = pdfPageCount(pdf);
    expect(pages).toBe(cover + invoicePages + terms + cover);
    for (let page = 1; page <= pages; page++)
      expect({ page, text: pageText(pdf, page) }).toEqual({
        page,
        text: expect.stringContaining('BROUILLON – ЧЕРНОВИК'),
      });
    // In order: the cover's text first, the invoice after it, the terms after the invoice.
    expect(pageText(pdf, 1)).toContain(firstLine(coverPdf));
    expect(pageText(pdf, cover + 1)).toMatch(/Invoice/i);
    expect(pageText(pdf, cover + invoicePages + 1)).toContain(firstLine(termsPdf));
    expect(pageText(pdf, pages)).toContain(firstLine(coverPdf));
    // The terms' table of contents links to their own pages: still so once appended (each link
    // leads to a page of the result; poppler finds no bad destination).
    expect(qdf(termsPdf)).toMatch(/\/Subtype \/Link/);
    expect(onFileStatus(pdf, 'pdftotext', []).out).not.toContain('Bad annotation destination');
    expect(internalLinks(pdf).filter((l) => l.target === undefined)).toEqual([]);
    expect(internalLinks(pdf).some((l) => l.page > cover + invoicePages)).toBe(true);
  });

  it('marks the watermark of a PDF/UA document as a pagination artifact', async () => {
    const pdf = await produce(converter(), { pdfua: true, watermark: { text: 'ENTWURF' } });
    qpdfCheck(pdf);
    const content = qdf(pdf);
    expect(content).toMatch(/\/Artifact << \/Subtype \/Watermark \/Type \/Pagination >> BDC/);
    expect(content).not.toContain('/ActualText');
    // Drawn all the same: DejaVu Sans, embedded for it.
    expect(content).toMatch(/\/FontName \/[A-Z]{6}\+DejaVuSans/);
  });

  it('embeds attachments as associated files, byte for byte', async () => {
    const order = Buffer.from(JSON.stringify({ order: 'PO-2026-1193', lines: 3, note: 'Zustellung: Tür 2' }));
    const pdf = await produce(converter(), {
      pdfa: 'PDF/A-3b',
      attachments: [
        { name: 'order.json', data: b64(order), mime_type: 'application/json', relationship: 'Source' },
        {
          name: 'Lieferschein BL-88213.pdf',
          data: b64(coverPdf),
          mime_type: 'application/pdf',
          description: 'Signed delivery note',
        },
      ],
    });
    qpdfCheck(pdf);
    const files = pdfAttachments(pdf);
    expect([...files.keys()].sort()).toEqual(['Lieferschein BL-88213.pdf', 'order.json']);
    expect(files.get('order.json')!.equals(order)).toBe(true);
    expect(files.get('Lieferschein BL-88213.pdf')!.equals(coverPdf)).toBe(true);
    const af = associatedFiles(pdf);
    expect(af.relationships).toEqual({ 'order.json': 'Source', 'Lieferschein BL-88213.pdf': 'Unspecified' });
    expect(af.catalogAf.sort()).toEqual(['Lieferschein BL-88213.pdf', 'order.json']);
    expect(pdfXmp(pdf)).toMatch(/<pdfaid:part>3<\/pdfaid:part>/);
  });

  it('makes a Factur-X invoice: PDF/A-3b, factur-x.xml embedded, the fx schema in the XMP', async () => {
    const pdf = await produce(converter(), { facturx: { xml: b64(FX_XML), profile: 'EN 16931' } });
    qpdfCheck(pdf);
    const xmp = pdfXmp(pdf);
    expect(xmp).toMatch(/<pdfaid:part>3<\/pdfaid:part>/);
    expect(xmp).toMatch(/<pdfaid:conformance>B<\/pdfaid:conformance>/);
    expect(xmp).toContain('xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"');
    expect(xmp).toContain('<fx:DocumentType>INVOICE</fx:DocumentType>');
    expect(xmp).toContain('<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>');
    expect(xmp).toContain('<fx:Version>1.0</fx:Version>');
    expect(xmp).toContain('<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>');
    // The extension schema PDF/A needs for the fx properties.
    expect(xmp).toContain(
      '<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>',
    );
    for (const name of ['DocumentType', 'DocumentFileName', 'Version', 'ConformanceLevel'])
      expect(xmp).toContain(`<pdfaProperty:name>${name}</pdfaProperty:name>`);
    // The XMP packet is still well-formed XML.
    expect(() => xmllint(Buffer.from(xmp))).not.toThrow();
    const files = pdfAttachments(pdf);
    expect([...files.keys()]).toEqual(['factur-x.xml']);
    expect(files.get('factur-x.xml')!.equals(FX_XML)).toBe(true);
    expect(() => xmllint(files.get('factur-x.xml')!)).not.toThrow();
    expect(associatedFiles(pdf)).toEqual({
      relationships: { 'factur-x.xml': 'Alternative' },
      catalogAf: ['factur-x.xml'],
    });
  });

  it('gives MINIMUM and BASIC WL invoices the relationship Data', async () => {
    for (const profile of ['MINIMUM', 'BASIC WL']) {
      const pdf = await produce(converter(), { facturx: { xml: b64(FX_XML), profile } });
      expect(associatedFiles(pdf).relationships).toEqual({ 'factur-x.xml': 'Data' });
      expect(pdfXmp(pdf)).toContain(`<fx:ConformanceLevel>${profile}</fx:ConformanceLevel>`);
    }
  });
});

describe('both routes give the same document', () => {
  it('same pages, same text on each, same attachments', async () => {
    const options = {
      prepend: [{ data: b64(coverPdf) }],
      append: [{ data: b64(termsPdf) }],
      watermark: { text: 'COPY', angle: 30 },
      attachments: [{ name: 'order.json', data: b64('{"order":1}'), mime_type: 'application/json' }],
    };
    const [a, b] = [await produce(pool, options), await produce(gotenberg, options)];
    expect(pdfPageCount(a)).toBe(pdfPageCount(b));
    for (let page = 1; page <= pdfPageCount(a); page++) expect(pageText(b, page)).toBe(pageText(a, page));
    expect([...pdfAttachments(b).keys()]).toEqual([...pdfAttachments(a).keys()]);
  });
});

describe('unusable and hostile inputs: a typed 422 naming the field, never a hung or dead worker', () => {
  let converted: Buffer;
  beforeAll(async () => {
    converted = await pool.convert(invoiceDocx);
  });

  async function refusal(
    options: PdfOptions,
    limits = {},
  ): Promise<Error & { details: Record<string, unknown> }> {
    const started = Date.now();
    try {
      await finishPdf(converted, parsePdfOptions(options), limits);
    } catch (e) {
      // Bounded by the step's own limits, not by jest's timeout.
      expect(Date.now() - started).toBeLessThan(35_000);
      return e as Error & { details: Record<string, unknown> };
    }
    throw new Error('expected a refusal');
  }

  it('an encrypted PDF to append', async () => {
    const e = await refusal({ append: [{ data: b64(qpdfEncrypt(termsPdf, 'user', 'owner')) }] });
    expect(e).toBeInstanceOf(InvalidPdfInputError);
    expect(httpStatusOf((e as InvalidPdfInputError).errorType)).toBe(422);
    expect(e.details.field).toBe('options.pdf.append[0].data');
    expect(e.message).toMatch(/encrypted/);
  });

  it('an encrypted PDF that opens without a password (owner password only)', async () => {
    const e = await refusal({ prepend: [{ data: b64(qpdfEncrypt(coverPdf, '', 'owner')) }] });
    expect(e).toBeInstanceOf(InvalidPdfInputError);
    expect(e.details.field).toBe('options.pdf.prepend[0].data');
  });

  it('a page tree that loops', async () => {
    const e = await refusal({ append: [{ data: b64(pageTreeLoop()) }, { data: b64(termsPdf) }] });
    expect(e).toBeInstanceOf(InvalidPdfInputError);
    expect(e.details.field).toBe('options.pdf.append[0].data');
    expect(e.message).not.toContain(tmpdir()); // nothing of the worker's disk
  });

  it('a PDF that is all header and no body', async () => {
    const e = await refusal({ append: [{ data: b64('%PDF-1.7\n%%EOF garbage') }] });
    expect(e).toBeInstanceOf(InvalidPdfInputError);
    expect(e.details.field).toBe('options.pdf.append[0].data');
  });

  it('a broken cross-reference table is repaired or refused, never fatal', async () => {
    // The terms with their xref offsets shifted: readers rebuild it by scanning the file.
    const broken = Buffer.from(
      termsPdf.toString('latin1').replace(/startxref\s+\d+/, 'startxref\n999999'),
      'latin1',
    );
    let result: Buffer | undefined;
    try {
      result = await finishPdf(converted, parsePdfOptions({ append: [{ data: b64(broken) }] }));
    } catch (e) {
      expect(e).toBeInstanceOf(InvalidPdfInputError);
    }
    if (result) {
      qpdfCheck(result);
      expect(pdfPageCount(result)).toBe(pdfPageCount(converted) + pdfPageCount(termsPdf));
    }
  });

  it('a compression bomb (a 1 GiB content stream in 1 MB)', async () => {
    const bomb = compressionBomb();
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const e = await refusal({ append: [{ data: b64(bomb) }] });
    expect(e).toBeInstanceOf(InvalidPdfInputError);
    expect(e.details.field).toBe('options.pdf.append[0].data');
    expect(e.message).toMatch(/inflates|limits/);
  });

  it('a PDF whose reading outgrows the memory limit kills only the finishing process', async () => {
    // A 96 MiB address space cannot hold what the bomb check inflates: the process dies, the
    // error still names the file that was being read.
    const e = await refusal(
      { append: [{ data: b64(compressionBomb()) }] },
      { memoryBytes: 96 * 1024 * 1024 },
    );
    expect(e).toBeInstanceOf(InvalidPdfInputError);
    expect(e.details.field).toBe('options.pdf.append[0].data');
    expect(e.message).toMatch(/could not be read within the limits/);
  });

  it('Factur-X XML that is not well-formed, has another root, or declares entities: 422 with the reason', async () => {
    const cases: Array<[string, RegExp]> = [
      [FX_XML.toString('utf8').replace('</rsm:CrossIndustryInvoice>', ''), /well-formed/],
      [
        '<?xml version="1.0"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>1</ID></Invoice>',
        /rsm:CrossIndustryInvoice/,
      ],
      [
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]><rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">&a;</rsm:CrossIndustryInvoice>',
        /DOCTYPE/,
      ],
      // The right local name in the wrong namespace.
      ['<rsm:CrossIndustryInvoice xmlns:rsm="urn:example"/>', /rsm:CrossIndustryInvoice/],
    ];
    for (const [xml, reason] of cases) {
      const e = await refusal({ facturx: { xml: b64(xml), profile: 'EN 16931' } });
      expect(e).toBeInstanceOf(InvalidEInvoiceError);
      expect(httpStatusOf((e as InvalidEInvoiceError).errorType)).toBe(422);
      expect(e.details.field).toBe('options.pdf.facturx.xml');
      expect(e.message).toMatch(reason);
    }
  });

  it('a worker-side time limit ends a finishing step that runs too long', async () => {
    const e = await refusal(
      { append: [{ data: b64(termsPdf) }], watermark: { text: 'DRAFT' } },
      { timeoutMs: 1 },
    );
    expect((e as { errorType?: string }).errorType).toMatch(/conversion_failed|invalid_pdf_input/);
  });
});

/** Each link annotation's page, and the page its destination names (undefined: none in the file). */
function internalLinks(pdf: Buffer): Array<{ page: number; target?: number }> {
  const out = pikepdfScript(
    `
import json, sys, pikepdf
pdf = pikepdf.open(sys.argv[1])
pages = {p.obj.objgen: i + 1 for i, p in enumerate(pdf.pages)}
links = []
for i, p in enumerate(pdf.pages):
    for a in p.obj.get('/Annots', []):
        d = a.get('/Dest')
        if a.get('/Subtype') == '/Link' and isinstance(d, pikepdf.Array):
            links.append({'page': i + 1, 'target': pages.get(d[0].objgen) if isinstance(d[0], pikepdf.Dictionary) else None})
print(json.dumps(links))
`,
    pdf,
  );
  return (JSON.parse(out.toString()) as Array<{ page: number; target: number | null }>).map((l) => ({
    page: l.page,
    ...(l.target === null ? {} : { target: l.target }),
  }));
}

function xmllint(xml: Buffer): void {
  execFileSync('xmllint', ['--noout', '--nonet', '-'], { input: xml, stdio: ['pipe', 'ignore', 'pipe'] });
}

function firstLine(pdf: Buffer): string {
  return pageText(pdf, 1)
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 3)!;
}

/** Hostile files, built with pikepdf (qpdf) rather than by hand. */
function pikepdfScript(script: string, input?: Buffer): Buffer {
  if (!input) return execFileSync(DEFAULT_PYTHON, ['-c', script], { maxBuffer: 1 << 26 });
  const dir = mkdtempSync(join(tmpdir(), 'pdf-finish-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), input);
    return execFileSync(DEFAULT_PYTHON, ['-c', script, join(dir, 'in.pdf')], { maxBuffer: 1 << 26 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A page tree whose /Kids holds the tree itself. */
function pageTreeLoop(): Buffer {
  return pikepdfScript(`
import io, sys, pikepdf
pdf = pikepdf.new()
pdf.add_blank_page()
pdf.add_blank_page()
pages = pdf.Root.Pages
pages.Kids.append(pages)
pages.Count = 3
out = io.BytesIO()
pdf.save(out, fix_metadata_version=False)
sys.stdout.buffer.write(out.getvalue())
`);
}

/** One page whose content stream inflates to 1 GiB of spaces (made once: 5 s of deflate). */
let bomb: Buffer | undefined;
function compressionBomb(): Buffer {
  return (bomb ??= pikepdfScript(`
import io, sys, zlib, pikepdf
from pikepdf import Name
z = zlib.compressobj(9)
chunk = b' ' * (1 << 20)
raw = b''.join(z.compress(chunk) for _ in range(1024)) + z.flush()
pdf = pikepdf.new()
pdf.add_blank_page()
pdf.pages[0].obj.Contents = pikepdf.Stream(pdf, raw, Filter=Name.FlateDecode)
out = io.BytesIO()
pdf.save(out, stream_decode_level=pikepdf.StreamDecodeLevel.none, compress_streams=False)
sys.stdout.buffer.write(out.getvalue())
`));
}
