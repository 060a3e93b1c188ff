/**
 * Long documents: a synchronous request's cell budget (MAX_TABLE_CELLS) and an asynchronous job's
 * (ASYNC_MAX_TABLE_CELLS, ASYNC_CONVERSION_TIMEOUT_MS), against a real Redis, a worker with
 * LibreOffice and the API (docs/jobs.md, "Long documents"). The corpus invoice of 25,000 rows
 * (just over 100,000 cells) is refused synchronously with the typed 413; one of 15,000 rows is
 * accepted as a job, which converts under the job's own time limit (kept small here: the test shows which limit
 * applies, not how long LibreOffice takes); a 65,000-row one (over 250,000 cells) fails as a job
 * with the same typed 413. Fills of these requests run on the worker's fill thread
 * (FILL_THREAD_MIN_BYTES, default 256 KiB), as built in dist/.
 */
import { corpusRequest, corpusTemplate } from '../bench/corpus';
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

jest.setTimeout(120_000);

let redis: RedisServer;
let api: RunningApi;
let worker: ManagedProcess;

beforeAll(async () => {
  buildService();
  redis = await RedisServer.start();
  const env = testEnv(redis.url, {
    QUEUE_PREFIX: '{long}',
    // Which limit a conversion gets, not LibreOffice's speed: a long table does not convert in 3 s.
    ASYNC_CONVERSION_TIMEOUT_MS: '3000',
  });
  [worker, api] = await Promise.all([startWorker(env), startApi(env)]);
});

afterAll(async () => {
  await stopAll(api, worker);
  await stopAll(redis);
});

function form(rows: number): FormData {
  const f = new FormData();
  f.append('file', new Blob([corpusTemplate('invoice')]), 'statement.docx');
  f.append('request_data', JSON.stringify(corpusRequest('invoice', { rows })));
  return f;
}

interface JobStatus {
  status: string;
  error?: { error_type: string; details: Record<string, unknown> };
}

async function jobOutcome(rows: number): Promise<JobStatus> {
  const res = await fetch(`${api.url}/api/v1/jobs`, { method: 'POST', body: form(rows) });
  expect(res.status).toBe(202);
  const { job_id: id } = (await res.json()) as { job_id: string };
  return jobFinished<JobStatus>(api.url, id, 90_000);
}

describe('a long statement', () => {
  it('past MAX_TABLE_CELLS (100,000): a synchronous request is refused with the typed 413 right after the fill', async () => {
    const res = await fetch(`${api.url}/api/v1/process-template-document`, {
      method: 'POST',
      body: form(25_000),
    });
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error_type: string; details: { table_cells: number } };
    expect(body).toMatchObject({
      error_type: 'payload_too_large',
      details: { reason: 'conversion_budget', limit: 100_000 },
    });
    expect(body.details.table_cells).toBeGreaterThan(100_000);
    expect(body.details.table_cells).toBeLessThan(100_100);
  });

  it('is accepted as a job under ASYNC_MAX_TABLE_CELLS, and converted with ASYNC_CONVERSION_TIMEOUT_MS', async () => {
    const done = await jobOutcome(15_000);
    // Past the synchronous budget, the item reached the converter, with the job's time limit.
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({
      error_type: 'conversion_failed',
      details: { reason: 'timeout', timeoutMs: 3000 },
    });
  });

  it('past ASYNC_MAX_TABLE_CELLS (250,000): the job fails with the typed 413 as its error', async () => {
    const done = await jobOutcome(65_000);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({
      error_type: 'payload_too_large',
      details: { reason: 'conversion_budget', limit: 250_000 },
    });
    expect(done.error!.details.table_cells).toBeGreaterThan(260_000);
  });
});
