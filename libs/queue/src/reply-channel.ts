/**
 * The reply list: how a worker's answer reaches the API that queued the job in one step. Each API
 * process reads its own list (replyKey) on a connection of its own (BLPOP); the worker pushes the
 * document, or a final failure, there before it tells BullMQ, deleting the request's payload in
 * the same transaction. Against BullMQ's completed event and a second read of a result key it
 * took completion-to-response from 4.0 to 1.0–1.5 ms (20-row corpus invoice, bench:service,
 * 25 Nov 2026; docs/service.md). QueueEvents would also make every API read every event of every
 * job, about four per document, to learn of its own few.
 */
import { decodeReply, type FailureReply, type Reply } from '@app/contracts';
import type { RedisConnection } from './redis-connection';

/** The API's side: reads its list until stopped, handing each well-formed frame to `onReply`. */
export class ReplyReader {
  private reading?: Promise<void>;
  private stopped = false;

  constructor(
    /** Blocks on the list: nothing else may run on it, and it has no command timeout. */
    private readonly connection: RedisConnection,
    readonly key: string,
    private readonly onReply: (reply: Reply | FailureReply) => void,
    private readonly onError: (e: unknown) => void,
  ) {}

  start(): void {
    this.reading ??= this.read();
  }

  private async read(): Promise<void> {
    while (!this.stopped) {
      try {
        const popped = await this.connection.blpopBuffer(this.key, 0);
        const reply = popped ? decodeReply(popped[1]) : null; // anything else is dropped
        if (reply) this.onReply(reply);
      } catch (e) {
        if (this.stopped) return;
        this.onError(e);
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  }

  /** Ends the pending BLPOP by dropping the connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.connection.disconnect();
    await this.reading?.catch(() => undefined);
  }
}

/**
 * The worker's side: one frame (encodeReply) onto a reply list with its TTL renewed, in one
 * transaction, so the list of an API that went away ends with it; `alsoDelete` (the request's
 * payload, once answered) goes in the same transaction. Throws what Redis refused.
 */
export async function pushReply(
  redis: RedisConnection,
  key: string,
  frame: Buffer,
  ttlMs: number,
  alsoDelete?: string,
): Promise<void> {
  const multi = redis.multi().rpush(key, frame).pexpire(key, ttlMs);
  if (alsoDelete) multi.del(alsoDelete);
  const replies = await multi.exec();
  if (!replies) throw new Error('Redis discarded the reply');
  for (const [error] of replies) if (error) throw error;
}
