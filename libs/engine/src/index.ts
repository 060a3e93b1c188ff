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
export { compileTemplate } from './render';
export { lintDocxTemplate } from './lint/lint-template';
export type { LintError, LintOptions, LintReport, LintWarning } from './lint/lint-template';
export { lintReportData, lintReportTemplate } from './lint/report-docx';
export { inspectTemplate } from './inspect/inspect-template';
export type { TemplateInspection } from './inspect/inspect-template';
