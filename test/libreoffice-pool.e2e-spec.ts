import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import {
  ConversionFailedError,
  converterConfigFromEnv,
  findJemalloc,
  createConverter,
  isConverterQueueFull,
  LibreOfficePool,
  QUEUE_FULL_REASON,
  SplittingConverter,
} from '@app/converters';
import {
  makeInvoiceDocx,
  pdfPageCount,
  pdfToText,
  processAlive,
  SAMPLE_INVOICE,
} from './support/converter-fixtures';

// Real LibreOffice throughout: two soffice.bin processes per pool, driven by uno_bridge.py.

async function waitFor(what: string, check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The first LibreOffice lock file that appears in a job directory under `parent` (polled). */
async function waitForLockFile(parent: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const pool of readdirSync(parent).filter((d) => d.startsWith('docx-pdf-lo-'))) {
      for (const job of readdirSync(join(parent, pool)).filter((d) => d.startsWith('job-'))) {
        const lock = join(parent, pool, job, '.~lock.out.pdf#');
        if (existsSync(lock)) return lock;
      }
    }
    if (Date.now() > deadline) throw new Error(`no LibreOffice lock file under ${parent}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

function pids(pool: LibreOfficePool): number[] {
  return pool.describe().map((s) => s.pid ?? -1);
}

/** Whether a running process has jemalloc mapped (loaded through LD_PRELOAD). */
function runsJemalloc(pid: number): boolean {
  return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libjemalloc.so');
}

function allIdle(pool: LibreOfficePool): boolean {
  return pool.describe().every((s) => s.state === 'idle' && s.pid !== undefined);
}

function expectPdfOfInvoice(pdf: Buffer): void {
  expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  expect(pdfToText(pdf)).toContain(SAMPLE_INVOICE.number);
}

let invoice: Buffer;
beforeAll(() => {
  invoice = makeInvoiceDocx();
});

describe('LibreOfficePool with two instances', () => {
  let pool: LibreOfficePool;
  let workParent: string;
  const logs: string[] = [];

  beforeAll(async () => {
    workParent = await mkdtemp(join(tmpdir(), 'lo-pool-spec-'));
    pool = new LibreOfficePool({
      instances: 2,
      restartAfter: 0,
      tmpDir: workParent,
      healthTimeoutMs: 1500,
      log: (m) => logs.push(m),
    });
    await pool.start();
  });

  afterAll(async () => {
    await pool.close();
    await rm(workParent, { recursive: true, force: true });
  });

  afterEach(async () => {
    // Every test leaves the pool whole for the next one.
    await waitFor('both instances idle', () => allIdle(pool));
  });

  it('converts a filled .docx into a one-page PDF that holds the data', async () => {
    const before = pool.stats().conversions;
    const pdf = await pool.convert(invoice, { jobId: 'job-1' });

    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdfPageCount(pdf)).toBe(1);
    const text = pdfToText(pdf);
    expect(text).toContain('Invoice INV-2024-0042');
    expect(text).toContain('Customer: Müller & Söhne GmbH');
    expect(text).toContain('Gear assembly');
    expect(text).toContain('249.00');
    expect(text).toContain('Total: 626.50 EUR');
    expect(pool.stats().conversions).toBe(before + 1);
  });

  it('runs every soffice.bin, and only soffice.bin, with jemalloc (installed by the set-up)', () => {
    expect(findJemalloc()).toMatch(/\/libjemalloc\.so\.2$/);
    expect(converterConfigFromEnv({ LIBREOFFICE_ALLOCATOR: 'jemalloc' })).toEqual({ allocator: 'jemalloc' });
    expect(pool.allocator).toBe('jemalloc');
    expect(pool.setup).toBe(`allocator jemalloc, work dir ${workParent}`);
    for (const slot of pool.describe()) {
      expect(runsJemalloc(slot.pid!)).toBe(true);
      expect(runsJemalloc(slot.bridgePid!)).toBe(false); // the Python bridge keeps its own
    }
  });

  it('keeps its files private and removes each job directory, after success and failure', async () => {
    const [poolDir] = await readdir(workParent);
    expect((await stat(join(workParent, poolDir))).mode & 0o777).toBe(0o700);

    await pool.convert(invoice);
    await expect(pool.convert(randomBytes(3000))).rejects.toBeInstanceOf(ConversionFailedError);

    // Removed in the background, after the answer.
    const jobDirs = async () =>
      (await readdir(join(workParent, poolDir))).filter((e) => !e.startsWith('instance-'));
    const deadline = Date.now() + 10_000;
    while ((await jobDirs()).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await jobDirs()).toEqual([]);
    expect(await readdir(join(workParent, poolDir))).toHaveLength(2); // one directory (profile + tmp) per running instance
  });

  it("gives each soffice.bin a TMPDIR inside the pool's private directory", async () => {
    const [poolDir] = await readdir(workParent);
    for (const slot of pool.describe()) {
      const environ = readFileSync(`/proc/${slot.pid!}/environ`, 'latin1').split('\0');
      const tmp = environ.find((v) => v.startsWith('TMPDIR='))!.slice('TMPDIR='.length);
      expect(tmp.startsWith(join(workParent, poolDir, 'instance-'))).toBe(true);
    }
  });

  it('runs parallel conversions on all instances', async () => {
    const servedBefore = pool.describe().map((s) => s.served);
    let maxBusy = 0;
    const sampler = setInterval(() => (maxBusy = Math.max(maxBusy, pool.stats().busy)), 5);
    const pdfs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => pool.convert(invoice, { jobId: `p${i}` })),
    );
    clearInterval(sampler);

    pdfs.forEach(expectPdfOfInvoice);
    expect(maxBusy).toBe(2);
    const servedAfter = pool.describe().map((s) => s.served);
    servedAfter.forEach((n, i) => expect(n).toBeGreaterThan(servedBefore[i]));
    expect(servedAfter[0] + servedAfter[1] - servedBefore[0] - servedBefore[1]).toBe(6);
  });

  it('turns a corrupt .docx into ConversionFailedError and stays healthy', async () => {
    const before = pids(pool);
    const restarts = pool.stats().restarts;
    const truncated = invoice.subarray(0, Math.floor(invoice.length / 2));

    for (const bad of [randomBytes(4096), truncated, Buffer.from('not a word document')]) {
      const err = await pool.convert(bad).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConversionFailedError);
      expect((err as ConversionFailedError).details).toMatchObject({
        backend: 'libreoffice',
        reason: 'libreoffice_error',
      });
    }

    expect(pids(pool)).toEqual(before); // a bad document is no reason to restart
    expect(pool.stats().restarts).toBe(restarts);
    await expect(pool.health()).resolves.toEqual({ healthy: true, instances: 2, ready: 2 });
    expectPdfOfInvoice(await pool.convert(invoice));
  });

  it('replaces a SIGKILLed soffice and converts right away', async () => {
    const [victim, other] = pids(pool);
    const restarts = pool.stats().restarts;

    process.kill(victim, 'SIGKILL');
    // Straight away, before the pool may have noticed: a crash then is retried elsewhere.
    expectPdfOfInvoice(await pool.convert(invoice));

    await waitFor('a replacement instance', () => allIdle(pool) && !pids(pool).includes(victim));
    expect(pids(pool)).toContain(other);
    expect(processAlive(victim)).toBe(false);
    expect(pool.stats().restarts).toBe(restarts + 1);
    expectPdfOfInvoice(await pool.convert(invoice));
    await expect(pool.health()).resolves.toMatchObject({ healthy: true, ready: 2 });
  });

  it('retries a conversion whose instance crashes mid-way once, on another instance', async () => {
    const [victim] = pids(pool);
    const { restarts, failures } = pool.stats();

    process.kill(victim, 'SIGSTOP'); // the conversion given to it cannot finish...
    const both = Promise.all([pool.convert(invoice), pool.convert(invoice)]);
    await waitFor('both instances busy', () => pool.stats().busy === 2);
    process.kill(victim, 'SIGKILL'); // ...and then its soffice dies under it

    const pdfs = await both;
    pdfs.forEach(expectPdfOfInvoice);
    expect(pool.stats().failures).toBe(failures);
    expect(pool.stats().restarts).toBe(restarts + 1);
  });

  it('retries a conversion whose soffice is SIGKILLed mid-export, past the lock file it leaves', async () => {
    // LibreOffice writes `.~lock.out.pdf#` beside the PDF it exports; a killed soffice cannot
    // remove it, and an export to the same path then aborts (IOException 0x11b) as if the
    // document were at fault: a 502 under test/supervised-start's SIGKILL, before the retry wrote
    // to a path of its own.
    const lines = Array.from({ length: 300 }, (_, i) => ({ item: `Line ${i + 1}`, qty: 1, price: 2 }));
    const long = makeInvoiceDocx({ ...SAMPLE_INVOICE, lines });
    const { restarts, failures } = pool.stats();
    let killed: { pid: number; lock: string } | undefined;
    for (let tries = 0; !killed && tries < 5; tries++) {
      const conversion = pool.convert(long);
      const lock = await waitForLockFile(workParent);
      const victim = pool.describe().find((s) => s.state === 'busy')!.pid!;
      process.kill(victim, 'SIGSTOP');
      if (existsSync(lock)) {
        process.kill(victim, 'SIGKILL');
        killed = { pid: victim, lock };
      } else {
        process.kill(victim, 'SIGCONT'); // the export ended before it stopped: once more
      }
      const pdf = await conversion;
      expect(pdfToText(pdf)).toContain('Line 300');
    }
    expect(killed).toBeDefined();
    await waitFor('the killed soffice to be gone', () => !processAlive(killed!.pid));
    expect(pool.stats().failures).toBe(failures);
    expect(pool.stats().restarts).toBe(restarts + 1);
    // The job directory goes (in the background), lock file and all.
    await waitFor('the job directory removed', () => !existsSync(dirname(killed!.lock)));
  });

  it('times out a hung conversion, kills the stuck instance and frees its slot', async () => {
    const stuck = pids(pool);
    const { restarts } = pool.stats();
    for (const pid of stuck) process.kill(pid, 'SIGSTOP'); // a real hang: soffice stops answering

    const started = Date.now();
    const results = await Promise.allSettled([
      pool.convert(invoice, { timeoutMs: 2000, jobId: 'hung-1' }),
      pool.convert(invoice, { timeoutMs: 2000, jobId: 'hung-2' }),
    ]);
    const elapsed = Date.now() - started;

    for (const r of results) {
      expect(r.status).toBe('rejected');
      const err = (r as PromiseRejectedResult).reason as ConversionFailedError;
      expect(err).toBeInstanceOf(ConversionFailedError);
      expect(err.details).toMatchObject({ reason: 'timeout', timeoutMs: 2000 });
    }
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    expect(elapsed).toBeLessThan(6000);

    await waitFor('fresh instances', () => allIdle(pool));
    for (const pid of stuck) expect(processAlive(pid)).toBe(false);
    expect(pids(pool).some((p) => stuck.includes(p))).toBe(false);
    expect(pool.stats().restarts).toBe(restarts + 2);
    for (const pid of stuck) {
      expect(logs).toContainEqual(
        expect.stringMatching(new RegExp(`\\(pid ${pid}\\) is replaced: no answer within 2000 ms`)),
      );
    }
    expectPdfOfInvoice(await pool.convert(invoice));
  });

  it('health() finds a hung idle instance and replaces it', async () => {
    const [hung, other] = pids(pool);
    process.kill(hung, 'SIGSTOP');

    const health = await pool.health();

    expect(health.ready).toBe(1);
    expect(health.detail).toMatch(/instance 0 starting/);
    await waitFor('the replacement', () => allIdle(pool));
    expect(pids(pool)).toContain(other);
    expect(pids(pool)).not.toContain(hung);
    await expect(pool.health()).resolves.toEqual({ healthy: true, instances: 2, ready: 2 });
  });
});

describe('LibreOfficePool supervision', () => {
  it('restarts an instance after restartAfter conversions', async () => {
    const pool = new LibreOfficePool({ instances: 2, restartAfter: 2 });
    try {
      await pool.start();
      const first = pids(pool);
      for (let i = 0; i < 4; i++) expectPdfOfInvoice(await pool.convert(invoice));
      await waitFor('recycled instances', () => allIdle(pool) && pool.stats().restarts === 2);
      expect(pids(pool).some((p) => first.includes(p))).toBe(false);
      for (const pid of first) expect(processAlive(pid)).toBe(false);
      expect(pool.stats()).toMatchObject({ conversions: 4, failures: 0, restarts: 2 });
    } finally {
      await pool.close();
    }
  });

  it('replaces instances after 1,000 conversions with jemalloc, 200 with glibc malloc, unless told', () => {
    // No process starts before start() or a conversion.
    expect(new LibreOfficePool({ instances: 1 }).restartAfter).toBe(1000);
    expect(new LibreOfficePool({ instances: 1, allocator: 'system' }).restartAfter).toBe(200);
    expect(new LibreOfficePool({ instances: 1, restartAfter: 0 }).restartAfter).toBe(0);
    expect(new LibreOfficePool({ instances: 1, allocator: 'system', restartAfter: 50 }).restartAfter).toBe(
      50,
    );
  });

  it('runs soffice.bin with glibc malloc when the allocator is `system`, and converts the same', async () => {
    const pool = new LibreOfficePool({ instances: 1, restartAfter: 0, allocator: 'system' });
    try {
      await pool.start();
      expect(pool.allocator).toBe('system');
      expect(runsJemalloc(pids(pool)[0])).toBe(false);
      expectPdfOfInvoice(await pool.convert(invoice));
    } finally {
      await pool.close();
    }
  });

  it('refuses a conversion once the wait queue is full, then drains the queue', async () => {
    const pool = new LibreOfficePool({ instances: 2, maxQueue: 1 });
    try {
      await pool.start();
      const stopped = pids(pool);
      for (const pid of stopped) process.kill(pid, 'SIGSTOP'); // keep both instances busy
      const running = [pool.convert(invoice), pool.convert(invoice)];
      await waitFor('both busy', () => pool.stats().busy === 2);
      const queued = pool.convert(invoice);
      await waitFor('one waiting', () => pool.stats().queueLength === 1);

      const refused = await pool.convert(invoice, { jobId: 'too-many' }).catch((e: unknown) => e);
      expect(isConverterQueueFull(refused)).toBe(true);
      expect((refused as ConversionFailedError).details).toMatchObject({
        reason: QUEUE_FULL_REASON,
        maxQueue: 1,
        jobId: 'too-many',
      });

      for (const pid of stopped) process.kill(pid, 'SIGCONT');
      (await Promise.all([...running, queued])).forEach(expectPdfOfInvoice);
      expect(pool.stats()).toMatchObject({ conversions: 3, failures: 1, queueLength: 0 });
    } finally {
      await pool.close();
    }
  });

  it('close() stops every process and removes profiles and temporary files', async () => {
    const parent = await mkdtemp(join(tmpdir(), 'lo-close-spec-'));
    const pool = new LibreOfficePool({ instances: 2, tmpDir: parent });
    try {
      await pool.start();
      expectPdfOfInvoice(await pool.convert(invoice));
      const processes = pool.describe().flatMap((s) => [s.pid!, s.bridgePid!]);
      expect(processes).toHaveLength(4);
      processes.forEach((pid) => expect(processAlive(pid)).toBe(true));

      await pool.close();

      processes.forEach((pid) => expect(processAlive(pid)).toBe(false));
      expect(await readdir(parent)).toEqual([]);
      await expect(pool.convert(invoice)).rejects.toMatchObject({ details: { reason: 'converter_closed' } });
      await expect(pool.health()).resolves.toMatchObject({ healthy: false, detail: 'closed' });
    } finally {
      await pool.close();
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('reports an instance that cannot start instead of hanging', async () => {
    const pool = new LibreOfficePool({
      instances: 2,
      sofficePath: '/nonexistent/soffice.bin',
      startTimeoutMs: 3000,
    });
    try {
      await expect(pool.start()).rejects.toMatchObject({
        errorType: 'conversion_failed',
        details: { reason: 'converter_unavailable' },
      });
      const err = await pool.convert(invoice).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConversionFailedError);
      expect((err as Error).message).toMatch(/could be started/);
      await waitFor('the retries to fail too', () => pool.describe().every((s) => s.state === 'down'));
      const health = await pool.health();
      expect(health.healthy).toBe(false);
      expect(health.ready).toBe(0);
      expect(health.detail).toMatch(/instance 0 down: .*\/nonexistent\/soffice\.bin/);
    } finally {
      await pool.close();
    }
  });
});

describe('createConverter', () => {
  it('builds the LibreOffice pool when no Gotenberg URL is set, splitting long tables unless SPLIT_MIN_ROWS is 0', async () => {
    const unsplit = createConverter({ instances: 1, splitMinRows: 0, budgetScalePercent: 0 });
    await unsplit.close();
    expect(unsplit).toBeInstanceOf(LibreOfficePool);
    // Split conversion off, the conversion budget on: the splitter still refuses what is beyond its time.
    const budgeted = createConverter({ instances: 1, splitMinRows: 0 });
    await budgeted.close();
    expect(budgeted).toBeInstanceOf(SplittingConverter);
    expect(budgeted.setup).toMatch(
      /no split conversion, whole conversions predicted beyond their time refused/,
    );
    expect(() => createConverter({ budgetScalePercent: 10_001 })).toThrow(
      /CONVERSION_BUDGET_SCALE must be an integer from 0 to 10000/,
    );
    expect(() => createConverter({ splitPartPages: 1 })).toThrow(
      /SPLIT_PART_PAGES must be an integer from 2 to 1000/,
    );
    const converter = createConverter({ instances: 1 });
    try {
      expect(converter).toBeInstanceOf(SplittingConverter);
      expect(converter.setup).toMatch(
        /tables from 2500 rows in parts of 10 pages, whole conversions predicted beyond their time refused \(predictions at 100%\)$/,
      );
      expect(converter.name).toBe('libreoffice');
      expect(converter.capacity).toBe(1);
      await (converter as SplittingConverter).start(); // createConverter already started it
      await expect(converter.health()).resolves.toEqual({ healthy: true, instances: 1, ready: 1 });
    } finally {
      await converter.close();
    }
    const byDefault = createConverter({});
    await byDefault.close();
    expect(byDefault.capacity).toBe(availableParallelism());
  });
});
