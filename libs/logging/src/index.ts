export * from './pino-options';
