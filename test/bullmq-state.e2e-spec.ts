/**
 * Pins what libs/queue reads of BullMQ's state beside its public API, against the bullmq that
 * package.json pins, on a real Redis with BullMQ's own scripts: each read here is compared with
 * what BullMQ's public API says of the same jobs.
 */
import { Job, Queue, UnrecoverableError, Worker } from 'bullmq';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { heartbeatKey, payloadKeys, templateKey } from '@app/contracts';
import { admitAndStore, beat, isFinalFailure } from '@app/queue';
// libs/queue's private readers of BullMQ's state are what this file pins (they read Redis beside
// BullMQ's API), so it imports them by path (test/support/babel-ours.ts is the other such file).
// eslint-disable-next-line no-restricted-imports
import { finishedJobs, missingJobs, waitingKeys } from '../libs/queue/src/bullmq-state';
import { redisForTests } from './service-harness';

const PINNED = '6.7.0';

it(`runs against bullmq ${PINNED}, pinned exactly in package.json`, () => {
  const root = join(__dirname, '..');
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  expect(pkg.dependencies.bullmq).toBe(PINNED);
  expect(require('bullmq/package.json').version).toBe(PINNED);
});

describe("BullMQ's state as libs/queue reads it", () => {
  const redis = redisForTests();
  const names = { prefix: '{pin}', name: 'render' };
  let queue: Queue;

  beforeAll(() => {
    // The test's own client: it ends with the test's Redis, whatever order the hooks run in.
    queue = new Queue(names.name, { connection: redis.client, prefix: names.prefix });
  });
  afterAll(async () => {
    await queue.close();
  });
  beforeEach(async () => {
    await redis.client.flushall();
  });

  /** Runs `process` on every job of the queue until `until` holds. */
  async function withWorker(
    process: (job: Job) => Promise<unknown>,
    until: () => Promise<boolean>,
  ): Promise<void> {
    const worker = new Worker(names.name, process, {
      connection: { url: redis.server.url },
      prefix: names.prefix,
    });
    try {
      const deadline = Date.now() + 20_000;
      while (!(await until())) {
        if (Date.now() > deadline) throw new Error('the jobs did not end');
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await worker.close();
    }
  }

  it('counts waiting jobs in the keys getJobCounts counts, as admission does', async () => {
    await queue.add('render', {}, { jobId: 'w' });
    await queue.add('render', {}, { jobId: 'p', priority: 1 });
    await queue.add('render', {}, { jobId: 'd', delay: 60_000 });
    const keys = waitingKeys(queue);
    expect(await redis.client.llen(keys.wait)).toBe(1);
    expect(await redis.client.zcard(keys.prioritized)).toBe(1);
    expect(await redis.client.zcard(keys.delayed)).toBe(1);
    expect(await queue.getJobCounts('waiting', 'prioritized', 'delayed')).toEqual({
      waiting: 1,
      prioritized: 1,
      delayed: 1,
    });

    // Admission refuses at three waiting, admits below.
    await beat(redis.client, heartbeatKey(names), 'worker-1', 10_000);
    const admit = (maxWaiting: number) =>
      admitAndStore(
        redis.client,
        {
          heartbeat: heartbeatKey(names),
          ...keys,
          template: templateKey(names, 'digest'),
          request: payloadKeys(names, 'j').requestKey,
        },
        { maxWaiting, ttlMs: 10_000, template: Buffer.from('PK'), requestJson: '{}' },
      );
    // redisTime: the admission's Redis TIME, from which the worker counts the budget (issue 27).
    const redisTime = expect.any(Number) as number;
    expect(await admit(3)).toEqual({ workers: 1, waiting: 3, outcome: 'refused', redisTime });
    expect(await admit(4)).toEqual({ workers: 1, waiting: 3, outcome: 'stored', redisTime });
  });

  it('tells completed, failed and pending jobs apart as getState does', async () => {
    // Not 'failed' or 'completed': a job's key would be BullMQ's set of that name.
    await queue.add('render', { answer: 'ok' }, { jobId: 'j-done' });
    await queue.add('render', { answer: 'fail' }, { jobId: 'j-failed' });
    await withWorker(
      async (job) => {
        if (job.data.answer === 'fail') throw new UnrecoverableError('{"error_type":"x"}');
        return { replyKey: 'list', bytes: 3 };
      },
      async () =>
        (await queue.getJobCounts('completed', 'failed')).completed === 1 &&
        (await queue.getJobCounts('failed')).failed === 1,
    );
    await queue.add('render', {}, { jobId: 'j-waiting' });
    await queue.add('render', {}, { jobId: 'j-retrying', delay: 60_000 });

    const found = await finishedJobs(redis.client, queue, ['j-done', 'j-failed', 'j-waiting', 'j-retrying']);
    expect(Object.fromEntries(found)).toEqual({
      'j-done': { state: 'completed', returnvalue: { replyKey: 'list', bytes: 3 } },
      'j-failed': { state: 'failed', reason: '{"error_type":"x"}' },
      'j-waiting': { state: 'pending' },
      'j-retrying': { state: 'pending' },
    });
    expect(await queue.getJobState('j-done')).toBe('completed');
    expect(await queue.getJobState('j-failed')).toBe('failed');
    expect((await Job.fromId(queue, 'j-failed'))!.failedReason).toBe('{"error_type":"x"}');
    expect((await Job.fromId(queue, 'j-done'))!.returnvalue).toEqual({ replyKey: 'list', bytes: 3 });
  });

  it('finds the jobs Redis no longer has', async () => {
    await queue.add('render', {}, { jobId: 'kept' });
    await queue.add('render', {}, { jobId: 'gone' });
    await queue.remove('gone');
    expect(await queue.getJobState('gone')).toBe('unknown');
    expect(await missingJobs(redis.client, queue, ['kept', 'gone', 'never'])).toEqual(['gone', 'never']);
  });

  it('predicts a final failure exactly when BullMQ stops retrying (its shouldRetryJob)', async () => {
    const predicted: Record<string, boolean[]> = { outage: [], mistake: [] };
    const options = { attempts: 3, backoff: { type: 'exponential', delay: 10 } };
    await queue.add('render', { kind: 'outage' }, { jobId: 'outage', ...options });
    await queue.add('render', { kind: 'mistake' }, { jobId: 'mistake', ...options });
    await queue.add('render', { kind: 'outage' }, { jobId: 'once' }); // one attempt by default
    predicted.once = [];
    await withWorker(
      async (job) => {
        const failure = job.data.kind === 'mistake' ? new UnrecoverableError('mistake') : new Error('outage');
        predicted[String(job.id)].push(isFinalFailure(job, failure));
        throw failure;
      },
      async () => (await queue.getJobCounts('failed')).failed === 3,
    );
    expect(predicted).toEqual({ outage: [false, false, true], mistake: [true], once: [true] });
    for (const [id, attempts] of [
      ['outage', 3],
      ['mistake', 1],
      ['once', 1],
    ] as const) {
      const job = (await Job.fromId(queue, id))!;
      expect(await job.getState()).toBe('failed');
      expect(job.attemptsMade).toBe(attempts);
    }
  });
});
