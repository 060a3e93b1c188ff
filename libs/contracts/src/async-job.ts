/**
 * Asynchronous jobs (POST /api/v1/jobs): what the API and the workers agree on.
 *
 * A job is a BullMQ flow: one parent ("assemble", in the `<QUEUE_NAME>-jobs` queue) whose children
 * are ordinary RenderJobs in the `<QUEUE_NAME>-items` queue, one per batch item (one for a plain job). Any worker
 * takes any child; the parent runs once every child has completed, or as soon as one fails
 * (continueParentOnFailure), and writes the result, the job's record and its webhook delivery (a job
 * of the `<QUEUE_NAME>-webhooks` queue). Everything lives in Redis under the queue's hash tag, so
 * any API answers for any job and any worker carries on another's work.
 */
import { randomBytes } from 'node:crypto';
import { TypedError, type ErrorDetails } from './errors';
import type { QueueNames } from './render-job';

/** 128 random bits, base64url: the id is the only key to the result, so it must not be guessable. */
export function newJobId(): string {
  return randomBytes(16).toString('base64url');
}

/** The shape newJobId() makes; anything else is unknown without asking Redis. */
export const JOB_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export type AsyncOutput = 'single' | 'zip' | 'merged';

/** The caller-visible states. */
export type AsyncJobStatus = 'queued' | 'active' | 'completed' | 'failed';

/**
 * Queue names beside the render queue: the items (RenderJobs, taken by the same processor as
 * synchronous requests, but in a queue of their own so that a batch of a thousand items does not
 * count against MAX_WAITING_JOBS and refuse synchronous callers), the parents, the webhook deliveries
 * and the result deliveries (deliver_to).
 */
export function jobQueueNames(q: QueueNames): {
  items: string;
  parents: string;
  webhooks: string;
  deliveries: string;
} {
  return {
    items: `${q.name}-items`,
    parents: `${q.name}-jobs`,
    webhooks: `${q.name}-webhooks`,
    deliveries: `${q.name}-deliveries`,
  };
}

/** The child job id of item `index` (BullMQ job ids of one queue must be unique). */
export function itemJobId(jobId: string, index: number): string {
  return `${jobId}-${index}`;
}

/**
 * Keys of one job, in the queue's hash slot: its record (a hash, the fields of AsyncJobRecord),
 * the template's bytes (kept as long as the job may wait, unlike the shared template key of
 * synchronous requests), the assembled result, and deliver_to's targets (JSON of
 * DeliveryTarget[]: their URLs' signatures are kept there and nowhere else, out of BullMQ's job
 * data that Bull Board shows; deleted once the delivery has finished).
 */
export function asyncJobKeys(q: QueueNames, jobId: string) {
  const base = `${q.prefix}:${q.name}-job:${jobId}`;
  return {
    record: base,
    template: `${base}:template`,
    result: `${base}:result`,
    delivery: `${base}:delivery`,
  };
}

/**
 * The reply list of item `index` (RenderJob.replyKey of an item): the worker pushes the item's
 * document there (encodeReply) as it does for a waiting API; the parent reads the first frame.
 */
export function itemReplyKey(q: QueueNames, jobId: string, index: number): string {
  return `${asyncJobKeys(q, jobId).record}:item:${index}`;
}

/** The record's hash fields, as strings in Redis. */
export interface AsyncJobRecord {
  /** 'queued' until finished; 'active' is read from started_at. */
  status: 'queued' | 'completed' | 'failed';
  created_at: string;
  /** Set by the first item a worker starts. */
  started_at?: string;
  finished_at?: string;
  /** When the record goes: created_at + the pending TTL, then finished_at + RESULT_TTL_S. */
  expires_at?: string;
  total: string;
  output: AsyncOutput;
  /** The result's name (Content-Disposition) and type. */
  filename: string;
  content_type: string;
  bytes?: string;
  /** The JSON error body of a failed job. */
  error?: string;
  webhook_url?: string;
  /** deliver_to's progress (its targets are under asyncJobKeys().delivery): pending, delivered or failed. */
  delivery_status?: DeliveryStatus;
  /** PUT attempts so far (BullMQ attempts of the delivery job). */
  delivery_attempts?: string;
  /** Why the last attempt failed: a status or a network error, never the URL's query. */
  delivery_error?: string;
  /** For deliver_to.items: how many are delivered (in order: a retry carries on from there). */
  delivery_done?: string;
  /** Absolute base for result_url in webhooks: PUBLIC_BASE_URL or the submitting request's own. */
  base_url: string;
  /** A render by id (docs/templates.md): the stored template and the version that renders. */
  template_id?: string;
  template_version?: string;
  /** What the fill drops from a workbook (external links, data connections), as a JSON array of strings. */
  warnings?: string;
}

/** The data of the parent ("assemble") job. */
export interface AssembleJob {
  jobId: string;
  total: number;
  output: AsyncOutput;
  /** File names of the items in a ZIP, by index. */
  itemNames?: string[];
  /** The W3C traceparent of the request that submitted the job; absent while traces are off. */
  traceparent?: string;
}

/** The data of a webhook delivery job: the same id and body on every attempt. */
export interface WebhookDeliveryJob {
  jobId: string;
  url: string;
  /** webhook-id: one per event, so receivers drop repeated deliveries. */
  webhookId: string;
  body: string;
  /** The W3C traceparent of the job's assembling; absent while traces are off. */
  traceparent?: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/**
 * The data of a result delivery job (`<QUEUE_NAME>-deliveries`, job id the async job's): no URL
 * (its targets stay under asyncJobKeys().delivery), only what the PUTs need besides the result.
 */
export interface ResultDeliveryJob {
  jobId: string;
  /** For deliver_to.items: each item's name in the result's ZIP and its type, by index. */
  items?: Array<{ name: string; contentType: string }>;
  /** The W3C traceparent of the job's assembling; absent while traces are off. */
  traceparent?: string;
}

/** The job's status URL path, and its result's. */
export function jobPaths(jobId: string): { status: string; result: string } {
  const status = `/api/v1/jobs/${jobId}`;
  return { status, result: `${status}/result` };
}

/** An unknown or expired job (404). */
export class JobNotFoundError extends TypedError {
  readonly errorType = 'job_not_found';
  constructor(message = 'No job has this id, or its result has expired', details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** The result of a job still queued or running (409). */
export class JobNotFinishedError extends TypedError {
  readonly errorType = 'job_not_finished';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}
