import { JinjaRuntimeError } from '../runtime/sequences';

/** The longest excerpt of a bad value an error message quotes. */
const MAX_QUOTED = 60;

/** How an error message shows the value a filter refused: JSON-like, cut short. */
function quoteValue(value: unknown): string {
  let s: string;
  if (typeof value === 'string') s = JSON.stringify(value);
  else if (value === null || value === undefined) s = 'None';
  else if (typeof value === 'number' || typeof value === 'boolean') s = String(value);
  else if (Array.isArray(value)) s = 'a list';
  else if (typeof value === 'object') s = 'a mapping';
  else s = typeof value;
  return s.length > MAX_QUOTED ? `${s.slice(0, MAX_QUOTED)}…` : s;
}

/**
 * A formatting or barcode filter refused its value: the message names the filter, the value and
 * the reason; the renderer adds the tag (422 template_runtime_error).
 */
export class FormatValueError extends JinjaRuntimeError {
  constructor(filter: string, value: unknown, reason: string) {
    super(`${filter}: ${quoteValue(value)}: ${reason}`);
  }
}
