/**
 * Outputs beyond PDF through the running service (API, Redis, worker with the LibreOffice pool)
 * and the command line, on the corpus invoice (Word-made, with a logo): options.output png, jpeg,
 * odt, html and txt on the synchronous endpoint, a job and a batch; options.pdf.pdfua with and
 * without the logo's alternative text; the typed 400s of an unknown output and of merged + png.
 * Then the 35-page corpus contract (python-docx's default template, tags split across runs) and the
 * Writer-saved document in every format through the synchronous endpoint.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import jpeg from 'jpeg-js';
import { parse } from 'parse5';
import PizZip from 'pizzip';
import { PNG } from 'pngjs';

import { corpusRequest, corpusTemplate } from '../bench/corpus';
import { differenceFromReference, pdftoppmPage } from './support/page-raster';
import {
  buildService,
  jobFinished,
  ManagedProcess,
  pdfText,
  postRender,
  RedisServer,
  type RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';

jest.setTimeout(300_000);

const ROOT = join(__dirname, '..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const CLI = join(ROOT, 'apps/cli/src/main.ts');
const LOGO_ALT = 'Müller & Söhne logo: a blue square';
/** A4 at 96 dpi, as pdftoppm rounds it. */
const A4_96 = [794, 1123];

let redis: RedisServer;
let worker: ManagedProcess;
let api: RunningApi;
let work: string;
/** The PDF of the plain invoice request, through the service: what the images must show. */
let invoicePdf: Buffer;

interface ErrorBody {
  error_type: string;
  message: string;
  details: Record<string, unknown>;
}

function invoiceForm(options: Record<string, unknown>, images?: Record<string, unknown>) {
  const request = corpusRequest('invoice');
  return {
    file: corpusTemplate('invoice'),
    filename: 'invoice.docx',
    request_data: {
      ...request,
      ...(images ? { images: { logo: { ...request.images!.logo, ...images } } } : {}),
      options,
    },
  };
}

async function ok(res: Response): Promise<Buffer> {
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

/** pdftoppm run directly on a page of `pdf` (the first by default) at 96 dpi: the reference of the service's images. */
const reference = (pdf: Buffer, page = 1): PNG => pdftoppmPage(pdf, page, ['-r', '96'], work);

const words = (text: string) => text.split(/\s+/).filter(Boolean);

type Node = {
  nodeName: string;
  value?: string;
  attrs?: Array<{ name: string; value: string }>;
  childNodes?: Node[];
};
function walk(n: Node, visit: (n: Node) => void): void {
  visit(n);
  n.childNodes?.forEach((c) => walk(c, visit));
}

beforeAll(async () => {
  buildService();
  work = mkdtempSync(join(tmpdir(), 'outputs-service-'));
  redis = await RedisServer.start();
  const env = testEnv(redis.url, { QUEUE_PREFIX: '{outsvc}', JOB_TIMEOUT_MS: '60000' });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
  invoicePdf = await ok(await postRender(api.url, invoiceForm({})));
});

afterAll(async () => {
  await stopAll(api, worker, redis);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the synchronous endpoint', () => {
  it("png: the invoice's first page at 96 dpi, named invoice.png, equal to pdftoppm of the same request's PDF", async () => {
    const res = await postRender(api.url, invoiceForm({ output: 'png' }));
    const body = await ok(res);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toContain('invoice.png');
    const png = PNG.sync.read(body);
    expect([png.width, png.height]).toEqual(A4_96);
    const ref = reference(invoicePdf);
    expect([ref.width, ref.height]).toEqual(A4_96);
    // PDFium draws PNG, pdftoppm the reference: compared by 8 × 8 squares against a blank
    // page's distance (test/support/page-raster.ts; measured 0.12–0.23, a blank page is 1).
    expect(differenceFromReference(png, 4, ref, 4)).toBeLessThan(0.35);
  });

  it('jpeg at width_px 400: the aspect kept, close to the PDF page', async () => {
    const res = await postRender(
      api.url,
      invoiceForm({ output: 'jpeg', image: { width_px: 400, quality: 90 } }),
    );
    const body = await ok(res);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    expect(res.headers.get('content-disposition')).toContain('invoice.jpg');
    const img = jpeg.decode(body);
    expect(img.width).toBe(400);
    expect(Math.abs(img.height - Math.round((400 * 1123) / 794))).toBeLessThanOrEqual(1);
  });

  it("html: one self-contained file holding the logo, with the PDF's words", async () => {
    const res = await postRender(api.url, invoiceForm({ output: 'html' }));
    const html = (await ok(res)).toString('utf8');
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-disposition')).toContain('invoice.html');
    const srcs: string[] = [];
    walk(parse(html) as unknown as Node, (n) => {
      for (const a of n.attrs ?? [])
        if (['src', 'srcset', 'background', 'data'].includes(a.name)) srcs.push(a.value);
      expect(n.nodeName).not.toBe('link');
    });
    expect(srcs.length).toBeGreaterThanOrEqual(1);
    for (const src of srcs) expect(src).toMatch(/^data:image\//);
    expect(html).toContain('INV-2024-0042');
  });

  it("txt: UTF-8 text holding the PDF's words in order", async () => {
    const res = await postRender(api.url, invoiceForm({ output: 'txt' }));
    const text = (await ok(res)).toString('utf8');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('content-disposition')).toContain('invoice.txt');
    // Every word of the PDF's first lines appears in the text, in the same order.
    const pdfWords = words(pdfText(invoicePdf)).slice(0, 40);
    const textWords = words(text);
    let at = 0;
    for (const w of pdfWords) {
      const found = textWords.indexOf(w, at);
      expect({ word: w, found: found >= 0 }).toEqual({ word: w, found: true });
      at = found + 1;
    }
  });

  it("odt: LibreOffice opens it again, and its text is the PDF's", async () => {
    const res = await postRender(api.url, invoiceForm({ output: 'odt' }));
    const odt = await ok(res);
    expect(res.headers.get('content-type')).toBe('application/vnd.oasis.opendocument.text');
    expect(new PizZip(odt).file('mimetype')!.asText()).toBe('application/vnd.oasis.opendocument.text');
    const dir = mkdtempSync(join(work, 'odt-'));
    writeFileSync(join(dir, 'invoice.odt'), odt);
    execFileSync(
      'soffice',
      [
        `-env:UserInstallation=file://${dir}/profile`,
        '--headless',
        '--convert-to',
        'pdf',
        '--outdir',
        dir,
        join(dir, 'invoice.odt'),
      ],
      { timeout: 180_000, stdio: 'ignore' },
    );
    expect(words(pdfText(readFileSync(join(dir, 'invoice.pdf'))))).toEqual(words(pdfText(invoicePdf)));
  });

  it("pdfua with the logo's alt: the Figure carries it as /Alt, the request's locale is the /Lang", async () => {
    const pdf = await ok(
      await postRender(api.url, invoiceForm({ locale: 'de_DE', pdf: { pdfua: true } }, { alt: LOGO_ALT })),
    );
    const struct = execFileSync('pdfinfo', ['-struct', '-'], { input: pdf }).toString('utf8');
    expect(struct).toMatch(/^\s+Figure\b/m);
    const path = join(mkdtempSync(join(work, 'ua-')), 'in.pdf');
    writeFileSync(path, pdf);
    const json = JSON.parse(
      execFileSync('qpdf', ['--json', path], { maxBuffer: 1 << 28 }).toString('utf8'),
    ) as {
      qpdf: [unknown, Record<string, { value?: Record<string, unknown> }>];
    };
    const objects = Object.values(json.qpdf[1]).map((o) => o.value ?? {});
    expect(
      objects
        .map((v) => v['/Alt'])
        .filter((a) => typeof a === 'string')
        .map((a) => (a as string).replace(/^u:/, '')),
    ).toEqual([LOGO_ALT]);
    expect(objects.some((v) => v['/Type'] === '/Catalog' && v['/Lang'] === 'u:de-DE')).toBe(true);
  });

  it("pdfua without the logo's alt: 422 missing_alt_text naming the image", async () => {
    const res = await postRender(api.url, invoiceForm({ pdf: { pdfua: true } }));
    expect(res.status).toBe(422);
    const body = (await res.json()) as ErrorBody;
    expect(body.error_type).toBe('missing_alt_text');
    expect(body.details).toMatchObject({ field: 'images.logo.alt', image: 'logo' });
  });

  it('png of 500 pages at 300 dpi: 413 before any work (MAX_IMAGE_OUTPUT_PIXELS); a page beyond the document: 422 with the page count', async () => {
    const big = await postRender(
      api.url,
      invoiceForm({ output: 'png', image: { dpi: 300, pages: '1-500' } }),
    );
    expect(big.status).toBe(413);
    expect(((await big.json()) as ErrorBody).details).toMatchObject({
      reason: 'image_output_pixels',
      pages: 500,
    });
    const beyond = await postRender(api.url, invoiceForm({ output: 'png', image: { pages: '5' } }));
    expect(beyond.status).toBe(422);
    const body = (await beyond.json()) as ErrorBody;
    expect(body.error_type).toBe('page_out_of_range');
    expect(body.details).toMatchObject({ pageCount: 1 });
  });

  it('an unknown output: 400 naming options.output', async () => {
    const res = await postRender(api.url, invoiceForm({ output: 'webp' }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(JSON.stringify(body)).toContain('options.output');
  });
});

/** The words of a text as sets of letters: list labels, dot leaders and numbers aside. */
const letterWords = (text: string) => new Set(text.match(/\p{L}+/gu) ?? []);

/** Words of `expected` that `actual` lacks. */
const missingWords = (expected: Set<string>, actual: Set<string>) =>
  [...expected].filter((w) => !actual.has(w));

describe.each([
  // 33 pages: two of them, as a ZIP.
  { doc: 'contract' as const, pages: '1-2', images: ['page-1.png', 'page-2.png'] },
  // One page: "all" is that page, the image itself.
  { doc: 'writer' as const, pages: 'all', images: ['writer.png'] },
])('the corpus $doc through the synchronous endpoint', ({ doc, pages, images }) => {
  const form = (options: Record<string, unknown>) => ({
    file: corpusTemplate(doc),
    filename: `${doc}.docx`,
    request_data: { ...corpusRequest(doc), options },
  });
  const answers: Record<string, { body: Buffer; contentType: string | null; disposition: string | null }> =
    {};
  let pdfWords: Set<string>;

  beforeAll(async () => {
    // Every answer first, one request after the other: the checks block the event loop (pdftoppm,
    // pdftotext, decoding), and a kept-alive socket the API closed meanwhile (its keep-alive is 5 s)
    // would fail the next request with EPIPE. One turn of the loop first lets the client see a
    // close that arrived during the previous block's checks.
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const [name, options] of Object.entries({
      pdf: {},
      png: { output: 'png', image: { pages } },
      html: { output: 'html' },
      txt: { output: 'txt' },
      odt: { output: 'odt' },
    })) {
      const res = await postRender(api.url, form(options));
      answers[name] = {
        body: await ok(res),
        contentType: res.headers.get('content-type'),
        disposition: res.headers.get('content-disposition'),
      };
    }
    pdfWords = letterWords(pdfText(answers.pdf.body));
  });

  it(`png of pages "${pages}": ${images.join(', ')}, each equal to pdftoppm of the PDF of the same request`, () => {
    const { body, contentType, disposition } = answers.png;
    const zipped = images.length > 1;
    expect(contentType).toBe(zipped ? 'application/zip' : 'image/png');
    expect(disposition).toContain(zipped ? `${doc}.zip` : `${doc}.png`);
    const files = zipped ? new PizZip(body) : undefined;
    if (files) expect(Object.keys(files.files).sort()).toEqual(images);
    for (const [i, name] of images.entries()) {
      const png = PNG.sync.read(files ? files.file(name)!.asNodeBuffer() : body);
      const ref = reference(answers.pdf.body, i + 1);
      expect([png.width, png.height]).toEqual([ref.width, ref.height]);
      // PDFium draws PNG, pdftoppm the reference: compared by 8 × 8 squares against a blank
      // page's distance (test/support/page-raster.ts; measured 0.12–0.23, a blank page is 1).
      expect(differenceFromReference(png, 4, ref, 4)).toBeLessThan(0.35);
    }
  });

  it('html: self-contained; txt: UTF-8 holding every word of the PDF', () => {
    walk(parse(answers.html.body.toString('utf8')) as unknown as Node, (n) => {
      expect(n.nodeName).not.toBe('link');
      for (const a of n.attrs ?? [])
        if (['src', 'srcset', 'background', 'data'].includes(a.name))
          expect(a.value).toMatch(/^data:image\//);
    });
    const txt = answers.txt.body.toString('utf8');
    expect(answers.txt.contentType).toBe('text/plain; charset=utf-8');
    expect(txt.charCodeAt(0)).not.toBe(0xfeff);
    expect(missingWords(pdfWords, letterWords(txt))).toEqual([]);
  });

  it('odt: an OpenDocument text package holding every word of the PDF (headers and footers in its styles)', () => {
    const zip = new PizZip(answers.odt.body);
    expect(zip.file('mimetype')!.asText()).toBe('application/vnd.oasis.opendocument.text');
    const text = ['content.xml', 'styles.xml']
      .map((part) =>
        zip
          .file(part)!
          .asText()
          .replace(/<[^>]+>/g, ' '),
      )
      .join(' ')
      .replace(/&(amp|lt|gt|quot|apos);/g, ' ');
    expect(missingWords(pdfWords, letterWords(text))).toEqual([]);
  });
});

describe('jobs and batches', () => {
  async function submit(
    requestData: object,
    doc: 'invoice' | 'contract' | 'writer' = 'invoice',
  ): Promise<{ res: Response; body: Record<string, unknown> }> {
    const form = new FormData();
    form.append('file', new Blob([corpusTemplate(doc)]), `${doc}.docx`);
    form.append('request_data', JSON.stringify(requestData));
    const res = await fetch(`${api.url}/api/v1/jobs`, { method: 'POST', body: form });
    return { res, body: (await res.json()) as Record<string, unknown> };
  }

  it('a job asking png of "all" pages of a one-page invoice: the result is the PNG, its record says so', async () => {
    const { res, body } = await submit({
      ...corpusRequest('invoice'),
      options: { output: 'png', image: { pages: 'all' } },
    });
    expect(res.status).toBe(202);
    const status = await jobFinished<{ status: string }>(api.url, String(body.job_id), 120_000);
    expect(status.status).toBe('completed');
    const result = await fetch(`${api.url}/api/v1/jobs/${String(body.job_id)}/result`);
    const png = PNG.sync.read(await ok(result));
    expect([png.width, png.height]).toEqual(A4_96);
    expect(result.headers.get('content-type')).toBe('image/png');
    expect(result.headers.get('content-disposition')).toContain('invoice.png');
  });

  it('a zip batch of png: one PNG per item, named by its format', async () => {
    const request = corpusRequest('invoice');
    const { res, body } = await submit({
      ...request,
      output: 'zip',
      batch: [
        { template_data: request.template_data, filename: 'first' },
        { template_data: request.template_data, filename: 'second.pdf' },
      ],
      options: { output: 'png' },
    });
    expect(res.status).toBe(202);
    const status = await jobFinished<{ status: string }>(api.url, String(body.job_id), 180_000);
    expect(status.status).toBe('completed');
    const zip = new PizZip(await ok(await fetch(`${api.url}/api/v1/jobs/${String(body.job_id)}/result`)));
    const names = Object.keys(zip.files).sort();
    expect(names).toEqual(['first.png', 'second.png']);
    for (const name of names) {
      const png = PNG.sync.read(zip.file(name)!.asNodeBuffer());
      expect([png.width, png.height]).toEqual(A4_96);
    }
  });

  it("a job of the contract as txt: the whole agreement's text, both parties, in reading order", async () => {
    const { res, body } = await submit(
      { ...corpusRequest('contract'), options: { output: 'txt' } },
      'contract',
    );
    expect(res.status).toBe(202);
    const status = await jobFinished<{ status: string }>(api.url, String(body.job_id), 180_000);
    expect(status.status).toBe('completed');
    const result = await fetch(`${api.url}/api/v1/jobs/${String(body.job_id)}/result`);
    const text = (await ok(result)).toString('utf8');
    expect(result.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(result.headers.get('content-disposition')).toContain('contract.txt');
    const supplier = text.indexOf('Müller & Söhne GmbH');
    const customer = text.indexOf('Société Générale d’Équipements S.A.');
    expect(supplier).toBeGreaterThanOrEqual(0);
    expect(customer).toBeGreaterThan(supplier);
    // Two signatories at the end of a 30-odd-page agreement.
    expect(text.lastIndexOf('Hélène Dubois-Lefèvre')).toBeGreaterThan(text.length / 2);
  });

  it('a zip batch of the Writer-saved document as jpeg: one A4 JPEG per item', async () => {
    const request = corpusRequest('writer');
    const { res, body } = await submit(
      {
        ...request,
        output: 'zip',
        batch: [
          { template_data: request.template_data, filename: 'one' },
          { template_data: { ...request.template_data, recipient: { name: 'Ada' } }, filename: 'two' },
        ],
        options: { output: 'jpeg', image: { dpi: 48 } },
      },
      'writer',
    );
    expect(res.status).toBe(202);
    const status = await jobFinished<{ status: string }>(api.url, String(body.job_id), 180_000);
    expect(status.status).toBe('completed');
    const zip = new PizZip(await ok(await fetch(`${api.url}/api/v1/jobs/${String(body.job_id)}/result`)));
    expect(Object.keys(zip.files).sort()).toEqual(['one.jpg', 'two.jpg']);
    const [one, two] = ['one.jpg', 'two.jpg'].map((n) => jpeg.decode(zip.file(n)!.asNodeBuffer()));
    for (const image of [one, two]) expect([image.width, image.height]).toEqual([397, 562]);
    // Different data, different pictures: the items were filled each with its own.
    expect(Buffer.compare(Buffer.from(one.data), Buffer.from(two.data))).not.toBe(0);
  });

  it('a merged batch of png: 400 naming output and options.output', async () => {
    const request = corpusRequest('invoice');
    const { res, body } = await submit({
      ...request,
      output: 'merged',
      batch: [{ template_data: request.template_data }],
      options: { output: 'png' },
    });
    expect(res.status).toBe(400);
    expect((body as unknown as ErrorBody).details).toMatchObject({ fields: ['output', 'options.output'] });
  });
});

describe('the command line', () => {
  const run = (...args: string[]) =>
    spawnSync(TSX, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });

  it("OUT.png: the invoice's first page at the dpi REQUEST.json asks; OUT.txt: its text", () => {
    const dir = mkdtempSync(join(work, 'cli-'));
    writeFileSync(join(dir, 'invoice.docx'), corpusTemplate('invoice'));
    writeFileSync(
      join(dir, 'req.json'),
      JSON.stringify({ ...corpusRequest('invoice'), options: { image: { dpi: 48 } } }),
    );
    const png = run(join(dir, 'invoice.docx'), join(dir, 'req.json'), join(dir, 'out.png'));
    expect(png.stderr).toBe('');
    expect(png.status).toBe(0);
    const image = PNG.sync.read(readFileSync(join(dir, 'out.png')));
    // A4 at 48 dpi: 396.9 × 561.3 px, as pdftoppm rounds them.
    expect(Math.abs(image.width - 397)).toBeLessThanOrEqual(1);
    expect(Math.abs(image.height - 561)).toBeLessThanOrEqual(1);
    writeFileSync(join(dir, 'plain.json'), JSON.stringify(corpusRequest('invoice')));
    const txt = run(join(dir, 'invoice.docx'), join(dir, 'plain.json'), join(dir, 'out.txt'));
    expect(txt.status).toBe(0);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8')).toContain('INV-2024-0042');
  });

  it("OUT.html of the Writer-saved document: self-contained; OUT.png of the contract's page 2", () => {
    const dir = mkdtempSync(join(work, 'cli-'));
    writeFileSync(join(dir, 'writer.docx'), corpusTemplate('writer'));
    writeFileSync(join(dir, 'writer.json'), JSON.stringify(corpusRequest('writer')));
    const html = run(join(dir, 'writer.docx'), join(dir, 'writer.json'), join(dir, 'out.html'));
    expect(html.status).toBe(0);
    const page = readFileSync(join(dir, 'out.html'), 'utf8');
    expect(page).toContain('Zoë O’Brien-Müller');
    walk(parse(page) as unknown as Node, (n) => {
      for (const a of n.attrs ?? []) if (a.name === 'src') expect(a.value).toMatch(/^data:image\//);
    });
    writeFileSync(join(dir, 'contract.docx'), corpusTemplate('contract'));
    writeFileSync(
      join(dir, 'contract.json'),
      JSON.stringify({ ...corpusRequest('contract'), options: { image: { pages: '2', dpi: 48 } } }),
    );
    const png = run(join(dir, 'contract.docx'), join(dir, 'contract.json'), join(dir, 'out.png'));
    expect(png.stderr).toBe('');
    expect(png.status).toBe(0);
    const image = PNG.sync.read(readFileSync(join(dir, 'out.png')));
    expect([image.width, image.height]).toEqual([397, 562]);
  });
});
