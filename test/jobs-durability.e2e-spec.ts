/**
 * A 202 from POST /api/v1/jobs is a promise: the job is accepted while no worker runs, then Redis
 * (with the append-only file, fsync every second, as docker-compose.yml, the Kubernetes manifests
 * and `npm start` run it) and the API are restarted, and only then does a worker start. The job
 * completes and its result is read from the new API.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildService,
  freePort,
  ManagedProcess,
  pdfText,
  RunningApi,
  sleep,
  spawnManaged,
  startApi,
  startWorker,
  stopAll,
  testEnv,
  waitUntil,
} from './service-harness';

jest.setTimeout(180_000);

const invoiceDocx = readFileSync(join(__dirname, '..', 'examples', 'invoice.docx'));
const invoiceRequest = readFileSync(join(__dirname, '..', 'examples', 'invoice-request.json'), 'utf8');

let dir: string;
let port: number;
let redis: ManagedProcess | undefined;
let api: RunningApi | undefined;
let worker: ManagedProcess | undefined;

async function startRedis(): Promise<ManagedProcess> {
  const proc = spawnManaged(
    `redis:${port}`,
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--dir',
      dir,
    ],
    process.env,
  );
  await proc.waitFor(/Ready to accept connections/, 10_000);
  return proc;
}

async function statusOf(id: string): Promise<string> {
  const res = await fetch(`${api!.url}/api/v1/jobs/${id}`);
  return ((await res.json()) as { status: string }).status;
}

beforeAll(async () => {
  buildService();
  dir = mkdtempSync(join(tmpdir(), 'jobs-aof-'));
  port = await freePort();
  redis = await startRedis();
});

afterAll(async () => {
  await stopAll(api, worker);
  await stopAll(redis);
  rmSync(dir, { recursive: true, force: true });
});

it('a job accepted with no worker survives a Redis restart and an API restart, completes, and expires after RESULT_TTL_S', async () => {
  const env = testEnv(`redis://127.0.0.1:${port}`, {
    QUEUE_PREFIX: '{durable}',
    PUBLIC_BASE_URL: 'https://docs.example.com',
    RESULT_TTL_S: '3',
  });
  api = await startApi(env);
  const form = new FormData();
  form.append('file', new Blob([invoiceDocx]), 'invoice.docx');
  form.append('request_data', invoiceRequest);
  const res = await fetch(`${api.url}/api/v1/jobs`, { method: 'POST', body: form });
  expect(res.status).toBe(202);
  const { job_id: id, status_url: statusUrl } = (await res.json()) as { job_id: string; status_url: string };
  // Absolute, on PUBLIC_BASE_URL rather than the address the request came to
  expect(statusUrl).toBe(`https://docs.example.com/api/v1/jobs/${id}`);
  expect(res.headers.get('location')).toBe(statusUrl);
  expect(await statusOf(id)).toBe('queued');

  await sleep(1500); // past one fsync of the append-only file
  // Killed, not stopped: nothing is written on the way out; only the fsynced file remains.
  redis!.killGroup('SIGKILL');
  await redis!.exited;
  await api.proc.stop();
  redis = await startRedis();
  api = await startApi(env, 'api-2');
  expect(await statusOf(id)).toBe('queued');

  worker = await startWorker(env);
  let status = '';
  await waitUntil(
    async () => {
      status = await statusOf(id);
      return status === 'completed' || status === 'failed';
    },
    120_000,
    'the job to finish',
  );
  expect(status).toBe('completed');
  const result = await fetch(`${api.url}/api/v1/jobs/${id}/result`);
  expect(result.status).toBe(200);
  expect(pdfText(Buffer.from(await result.arrayBuffer()))).toContain('INV-2024-0042');

  // RESULT_TTL_S later, the job and its result are gone.
  await sleep(3500);
  for (const path of [`/api/v1/jobs/${id}`, `/api/v1/jobs/${id}/result`]) {
    const gone = await fetch(`${api.url}${path}`);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ error_type: 'job_not_found' });
  }
});

it('a result over MAX_RESULT_BYTES fails the job with 413 payload_too_large naming the limit', async () => {
  // The limit is the assembling worker's: a worker started with a small one.
  await stopAll(worker);
  const env = testEnv(`redis://127.0.0.1:${port}`, { QUEUE_PREFIX: '{durable}', MAX_RESULT_BYTES: '1000' });
  worker = await startWorker(env, 'worker-small');
  const data = JSON.parse(invoiceRequest) as { template_data: object; images: object };
  const form = new FormData();
  form.append('file', new Blob([invoiceDocx]), 'invoice.docx');
  form.append(
    'request_data',
    JSON.stringify({
      images: data.images,
      batch: [{ template_data: data.template_data }, { template_data: data.template_data }],
    }),
  );
  const res = await fetch(`${api!.url}/api/v1/jobs`, { method: 'POST', body: form });
  expect(res.status).toBe(202);
  const { job_id: id } = (await res.json()) as { job_id: string };
  await waitUntil(async () => (await statusOf(id)) === 'failed', 120_000, 'the job to fail');
  const result = await fetch(`${api!.url}/api/v1/jobs/${id}/result`);
  expect(result.status).toBe(413);
  expect(await result.json()).toMatchObject({
    error_type: 'payload_too_large',
    details: { limit: 1000, max_result_bytes: 1000 },
  });
});
