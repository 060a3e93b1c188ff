/**
 * Budgets no clock skew can break: a worker whose wall clock runs minutes ahead of (or behind)
 * the API's host still gets each job's whole budget, because the job's age is measured on Redis'
 * clock and the rest on the worker's monotonic clock (jobDeadline in render.processor.ts). Before,
 * a worker 70 s ahead failed every job with "did not finish the conversion within 100 ms".
 *
 * The skew comes from libfaketime (Debian's `faketime`), preloaded into the worker alone, as a
 * host without NTP would run it, LibreOffice included (which then runs with glibc's malloc: see
 * chooseAllocator). libfaketime shifts the monotonic clock by
 * the same offset (leaving it alone, FAKETIME_DONT_FAKE_MONOTONIC, breaks Python's time.sleep in
 * the UNO bridge with EINVAL); only a difference between clocks could matter, and that is the same.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildService,
  ENTRY,
  ManagedProcess,
  NODE_ARGS,
  pdfText,
  postRender,
  RedisServer,
  RunningApi,
  spawnManaged,
  startApi,
  stopAll,
  testEnv,
} from './service-harness';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..');
/** Debian's libfaketime, wherever its architecture puts it (scripts/ensure-system-deps.sh). */
const LIBFAKETIME = ['/usr/lib/faketime', ...readdirSync('/usr/lib').map((d) => `/usr/lib/${d}/faketime`)]
  .map((dir) => `${dir}/libfaketime.so.1`)
  .find((f) => existsSync(f));
const invoice = {
  file: readFileSync(join(ROOT, 'examples', 'invoice.docx')),
  request_data: readFileSync(join(ROOT, 'examples', 'invoice-request.json'), 'utf8'),
};

/** A worker whose wall clock is `offset` (libfaketime's syntax: `+5m`, `-5m`) off the real one. */
async function skewedWorker(env: NodeJS.ProcessEnv, offset: string): Promise<ManagedProcess> {
  const proc = spawnManaged(`worker${offset}`, process.execPath, [...NODE_ARGS.worker, ENTRY.worker], {
    ...env,
    LD_PRELOAD: LIBFAKETIME,
    FAKETIME: offset,
  });
  await proc.waitFor(/\bready \(id /, 90_000);
  return proc;
}

beforeAll(() => buildService());

describe('a worker whose clock is minutes off the API host', () => {
  let redis: RedisServer;
  let api: RunningApi;
  let worker: ManagedProcess | undefined;
  const env = () =>
    testEnv(redis.url, {
      QUEUE_PREFIX: '{skew}',
      JOB_TIMEOUT_MS: '60000',
      CONVERSION_TIMEOUT_MS: '30000',
      LOG_FORMAT: 'json',
    });

  beforeAll(async () => {
    expect(LIBFAKETIME).toBeDefined(); // scripts/ensure-system-deps.sh installs faketime
    redis = await RedisServer.start();
    api = await startApi(env());
  });
  afterEach(async () => {
    await stopAll(worker);
    worker = undefined;
  });
  afterAll(async () => stopAll(api, redis));

  it.each(['+5m', '-5m'])('renders every document with the worker at %s', async (offset) => {
    worker = await skewedWorker(env(), offset);
    // The preload took: the worker's own log lines carry the shifted time.
    const line = worker.lines.find((l) => l.includes('"time"'));
    const time = (JSON.parse(line!) as { time: number | string }).time;
    const loggedAt = typeof time === 'number' ? time : Date.parse(time);
    const shift = offset.startsWith('+') ? 1 : -1;
    expect(shift * (loggedAt - Date.now())).toBeGreaterThan(4 * 60_000);

    for (let i = 0; i < 4; i++) {
      const res = await postRender(api.url, invoice);
      const body = Buffer.from(await res.arrayBuffer());
      expect({ i, status: res.status, text: res.status === 200 ? '' : body.toString() }).toEqual({
        i,
        status: 200,
        text: '',
      });
      expect(pdfText(body)).toContain('INV-');
    }
    // No conversion was cut short and no LibreOffice restarted for lack of time.
    expect(worker.output()).not.toMatch(/did not finish the conversion/);
    // LIBREOFFICE_ALLOCATOR=auto kept glibc's malloc: jemalloc and libfaketime deadlock soffice.bin.
    expect(worker.output()).toMatch(/allocator system/);
  });
});
