/**
 * `npm start` survives its own parts failing: under load from four callers, its worker is
 * SIGKILLed (as the OOM killer would), then a LibreOffice instance, then its Redis. Each time start.js restarts the part
 * (logging it), the API keeps answering, every request gets its PDF or a typed 503 with
 * Retry-After (never a refused connection or an untyped error), and the service serves again
 * afterwards; SIGTERM then still stops everything.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildService,
  ENTRY,
  freePort,
  ManagedProcess,
  pdfText,
  postRender,
  sleep,
  spawnManaged,
  testEnv,
  waitUntil,
} from './service-harness';
import { descendants, sofficePids } from './support/hostile-process';

jest.setTimeout(300_000);

const ROOT = join(__dirname, '..');
const invoice = {
  file: readFileSync(join(ROOT, 'examples', 'invoice.docx')),
  request_data: readFileSync(join(ROOT, 'examples', 'invoice-request.json'), 'utf8'),
};

interface Answer {
  status: number;
  /** For a 503: its error_type and Retry-After; for a 200: whether the PDF is the invoice. */
  errorType?: string;
  retryAfter?: string | null;
  pdf?: boolean;
  /** A request that got no HTTP answer at all. */
  network?: string;
}

/** Four callers posting invoices back to back until `stop()`; every answer is kept. */
function load(url: string, callers = 4) {
  const answers: Answer[] = [];
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      try {
        const res = await postRender(url, invoice);
        const body = Buffer.from(await res.arrayBuffer());
        if (res.status === 200) answers.push({ status: 200, pdf: pdfText(body).includes('INV-') });
        else {
          let errorType: string | undefined;
          try {
            errorType = (JSON.parse(body.toString()) as { error_type?: string }).error_type;
          } catch {
            errorType = `untyped: ${body.toString().slice(0, 200)}`;
          }
          answers.push({ status: res.status, errorType, retryAfter: res.headers.get('retry-after') });
          if (res.status === 503) await sleep(200); // a caller honouring Retry-After, briefly
        }
      } catch (e) {
        answers.push({ status: 0, network: String(e) });
        await sleep(200);
      }
    }
  };
  const running = Promise.all(Array.from({ length: callers }, loop));
  return {
    answers,
    stop: async () => {
      stopped = true;
      await running;
      return answers;
    },
  };
}

/**
 * Only PDFs of the invoice and typed 503s with Retry-After. `log` (npm start's lines since the
 * fault) goes into the failure message: its warnings and errors say why an answer was wrong.
 */
function expectPdfOrTyped503(answers: Answer[], log: string[]): void {
  const wrong = answers.filter(
    (a) =>
      !(a.status === 200 && a.pdf) &&
      !(a.status === 503 && a.errorType === 'service_unavailable' && Number(a.retryAfter) > 0),
  );
  const why = wrong.length ? log.filter((l) => /"level":(40|50)|error|fail/i.test(l)).slice(-40) : [];
  expect({ wrong, why }).toEqual({ wrong: [], why: [] });
}

describe('npm start supervises its parts', () => {
  let start: ManagedProcess;
  let url: string;
  afterAll(async () => {
    if (start?.running) {
      start.child.kill('SIGTERM');
      await start.exited;
    }
  });

  /** The pid of start.js' own child whose command line includes `needle`. */
  function part(needle: string): number {
    const pid = start.child.pid!;
    const child = descendants(pid).find((p) => p.ppid === pid && p.cmdline.some((a) => a.includes(needle)));
    if (!child) throw new Error(`no ${needle} under npm start:\n${start.output()}`);
    return child.pid;
  }

  /** 200 with the invoice's PDF, asked until the service answers so (or 60 s pass). */
  async function servesAgain(): Promise<void> {
    await waitUntil(
      async () => {
        const res = await postRender(url, invoice).catch(() => undefined);
        if (res?.status !== 200) return false;
        return pdfText(Buffer.from(await res.arrayBuffer())).includes('INV-');
      },
      60_000,
      'a PDF again',
    );
  }

  beforeAll(async () => {
    buildService();
    const port = await freePort();
    const { REDIS_URL: _ignored, ...env } = testEnv('unused');
    start = spawnManaged('start', process.execPath, [join(ROOT, 'scripts', 'start.js')], {
      ...env,
      PORT: String(port),
      LOG_FORMAT: 'json',
    });
    url = `http://127.0.0.1:${port}`;
    await start.waitFor(/The service is running/, 180_000);
  });

  it('restarts a SIGKILLed worker; meanwhile every request gets its PDF or a typed 503', async () => {
    const from = start.lines.length;
    const traffic = load(url);
    await waitUntil(async () => traffic.answers.filter((a) => a.status === 200).length >= 2, 60_000, 'PDFs');
    const worker = part(ENTRY.worker);
    process.kill(worker, 'SIGKILL');
    await start.waitFor(/worker exited unexpectedly \(SIGKILL\)[^\n]*restarting it in \d+ ms/, 10_000, from);
    await start.waitFor(/\[worker\][^\n]*ready \(id /, 120_000, start.lines.length);
    // Keep the load on until the restarted worker has served some of it.
    const before = traffic.answers.length;
    await waitUntil(
      async () => traffic.answers.slice(before).filter((a) => a.status === 200).length >= 4,
      90_000,
      'PDFs from the restarted worker',
    );
    const answers = await traffic.stop();
    try {
      process.kill(-worker, 'SIGKILL'); // what the dead worker left of its LibreOffice
    } catch {
      // nothing left
    }
    expectPdfOrTyped503(answers, start.lines.slice(from));
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(6);
    expect(part(ENTRY.worker)).not.toBe(worker);
    await servesAgain();
    expect(start.running).toBe(true);
  });

  it("leaves a SIGKILLed LibreOffice to the worker's pool; meanwhile every request gets its PDF or a typed 503", async () => {
    const from = start.lines.length;
    const worker = part(ENTRY.worker);
    const traffic = load(url);
    await waitUntil(async () => traffic.answers.filter((a) => a.status === 200).length >= 2, 60_000, 'PDFs');
    const [soffice] = sofficePids(worker);
    expect(soffice).toBeDefined();
    process.kill(soffice, 'SIGKILL');
    await waitUntil(() => sofficePids(worker).some((pid) => pid !== soffice), 60_000, 'a new soffice.bin');
    const before = traffic.answers.length;
    await waitUntil(
      async () => traffic.answers.slice(before).filter((a) => a.status === 200).length >= 4,
      90_000,
      'PDFs from the new LibreOffice',
    );
    const answers = await traffic.stop();
    expectPdfOrTyped503(answers, start.lines.slice(from));
    expect(part(ENTRY.worker)).toBe(worker); // the worker itself did not die
    expect(start.output()).toMatch(/LibreOffice instance 0 \(pid \d+\) is replaced/);
  });

  it('restarts a SIGKILLed Redis with its data; meanwhile every request gets its PDF or a typed 503', async () => {
    const from = start.lines.length;
    const traffic = load(url);
    await waitUntil(async () => traffic.answers.filter((a) => a.status === 200).length >= 2, 60_000, 'PDFs');
    const redis = part('redis-server');
    process.kill(redis, 'SIGKILL');
    await start.waitFor(/redis exited unexpectedly \(SIGKILL\)[^\n]*restarting it in \d+ ms/, 10_000, from);
    await start.waitFor(/\[redis\][^\n]*Ready to accept connections/, 30_000, from);
    const before = traffic.answers.length;
    await waitUntil(
      async () => traffic.answers.slice(before).filter((a) => a.status === 200).length >= 4,
      90_000,
      'PDFs after Redis restarted',
    );
    const answers = await traffic.stop();
    expectPdfOrTyped503(answers, start.lines.slice(from));
    // The restarted Redis read its append-only file back.
    expect(start.output().slice(start.lines.slice(0, from).join('\n').length)).toMatch(
      /\[redis\][^\n]*(DB loaded from append only file|Reading RDB base file|DB loaded from disk)/,
    );
    await servesAgain();
  });

  it('still stops everything on SIGTERM', async () => {
    const pid = start.child.pid!;
    expect(descendants(pid).length).toBeGreaterThan(0);
    start.child.kill('SIGTERM');
    expect(await start.exited).toBe(0);
    expect(start.output()).toMatch(/\[start\] stopped/);
    expect(descendants(pid)).toEqual([]);
  });
});

describe('npm start gives up on a part that keeps crashing', () => {
  it('stops after repeated fast crashes and says why', async () => {
    const port = await freePort();
    const { REDIS_URL: _ignored, ...env } = testEnv('unused');
    // A worker that exits at once at each start: a setting it refuses.
    const start = spawnManaged('start-broken', process.execPath, [join(ROOT, 'scripts', 'start.js')], {
      ...env,
      PORT: String(port),
      LOG_FORMAT: 'json',
      // Each valid on its own (the loader checks across variables once each is), not together.
      HEARTBEAT_TTL_MS: '1000',
      HEARTBEAT_INTERVAL_MS: '2000',
    });
    const code = await start.exited;
    expect(code).toBe(1);
    const out = start.output();
    expect(out.match(/worker exited unexpectedly[^\n]*restarting it in/g)?.length).toBe(4);
    expect(out).toMatch(/worker exited 5 times in a row within 30 s of starting[^\n]*giving up/);
    expect(out).toMatch(/HEARTBEAT_TTL_MS must be greater than HEARTBEAT_INTERVAL_MS/);
    expect(out).toMatch(/\[start\] stopped/);
  });
});
