export * from './errors';
export {
  checkDocxTemplate,
  renderDocx,
  DEFAULT_MAX_UNCOMPRESSED_BYTES,
  DEFAULT_TEMPLATE_LIMITS,
} from './render';
export type { RenderOptions, RenderRequest, TemplateLimits } from './render';
export { prepareImages, prepareImage, imageSizeMm, DEFAULT_IMAGE_LIMITS } from './docx/images';
export type { PrepareOptions } from './docx/images';
export type { ImageData, ImageLimits, PreparedImage } from './docx/images';
export { DEFAULT_RICH_LIMITS } from './rich/limits';
export type { RichLimits } from './rich/limits';
