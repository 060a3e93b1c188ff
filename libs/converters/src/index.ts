import { availableParallelism } from 'node:os';

import { type ConverterConfig, validateConverterConfig } from './settings';
import { GotenbergConverter } from './gotenberg-converter';
import { LibreOfficePool } from './libreoffice-pool';
import type { PdfConverter } from './pdf-converter';
import { BUDGET_DEFAULTS } from './split/conversion-budget';
import { SPLIT_DEFAULTS, SplittingConverter } from './split/split-converter';

export * from './errors';
export * from './settings';
export {
  chooseAllocator,
  findJemalloc,
  LIBREOFFICE_ALLOCATORS,
  type AllocatorChoice,
  type LibreOfficeAllocator,
} from './allocator';
export { defaultWorkDir } from './work-dir';
export * from './pdf-converter';
export * from './pdf-options';
export {
  checkSignatureField,
  findSignaturePlaces,
  pdfPageCount,
  removePlaceMarkers,
  SIGNATURE_PLACE_URI,
  takeSignaturePlaces,
  type SignaturePlace,
} from './outputs/signature-places';
export { DEFAULT_BRIDGE_SCRIPT, DEFAULT_PYTHON, DEFAULT_SOFFICE } from './libreoffice-instance';
export {
  GotenbergConverter,
  GOTENBERG_DEFAULTS,
  type GotenbergConverterOptions,
} from './gotenberg-converter';
export {
  LibreOfficePool,
  loadFactor,
  POOL_DEFAULTS,
  startsAtOnce,
  type LibreOfficePoolOptions,
  type SlotInfo,
  type PartResult,
} from './libreoffice-pool';
export {
  isWholeReason,
  planParts,
  planPartsOrWhy,
  replaceTotalFields,
  totalPagesProperty,
  type PartSpec,
  type SplitPlan,
  type WholeReason,
} from './split/docx-parts';
export { SPLIT_DEFAULTS, SplittingConverter, type SplitSettings } from './split/split-converter';
export {
  BUDGET_DEFAULTS,
  predictWholeMs,
  REFUSE_MARGIN,
  wholeConversionRefusal,
  type BudgetSettings,
  sizeOfDocx,
  sizeOfXml,
  WHOLE_MODEL,
  type DocumentSize,
  type WholeModel,
} from './split/conversion-budget';

export interface ConverterHooks {
  /** One line per restart, crash, start failure or Gotenberg retry; default: silent. */
  log?: (message: string) => void;
}

/**
 * The converter the configuration asks for: Gotenberg when `gotenbergUrl` is set, else the
 * embedded LibreOffice pool, whose instances start right away in the background (a conversion
 * waits for the first one up), converting long tables in parts on its instances
 * (split/split-converter.ts) unless `splitMinRows` is 0. Call `close()` when done, or soffice processes stay running.
 *
 *   const converter = createConverter(converterConfigFromEnv());
 *   const pdf = await converter.convert(docx, { jobId });
 *   await converter.close();
 */
/**
 * Rows from which the converter this configuration makes converts a table in parts, or undefined
 * when it never does (Gotenberg; SPLIT_MIN_ROWS 0). The fill resolves long tables' styles from
 * there (split conversion cuts only tables without a style).
 */
export function splitMinRowsOf(config: ConverterConfig = {}): number | undefined {
  if (config.gotenbergUrl) return undefined;
  const rows = config.splitMinRows ?? SPLIT_DEFAULTS.minRows;
  return rows > 0 ? rows : undefined;
}

export function createConverter(config: ConverterConfig = {}, hooks: ConverterHooks = {}): PdfConverter {
  validateConverterConfig(config);
  if (config.gotenbergUrl) {
    return new GotenbergConverter({
      log: hooks.log,
      url: config.gotenbergUrl,
      capacity: config.instances ?? availableParallelism(),
      timeoutMs: config.conversionTimeoutMs,
      retries: config.gotenbergRetries,
      maxQueue: config.maxQueue,
    });
  }
  const pool = new LibreOfficePool({
    log: hooks.log,
    instances: config.instances,
    restartAfter: config.restartAfter,
    conversionTimeoutMs: config.conversionTimeoutMs,
    startTimeoutMs: config.startTimeoutMs,
    startMaxMs: config.startMaxMs,
    maxQueue: config.maxQueue,
    allocator: config.allocator,
    tmpDir: config.workDir,
  });
  // Failures show in health() and in the first conversion's error; nothing to throw here.
  pool.start().catch(() => undefined);
  const minRows = splitMinRowsOf(config);
  const budget = { scalePercent: config.budgetScalePercent ?? BUDGET_DEFAULTS.scalePercent };
  // Without split conversion the splitter still refuses what is predicted beyond its time.
  if (minRows === undefined && budget.scalePercent === 0) return pool;
  const split = { minRows: minRows ?? 0, partPages: config.splitPartPages ?? SPLIT_DEFAULTS.partPages };
  return new SplittingConverter(pool, split, hooks.log, budget);
}
export * from './pdf-finish';
export {
  convertDocument,
  convertSpreadsheet,
  SPREADSHEET_TARGETS,
  type SpreadsheetConversion,
  convertPresentation,
  PRESENTATION_TARGETS,
  type PresentationConversion,
  DOCUMENT_FORMATS,
  htmlToPlainText,
  selfContainedHtml,
  UnsupportedOutputError,
  writesDocumentFormats,
  type DocumentConverter,
  type DocumentFormat,
  type DocumentFormatSpec,
} from './outputs/document-formats';
export {
  DEFAULT_JPEG_QUALITY,
  PAGE_IMAGE_DEFAULTS,
  pdfPageSizes,
  pdfToPageImages,
  warmPageRenderer,
  type ImageFormat,
  type PageImageLimits,
  type PageImageOptions,
  type PageImages,
} from './outputs/page-images';
export {
  checkImagePixels,
  checkImagePixelsUpFront,
  DEFAULT_IMAGE_DPI,
  docxPageSizes,
  estimatePixels,
  ImageOutputTooLargeError,
  InvalidPageSelectionError,
  pagePixels,
  PageOutOfRangeError,
  parsePageSelection,
  selectedPages,
  type ImageSizing,
  type PageSelection,
  type PageSizePt,
} from './outputs/page-selection';
export { bcp47, withDefaultLanguage, withDocumentLanguage } from './outputs/accessible';
export * from './prepare';
