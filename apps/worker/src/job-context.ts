/**
 * The job a piece of worker code runs for, so that lines logged from deep inside (the
 * converter's log hook knows nothing of jobs) still carry the request id of the job.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface JobContext {
  requestId: string;
  jobId: string;
}

export const jobContext = new AsyncLocalStorage<JobContext>();
