export * from './errors';
export { renderDocx } from './render';
export { createEnvironment, defaultEnvironment } from './environment';
export type {
  ContentWriterFactory,
  EngineEnvironment,
  EnvironmentOptions,
  FilterFn,
  PackagePass,
  PluggedWriter,
  TestFn,
  WriterContext,
} from './environment';
// The styles model the converter's preparation passes read (libs/converters/src/prepare).
export { readStylesPart, STYLES_PART } from './docx/styles-part';
export type { StylesPart } from './docx/styles-part';
export type { RenderOptions, RenderRequest } from './render';
export { checkDocxTemplate, DEFAULT_MAX_UNCOMPRESSED_BYTES, DEFAULT_TEMPLATE_LIMITS } from './docx/package';
export type { TemplateLimits } from './docx/package';
export { prepareImages, prepareImage, imageSizeMm, DEFAULT_IMAGE_LIMITS } from './docx/images';
export type { PrepareOptions } from './docx/images';
export type { ImageData, ImageLimits, PreparedImage } from './docx/images';
export { DEFAULT_RICH_LIMITS } from './rich/limits';
export { countChartPoints, DEFAULT_CHART_LIMITS } from './charts/chart-data';
export type { ChartLimits } from './charts/chart-data';
export type { RichLimits } from './rich/limits';
export { compileTemplate } from './render';
export { CompiledTemplates, DEFAULT_COMPILED_TEMPLATES_LIMITS } from './docx/compiled-templates';
export { DigestLru, digestOf, RecentDigests } from './docx/recent-digests';
export type { CompiledTemplatesLimits } from './docx/compiled-templates';
export { lintDocxTemplate } from './lint/lint-template';
export type { LintError, LintOptions, LintReport, LintWarning } from './lint/lint-template';
export { LintErrorSchema, LintReportSchema, LintWarningSchema } from './lint/lint-report';
export { TemplateLocationSchema } from './inspect/template-outline';
export { TemplateInspectionSchema } from './inspect/inspection-schema';
export { lintReportData, lintReportTemplate } from './lint/report-docx';
export { inspectTemplate } from './inspect/inspect-template';
export type { TemplateInspection } from './inspect/inspect-template';
export { formatDefaultsOf } from './render';
export { parseLocale, parseTimeZone, DEFAULT_FORMAT_DEFAULTS } from './format/locale';
export type { FormatDefaults } from './format/locale';
export {
  BARCODE_TYPES,
  MAX_BARCODES_PER_DOCUMENT,
  MIN_SIDE_MM,
  MAX_SIDE_MM,
  MIN_DPI,
} from './format/barcodes';
export { parseDataJson, stringifyDataJson, plainNumbers, NATIVE_SOURCE_TEXT } from './runtime/json-numbers';
export { PyFloat } from './runtime/values';
export {
  renderTemplate,
  checkTemplate,
  templateFormatOf,
  templateWarnings,
  warningHeader,
} from './template-format';
export type { TemplateFormat, TemplateRenderOptions } from './template-format';
export { renderXlsx, DEFAULT_MAX_CELLS_PER_SHEET } from './xlsx/render-xlsx';
export type { XlsxRenderOptions } from './xlsx/render-xlsx';
export { renderPptx, DEFAULT_MAX_SLIDES_PER_DECK } from './pptx/render-pptx';
export type { PptxRenderOptions } from './pptx/render-pptx';
export { readDeck, type DeckSlide, type DeckPicture } from './pptx/deck-reader';
