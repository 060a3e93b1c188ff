export * from './pino-options';
export * from './memory-probe';
export * from './process-metrics';
export * from './settings';
