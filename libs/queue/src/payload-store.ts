/**
 * A synchronous request's payload in Redis (libs/contracts' render-job.ts names the keys): the
 * request's JSON under its own key (payloadKeys), the template's bytes under the key of their
 * digest (templateKey), shared by every request with those bytes. The API stores both with its
 * admission (admission.ts: one script), the worker reads them, and the request's key goes with
 * the worker's reply (reply-channel.ts) or, when no reply came, with the API's drop().
 */
import { type Admission, type AdmissionKeys, type AdmissionPayload, admitAndStore } from './admission';
import type { RedisConnection } from './redis-connection';

export interface StoredPayload {
  /** The template's bytes; null when they are gone (or not asked for). */
  template: Buffer | null;
  /** The request's JSON; null when it is gone. */
  requestJson: string | null;
  /** Redis' clock (TIME, ms) when it was read. */
  redisNow: number;
}

export class PayloadStore {
  constructor(private readonly redis: RedisConnection) {}

  /** Admits a request and stores its payload, or refuses it, in one round trip (admitAndStore). */
  admit(keys: AdmissionKeys, payload: AdmissionPayload): Promise<Admission> {
    return admitAndStore(this.redis, keys, payload);
  }

  /**
   * The request's JSON, the template's bytes unless `withTemplate` is false (the worker keeps
   * them), and Redis' clock, in one round trip (a pipeline). The clock rides along so that the
   * job's age is measured on the clock that stamped its admission, at no extra round trip.
   */
  async read(
    keys: { requestKey: string; templateKey: string },
    withTemplate: boolean,
  ): Promise<StoredPayload> {
    const pipeline = this.redis.pipeline().time().get(keys.requestKey);
    if (withTemplate) pipeline.getBuffer(keys.templateKey);
    const replies = await pipeline.exec();
    if (!replies) throw new Error('Redis discarded the pipeline');
    for (const [error] of replies) if (error) throw error;
    const [seconds, micros] = replies[0][1] as [string, string];
    return {
      redisNow: Number(seconds) * 1000 + Math.floor(Number(micros) / 1000),
      requestJson: replies[1][1] as string | null,
      template: withTemplate ? (replies[2][1] as Buffer | null) : null,
    };
  }

  /** Deletes a request's payload (the template's key is shared: its TTL ends it). */
  async drop(requestKey: string): Promise<void> {
    await this.redis.del(requestKey);
  }
}
