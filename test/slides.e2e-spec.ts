/**
 * Slide-deck templates (.pptx, issue 41) through the running service. The Impress-written deck
 * (test/fixtures/slides) is filled synchronously to .pptx, PDF and ODP and once as a job; the
 * deck is checked by slide count, each slide's text and pictures per slide, in the .pptx (our
 * reader, readDeck) and in the PDF's pages (pdfinfo, pdftotext and pdfimages per page); the
 * filled .pptx is loaded and saved again by LibreOffice. Hostile decks are refused, typed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import PizZip from 'pizzip';

import { readDeck } from '@app/engine';
import {
  buildService,
  jobFinished,
  ManagedProcess,
  postRender,
  RedisServer,
  type RunningApi,
  solidPng,
  startApi,
  startWorker,
  stopAll,
  testEnv,
} from './service-harness';
import { zipBomb } from './support/hostile-zip';

jest.setTimeout(300_000);

const TEMPLATE = readFileSync(join(__dirname, 'fixtures/slides/deck.impress.pptx'));
const MAX_SLIDES = 12;
const ITEMS = [
  { name: 'Alpha', price: 10, photo: 'red' },
  { name: 'Beta', price: 20, photo: 'blue' },
  { name: 'Gamma', price: 30, photo: 'red' },
];
const DATA = {
  title: 'Quarterly review',
  customer: { name: 'ACME' },
  date: '2026-03-15',
  rows: [
    { name: 'Apples', price: '1.50' },
    { name: 'Pears', price: '2.25' },
  ],
  items: ITEMS,
  closing: true,
};
const IMAGES = {
  red: { data: solidPng(40, 30, [255, 0, 0]) },
  blue: { data: solidPng(20, 50, [0, 0, 255]) },
  logo: { data: solidPng(60, 20, [0, 128, 0]) },
};
const REQUEST = { template_data: DATA, images: IMAGES };

let redis: RedisServer;
let worker: ManagedProcess;
let api: RunningApi;

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, {
    QUEUE_PREFIX: '{slidesvc}',
    JOB_TIMEOUT_MS: '60000',
    MAX_SLIDES_PER_DECK: String(MAX_SLIDES),
  });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
});

afterAll(async () => {
  await stopAll(api, worker, redis);
});

async function render(requestData: object, file: Buffer = TEMPLATE): Promise<Response> {
  return postRender(api.url, { file, filename: 'deck.pptx', request_data: requestData });
}

async function body(res: Response): Promise<Buffer> {
  if (res.status !== 200) throw new Error(`${res.status}: ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

/** A PDF's page count and, per page, its text and the images pdfimages lists on it. */
function pdfPages(pdf: Buffer): { text: string; images: number }[] {
  const dir = mkdtempSync(join(tmpdir(), 'slides-pdf-'));
  const file = join(dir, 'deck.pdf');
  writeFileSync(file, pdf);
  try {
    const info = execFileSync('pdfinfo', [file]).toString('utf8');
    const pages = Number(/^Pages:\s+(\d+)/m.exec(info)![1]);
    return Array.from({ length: pages }, (_, i) => {
      const range = ['-f', String(i + 1), '-l', String(i + 1)];
      const text = execFileSync('pdftotext', [...range, '-enc', 'UTF-8', file, '-']).toString('utf8');
      const list = execFileSync('pdfimages', ['-list', ...range, file]).toString('utf8');
      const images = list
        .split('\n')
        .slice(2)
        .filter((l) => l.trim().split(/\s+/)[2] === 'image').length;
      return { text: text.replace(/\s+/g, ' ').trim(), images };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What every filled deck of DATA says, slide by slide: its text and its pictures. */
const EXPECTED = [
  { text: ['Quarterly review', 'Prepared for ACME on 15 Mar 2026', 'Apples', 'Pears'], pictures: 0 },
  ...ITEMS.map((item, i) => ({
    text: [`Product: ${item.name}`, `Price ${item.price} (${i + 1} of 3)`],
    pictures: 1,
  })),
  { text: ['Thank you, ACME', 'Questions?'], pictures: 1 },
];

it('fills the Impress deck to .pptx: slide count, text, notes and pictures per slide; LibreOffice loads and saves it', async () => {
  const res = await render({ ...REQUEST, options: { output: 'pptx' } });
  const pptx = await body(res);
  expect(res.headers.get('content-type')).toBe(
    'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  );
  const deck = readDeck(pptx);
  expect(deck).toHaveLength(EXPECTED.length);
  EXPECTED.forEach((want, i) => {
    for (const t of want.text) expect(deck[i].paragraphs).toContain(t);
    expect(deck[i].paragraphs.join(' ')).not.toMatch(/\{[{%]|\{%slide/);
    expect(deck[i].pictures).toHaveLength(want.pictures);
  });
  expect(deck.slice(1, 4).map((s) => s.notes)).toEqual(ITEMS.map((it) => [`Speaker notes: ${it.name}`]));
  const zip = new PizZip(pptx);
  ITEMS.forEach((item, i) => {
    const media = zip.file(deck[1 + i].pictures[0].media)!.asNodeBuffer();
    expect(media.equals(Buffer.from(IMAGES[item.photo as 'red' | 'blue'].data, 'base64'))).toBe(true);
  });

  // LibreOffice's round trip: Impress opens the filled deck and writes it again, every slide kept.
  const dir = mkdtempSync(join(tmpdir(), 'slides-roundtrip-'));
  try {
    writeFileSync(join(dir, 'filled.pptx'), pptx);
    const r = spawnSync(
      'soffice',
      [
        `-env:UserInstallation=file://${dir}/profile`,
        '--headless',
        '--convert-to',
        'pptx:Impress MS PowerPoint 2007 XML',
        '--outdir',
        join(dir, 'out'),
        join(dir, 'filled.pptx'),
      ],
      { timeout: 120_000 },
    );
    expect(r.status).toBe(0);
    const again = readDeck(readFileSync(join(dir, 'out', 'filled.pptx')));
    expect(again).toHaveLength(EXPECTED.length);
    EXPECTED.forEach((want, i) => {
      for (const t of want.text) expect(again[i].paragraphs).toContain(t);
      expect(again[i].pictures).toHaveLength(want.pictures);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('fills the deck to PDF through Impress: one page per slide, each with its text and pictures', async () => {
  const res = await render(REQUEST);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  expect(res.headers.get('content-disposition')).toContain('deck.pdf');
  const pages = pdfPages(await body(res));
  expect(pages).toHaveLength(EXPECTED.length);
  EXPECTED.forEach((want, i) => {
    for (const t of want.text) expect(pages[i].text).toContain(t);
    expect(pages[i].images).toBe(want.pictures);
  });
});

it('fills the deck to page images: a ZIP of one PNG per slide', async () => {
  const res = await render({ ...REQUEST, options: { output: 'png', image: { pages: 'all' } } });
  const zip = new PizZip(await body(res));
  expect(Object.keys(zip.files).sort()).toEqual(EXPECTED.map((_, i) => `page-${i + 1}.png`).sort());
  expect(zip.file('page-1.png')!.asNodeBuffer().subarray(1, 4).toString('latin1')).toBe('PNG');
});

it('fills the deck to ODP: an OpenDocument presentation with every slide', async () => {
  const res = await render({ ...REQUEST, options: { output: 'odp' } });
  const odp = new PizZip(await body(res));
  expect(odp.file('mimetype')!.asText()).toBe('application/vnd.oasis.opendocument.presentation');
  const content = odp.file('content.xml')!.asText();
  expect(content.match(/<draw:page\s/g)).toHaveLength(EXPECTED.length);
  for (const item of ITEMS) expect(content).toContain(`Product: ${item.name}`);
});

it('fills the deck as a job: the PDF has one page per slide', async () => {
  const form = new FormData();
  form.append('file', new Blob([TEMPLATE]), 'deck.pptx');
  form.append('request_data', JSON.stringify(REQUEST));
  const res = await fetch(`${api.url}/api/v1/jobs`, { method: 'POST', body: form });
  expect(res.status).toBe(202);
  const { job_id: id } = (await res.json()) as { job_id: string };
  const status = await jobFinished<{ status: string }>(api.url, id, 120_000);
  expect(status.status).toBe('completed');
  const pages = pdfPages(await body(await fetch(`${api.url}/api/v1/jobs/${id}/result`)));
  expect(pages).toHaveLength(EXPECTED.length);
  expect(pages[2].text).toContain('Product: Beta');
});

it('fills the deck on a PowerPoint-written base to PDF: the split tag joined, one page per slide', async () => {
  const powerpoint = readFileSync(join(__dirname, 'fixtures/slides/deck.powerpoint.pptx'));
  const res = await render(
    {
      template_data: {
        title: 'Offer',
        customer: { name: 'ACME' },
        items: ITEMS.slice(0, 2),
        features: [{ name: 'Support', included: 'yes' }],
      },
      images: IMAGES,
    },
    powerpoint,
  );
  const pages = pdfPages(await body(res));
  expect(pages.map((p) => p.images)).toEqual([0, 1, 1, 0]);
  expect(pages[0].text).toContain('For ACME');
  expect(pages[1].text).toContain('Price: 10');
  expect(pages[2].text).toContain('Beta');
  expect(pages[3].text).toContain('Support yes');
});

it('lints and inspects a deck over HTTP, and a render with linter_options answers its report', async () => {
  const lintForm = new FormData();
  lintForm.append('document', new Blob([TEMPLATE]), 'deck.pptx');
  lintForm.append('options', JSON.stringify({ response_format: 'json', verbose: true }));
  const lint = await fetch(`${api.url}/api/v1/lint-docx-template`, { method: 'POST', body: lintForm });
  expect(lint.status).toBe(200);
  const report = (await lint.json()) as {
    success: boolean;
    tags: { tag: string; location: { slide?: number; table?: unknown } }[];
  };
  expect(report.success).toBe(true);
  expect(report.tags.find((t) => t.tag === '{{ row.price }}')!.location).toMatchObject({
    slide: 1,
    table: { table: 1, row: 3, cell: 2 },
  });

  const inspectForm = new FormData();
  inspectForm.append('file', new Blob([TEMPLATE]), 'deck.pptx');
  const inspect = await fetch(`${api.url}/api/v1/inspect-template`, { method: 'POST', body: inspectForm });
  expect(inspect.status).toBe(200);
  const inspection = (await inspect.json()) as { loops: { iterable: string; placement: string }[] };
  expect(inspection.loops.map((l) => [l.iterable, l.placement])).toEqual([
    ['rows', 'tr'],
    ['items', 'slide'],
  ]);

  // A broken deck with linter_options: the lint report instead of a render, located by slide.
  const zip = new PizZip(TEMPLATE);
  const slide3 = zip.file('ppt/slides/slide3.xml')!.asText();
  expect(slide3).toContain('{%p endif %}');
  zip.file('ppt/slides/slide3.xml', slide3.replace('{%p endif %}', 'the end'));
  const res = await render(
    { ...REQUEST, linter_options: { enabled: true, response_format: 'json' } },
    zip.generate({ type: 'nodebuffer' }),
  );
  expect(res.status).toBe(200);
  const failed = (await res.json()) as {
    status: string;
    linting_results: { errors: { code: string; tag: string; location: { slide?: number } }[] };
  };
  expect(failed.status).toBe('template_validation_failed');
  expect(failed.linting_results.errors).toEqual([
    expect.objectContaining({
      code: 'unclosed_block',
      tag: '{%p if closing %}',
      location: expect.objectContaining({ slide: 3, part: 'ppt/slides/slide3.xml' }),
    }),
  ]);
});

it("fills a batch of decks merged into one PDF: every item's slides in order", async () => {
  const form = new FormData();
  form.append('file', new Blob([TEMPLATE]), 'deck.pptx');
  form.append(
    'request_data',
    JSON.stringify({
      images: IMAGES,
      output: 'merged',
      batch: [
        { template_data: { ...DATA, items: ITEMS.slice(0, 1) } },
        { template_data: { ...DATA, items: ITEMS.slice(1, 3) } },
      ],
    }),
  );
  const res = await fetch(`${api.url}/api/v1/jobs`, { method: 'POST', body: form });
  expect(res.status).toBe(202);
  const { job_id: id } = (await res.json()) as { job_id: string };
  const status = await jobFinished<{ status: string }>(api.url, id, 120_000);
  expect(status.status).toBe('completed');
  const pages = pdfPages(await body(await fetch(`${api.url}/api/v1/jobs/${id}/result`)));
  expect(pages.map((p) => /Product: (\w+)/.exec(p.text)?.[1] ?? null)).toEqual([
    null,
    'Alpha',
    null,
    null,
    'Beta',
    'Gamma',
    null,
  ]);
});

/** The fixture declared macro-enabled (.pptm). */
function pptm(): Buffer {
  const zip = new PizZip(TEMPLATE);
  const types = zip.file('[Content_Types].xml')!.asText();
  zip.file(
    '[Content_Types].xml',
    types.replace(
      'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
      'application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml',
    ),
  );
  return zip.generate({ type: 'nodebuffer' });
}

it.each([
  [
    'a zip bomb declaring 400 MB',
    () => [zipBomb(400e6, TEMPLATE, 'ppt/media/filler.bin'), REQUEST],
    413,
    'payload_too_large',
  ],
  ['a macro-enabled deck (.pptm)', () => [pptm(), REQUEST], 400, 'invalid_template'],
  [
    `a slide loop past MAX_SLIDES_PER_DECK (${MAX_SLIDES})`,
    () => [
      TEMPLATE,
      { ...REQUEST, template_data: { ...DATA, items: Array.from({ length: MAX_SLIDES }, () => ITEMS[0]) } },
    ],
    413,
    'payload_too_large',
  ],
  [
    'a picture key that is not a PNG',
    () => [
      TEMPLATE,
      { ...REQUEST, images: { ...IMAGES, red: { data: Buffer.from('GIF89a....').toString('base64') } } },
    ],
    400,
    'image_processing_error',
  ],
  [
    'a Word-only PDF option',
    () => [TEMPLATE, { ...REQUEST, options: { pdf: { pdfua: true } } }],
    400,
    'invalid_request_structure',
  ],
  [
    'a Word-only output',
    () => [TEMPLATE, { ...REQUEST, options: { output: 'docx' } }],
    400,
    'invalid_request_structure',
  ],
] as const)('refuses %s', async (_what, make, status, errorType) => {
  const [file, request] = make() as [Buffer, object];
  const res = await render(request, file);
  const answer = await res.text();
  expect([res.status, answer]).toEqual([status, expect.any(String)]);
  expect(answer).toContain(`"${errorType}"`);
});
