/**
 * Everything that touches BullMQ, or the keys it owns: the API's queue (render-queue), the
 * worker's (render-worker), admission, the reply channel and the watchdog. No other code imports
 * bullmq (dependency-cruiser checks it). BullMQ is pinned in package.json, and
 * bullmq-state.spec.ts pins what is read of its state beside the public API.
 */
export * from './admission';
export { isFinalFailure, type Finished, type WaitingKeys } from './bullmq-state';
export * from './outcome';
export * from './reply-channel';
export * from './render-queue';
export * from './render-worker';
export * from './watchdog';
export * from './job-flows';
export * from './job-workers';
