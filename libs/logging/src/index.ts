export * from './pino-options';
export * from './memory-probe';
