/**
 * The template store (issue 38, docs/templates.md): stored templates with versions and API keys,
 * in PostgreSQL. Used by the API (routes, keys) and the workers (bytes by digest).
 */
export * from './settings';
export * from './keys';
export * from './migrations';
export * from './template-store';
