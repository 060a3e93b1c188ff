/**
 * The one place that reads what BullMQ keeps in Redis besides its public API. Pinned to the
 * bullmq version in package.json (exact) by test/bullmq-state.e2e-spec.ts, which runs each read against
 * a real Redis and BullMQ's own scripts: a new BullMQ that moves a field or a key fails there.
 *
 * Why not only the public API: the API looks up every request waiting over a second, once a
 * second, and after a Redis error every waiting request; Queue.getJobState and Job.fromId are a
 * script and a read per job, these are one pipeline for all of them. Admission counts waiting jobs
 * inside its own Lua script, which needs the keys' names.
 */
import { type Job, type Queue, UnrecoverableError } from 'bullmq';
import type { RedisConnection } from './redis-connection';

/** The keys BullMQ's getJobCountByTypes('waiting', 'prioritized', 'delayed') counts. */
export interface WaitingKeys {
  /** A list. */
  wait: string;
  /** Sorted sets. */
  prioritized: string;
  delayed: string;
}

export function waitingKeys(queue: Pick<Queue, 'keys'>): WaitingKeys {
  return { wait: queue.keys.wait, prioritized: queue.keys.prioritized, delayed: queue.keys.delayed };
}

/** What a job's hash and the failed set say of a job that ended. */
export type Finished =
  { state: 'pending' } | { state: 'completed'; returnvalue: unknown } | { state: 'failed'; reason: string };

/**
 * For each job id, whether it ended and how, in one pipeline: the hash's finishedOn, returnvalue
 * and failedReason, and the job's score in the failed set. An id missing from the answer could
 * not be read (the wait goes on).
 */
export async function finishedJobs(
  redis: RedisConnection,
  queue: Pick<Queue, 'toKey' | 'keys'>,
  ids: readonly string[],
): Promise<Map<string, Finished>> {
  const pipeline = redis.pipeline();
  for (const id of ids) {
    pipeline.hmget(queue.toKey(id), 'finishedOn', 'returnvalue', 'failedReason');
    pipeline.zscore(queue.keys.failed, id);
  }
  const answers = await pipeline.exec();
  const found = new Map<string, Finished>();
  ids.forEach((id, i) => {
    const [fieldsError, fields] = answers?.[2 * i] ?? [new Error('no answer')];
    const [scoreError, failedScore] = answers?.[2 * i + 1] ?? [new Error('no answer')];
    if (fieldsError || scoreError) return;
    const [finishedOn, returnvalue, failedReason] = fields as Array<string | null>;
    if (!finishedOn) return found.set(id, { state: 'pending' }); // waiting, running or retrying
    if (failedScore !== null) return found.set(id, { state: 'failed', reason: failedReason ?? '' });
    try {
      found.set(id, { state: 'completed', returnvalue: JSON.parse(returnvalue ?? 'null') });
    } catch {
      // not a return value of ours: the wait ends at its timeout
    }
  });
  return found;
}

/**
 * The ids whose job hash no longer exists (lost with Redis' data), in one pipeline; null when
 * Redis did not answer every question.
 */
export async function missingJobs(
  redis: RedisConnection,
  queue: Pick<Queue, 'toKey'>,
  ids: readonly string[],
): Promise<string[] | null> {
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.exists(queue.toKey(id));
  const answers = await pipeline.exec();
  if (!answers || answers.some(([err]) => err)) return null;
  return ids.filter((_, i) => answers[i][1] === 0);
}

/**
 * Whether BullMQ will fail the job for good on this error rather than try it again. BullMQ's
 * own rule (Job.shouldRetryJob, private) for the options the API queues with: attempts,
 * exponential backoff, no maxStartedAttempts.
 */
export function isFinalFailure(job: Pick<Job, 'attemptsMade' | 'opts'>, failure: Error): boolean {
  return failure instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts?.attempts ?? 1);
}
