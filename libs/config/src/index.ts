/**
 * The service's configuration: one loader (loadConfig) over the environment, returning the
 * variables and their groups (http, redis, queue, limits, worker, converter).
 */
export * from './service-config';
export * from './converter-config';
export {
  chooseAllocator,
  findJemalloc,
  LIBREOFFICE_ALLOCATORS,
  type AllocatorChoice,
  type LibreOfficeAllocator,
} from './allocator';
export { defaultWorkDir } from './work-dir';
