/**
 * Everything that touches Redis or BullMQ: the connections (redis-connection), the stores the
 * apps keep their data in (payload-store, job-record-store, worker-registry), the one way Lua runs
 * (redis-script, with the scripts in lua/), the API's queue (render-queue), the worker's
 * (render-worker), admission, the reply channel and the watchdog. No other code imports ioredis
 * (ESLint: eslint.config.mjs) or bullmq (dependency-cruiser), and the apps call no Redis command
 * of their own. BullMQ is pinned in package.json, and test/bullmq-state.e2e-spec.ts pins what is read of
 * its state beside the public API.
 */
export * from './admission';
export { isFinalFailure, type Finished, type WaitingKeys } from './bullmq-state';
export * from './outcome';
export * from './redis-connection';
export * from './redis-script';
export * from './payload-store';
export * from './job-record-store';
export * from './worker-registry';
export * from './reply-channel';
export * from './render-queue';
export * from './render-worker';
export * from './watchdog';
export * from './job-flows';
export * from './job-workers';
export * from './settings';
