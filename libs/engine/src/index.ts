export * from './errors';
export { renderDocx } from './render';
export type { RenderOptions, RenderRequest } from './render';
export { checkDocxTemplate, DEFAULT_MAX_UNCOMPRESSED_BYTES, DEFAULT_TEMPLATE_LIMITS } from './docx/package';
export type { TemplateLimits } from './docx/package';
export { prepareImages, prepareImage, imageSizeMm, DEFAULT_IMAGE_LIMITS } from './docx/images';
export type { PrepareOptions } from './docx/images';
export type { ImageData, ImageLimits, PreparedImage } from './docx/images';
