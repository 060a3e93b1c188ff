/**
 * The worker's render processor on a real Redis (the job's request, template and reply keys) and,
 * for PDF output, the real LibreOffice pool. Its pure parts (failure classification, time limits)
 * are apps/worker/src/render.processor.spec.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import PizZip from 'pizzip';
import {
  ConversionFailedError,
  LibreOfficePool,
  type ConvertOptions,
  type PdfConverter,
} from '@app/converters';
import { digestOf } from '@app/engine';
import {
  decodeFailure,
  decodeReply,
  httpStatusOf,
  payloadKeys,
  PDF_FINISH_KEY,
  type FailureReply,
  type Reply,
  replyKey,
  type RenderJob,
  templateKey,
} from '@app/contracts';
import { buildDocx, p } from './support/docx-builder';
import { docxPlainText } from './support/docx-text';
import { redisForTests } from './service-harness';
import { corpusRequest } from '../bench/corpus';
import { FillPool } from '../apps/worker/src/fill/fill-pool';
import { type RenderJobHandle as Job, UnrecoverableError } from '@app/queue';
import { createRenderProcessor } from '../apps/worker/src/render.processor';

describe('the template bytes a worker keeps', () => {
  const redisServer = redisForTests();

  const q = { prefix: '{w}', name: 'render' };

  /** A job of the API's shape for .docx output (no converter needed), its request stored. */
  async function jobOf(
    id: string,
    template: Buffer,
    name: string,
    extra: Partial<RenderJob> = {},
  ): Promise<Job> {
    const digest = digestOf(template);
    const keys = { ...payloadKeys(q, id), templateKey: templateKey(q, digest) };
    await redisServer.client.set(keys.requestKey, JSON.stringify({ template_data: { name } }));
    const data: RenderJob = {
      requestId: id,
      ...keys,
      templateDigest: digest,
      filename: 't.docx',
      templateBytes: template.length,
      requestBytes: 0,
      imageCount: 0,
      templateChecked: true,
      options: { undefined: 'empty', output: 'docx' },
      replyKey: replyKey(q, `api-${id}`),
      ...extra,
    };
    const job = {
      id,
      data,
      attemptsStarted: 1,
      attemptsMade: 0,
      opts: { attempts: 3 },
      timestamp: Date.now(),
    };
    return job as unknown as Job;
  }

  function processorFor(
    // .docx output never calls the converter
    converter = { name: 'none' } as unknown as PdfConverter,
  ): ReturnType<typeof createRenderProcessor> {
    return createRenderProcessor({
      worker: { id: 'w', redis: redisServer.client, logger: pino({ level: 'silent' }) },
      converter,
      budget: { payloadTtlMs: 60_000 },
    });
  }

  /** The job rendered; the filled document's text. */
  async function runJob(
    process: ReturnType<typeof createRenderProcessor>,
    id: string,
    template: Buffer,
    name: string,
  ): Promise<string> {
    const job = await jobOf(id, template, name);
    const result = await process(job);
    const reply = decodeReply((await redisServer.client.lpopBuffer(result.replyKey))!) as Reply;
    return docxPlainText(reply.body);
  }

  it('renders a template it read before without reading it again, and reads one it lacks', async () => {
    const process = processorFor();
    const template = buildDocx({ body: [p('Hello {{ name }}')] });
    await redisServer.client.set(
      templateKey({ prefix: '{w}', name: 'render' }, digestOf(template)),
      template,
    );
    expect(await runJob(process, 'a', template, 'first')).toContain('Hello first');

    await redisServer.client.flushall(); // the shared key is gone: the worker still has the bytes
    expect(await runJob(process, 'b', template, 'second')).toContain('Hello second');

    // Another template, not in Redis either: the request has expired for this worker.
    const other = buildDocx({ body: [p('Bye {{ name }}')] });
    await expect(runJob(process, 'c', other, 'third')).rejects.toThrow(
      /expired before a worker could take it/,
    );
  });

  /** The corpus invoice's package (Word's styles.xml) whose body is one table in `style`, a row per text; stored as the API stores it. */
  async function invoiceWithTable(style: string, rows: string[]): Promise<Buffer> {
    const zip = new PizZip(readFileSync(join(__dirname, '../bench/fixtures/invoice.docx')));
    const doc = zip.file('word/document.xml')!.asText();
    const table =
      `<w:tbl><w:tblPr><w:tblStyle w:val="${style}"/><w:tblLook w:val="04A0"/></w:tblPr><w:tblGrid><w:gridCol w:w="3000"/></w:tblGrid>` +
      rows.map((text) => `<w:tr><w:tc><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:tc></w:tr>`).join('') +
      '</w:tbl>';
    zip.file('word/document.xml', doc.replace(/<w:body>.*<w:sectPr/s, `<w:body>${table}<w:p/><w:sectPr`));
    const template = zip.generate({ type: 'nodebuffer' });
    await redisServer.client.set(templateKey(q, digestOf(template)), template);
    return template;
  }

  /** The real pool converts; what it was handed is kept to look at. */
  function recordingPool() {
    const pool = new LibreOfficePool({ instances: 1 });
    const handed: Buffer[] = [];
    const recording = {
      name: 'recording',
      convert: (docx: Buffer, o?: ConvertOptions) => (handed.push(docx), pool.convert(docx, o)),
    } as unknown as PdfConverter;
    return { pool, handed, recording };
  }

  it('hands LibreOffice the table styles resolved and the unused styles left out for a PDF (RESOLVE_TABLE_STYLES, PRUNE_UNUSED_STYLES), and keeps them in a .docx', async () => {
    // A "Light List Accent 1" table.
    const template = await invoiceWithTable('LightList-Accent1', ['{{ name }}']);
    const { pool, handed, recording } = recordingPool();
    try {
      const withStyles = (on: boolean) =>
        createRenderProcessor({
          worker: { id: 'w', redis: redisServer.client, logger: pino({ level: 'silent' }) },
          converter: recording,
          budget: { payloadTtlMs: 60_000 },
          resolveTableStyles: on,
          pruneUnusedStyles: on,
        });
      const pdfJob = (id: string) =>
        jobOf(id, template, 'Ünïcode', {
          options: { undefined: 'empty', output: 'pdf' },
        } as Partial<RenderJob>);
      const documentXml = (docx: Buffer) => new PizZip(docx).file('word/document.xml')!.asText();

      const on = await withStyles(true)(await pdfJob('ts1'));
      expect(on.contentType).toBe('application/pdf');
      expect(documentXml(handed[0])).not.toContain('<w:tblStyle ');
      expect(documentXml(handed[0])).toContain('w:fill="4F81BD"'); // the header row's fill, now the cell's own

      // PRUNE_UNUSED_STYLES: Word's 164 styles down to those the document names, and their bases.
      const styleCount = (docx: Buffer) =>
        (
          new PizZip(docx)
            .file('word/styles.xml')!
            .asText()
            .match(/<w:style\b/g) ?? []
        ).length;
      expect(styleCount(handed[0])).toBeLessThan(20);

      await withStyles(false)(await pdfJob('ts2'));
      expect(documentXml(handed[1])).toContain('<w:tblStyle w:val="LightList-Accent1"/>');
      expect(styleCount(handed[1])).toBeGreaterThan(150);

      // A .docx output keeps its styles, setting or not: the caller edits it in Word.
      const docxOut = await withStyles(true)(await jobOf('ts3', template, 'x'));
      const reply = decodeReply((await redisServer.client.lpopBuffer(docxOut.replyKey))!) as Reply;
      expect(documentXml(reply.body)).toContain('<w:tblStyle w:val="LightList-Accent1"/>');
      expect(styleCount(reply.body)).toBeGreaterThan(150);
      expect(handed).toHaveLength(2);
    } finally {
      await pool.close();
    }
  }, 120_000);

  it("keeps a style that shades every cell on a short table, and resolves it from the converter's split threshold on", async () => {
    // Word's Dark List: its cell shading is LibreOffice's table background, which no direct formatting sets.
    const template = await invoiceWithTable('DarkList', ['{{ name }}', 'b', 'c']);
    const { pool, handed, recording } = recordingPool();
    try {
      const processor = (fromRows?: number) =>
        createRenderProcessor({
          worker: { id: 'w', redis: redisServer.client, logger: pino({ level: 'silent' }) },
          converter: recording,
          budget: { payloadTtlMs: 60_000 },
          resolveTableStyles: true,
          resolveAllTableStylesFromRows: fromRows,
        });
      const pdfJob = (id: string) =>
        jobOf(id, template, 'Ünïcode', {
          options: { undefined: 'empty', output: 'pdf' },
        } as Partial<RenderJob>);
      const documentXml = (docx: Buffer) => new PizZip(docx).file('word/document.xml')!.asText();
      for (const [id, fromRows] of [
        ['dl1', undefined],
        ['dl2', 4],
        ['dl3', 3],
      ] as const) {
        expect((await processor(fromRows)(await pdfJob(id))).contentType).toBe('application/pdf');
      }
      expect(documentXml(handed[0])).toContain('<w:tblStyle w:val="DarkList"/>');
      expect(documentXml(handed[1])).toContain('<w:tblStyle w:val="DarkList"/>');
      expect(documentXml(handed[2])).not.toContain('<w:tblStyle ');
      expect(documentXml(handed[2])).toContain('w:fill="000000"');
    } finally {
      await pool.close();
    }
  }, 120_000);

  describe("an asynchronous job's budgets, apart from a synchronous request's", () => {
    const invoice = readFileSync(join(__dirname, '../bench/fixtures/invoice.docx'));
    /** The corpus invoice of `rows` items for PDF output; a background item when `recordKey` is given. */
    async function invoiceJob(id: string, rows: number, recordKey?: string): Promise<Job> {
      await redisServer.client.set(templateKey(q, digestOf(invoice)), invoice);
      const job = await jobOf(id, invoice, 'x', {
        options: { undefined: 'empty', output: 'pdf' },
        ...(recordKey ? { background: { recordKey, resultTtlMs: 60_000 } } : {}),
      });
      await redisServer.client.set(job.data.requestKey, JSON.stringify(corpusRequest('invoice', { rows })));
      if (recordKey) await redisServer.client.hset(recordKey, 'status', 'queued');
      return job;
    }
    const timeouts: (number | undefined)[] = [];
    const recording = {
      name: 'recording',
      convert: (_docx: Buffer, o?: ConvertOptions) => (
        timeouts.push(o?.timeoutMs),
        Promise.resolve(Buffer.from('%PDF-'))
      ),
    } as unknown as PdfConverter;
    // Made on first use: the test Redis starts in beforeAll.
    const processor = (job: Job) =>
      createRenderProcessor({
        worker: { id: 'w', redis: redisServer.client, logger: pino({ level: 'silent' }) },
        converter: recording,
        budget: {
          payloadTtlMs: 60_000,
          convertTimeoutMs: 30_000,
          asyncConvertTimeoutMs: 600_000,
          jobTimeoutMs: 60_000,
        },
        limits: { maxTableCells: 200, asyncMaxTableCells: 1000 },
      })(job);
    const refusal = async (job: Job) => {
      const thrown = await processor(job).catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(UnrecoverableError);
      return decodeFailure((thrown as Error).message);
    };

    it('refuses past MAX_TABLE_CELLS in a synchronous request, typed, before any conversion', async () => {
      timeouts.length = 0;
      const e = await refusal(await invoiceJob('b1', 100));
      expect(e.errorType).toBe('payload_too_large');
      expect(httpStatusOf(e.errorType)).toBe(413);
      expect(e.details).toMatchObject({ reason: 'conversion_budget', limit: 200 });
      expect(timeouts).toHaveLength(0);
      // Within it: converted within what is left of JOB_TIMEOUT_MS, at most CONVERSION_TIMEOUT_MS.
      await processor(await invoiceJob('b2', 20));
      expect(timeouts).toEqual([30_000]);
    });

    it('converts the same document as a background item with ASYNC_CONVERSION_TIMEOUT_MS', async () => {
      timeouts.length = 0;
      const done = await processor(await invoiceJob('b3', 100, '{w}:job:b3'));
      expect(done.contentType).toBe('application/pdf');
      expect(timeouts).toEqual([600_000]);
    });

    it('fails a background item past ASYNC_MAX_TABLE_CELLS with the typed refusal as its failure', async () => {
      timeouts.length = 0;
      const e = await refusal(await invoiceJob('b4', 300, '{w}:job:b4'));
      expect(e.errorType).toBe('payload_too_large');
      expect(e.details).toMatchObject({ reason: 'conversion_budget', limit: 1000 });
      expect((e.details as { table_cells: number }).table_cells).toBeGreaterThan(1000);
      expect(timeouts).toHaveLength(0);
    });
  });

  describe('fills on threads (FILL_THREAD_MIN_BYTES)', () => {
    const pool = new FillPool(1);
    afterAll(() => pool.close());

    it('fills a request at or over the size on a thread, and a smaller one on the loop, to the same document', async () => {
      const template = buildDocx({ body: [p('Hello {{ name }}')] });
      await redisServer.client.set(templateKey(q, digestOf(template)), template);
      const fill = jest.spyOn(pool, 'fill');
      const processor = (minRequestBytes: number) =>
        createRenderProcessor({
          worker: { id: 'w', redis: redisServer.client, logger: pino({ level: 'silent' }) },
          converter: { name: 'none' } as unknown as PdfConverter,
          budget: { payloadTtlMs: 60_000 },
          fillThreads: { pool, minRequestBytes },
        });
      const size = JSON.stringify({ template_data: { name: 'small' } }).length; // as jobOf stores it
      expect(await runJob(processor(size + 1), 't1', template, 'small')).toContain('Hello small');
      expect(fill).not.toHaveBeenCalled();
      expect(await runJob(processor(size), 't2', template, 'large')).toContain('Hello large');
      expect(fill).toHaveBeenCalledTimes(1);

      // A typed error in the thread fails the job as it would on the loop.
      const broken = buildDocx({ body: [p('Hello {{ name ')] });
      await redisServer.client.set(templateKey(q, digestOf(broken)), broken);
      const thrown = await processor(0)(await jobOf('t3', broken, 'x')).catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(UnrecoverableError);
      expect(decodeFailure((thrown as Error).message).errorType).toBe('template_syntax_error');
      expect(fill).toHaveBeenCalledTimes(2);

      // A request filled on the thread still has its finishing options read and checked here,
      // before the fill a bad value would waste.
      const pdfJob = await jobOf('t4', template, 'x', { options: { undefined: 'empty', output: 'pdf' } });
      await redisServer.client.set(
        pdfJob.data.requestKey,
        JSON.stringify({ template_data: { name: 'x' }, [PDF_FINISH_KEY]: { watermark: { opacity: 2 } } }),
      );
      const refused = await processor(0)(pdfJob).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(UnrecoverableError);
      expect(decodeFailure((refused as Error).message).message).toMatch(/watermark/);
      expect(fill).toHaveBeenCalledTimes(2);
    }, 60_000);
  });

  it('pushes the result to the reply list a job names, with a TTL, and deletes its request', async () => {
    const template = buildDocx({ body: [p('Hello {{ name }}')] });
    const list = replyKey(q, 'api-1');
    await redisServer.client.set(templateKey(q, digestOf(template)), template);
    const job = await jobOf('r1', template, 'reply', { replyKey: list });
    const keys = job.data;
    const process = processorFor();
    const result = await process(job);
    expect(result.replyKey).toBe(list);

    const frames = await redisServer.client.lrangeBuffer(list, 0, -1);
    expect(frames).toHaveLength(1);
    const reply = decodeReply(frames[0]) as Reply;
    expect(reply.jobId).toBe('r1');
    expect(reply.contentType).toBe(result.contentType);
    expect(reply.body.length).toBe(result.bytes);
    expect(docxPlainText(reply.body)).toContain('Hello reply');
    const ttl = await redisServer.client.pttl(list);
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await redisServer.client.exists(keys.requestKey)).toBe(0);
  });

  it('pushes a final failure to the reply list, and leaves a failure that will be retried to BullMQ', async () => {
    const broken = buildDocx({ body: [p('Hello {{ name ')] });
    await redisServer.client.set(templateKey(q, digestOf(broken)), broken);
    const list = replyKey(q, 'api-2');
    const job = await jobOf('f1', broken, 'x', { replyKey: list });
    const thrown = await processorFor()(job).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(UnrecoverableError);
    const frames = await redisServer.client.lrangeBuffer(list, 0, -1);
    expect(frames).toHaveLength(1);
    const reply = decodeReply(frames[0]) as FailureReply;
    expect(reply.jobId).toBe('f1');
    expect(reply.failedReason).toBe((thrown as Error).message);
    expect(decodeFailure(reply.failedReason).errorType).toBe('template_syntax_error');

    // A converter outage on the first of three attempts: BullMQ retries it, nothing is pushed.
    const fine = buildDocx({ body: [p('Hello {{ name }}')] });
    await redisServer.client.set(templateKey(q, digestOf(fine)), fine);
    const outageList = replyKey(q, 'api-3');
    const pdfJob = await jobOf('f2', fine, 'x', {
      replyKey: outageList,
      options: { undefined: 'empty', output: 'pdf' },
    });
    const down = processorFor({
      name: 'down',
      convert: () => Promise.reject(new ConversionFailedError('down', { retryable: true })),
    } as unknown as PdfConverter);
    const retried = await down(pdfJob).catch((e: unknown) => e);
    expect(retried).toBeInstanceOf(Error);
    expect(retried).not.toBeInstanceOf(UnrecoverableError);
    expect(await redisServer.client.llen(outageList)).toBe(0);
  });
});
