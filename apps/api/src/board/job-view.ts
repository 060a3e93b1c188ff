/**
 * What Bull Board may show of a render job. Job data already holds only ids, sizes, the file name
 * and options (the documents live under their own Redis keys); these formatters keep it so even if
 * a field is added to RenderJob later: only the fields named here reach the board.
 */
import { type RenderJob, type RenderJobResult } from '@app/contracts';

const DATA_FIELDS = [
  'requestId',
  'filename',
  'templateBytes',
  'requestBytes',
  'imageCount',
  'options',
  // A render by id: which stored template and version (docs/templates.md).
  'storedTemplate',
] as const satisfies readonly (keyof RenderJob)[];

const RESULT_FIELDS = [
  'bytes',
  'contentType',
  'renderMs',
  'convertMs',
  'worker',
] as const satisfies readonly (keyof RenderJobResult)[];

function pick(value: unknown, fields: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return {};
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const field of fields) if (field in source) out[field] = source[field];
  return out;
}

export function boardJobData(data: unknown): Record<string, unknown> {
  const view = pick(data, DATA_FIELDS);
  // options is a small fixed object today; keep only its known scalar fields.
  if ('options' in view) view.options = pick(view.options, ['undefined', 'output']);
  if ('storedTemplate' in view)
    view.storedTemplate = pick(view.storedTemplate, ['templateId', 'version', 'digest']);
  return view;
}

export function boardJobResult(result: unknown): Record<string, unknown> {
  return pick(result, RESULT_FIELDS);
}
