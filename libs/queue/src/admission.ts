/**
 * A request's admission and its payload in one Redis round trip. The API asks three things of
 * Redis before a job is queued: is a worker alive, is there room in the queue, and keep the
 * template and the request. One script answers the first two and stores only when both say yes;
 * the job itself is then added by BullMQ's own script. Two round trips instead of three (four
 * commands before), which is ~0.5 ms of every request's latency on loopback.
 *
 * The template's key is named by its digest and shared by every request with the same bytes
 * (templateKey). When the API stored those bytes recently it sends none: the script only renews
 * the key's TTL, and answers `template_missing` if the key is gone (evicted, Redis restarted), so
 * the API sends them after all. Callers send the same few templates over and over; the invoice's
 * 38 KB then stop crossing Redis with every request.
 *
 * Waiting jobs are counted as BullMQ's getJobCountByTypes('waiting', 'prioritized', 'delayed')
 * counts them: the length of the wait list and the sizes of the prioritized and delayed sets
 * (their names come from bullmq-state.ts, which pins them).
 * The script is lua/admit-and-store.lua. Every key lies in the queue's hash slot (heartbeatKey,
 * payloadKeys, templateKey, BullMQ's own), so the script runs unchanged on Redis Cluster.
 */
import type { WaitingKeys } from './bullmq-state';
import type { RedisConnection } from './redis-connection';
import { RedisScript } from './redis-script';

const ADMIT_AND_STORE = RedisScript.file('admit-and-store');

export interface AdmissionKeys extends WaitingKeys {
  /** The workers' heartbeat set (heartbeatKey). */
  heartbeat: string;
  /** The template's shared key (templateKey) and the request's own (payloadKeys). */
  template: string;
  request: string;
}

export interface AdmissionPayload {
  maxWaiting: number;
  ttlMs: number;
  /** The template's bytes, or null when they were stored recently (only the TTL is renewed). */
  template: Buffer | null;
  requestJson: string;
}

export type AdmissionOutcome = 'stored' | 'refused' | 'template_missing';

export interface Admission {
  workers: number;
  waiting: number;
  /**
   * `stored`: admitted, payload in Redis. `refused`: no live worker or the queue is full, nothing
   * stored. `template_missing`: admitted, but the template sent as stored is not in Redis;
   * nothing stored, ask again with its bytes.
   */
  outcome: AdmissionOutcome;
  /**
   * Redis' clock (TIME, ms) when it answered: the job carries it (RenderJob.admittedAt) so the
   * worker measures the request's age on that same clock, never against the API host's.
   */
  redisTime: number;
}

const OUTCOMES: readonly AdmissionOutcome[] = ['refused', 'stored', 'template_missing'];

export async function admitAndStore(
  redis: RedisConnection,
  keys: AdmissionKeys,
  payload: AdmissionPayload,
): Promise<Admission> {
  const reply = (await ADMIT_AND_STORE.run(
    redis,
    [keys.heartbeat, keys.wait, keys.prioritized, keys.delayed, keys.template, keys.request],
    [String(payload.maxWaiting), String(payload.ttlMs), payload.template ?? '', payload.requestJson],
  )) as [number, number, number, number];
  return {
    workers: Number(reply[0]),
    waiting: Number(reply[1]),
    outcome: OUTCOMES[reply[2]],
    redisTime: Number(reply[3]),
  };
}
