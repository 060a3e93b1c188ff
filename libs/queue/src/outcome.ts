import type { Reply } from '@app/contracts';

/** How a request's wait for its job ends. */
export type JobOutcome =
  /** The worker pushed the document to this API's reply list. */
  | { kind: 'replied'; reply: Reply }
  /** Failed: the worker's JSON error body, or BullMQ's own reason. */
  | { kind: 'failed'; reason: string }
  /** Completed, but the pushed reply never reached this API (a dropped connection). */
  | { kind: 'reply_lost' }
  | { kind: 'timeout' }
  /** The caller hung up, or the API shut down. */
  | { kind: 'aborted' }
  /** The job vanished with Redis' data (a restart without persistence). */
  | { kind: 'lost' };
