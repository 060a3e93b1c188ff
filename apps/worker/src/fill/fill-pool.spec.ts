import { monitorEventLoopDelay } from 'node:perf_hooks';
import PizZip from 'pizzip';
import { CompiledTemplates, renderDocx, UndefinedVariableError } from '@app/engine';
import { loadWorkerSettings } from '../settings';
import { corpusRequest, corpusTemplate } from '../../../../bench/corpus';
import { buildDocx, p } from '../../../../test/support/docx-builder';
import { fillDocument, type FillJob } from '@app/pipeline';
import { FillPool } from './fill-pool';

/** The worker's fill for a PDF (render.processor.ts): its options, and LibreOffice's preparation. */
const PDF_FILL: FillJob = {
  output: 'pdf',
  options: { imagesVerified: true, templateChecked: true },
  prepare: { maxTableCells: 1_000_000, resolveTableStyles: true },
};
/** A .docx returned as it is: no preparation. */
const DOCX_FILL = (options: FillJob['options'] = {}): FillJob => ({ output: 'docx', options, prepare: {} });

const documentXml = (docx: Buffer) => new PizZip(docx).file('word/document.xml')!.asText();

describe('FillPool', () => {
  const pool = new FillPool(2);
  afterAll(() => pool.close());

  it('fills the corpus invoice on a thread to the document the event loop fills', async () => {
    const template = corpusTemplate('invoice');
    const request = corpusRequest('invoice', { rows: 30 });
    const onThread = await pool.fill(template, JSON.stringify(request), PDF_FILL);
    const onLoop = fillDocument(template, request as never, PDF_FILL);
    expect(documentXml(onThread)).toBe(documentXml(onLoop));
    expect(documentXml(onThread)).toContain('INV-2024-0042');
    // The preparation ran on the thread too: the table's style is now its cells' own formatting.
    expect(documentXml(onThread)).not.toContain('<w:tblStyle ');
    expect(pool.size).toBe(1);
  }, 60_000);

  it('rejects with the typed error the fill throws, and keeps the thread', async () => {
    const template = buildDocx({ body: [p('Hello {{ name }}')] });
    const json = JSON.stringify({ template_data: {} });
    let onLoop: unknown;
    try {
      renderDocx(template, { template_data: {} }, { undefined: 'strict' });
    } catch (e) {
      onLoop = e;
    }
    expect(onLoop).toBeInstanceOf(UndefinedVariableError);
    const onThread = await pool
      .fill(template, json, DOCX_FILL({ undefined: 'strict' }))
      .catch((e: unknown) => e);
    expect(onThread).toMatchObject({
      errorType: (onLoop as UndefinedVariableError).errorType,
      message: (onLoop as UndefinedVariableError).message,
      details: (onLoop as UndefinedVariableError).details,
    });
    // Two fills at once take both threads; both answer.
    const both = await Promise.all([
      pool.fill(template, JSON.stringify({ template_data: { name: 'a' } }), DOCX_FILL()),
      pool.fill(template, JSON.stringify({ template_data: { name: 'b' } }), DOCX_FILL()),
    ]);
    expect(both.map((d) => documentXml(d).includes('Hello a') || documentXml(d).includes('Hello b'))).toEqual(
      [true, true],
    );
    expect(pool.size).toBe(2);
  }, 60_000);

  it("refuses on the thread, typed, a PDF past the cell budget (the preparation's first pass), as on the loop", async () => {
    const template = corpusTemplate('invoice');
    const request = corpusRequest('invoice', { rows: 30 });
    const budget: FillJob = { ...PDF_FILL, prepare: { maxTableCells: 50 } };
    const onLoop = (() => {
      try {
        return fillDocument(template, request as never, budget);
      } catch (e) {
        return e;
      }
    })();
    expect(onLoop).toMatchObject({
      errorType: 'payload_too_large',
      details: { reason: 'conversion_budget' },
    });
    const onThread = await pool.fill(template, JSON.stringify(request), budget).catch((e: unknown) => e);
    expect(onThread).toMatchObject({
      errorType: 'payload_too_large',
      message: (onLoop as Error).message,
      details: { reason: 'conversion_budget', limit: 50 },
    });
    // A .docx has no budget: the same request fills.
    expect(
      documentXml(await pool.fill(template, JSON.stringify(request), { ...budget, output: 'docx' })),
    ).toContain('INV-2024-0042');
  }, 60_000);

  it("leaves the event loop free while it fills a long document: no stall near a lock renewal, where the loop's own fill stalls it for the whole fill", async () => {
    // A 20,000-row invoice (80,000 cells): a second or so of fill on a 2-core machine.
    const template = corpusTemplate('invoice');
    const request = corpusRequest('invoice', { rows: 20_000 });
    const json = JSON.stringify(request);
    const compiledTemplates = new CompiledTemplates();
    fillDocument(template, corpusRequest('invoice', { rows: 20 }) as never, PDF_FILL, { compiledTemplates });
    await pool.fill(template, JSON.stringify(corpusRequest('invoice', { rows: 20 })), PDF_FILL);

    /** The fill's duration and the loop's longest stall meanwhile, as a 10 ms timer sees it. */
    async function watch(fill: () => Promise<unknown>): Promise<{ fillMs: number; maxStallMs: number }> {
      const h = monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      await new Promise((r) => setTimeout(r, 30));
      const t0 = performance.now();
      await fill();
      const fillMs = performance.now() - t0;
      await new Promise((r) => setTimeout(r, 30));
      h.disable();
      return { fillMs, maxStallMs: h.max / 1e6 };
    }
    const onLoop = await watch(async () =>
      fillDocument(template, request as never, PDF_FILL, { compiledTemplates }),
    );
    const onThread = await watch(() => pool.fill(template, json, PDF_FILL));
    // The control: the fill on the loop holds it from start to end.
    expect(onLoop.maxStallMs).toBeGreaterThan(onLoop.fillMs * 0.8);
    // On a thread the loop stalls for a fraction of the fill (the request's copy to the thread,
    // the result's arrival), far from BullMQ's lock renewal (WORKER_LOCK_DURATION_MS / 2).
    expect(onThread.maxStallMs).toBeLessThan(onThread.fillMs / 4);
    expect(onThread.maxStallMs).toBeLessThan(loadWorkerSettings({}).worker.lockDurationMs / 2);
  }, 120_000);

  it('rejects the fill in progress when its thread ends, and counts the thread gone', async () => {
    const one = new FillPool(1);
    const template = corpusTemplate('invoice');
    const big = JSON.stringify(corpusRequest('invoice', { rows: 20_000 }));
    const small = JSON.stringify(corpusRequest('invoice', { rows: 5 }));
    // A thread started and warm, then a long fill on it, ended half-way (close() terminates it).
    expect(documentXml(await one.fill(template, small, PDF_FILL))).toContain('INV-2024-0042');
    expect(one.size).toBe(1);
    const filling = one.fill(template, big, PDF_FILL);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await one.close();
    await expect(filling).rejects.toThrow(/the fill thread exited/);
    expect(one.size).toBe(0);
  }, 120_000);

  it('refuses fills once closed', async () => {
    const closed = new FillPool(1);
    await closed.close();
    await expect(closed.fill(Buffer.alloc(0), '{}', DOCX_FILL())).rejects.toThrow(/closed/);
    expect(() => new FillPool(0)).toThrow(/threads/);
  });
});
