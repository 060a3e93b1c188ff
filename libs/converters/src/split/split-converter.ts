/**
 * Long tables converted in parts, on the pool's instances at once, and joined.
 *
 * LibreOffice's time on a long table grows faster than its pages (7.4: 0.8 s for 510 rows of the
 * corpus invoice, 2 s for 1,020, minutes for 10,000; docs/conversion.md). A part of about
 * `partPages` pages costs what a short document costs, so a 10,000-row statement becomes twenty
 * short conversions instead of one long one.
 *
 * The parts must print the pages the whole document would. A page's layout depends only on where
 * it starts, so each part starts where a page of the whole document starts:
 *   - the first part starts the document; the bridge lays it out, finds the first row of the last
 *     page its rows reach (a row that starts that page, the row before ending on the page before),
 *     and exports only the pages before it: those are the whole document's first pages;
 *   - the next part starts at that row, with the page number the whole document shows there
 *     (`w:pgNumType`), and so on; the last part takes the rest and what follows the table;
 *   - NUMPAGES ("of Y") is the whole document's count, known only at the end: parts are converted
 *     with a prediction, and any whose prediction was wrong are converted again with the count.
 * That chain is sequential; to use the other instances, the parts after the current one are
 * converted speculatively where rows per page predict them to start (statements' rows are
 * mostly one line high). A speculative part whose start or page number turns out wrong is
 * dropped, so a misprediction costs time, never a wrong page.
 *
 * Rows may break across pages: a cut is made only where a page starts at a row, and when the page
 * before it starts inside a row the next part's lead rows are put where the whole document has
 * them by a spacer (`leadTop`, the bridge's place_lead). Several long tables are one run of rows
 * (planParts); a part that reaches into the next one is cut in it.
 *
 * Anything a part cannot reproduce (planParts' refusals, PDF/A or PDF/UA output, page ranges, a
 * part with no page that starts at a row) is converted whole, as before.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { ConversionFailedError } from '../errors';
import type { PartRequest } from '../libreoffice-instance';
import type { LibreOfficePool, PartResult } from '../libreoffice-pool';
import type { ConvertOptions, ConverterHealth, ConverterStats, PdfConverter } from '../pdf-converter';
import type { ExportTarget } from '../pdf-options';
import { BUDGET_DEFAULTS, type BudgetSettings, wholeConversionRefusal } from './conversion-budget';
import { isWholeReason, planPartsOrWhy, type PartSpec, type SplitPlan, type WholeReason } from './docx-parts';
import { withSpan } from '@app/telemetry';

const run = promisify(execFile);

export interface SplitSettings {
  /** Data rows from which a table's document is converted in parts (SPLIT_MIN_ROWS); 0: never. */
  minRows: number;
  /** Pages each part aims at (SPLIT_PART_PAGES). */
  partPages: number;
}

export const SPLIT_DEFAULTS: SplitSettings = {
  /**
   * Below this a whole conversion is as fast or faster: each part pays for loading the document
   * and laying its pages out, which on 2 instances a short table does not win back. LibreOffice
   * 25.2, this project's 2-core machine, the corpus statement whole against in parts: 2,000 rows
   * 2.17 against 2.34 s, 3,000 rows 6.96 against 2.84 s, 10,000 rows 50.7 against 9.9 s; the
   * 500-row invoice 0.45 against 0.78 s.
   */
  minRows: 2_500,
  /** 10 pages: ~0.8 s a part on the corpus invoice; halving it adds per-part overhead, doubling it the super-linear cost. */
  partPages: 10,
};

/**
 * Rows the first part takes before any page's row count is known: about three pages of one-line
 * rows, so the count is known early and the rest can be shared among the instances.
 */
const FIRST_PART_ROWS = 120;
/** Pages a part holds at the least: each part pays for loading the document's styles and fonts. */
const MIN_PART_PAGES = 2;
/** Lead rows when no page's row count is known; corrected by the bridge's leadShift. */
const DEFAULT_LEAD = 40;
/** Attempts at a lead that ends the first page right before the part's own rows. */
const MAX_LEAD_TRIES = 4;

/** PDF options under which parts cannot be joined into the same file. */
function joinable(options: ConvertOptions): boolean {
  const pdf = options.pdf ?? {};
  return !pdf.pdfa && !pdf.facturx && !pdf.pdfua && pdf.page_ranges === undefined;
}

function key(spec: PartSpec): string {
  return `${spec.start}:${spec.end}:${spec.lead}:${spec.leadTop ?? ''}:${spec.pageNumber}:${spec.totalPages ?? ''}`;
}

interface Task {
  spec: PartSpec;
  result: Promise<PartResult>;
}

interface Accepted {
  spec: PartSpec;
  result: PartResult;
}

/** Whether a part converted again laid its pages out otherwise than its first conversion. */
function brokeDifferently(again: PartResult, first: PartResult): boolean {
  return (
    Boolean(again.leadShift) ||
    again.pages !== first.pages ||
    (again.cutRow ?? null) !== (first.cutRow ?? null)
  );
}

/** A part cut where `cut` says the part before was: as many rows, pages, and the lead as far down. */
function cutAs(result: PartResult, cut: { rows: number; pages: number; leadTop?: number }): boolean {
  return (
    result.cutRow === cut.rows && result.pages === cut.pages && (result.leadTop ?? undefined) === cut.leadTop
  );
}

/** Thrown inside a run when the document must be converted whole after all. */
class Unsplittable extends Error {}

/** The pool, converting long tables in parts (see above); everything else goes to the pool as it is. */
export class SplittingConverter implements PdfConverter {
  readonly name: string;
  readonly capacity: number;
  /** Documents converted in parts, and those planned for parts that went whole after all. */
  readonly counts = { split: 0, parts: 0, fellBack: 0 };

  constructor(
    private readonly pool: LibreOfficePool,
    private readonly settings: SplitSettings = SPLIT_DEFAULTS,
    private readonly log: (message: string) => void = () => undefined,
    private readonly budget: BudgetSettings = BUDGET_DEFAULTS,
  ) {
    this.name = pool.name;
    this.capacity = pool.capacity;
  }

  get setup(): string {
    const split =
      this.settings.minRows > 0
        ? `tables from ${this.settings.minRows} rows in parts of ${this.settings.partPages} pages`
        : 'no split conversion';
    const budget =
      this.budget.scalePercent > 0
        ? `whole conversions predicted beyond their time refused (predictions at ${this.budget.scalePercent}%)`
        : 'no conversion budget';
    return `${this.pool.setup}, ${split}, ${budget}`;
  }

  /** Other formats than PDF go whole, on the pool (outputs/document-formats.ts): nothing to split. */
  convertTo(docx: Buffer, target: ExportTarget, options: ConvertOptions = {}): Promise<Buffer> {
    return this.pool.convertTo(docx, target, options);
  }

  async convert(docx: Buffer, options: ConvertOptions = {}): Promise<Buffer> {
    const plan: SplitPlan | WholeReason =
      this.settings.minRows <= 0
        ? { short: false, reason: 'split conversion is off (SPLIT_MIN_ROWS 0)' }
        : !joinable(options)
          ? {
              short: false,
              reason: 'its PDF options (PDF/A, PDF/UA, Factur-X or page ranges) need one conversion',
            }
          : planPartsOrWhy(docx, { minRows: this.settings.minRows });
    if (isWholeReason(plan)) {
      const why = plan.short ? `${plan.reason} (SPLIT_MIN_ROWS)` : plan.reason;
      this.refuseBeyondBudget(
        docx,
        options,
        options.timeoutMs ?? this.pool.conversionTimeoutMs,
        why,
        plan.documentXml,
      );
      return this.pool.convert(docx, options);
    }
    const deadline = Date.now() + (options.timeoutMs ?? this.pool.conversionTimeoutMs);
    try {
      const { pdf, parts } = await new PartedConversion(
        this.pool,
        plan,
        options,
        this.settings.partPages,
        deadline,
      ).run();
      this.counts.split++;
      this.counts.parts += parts;
      return pdf;
    } catch (e) {
      // A part that ran out of time ran out of the whole conversion's time: say that limit, not
      // what was left of it when the part started.
      if (e instanceof ConversionFailedError && e.details?.reason === 'timeout')
        throw timeoutError(options, this.pool.conversionTimeoutMs);
      if (!(e instanceof Unsplittable)) throw e;
      this.counts.fellBack++;
      this.log(`converting ${options.jobId ?? 'a document'} whole: ${e.message}`);
      const timeoutMs = deadline - Date.now();
      if (timeoutMs <= 0) throw timeoutError(options, this.pool.conversionTimeoutMs);
      this.refuseBeyondBudget(docx, options, timeoutMs, `split conversion gave up (${e.message})`);
      return this.pool.convert(docx, { ...options, timeoutMs });
    }
  }

  /** Throws the typed 413 when converting `docx` whole is predicted far beyond `timeoutMs` (conversion-budget.ts). */
  private refuseBeyondBudget(
    docx: Buffer,
    options: ConvertOptions,
    timeoutMs: number,
    why: string,
    documentXml?: string,
  ): void {
    const refusal = wholeConversionRefusal(
      docx,
      { timeoutMs, why, background: options.background, jobId: options.jobId, documentXml },
      this.budget,
    );
    if (!refusal) return;
    this.log(`refusing ${options.jobId ?? 'a document'}: ${refusal.message}`);
    throw refusal;
  }

  /** The pool's start(): resolves when its instances have started. */
  start(): Promise<void> {
    return this.pool.start();
  }

  health(): Promise<ConverterHealth> {
    return this.pool.health();
  }

  stats(): ConverterStats {
    return this.pool.stats();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function timeoutError(options: ConvertOptions, timeoutMs: number): ConversionFailedError {
  return new ConversionFailedError(
    `LibreOffice did not finish the conversion within ${options.timeoutMs ?? timeoutMs} ms`,
    {
      backend: 'libreoffice',
      reason: 'timeout',
      timeoutMs: options.timeoutMs ?? timeoutMs,
      ...(options.jobId ? { jobId: options.jobId } : {}),
    },
  );
}

/** A part's layout has a page that starts at a row after the first: where the next part starts. */
type CutResult = PartResult & { cutRow: number; pages: number };

function hasCut(result: PartResult): result is CutResult {
  return result.cutRow != null && result.cutRow > 0 && Boolean(result.pages);
}

class PartedConversion {
  private readonly tasks = new Map<string, Task>();
  /** Rows on a full page, once a part has shown one. */
  private rowsPerPage?: number;
  /** Rows and pages of the parts after the first (table pages only): rows per page on average. */
  private tableRows = 0;
  private tablePages = 0;
  /** Rows a part after the first takes, fixed once rowsPerPage is known (speculation depends on it). */
  private perPart?: number;
  /**
   * How the last part after the first was cut: where its successor started, on which page, with
   * which lead. Rows that break across pages repeat a pattern of pages (two-line rows: 212 rows
   * on 8 pages, the next part's lead 1757 down its page), so the next part is predicted to be
   * cut the same way, and converted while the current one is (speculate).
   */
  private lastCut?: { rows: number; pages: number; rowsPerPage: number; leadTop?: number };

  constructor(
    private readonly pool: LibreOfficePool,
    private readonly plan: SplitPlan,
    private readonly options: ConvertOptions,
    private readonly partPages: number,
    private readonly deadline: number,
  ) {}

  /** The joined PDF, and how many parts it was joined from. */
  async run(): Promise<{ pdf: Buffer; parts: number }> {
    try {
      const accepted = await this.chain();
      const total = accepted.reduce((n, a) => n + a.result.pages!, 0);
      const final = this.plan.showsTotal ? await this.withTotal(accepted, total) : accepted;
      return { pdf: await this.join(final.map((a) => a.result.pdf)), parts: final.length };
    } finally {
      // Speculative parts nobody needed: their answers are dropped, and so are their failures.
      for (const task of this.tasks.values()) task.result.catch(() => undefined);
    }
  }

  /** The parts, each starting where the one before found its cut. */
  private async chain(): Promise<Accepted[]> {
    const rows = this.plan.rows;
    const accepted: Accepted[] = [];
    let start = 0;
    let pages = 0;
    let lead = 0;
    let leadTop: number | undefined;
    for (;;) {
      let spec = this.specAt(start, pages, lead, leadTop);
      this.speculate(spec, pages);
      let result = await this.ensure(spec).result;
      for (let tries = 1; result.leadShift; tries++) {
        // The rows before the part filled its first page differently: fill it again.
        lead = spec.lead + result.leadShift;
        if (tries > MAX_LEAD_TRIES || lead < 1 || lead > this.rowsAbove(start) || leadTop !== undefined) {
          throw new Unsplittable(`no lead of rows puts row ${start} at the top of a page`);
        }
        spec = this.specAt(start, pages, lead);
        this.speculate(spec, pages);
        result = await this.ensure(spec).result;
      }
      if (spec.end === rows) {
        if (!result.pages) throw new Unsplittable('the last part has no pages');
        accepted.push({ spec, result });
        return accepted;
      }
      if (!hasCut(result)) {
        // Once more before going whole: LibreOffice 25.2 has laid out the same part with no page
        // that starts at a row and, converted again, with one (the 10,000-row `breaking`
        // statement: 3 runs of 10 went whole so, in ~110 s against ~18 s in parts; bench/README.md,
        // issue 34).
        result = await this.start(spec).result;
        if (!hasCut(result) || result.leadShift) {
          throw new Unsplittable(`no page of rows ${spec.start}–${spec.end} starts at a row boundary`);
        }
      }
      const cutResult = await this.steadyCut(spec, result);
      if (cutResult.rowsPerPage) this.rowsPerPage = cutResult.rowsPerPage;
      if (spec.start > 0) {
        this.tableRows += cutResult.cutRow;
        this.tablePages += cutResult.pages;
        this.lastCut = {
          rows: cutResult.cutRow,
          pages: cutResult.pages,
          rowsPerPage: cutResult.rowsPerPage ?? this.rowsPerPage ?? DEFAULT_LEAD,
          ...(cutResult.leadTop != null ? { leadTop: cutResult.leadTop } : {}),
        };
      }
      accepted.push({ spec, result: cutResult });
      start = this.plan.partTables(spec).cutOrigin + cutResult.cutRow;
      if (this.rowsPerPage) this.perPart ??= this.partRows(start, this.rowsPerPage);
      pages += cutResult.pages;
      // The next part's first page, not exported, holds the rows of the page before it, where
      // they stand on that page when it does not start at a row (a row broken across its top).
      lead = Math.min(this.rowsAbove(start), cutResult.rowsPerPage ?? this.rowsPerPage ?? DEFAULT_LEAD);
      leadTop = cutResult.leadTop ?? undefined;
      // Parts converted with another page count than now predicted: again, while the chain goes on.
      const total = this.predictedTotal(start, pages);
      if (total !== undefined) {
        for (const a of accepted)
          if (a.spec.totalPages !== total) this.ensure({ ...a.spec, totalPages: total });
      }
    }
  }

  /**
   * Rows broken across pages repeat one cut (the 10,000-row `breaking` statement: 212 rows, 8
   * pages, the lead 1757 down, every part), and LibreOffice 25.2 has laid a part of it out
   * otherwise in 2 runs of 10 on the same .docx (238 rows on 9 pages, 1758 down, in one), which
   * put every later page one line off the whole document's (bench/README.md, issue 34). So
   * such a part cut otherwise than the last is converted once more: two conversions that agree
   * are the document's own layout; of two that disagree, the one cut as the others were, if either.
   */
  private async steadyCut(spec: PartSpec, result: CutResult): Promise<CutResult> {
    const cut = this.lastCut;
    if (!cut || (cut.leadTop === undefined && result.leadTop == null) || cutAs(result, cut)) return result;
    const again = await this.start(spec).result;
    if (!brokeDifferently(again, result) && again.leadTop === result.leadTop) return result;
    if (hasCut(again) && !again.leadShift && cutAs(again, cut)) return again;
    throw new Unsplittable(`rows ${spec.start}–${spec.end} were laid out otherwise in two conversions`);
  }

  /** Rows of the table that `row` is in before it: what a lead can take. */
  private rowsAbove(row: number): number {
    return row - this.plan.tableOf(row).offset;
  }

  /** The part that starts at data row `start`, after `pagesBefore` pages, `lead` rows before it on a page of its own. */
  private specAt(start: number, pagesBefore: number, lead: number, leadTop?: number): PartSpec {
    const rows = this.plan.rows;
    const perPart = this.perPart ?? FIRST_PART_ROWS;
    let end = Math.min(rows, start + perPart);
    // A part that reaches into the next long table takes some pages of it, to find a cut in.
    const next = this.plan.tableOf(end - 1);
    if (next !== this.plan.tableOf(start)) end = Math.min(rows, Math.max(end, next.offset + perPart));
    // A remainder shorter than half a part goes with this one rather than on its own.
    if (rows - end < perPart / 2) end = rows;
    const spec: PartSpec = { start, end, lead, pageNumber: this.plan.firstPageNumber + pagesBefore };
    if (leadTop !== undefined) spec.leadTop = leadTop;
    const total = this.predictedTotal(start, pagesBefore);
    if (total !== undefined) spec.totalPages = total;
    return spec;
  }

  /**
   * Rows of a part from `start` on: `partPages` pages, or fewer when the rest of the table is
   * short, so that every instance gets a share (500 rows are three parts on two instances rather
   * than one long part after the first), but never under MIN_PART_PAGES pages.
   */
  private partRows(start: number, rowsPerPage: number): number {
    const pagesLeft = Math.ceil((this.plan.rows - start) / rowsPerPage);
    const share = Math.ceil(pagesLeft / this.pool.capacity);
    return rowsPerPage * Math.max(MIN_PART_PAGES, Math.min(this.partPages, share)) + 1;
  }

  /** The whole document's pages if the rows from `start` fill pages as those before did; undefined when that is not known or not shown. */
  private predictedTotal(start: number, pagesBefore: number): number | undefined {
    if (!this.plan.showsTotal || !this.rowsPerPage) return undefined;
    // Pages whose rows vary (rows that break across pages fill one page more than the next) are
    // better told by the parts' average than by the last page's count.
    const perPage = this.tablePages > 0 ? this.tableRows / this.tablePages : this.rowsPerPage;
    return pagesBefore + Math.ceil((this.plan.rows - start) / perPage);
  }

  /**
   * Converts the parts predicted to follow `spec`, up to the pool's capacity in flight: cut as the
   * last part was (lastCut) once one after the first has been, else as a part that starts at the
   * top of a page and whose rows fill whole pages of `rowsPerPage`. The chain asks for the same
   * spec (ensure) when the prediction holds; a speculative part it never asks for is dropped.
   */
  private speculate(spec: PartSpec, pagesBefore: number): void {
    const perPage = this.rowsPerPage;
    if (!perPage || spec.start === 0) return;
    const cut = this.lastCut;
    let next = spec;
    let pages = pagesBefore;
    for (let i = 1; i < this.pool.capacity && next.end < this.plan.rows; i++) {
      if (cut) {
        const start = next.start + cut.rows;
        // A part that reaches into the next long table is cut there otherwise: not predicted.
        if (start >= next.end || this.plan.tableOf(start) !== this.plan.tableOf(next.start)) return;
        pages += cut.pages;
        next = this.specAt(start, pages, Math.min(this.rowsAbove(start), cut.rowsPerPage), cut.leadTop);
      } else {
        // Rows broke across the page before this part: whole pages of rows are no guess, wait for its cut.
        if (spec.leadTop !== undefined) return;
        const full = Math.floor((next.end - next.start - 1) / perPage);
        if (full < 1) return;
        pages += full;
        next = this.specAt(next.start + full * perPage, pages, perPage);
      }
      this.ensure(next);
    }
  }

  /** The conversion of `spec`, started once however often it is asked for. */
  private ensure(spec: PartSpec): Task {
    return this.tasks.get(key(spec)) ?? this.start(spec);
  }

  /** A new conversion of `spec`, replacing any earlier one. */
  private start(spec: PartSpec): Task {
    const tables = this.plan.partTables(spec);
    const part: PartRequest = {
      table: tables.table,
      headerRows: tables.headerRows,
      cutTable: tables.cutTable,
      cutHeaderRows: tables.cutHeaderRows,
      cutRows: tables.cutRows,
      lead: spec.lead,
      ...(spec.leadTop !== undefined ? { leadTop: spec.leadTop } : {}),
      last: spec.end === this.plan.rows,
    };
    const docx = this.plan.build(spec);
    // One span per part (speculative ones included: they take an instance's time too).
    const result = withSpan(
      'convert part',
      () => this.pool.convertPart(docx, { ...this.options, timeoutMs: this.remaining() }, part),
      { attributes: { 'part.start_row': spec.start, 'part.end_row': spec.end, 'part.last': part.last } },
    );
    const task = { spec, result };
    const earlier = this.tasks.get(key(spec));
    // run() drops the failures of the tasks it still holds; one replaced here is dropped now.
    earlier?.result.catch(() => undefined);
    this.tasks.set(key(spec), task);
    return task;
  }

  /** Parts whose NUMPAGES showed a predicted total that turned out wrong, converted again. */
  private async withTotal(accepted: Accepted[], total: number): Promise<Accepted[]> {
    return Promise.all(
      accepted.map(async (a) => {
        if (a.spec.totalPages === total) return a;
        const spec = { ...a.spec, totalPages: total };
        let result = await this.ensure(spec).result;
        if (brokeDifferently(result, a.result)) {
          // Once more before giving up: a count that changes the layout breaks it the same way
          // again, while LibreOffice's layout of an autofit table has been seen to waver between
          // two conversions of the same part under load (once in a full test run, never alone).
          result = await this.start(spec).result;
          if (brokeDifferently(result, a.result)) {
            throw new Unsplittable(`rows ${spec.start}–${spec.end} broke differently with the page count`);
          }
        }
        return { spec, result };
      }),
    );
  }

  private remaining(): number {
    const ms = this.deadline - Date.now();
    if (ms <= 0) throw timeoutError(this.options, ms);
    return ms;
  }

  /** The parts' pages in order, one PDF (qpdf; the first part's document information is kept). */
  private async join(pdfs: Buffer[]): Promise<Buffer> {
    if (pdfs.length === 1) return pdfs[0];
    const dir = await mkdtemp(join(this.pool.workParent, 'docx-pdf-join-'));
    try {
      const files = pdfs.map((_, i) => join(dir, `part-${i}.pdf`));
      await Promise.all(pdfs.map((pdf, i) => writeFile(files[i], pdf)));
      const out = join(dir, 'out.pdf');
      await run('qpdf', [files[0], '--pages', ...files, '--', out], { timeout: this.remaining() }).catch(
        (e: { code?: number }) => {
          // Exit code 3: done, with warnings.
          if (e.code !== 3) throw e;
        },
      );
      return await readFile(out);
    } catch (e) {
      if (e instanceof ConversionFailedError) throw e;
      throw new ConversionFailedError(`Joining the PDF's parts failed: ${(e as Error).message}`, {
        backend: 'libreoffice',
        reason: 'io_error',
        ...(this.options.jobId ? { jobId: this.options.jobId } : {}),
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
