/**
 * What the API, the workers and the command line agree on: the error catalogue and the typed
 * errors of the service, the render job and its Redis keys, the failure codec, the worker
 * registry's keys and the HTTP paths probes use.
 */
export * from './errors';
export * from './service-errors';
export * from './render-job';
export * from './pdf-options';
export * from './payload/schema';
export * from './payload/render-request';
export * from './redis-target';
export * from './health-paths';
export * from './async-job';
export * from './caller-url';
export * from './webhooks';
export * from './delivery';
export * from './payload/job-request';
export * from './request/file-names';
export * from './request/locale-fields';
export * from './request/render-fields';
export * from './request/job-fields';
export * from './payload/job-view';
export * from './request/lint-fields';
export * from './render-payload';
export * from './request-errors';
export * from './json-numbers';
export * from './request/pdf-options-check';
export * from './settings';
export * from './payload/templates';
export * from './request/template-source';
