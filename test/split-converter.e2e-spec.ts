import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import PizZip from 'pizzip';

import {
  ConversionBudgetError,
  SplittingConverter,
  type ConvertOptions,
  type LibreOfficePool,
  type PartResult,
} from '@app/converters';
import { pdfPageCount } from './support/converter-fixtures';
import { buildDocx, table } from './support/docx-builder';

/** What the pool is asked to convert of a part (libs/converters' own type, not exported). */
type PartRequest = Parameters<LibreOfficePool['convertPart']>[2];
/** The custom document property each part's "of N" reads (docs/conversion.md, split conversion). */
const TOTAL_PAGES_PROPERTY = 'DocgenTotalPages';

/*
 * The parted conversion's bookkeeping against a pool that lays pages out by rule: ROWS_PER_PAGE
 * one-line rows a page, the whole document's pages starting at rows 0, 50, 100, … The real
 * LibreOffice cases (where pages break, what they look like) are test/split-conversion.e2e-spec.ts;
 * here a part's layout can be made to waver, which LibreOffice does too rarely to test.
 */
const ROWS_PER_PAGE = 50;
const ROWS = 200;

/** A statement-like document: a paragraph, ROWS rows of a table without a style, "Page X of Y". */
function statement(count = ROWS): Buffer {
  const rows = Array.from({ length: count }, (_, i) => [`r${i}`, `${i * 10}`]);
  const docx = buildDocx({
    body: ['Statement', table(rows), 'Closing balance'],
    footer: [{ runs: ['Page ', { field: 'PAGE', result: '1' }, ' of ', { field: 'NUMPAGES', result: '1' }] }],
  });
  // As the engine hands it over: the table style resolved into direct formatting.
  const zip = new PizZip(docx);
  const xml = zip.file('word/document.xml')!.asText();
  zip.file('word/document.xml', xml.replace(/<w:tblStyle [^>]*\/>/, ''));
  return zip.generate({ type: 'nodebuffer' });
}

/** A valid PDF of `pages` empty pages (qpdf joins the parts, for real). */
function pdfOf(pages: number, dir: string): Buffer {
  const out = join(dir, `p${pages}-${Math.random().toString(36).slice(2)}.pdf`);
  const one = join(dir, 'one.pdf');
  const page = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>';
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', page];
  let body = '%PDF-1.4\n';
  const offsets = objects.map((o, i) => {
    const at = body.length;
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
    return at;
  });
  const xref = body.length;
  body +=
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  writeFileSync(one, body);
  execFileSync('qpdf', ['--empty', '--pages', ...Array<string>(pages).fill(one), '--', out]);
  return readFileSync(out);
}

interface Call {
  start: number;
  end: number;
  total?: number;
  last: boolean;
}

/** What a part's docx holds: its first own row (after the lead rows), its end, the total it shows. */
function partOf(docx: Buffer, part: PartRequest): Call {
  const zip = new PizZip(docx);
  const rows = [
    ...zip
      .file('word/document.xml')!
      .asText()
      .matchAll(/>r(\d+)</g),
  ].map((m) => Number(m[1]));
  const custom = zip.file('docProps/custom.xml')?.asText() ?? '';
  const total = new RegExp(`name="${TOTAL_PAGES_PROPERTY}"[^>]*>\\s*<vt:\\w+>(\\d+)<`).exec(custom)?.[1];
  return {
    start: rows[part.lead],
    end: rows[rows.length - 1] + 1,
    total: total === undefined ? undefined : Number(total),
    last: part.last,
  };
}

/**
 * A pool that lays parts out by the rule above; `waver(call, n)` may change the layout of the
 * n-th conversion (from 1) of the same part with the same total.
 */
function rulePool(dir: string, waver: (call: Call, n: number) => Partial<PartResult> = () => ({})) {
  const calls: Call[] = [];
  const wholes: Buffer[] = [];
  const pool = {
    name: 'libreoffice',
    capacity: 2,
    conversionTimeoutMs: 30_000,
    workParent: dir,
    setup: 'rule pool',
    async convertPart(docx: Buffer, _options: ConvertOptions, part: PartRequest): Promise<PartResult> {
      const call = partOf(docx, part);
      calls.push(call);
      const n = calls.filter(
        (c) => c.start === call.start && c.end === call.end && c.total === call.total,
      ).length;
      const rows = call.end - call.start;
      const layout = call.last
        ? { pages: Math.ceil(rows / ROWS_PER_PAGE) }
        : {
            pages: Math.floor((rows - 1) / ROWS_PER_PAGE),
            cutRow: Math.floor((rows - 1) / ROWS_PER_PAGE) * ROWS_PER_PAGE,
            rowsPerPage: ROWS_PER_PAGE,
          };
      const result = { ...layout, ...waver(call, n) };
      return { ...result, pdf: pdfOf(result.pages ?? 0, dir) };
    },
    async convert(docx: Buffer): Promise<Buffer> {
      wholes.push(docx);
      return pdfOf(Math.ceil(ROWS / ROWS_PER_PAGE), dir);
    },
  };
  return { pool: pool as unknown as LibreOfficePool, calls, wholes };
}

describe('SplittingConverter: a part converted again with the page count', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'split-spec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const settings = { minRows: 100, partPages: 10 };

  it('joins the parts when every conversion lays them out alike', async () => {
    const { pool, calls, wholes } = rulePool(dir);
    const converter = new SplittingConverter(pool, settings);
    const pdf = await converter.convert(statement());
    expect(pdfPageCount(pdf)).toBe(ROWS / ROWS_PER_PAGE);
    expect(wholes).toHaveLength(0);
    expect(converter.counts).toEqual({ split: 1, parts: 2, fellBack: 0 });
    // The first part was converted before the total was known, then once again with it.
    expect(calls.filter((c) => c.start === 0).map((c) => c.total)).toEqual([undefined, 4]);
  });

  it('converts a part once more when its layout wavered, and still joins the parts', async () => {
    // The first part's conversion with the total breaks one page later, the next one as before.
    const { pool, calls, wholes } = rulePool(dir, (call, n) =>
      call.start === 0 && call.total !== undefined && n === 1 ? { pages: 1, cutRow: 50 } : {},
    );
    const converter = new SplittingConverter(pool, settings);
    const pdf = await converter.convert(statement());
    expect(pdfPageCount(pdf)).toBe(4);
    expect(wholes).toHaveLength(0);
    expect(converter.counts).toEqual({ split: 1, parts: 2, fellBack: 0 });
    expect(calls.filter((c) => c.start === 0).map((c) => c.total)).toEqual([undefined, 4, 4]);
  });

  it('converts the document whole when the total breaks the part differently every time', async () => {
    const logged: string[] = [];
    const { pool, calls, wholes } = rulePool(dir, (call) =>
      call.start === 0 && call.total !== undefined ? { pages: 1, cutRow: 50 } : {},
    );
    const converter = new SplittingConverter(pool, settings, (m) => logged.push(m));
    const pdf = await converter.convert(statement());
    expect(pdfPageCount(pdf)).toBe(4);
    expect(wholes).toHaveLength(1);
    expect(converter.counts).toEqual({ split: 0, parts: 0, fellBack: 1 });
    expect(calls.filter((c) => c.start === 0).map((c) => c.total)).toEqual([undefined, 4, 4]);
    expect(logged.join('\n')).toMatch(/rows 0–\d+ broke differently with the page count/);
  });
});

describe('SplittingConverter: a part laid out with no page that starts at a row', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'split-spec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const settings = { minRows: 100, partPages: 10 };
  const noCut = { cutRow: undefined, rowsPerPage: undefined };

  it('converts it once more, and joins the parts when that one has its cut', async () => {
    const { pool, calls, wholes } = rulePool(dir, (call, n) =>
      call.start === 0 && call.total === undefined && n === 1 ? noCut : {},
    );
    const converter = new SplittingConverter(pool, settings);
    const pdf = await converter.convert(statement());
    expect(pdfPageCount(pdf)).toBe(4);
    expect(wholes).toHaveLength(0);
    expect(converter.counts).toEqual({ split: 1, parts: 2, fellBack: 0 });
    expect(calls.filter((c) => c.start === 0 && c.total === undefined)).toHaveLength(2);
  });

  it('converts the document whole when the second conversion has no cut either', async () => {
    const logged: string[] = [];
    const { pool, calls, wholes } = rulePool(dir, (call) =>
      call.start === 0 && call.total === undefined ? noCut : {},
    );
    const converter = new SplittingConverter(pool, settings, (m) => logged.push(m));
    const pdf = await converter.convert(statement());
    expect(pdfPageCount(pdf)).toBe(4);
    expect(wholes).toHaveLength(1);
    expect(converter.counts).toEqual({ split: 0, parts: 0, fellBack: 1 });
    expect(calls.filter((c) => c.start === 0)).toHaveLength(2);
    expect(logged.join('\n')).toMatch(/no page of rows 0–\d+ starts at a row boundary/);
  });
});

describe('SplittingConverter: rows that break across pages', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'split-spec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /*
   * Two-line rows as LibreOffice lays out the `breaking` shape (test/support/statement-shapes.ts):
   * 53 rows on every two pages, a row broken across every other page's top, so a part is cut
   * only at an even page and the next one needs its lead rows 1757 (1/100 mm) down their page.
   */
  const PAIR_ROWS = 53;
  const LEAD_TOP = 1757;
  /** `waver(call, n)` may change the layout of the n-th conversion (from 1) of the same part with the same total. */
  function breakingPool(waver: (call: Call, n: number) => Partial<PartResult> = () => ({})) {
    const calls: Array<Call & { leadTop?: number }> = [];
    const wholes: Buffer[] = [];
    const pool = {
      name: 'libreoffice',
      capacity: 2,
      conversionTimeoutMs: 30_000,
      workParent: dir,
      setup: 'breaking pool',
      async convertPart(docx: Buffer, _options: ConvertOptions, part: PartRequest): Promise<PartResult> {
        const call = { ...partOf(docx, part), leadTop: part.leadTop };
        calls.push(call);
        const rows = call.end - call.start;
        // Lead rows at the top of their page lay the page after out otherwise: no cut found.
        if (part.lead > 0 && part.leadTop !== LEAD_TOP) return { pages: null, pdf: Buffer.alloc(0) };
        const pairs = Math.floor((rows - 1) / PAIR_ROWS);
        const n = calls.filter((c) => c.start === call.start && c.total === call.total).length;
        const layout = {
          ...(call.last
            ? { pages: Math.ceil((rows * 2) / PAIR_ROWS) }
            : { pages: 2 * pairs, cutRow: pairs * PAIR_ROWS, rowsPerPage: 26, leadTop: LEAD_TOP }),
          ...waver(call, n),
        };
        return { ...layout, pdf: pdfOf(layout.pages ?? 0, dir) };
      },
      async convert(docx: Buffer): Promise<Buffer> {
        wholes.push(docx);
        return pdfOf(1, dir);
      },
    };
    return { pool: pool as unknown as LibreOfficePool, calls, wholes };
  }

  // A part laid out otherwise in one conversion, as LibreOffice 25.2 once did (bench/README.md, issue 34).
  const OTHERWISE = { cutRow: 238, pages: 9, leadTop: LEAD_TOP + 1 };

  it('converts a part cut otherwise than the others once more, and keeps the cut they share', async () => {
    const { pool, calls, wholes } = breakingPool((call, n) =>
      call.start === 530 && n === 1 ? OTHERWISE : {},
    );
    const converter = new SplittingConverter(pool, { minRows: 100, partPages: 10 });
    const pdf = await converter.convert(statement(1_000));
    expect(wholes).toHaveLength(0);
    expect(converter.counts).toEqual({ split: 1, parts: 5, fellBack: 0 });
    expect(pdfPageCount(pdf)).toBe(4 + 3 * 8 + 10);
    expect([...new Set(calls.map((c) => c.start))].sort((a, b) => a - b)).toEqual([0, 106, 318, 530, 742]);
    expect(calls.filter((c) => c.start === 530).length).toBeGreaterThanOrEqual(2);
  });

  it('keeps a cut that two conversions agree on, though the other parts were cut otherwise', async () => {
    // (Its lead as far down as the others', so that the next part, which starts with it, finds its own cut.)
    const { pool, calls, wholes } = breakingPool((call) =>
      call.start === 530 ? { cutRow: 238, pages: 9 } : {},
    );
    const converter = new SplittingConverter(pool, { minRows: 100, partPages: 10 });
    await converter.convert(statement(1_000));
    expect(wholes).toHaveLength(0);
    expect(converter.counts.split).toBe(1);
    // The part after it starts where the two conversions cut it.
    expect(calls.some((c) => c.start === 530 + 238)).toBe(true);
    // Converted twice with the same page count: the two agreed, so no third conversion.
    const at530 = calls.filter((c) => c.start === 530);
    expect(at530.filter((c) => c.total === at530[0].total)).toHaveLength(2);
  });

  it('converts the document whole when two conversions of a part disagree and neither is cut as the others', async () => {
    const { pool, wholes } = breakingPool((call, n) =>
      call.start === 530 ? (n === 1 ? OTHERWISE : { ...OTHERWISE, cutRow: 186, pages: 7 }) : {},
    );
    const logged: string[] = [];
    const converter = new SplittingConverter(pool, { minRows: 100, partPages: 10 }, (m) => logged.push(m));
    await converter.convert(statement(1_000));
    expect(wholes).toHaveLength(1);
    expect(converter.counts).toEqual({ split: 0, parts: 0, fellBack: 1 });
    expect(logged.join('\n')).toMatch(/rows 530–\d+ were laid out otherwise in two conversions/);
  });

  it('converts the next part where the last was cut, ahead of the chain, and never a part it drops', async () => {
    const { pool, calls } = breakingPool();
    const converter = new SplittingConverter(pool, { minRows: 100, partPages: 10 });
    const pdf = await converter.convert(statement(1_000));
    expect(converter.counts).toEqual({ split: 1, parts: 5, fellBack: 0 });
    // 106 rows on the first 4 pages, then 212 on 8 a part, the last 258 rows on 10 pages.
    const starts = [0, 106, 318, 530, 742];
    expect(pdfPageCount(pdf)).toBe(4 + 3 * 8 + 10);
    // Every conversion was of a part the chain kept (again at most with the page count): the
    // speculative ones started where the chain then asked, with the same lead height.
    expect([...new Set(calls.map((c) => c.start))].sort((a, b) => a - b)).toEqual(starts);
    expect(calls.filter((c) => c.start > 0).every((c) => c.leadTop === LEAD_TOP)).toBe(true);
    // The parts after the second were predicted with the right page count: converted once each.
    for (const start of starts.slice(2)) expect(calls.filter((c) => c.start === start)).toHaveLength(1);
  });
});

describe('SplittingConverter: a whole conversion predicted beyond its time (conversion-budget.ts)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'split-spec-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** ROWS rows whose first cells are merged down pairs of rows: never split. */
  function merged(): Buffer {
    const zip = new PizZip(statement());
    let i = 0;
    const xml = zip
      .file('word/document.xml')!
      .asText()
      .replace(/<w:tcPr>/g, (open) => `${open}${i++ % 4 === 0 ? '<w:vMerge w:val="restart"/>' : ''}`);
    zip.file('word/document.xml', xml);
    return zip.generate({ type: 'nodebuffer' });
  }

  it('refuses before the pool converts anything, saying why the document goes whole', async () => {
    const logged: string[] = [];
    const { pool, calls, wholes } = rulePool(dir);
    // A machine 100 times slower than the calibration's: the 200 rows predicted at ~30 s.
    const converter = new SplittingConverter(pool, { minRows: 100, partPages: 10 }, (m) => logged.push(m), {
      scalePercent: 10_000,
    });
    const refused = converter.convert(merged(), { timeoutMs: 5_000, jobId: 'req-7' });
    await expect(refused).rejects.toBeInstanceOf(ConversionBudgetError);
    await expect(refused).rejects.toMatchObject({
      errorType: 'payload_too_large',
      details: {
        reason: 'conversion_budget',
        whole_because: 'its long table has cells merged down rows (vertical merges)',
        timeout_ms: 5_000,
        jobId: 'req-7',
      },
    });
    expect([calls.length, wholes.length]).toEqual([0, 0]);
    expect(logged.join('\n')).toMatch(/^refusing req-7: The filled document must be converted whole because/);
    // With the time it needs, the same document is converted whole.
    await converter.convert(merged(), { timeoutMs: 60_000 });
    expect(wholes).toHaveLength(1);
  });

  it('says when split conversion is off, and never refuses at scale 0', async () => {
    const { pool, wholes } = rulePool(dir);
    const off = new SplittingConverter(pool, { minRows: 0, partPages: 10 }, undefined, {
      scalePercent: 10_000,
    });
    await expect(off.convert(statement(), { timeoutMs: 5_000 })).rejects.toMatchObject({
      details: { whole_because: 'split conversion is off (SPLIT_MIN_ROWS 0)' },
    });
    const unchecked = new SplittingConverter(pool, { minRows: 0, partPages: 10 }, undefined, {
      scalePercent: 0,
    });
    await unchecked.convert(statement(), { timeoutMs: 5_000 });
    expect(wholes).toHaveLength(1);
  });

  it('checks the time left when split conversion gives up, and says why it gave up', async () => {
    const { pool, wholes } = rulePool(dir, (call) =>
      call.start === 0 && call.total !== undefined ? { pages: 1, cutRow: 50 } : {},
    );
    const converter = new SplittingConverter(pool, { minRows: 100, partPages: 10 }, undefined, {
      scalePercent: 10_000,
    });
    await expect(converter.convert(statement(), { timeoutMs: 10_000 })).rejects.toMatchObject({
      details: {
        reason: 'conversion_budget',
        whole_because: expect.stringMatching(/^split conversion gave up \(rows 0–\d+ broke differently/),
      },
    });
    expect(wholes).toHaveLength(0);
    expect(converter.counts.fellBack).toBe(1);
  });
});
