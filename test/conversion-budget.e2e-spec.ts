/**
 * The conversion budget (issue 34) through the real service: Redis, the API and a worker with
 * LibreOffice 25.2. A statement whose bookings take two rows, the date merged down both
 * (`w:vMerge`, test/support/merged-statement.ts), cannot be converted in parts; converted whole,
 * LibreOffice's time grows faster than its rows (docs/conversion.md, "The conversion budget").
 *   - large: refused at once with the typed 413, synchronously and as a job, saying why;
 *   - medium: beyond the synchronous conversion time, within the job's: refused synchronously
 *     (suggesting a job), converted as a job;
 *   - small: converted synchronously.
 * The limits are set small here (CONVERSION_TIMEOUT_MS 5 s, ASYNC_CONVERSION_TIMEOUT_MS 60 s) so
 * the documents stay quick to fill and, where converted, to convert.
 */
import { mergedStatementRequest, mergedStatementTemplate } from './support/merged-statement';
import {
  buildService,
  ManagedProcess,
  RedisServer,
  RunningApi,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  jobFinished,
} from './service-harness';

jest.setTimeout(180_000);

const SYNC_TIMEOUT_MS = 5_000;
const ASYNC_TIMEOUT_MS = 60_000;
/** Bookings (two table rows each). */
const LARGE = 5_000;
const MEDIUM = 1_500;
const SMALL = 150;

let redis: RedisServer;
let api: RunningApi;
let worker: ManagedProcess;

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, {
    QUEUE_PREFIX: '{budget}',
    CONVERSION_TIMEOUT_MS: String(SYNC_TIMEOUT_MS),
    ASYNC_CONVERSION_TIMEOUT_MS: String(ASYNC_TIMEOUT_MS),
  });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
});

afterAll(async () => {
  await stopAll(api, worker);
  await stopAll(redis);
});

function form(bookings: number): FormData {
  const f = new FormData();
  f.append('file', new Blob([mergedStatementTemplate()]), 'merged-statement.docx');
  f.append('request_data', JSON.stringify(mergedStatementRequest(bookings)));
  return f;
}

interface ErrorBody {
  status?: string;
  message: string;
  error_type: string;
  details: Record<string, unknown>;
}

interface JobStatus {
  status: string;
  attempts?: number;
  error?: ErrorBody;
}

async function post(bookings: number): Promise<{ res: Response; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${api.url}/api/v1/process-template-document`, {
    method: 'POST',
    body: form(bookings),
  });
  await res.clone().arrayBuffer();
  return { res, ms: performance.now() - t0 };
}

async function job(bookings: number): Promise<{ id: string; outcome: JobStatus; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${api.url}/api/v1/jobs`, { method: 'POST', body: form(bookings) });
  expect(res.status).toBe(202);
  const { job_id: id } = (await res.json()) as { job_id: string };
  const outcome = await jobFinished<JobStatus>(api.url, id, 150_000);
  return { id, outcome, ms: performance.now() - t0 };
}

/** The refusal's body, as the interface specification's error body: message, error_type, details. */
function expectRefusal(body: ErrorBody, timeoutMs: number): void {
  expect(body).toMatchObject({
    error_type: 'payload_too_large',
    details: {
      reason: 'conversion_budget',
      whole_because: expect.stringMatching(/cells merged down rows/),
      table_rows: expect.any(Number),
      table_cells: expect.any(Number),
    },
  });
  // At most the limit (a synchronous request's conversion gets what is left of its wait), and a
  // prediction clearly beyond it.
  const limit = body.details.timeout_ms as number;
  expect(limit).toBeGreaterThan(0);
  expect(limit).toBeLessThanOrEqual(timeoutMs);
  expect(body.details.predicted_ms as number).toBeGreaterThan(limit * 2);
  expect(body.message).toMatch(/must be converted whole because its long table has cells merged down rows/);
  expect(body.message).toMatch(/predicted to take about [\d,]+ s, beyond the \d+ s its conversion may take/);
}

describe('a statement that cannot be split (cells merged down rows)', () => {
  it('large: a synchronous request gets the typed 413 in under 2 s, saying why and suggesting a job', async () => {
    const { res, ms } = await post(LARGE);
    expect(res.status).toBe(413);
    const body = (await res.json()) as ErrorBody;
    // The specification's error body: message, error_type, details (and status "error", as every error here).
    expect(Object.keys(body).sort()).toEqual(['details', 'error_type', 'message', 'status']);
    expect(body.status).toBe('error');
    expectRefusal(body, SYNC_TIMEOUT_MS);
    expect(body.message).toMatch(/POST \/api\/v1\/jobs/);
    expect(body.details.table_rows).toBe(2 * LARGE + 1);
    expect(ms).toBeLessThan(2_000);
    // Refused before LibreOffice ran: no conversion timed out, no instance was restarted.
    await worker.waitFor(/refusing .*cells merged down rows/);
    expect(worker.output()).not.toMatch(/did not finish the conversion|is replaced/);
  });

  it('small: the same shape converts synchronously', async () => {
    const { res } = await post(SMALL);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');
  });

  it('medium: refused synchronously, converted as a job within ASYNC_CONVERSION_TIMEOUT_MS', async () => {
    const { res, ms } = await post(MEDIUM);
    expect(res.status).toBe(413);
    expectRefusal((await res.json()) as ErrorBody, SYNC_TIMEOUT_MS);
    expect(ms).toBeLessThan(2_000);
    const { id, outcome } = await job(MEDIUM);
    expect(outcome).toMatchObject({ status: 'completed' });
    const pdf = await fetch(`${api.url}/api/v1/jobs/${id}/result`);
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');
  });

  it('large as a job: fails at once with the same typed 413, not retried, suggesting no job', async () => {
    const from = worker.lines.length;
    const { outcome, ms } = await job(LARGE);
    expect(outcome.status).toBe('failed');
    expectRefusal(outcome.error!, ASYNC_TIMEOUT_MS);
    expect(outcome.error!.message).not.toMatch(/POST \/api\/v1\/jobs/);
    expect(ms).toBeLessThan(ASYNC_TIMEOUT_MS / 4);
    // Failed once, for good: the caller's document, not an outage worth another attempt.
    const said = worker.lines.slice(from).join('\n');
    expect(said).toMatch(/failed: payload_too_large/);
    expect(said).not.toMatch(/will retry/);
  });
});
