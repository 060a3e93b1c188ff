export {
  checkOutputForFormat,
  WORD_ONLY_PDF_OPTIONS,
  OUTPUT_FORMATS,
  outputFormatOf,
  PDF_FINISH,
  sourceRowOf,
  type FinishStep,
  type OutputFormatRow,
  type ProduceContext,
  type RowResult,
} from './output-formats';
export {
  fillDocument,
  needsConverter,
  produceDocument,
  type DocumentRequest,
  type FillJob,
  type FillOptions,
  type OffLoopFill,
  type PipelineDeps,
  type PipelineSettings,
  type ProducedDocument,
} from './produce-document';
