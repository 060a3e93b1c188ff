/**
 * Finds the answers no reply brings. Requests waiting longer than STRAGGLER_CHECK_MS have their
 * job looked up once a second: a job BullMQ failed itself (it stalled too often), or whose
 * failure Redis refused to push, is settled as failed; a job completed while its reply has not
 * come is given REPLY_GRACE_MS (the reply was pushed before the job completed, so only a dropped
 * connection delays it that long) and then settled as reply_lost. After a Redis error or a lost
 * connection, once Redis answers again, jobs that no longer exist are settled as lost: a finished
 * job stays in Redis (the last 1000, for up to an hour), so a missing one went with Redis' data (a
 * restart without persistence). Nothing is asked while every answer comes by reply within the
 * second.
 */
import type { RenderQueue } from './render-queue';
import type { JobOutcome } from './outcome';

/** Requests waiting longer than this have their job looked up, this often. */
export const STRAGGLER_CHECK_MS = 1000;
/** How often, after a Redis error, lost jobs are looked for until Redis answers. */
const LOST_JOB_CHECK_MS = 1000;
/** How long after its job completed a reply may still be on its way. */
export const REPLY_GRACE_MS = 5000;

export class Watchdog {
  /** Jobs of waiting requests that are in the queue, by id: when they were added. */
  private readonly enqueued = new Map<string, number>();
  private readonly replyGrace = new Set<string>();
  private stragglerCheck?: NodeJS.Timeout;
  private checking = false;
  private lostJobCheck?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly queue: Pick<RenderQueue, 'finished' | 'missing'>,
    private readonly redisReady: () => boolean,
    /** Ends a request's wait; a job nobody waits for any more is ignored there. */
    private readonly settle: (jobId: string, outcome: JobOutcome) => void,
    private readonly onError: (e: unknown) => void,
  ) {}

  start(): void {
    this.stragglerCheck = setInterval(() => void this.checkStragglers(), STRAGGLER_CHECK_MS);
    this.stragglerCheck.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.stragglerCheck);
    clearTimeout(this.lostJobCheck);
  }

  /** The job is in the queue: watch it until forget(). */
  watch(jobId: string): void {
    this.enqueued.set(jobId, Date.now());
  }

  forget(jobId: string): void {
    this.enqueued.delete(jobId);
  }

  /** After a Redis error or a lost connection: look for lost jobs once Redis answers. */
  scheduleLostJobCheck(): void {
    if (this.lostJobCheck || this.stopped) return;
    this.lostJobCheck = setTimeout(() => {
      this.lostJobCheck = undefined;
      void this.settleLostJobs().then(
        (answered) => {
          if (!answered) this.scheduleLostJobCheck(); // Redis still away: look again
        },
        () => this.scheduleLostJobCheck(),
      );
    }, LOST_JOB_CHECK_MS);
    this.lostJobCheck.unref();
  }

  /** True once Redis answered (or nothing is waiting). */
  private async settleLostJobs(): Promise<boolean> {
    const jobIds = [...this.enqueued.keys()];
    if (jobIds.length === 0) return true;
    if (!this.redisReady()) return false;
    const missing = await this.queue.missing(jobIds);
    if (!missing) return false;
    for (const id of missing) this.settle(id, { kind: 'lost' });
    return true;
  }

  private async checkStragglers(): Promise<void> {
    if (this.checking || !this.redisReady()) return;
    const now = Date.now();
    const due = [...this.enqueued].filter(([, at]) => now - at >= STRAGGLER_CHECK_MS).map(([id]) => id);
    if (due.length === 0) return;
    this.checking = true;
    try {
      for (const [id, finished] of await this.queue.finished(due)) {
        if (finished.state === 'failed') this.settle(id, { kind: 'failed', reason: finished.reason });
        else if (finished.state === 'completed' && finished.returnvalue) this.awaitReply(id);
      }
    } catch (e) {
      this.onError(e);
    } finally {
      this.checking = false;
    }
  }

  /** The job completed: its reply is in the list or on its way, for REPLY_GRACE_MS at most. */
  private awaitReply(jobId: string): void {
    if (this.replyGrace.has(jobId)) return;
    this.replyGrace.add(jobId);
    setTimeout(() => {
      this.replyGrace.delete(jobId);
      if (this.enqueued.has(jobId)) this.settle(jobId, { kind: 'reply_lost' });
    }, REPLY_GRACE_MS).unref();
  }
}
