/**
 * Where a request's template comes from (docs/templates.md): the uploaded `file`, or a stored
 * template named by the form field `template_id` (and optionally `template_version`). Exactly one
 * of the two; otherwise 400 naming both.
 */
import { InvalidRequestError } from '../request-errors';
import { MissingFileError } from '../service-errors';

export type TemplateSource =
  | { kind: 'file' }
  | {
      kind: 'stored';
      templateId: string;
      /** Absent: the template's current (published) version. */
      version?: number;
    };

/** The form fields of a render by id, for the OpenAPI document. */
export const TEMPLATE_ID_FIELD = 'template_id';
export const TEMPLATE_VERSION_FIELD = 'template_version';

function text(form: Record<string, unknown> | undefined, name: string): string | undefined {
  if (!form || !Object.prototype.hasOwnProperty.call(form, name)) return undefined;
  const v = form[name];
  if (typeof v !== 'string')
    throw new InvalidRequestError(`The form field '${name}' must be given once, as text`, { field: name });
  return v;
}

/**
 * `fileField` is the name of the upload field of the endpoint (`file`, or `document` for lint).
 */
export function templateSourceOf(
  form: Record<string, unknown> | undefined,
  hasFile: boolean,
  fileField = 'file',
): TemplateSource {
  const id = text(form, TEMPLATE_ID_FIELD)?.trim();
  const version = text(form, TEMPLATE_VERSION_FIELD)?.trim();
  const both = [fileField, TEMPLATE_ID_FIELD];
  if (hasFile && id !== undefined) {
    throw new InvalidRequestError(`Send either '${fileField}' or '${TEMPLATE_ID_FIELD}', not both`, {
      fields: both,
    });
  }
  if (id === undefined) {
    if (version !== undefined) {
      throw new InvalidRequestError(`'${TEMPLATE_VERSION_FIELD}' goes with '${TEMPLATE_ID_FIELD}'`, {
        fields: [TEMPLATE_ID_FIELD, TEMPLATE_VERSION_FIELD],
      });
    }
    // Neither: the specification's missing_file, naming both ways.
    if (!hasFile) {
      throw new MissingFileError(
        `The form needs the template: '${fileField}' (an upload) or '${TEMPLATE_ID_FIELD}' (a stored one)`,
        { fields: both },
      );
    }
    return { kind: 'file' };
  }
  if (id === '') throw new InvalidRequestError(`'${TEMPLATE_ID_FIELD}' is empty`, { fields: both });
  if (version === undefined || version === '') return { kind: 'stored', templateId: id };
  if (!/^[1-9]\d{0,8}$/.test(version)) {
    throw new InvalidRequestError(`'${TEMPLATE_VERSION_FIELD}' must be a positive integer`, {
      field: TEMPLATE_VERSION_FIELD,
    });
  }
  return { kind: 'stored', templateId: id, version: Number(version) };
}
