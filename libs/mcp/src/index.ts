export * from './settings';
export * from './tools';
