/** The text fields of the template forms, read into what the store takes (400 when malformed). */
import { InvalidRequestError } from '@app/engine';

export function formText(body: unknown, field: string): string | undefined {
  const v = (body as Record<string, unknown> | undefined)?.[field];
  return typeof v === 'string' ? v : undefined;
}

/** `["a","b"]` or `a, b`. */
export function parseLabels(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  let labels: unknown;
  if (raw.trim().startsWith('[')) {
    try {
      labels = JSON.parse(raw);
    } catch {
      throw new InvalidRequestError('labels must be a JSON array of strings or labels separated by commas', {
        field: 'labels',
      });
    }
  } else labels = raw.split(',').map((l) => l.trim());
  if (!Array.isArray(labels) || labels.some((l) => typeof l !== 'string' || l === '' || l.length > 100)) {
    throw new InvalidRequestError('labels must be non-empty strings of at most 100 characters', {
      field: 'labels',
    });
  }
  return [...new Set(labels as string[])];
}

export function parseSampleData(raw: string | undefined): unknown {
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new InvalidRequestError('sample_data must be JSON', { field: 'sample_data' });
  }
}

export function parseBool(raw: string | undefined, field: string): boolean {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new InvalidRequestError(`${field} must be true or false`, { field });
}

export function parseVersionNumber(raw: string): number {
  if (!/^[1-9]\d{0,8}$/.test(raw))
    throw new InvalidRequestError('The version must be a positive integer', { field: 'version' });
  return Number(raw);
}
