/**
 * The fields POST /api/v1/jobs adds to the form of /api/v1/process-template-document (which the
 * synchronous endpoint accepts too): `request_data.batch` (items of BatchItemSchema), `output`
 * ("zip" or "merged"), `webhook_url` (a form field or a key of request_data) and `deliver_to`
 * (a key of request_data: delivery.ts checks its shape and headers here, its URLs later), the fields
 * JobRequestSchema adds to EnhancedRequestSchema. request_data is parsed once
 * (readRenderFields): those keys are taken out of its object, the rest is checked as the render
 * form's. The CLI calls this too (with jobs refused), so both refuse alike.
 */
import { plainNumbers } from '../json-numbers';
import { BATCH_OUTPUTS, BatchItemSchema, JobFieldsSchema } from '../payload/job-request';
import type { RenderRequest } from '../payload/render-request';
import { fieldsOf, isPlainObject } from '../payload/schema';
import { PDF_FINISH_FIELDS, splitPdfOptions } from '../pdf-options';
import type { AsyncOutput } from '../async-job';
import { type ParsedDeliverTo, parseDeliverTo } from '../delivery';
import { InvalidRequestError, PayloadTooLargeError } from '../request-errors';
import { outputFilename } from './file-names';
import { OUTPUT_MEDIA, outputExtension, PAGE_IMAGES_ZIP } from '../render-job';
import { checkImages, type ParsedRenderRequest, type ParseLimits, readRenderFields } from './render-fields';

export interface ParsedBatchItem {
  request: RenderRequest;
  /** Its name in a ZIP: `filename` (cleaned, unique) or its index. */
  name: string;
}

export interface ParsedJobRequest extends ParsedRenderRequest {
  /** Absent for a single document. */
  items?: ParsedBatchItem[];
  output: AsyncOutput;
  webhookUrl?: string;
  /** Where the worker PUTs the result (its URLs are checked by checkDeliveryUrls, which resolves names). */
  deliverTo?: ParsedDeliverTo;
}

/** request_data's keys of a job (JobRequestSchema less EnhancedRequestSchema). */
const JOB_KEYS = fieldsOf(JobFieldsSchema);
const ITEM_FIELDS = fieldsOf(BatchItemSchema);

const own = (o: Record<string, unknown>, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/**
 * Parses the form of a job (or of a synchronous request that may carry a batch). Throws the same
 * typed errors as parseRenderFields, plus 413 payload_too_large for more than maxBatchItems items.
 */
export function parseJobFields(
  fields: Record<string, unknown> | undefined,
  limits: ParseLimits & { maxBatchItems: number },
): ParsedJobRequest {
  const form: Record<string, unknown> = { ...(fields ?? {}) };
  let webhookUrl: unknown = form.webhook_url;
  delete form.webhook_url;
  if (webhookUrl !== undefined && typeof webhookUrl !== 'string') {
    throw new InvalidRequestError("The form field 'webhook_url' must be sent once, as text", {
      field: 'webhook_url',
    });
  }

  const { parsed: base, job: extracted } = readRenderFields(form, limits, JOB_KEYS);

  if (own(extracted, 'webhook_url')) {
    if (typeof extracted.webhook_url !== 'string') {
      throw new InvalidRequestError('request_data.webhook_url must be a string', { field: 'webhook_url' });
    }
    if (webhookUrl !== undefined && webhookUrl !== extracted.webhook_url) {
      throw new InvalidRequestError('webhook_url is sent twice, with different values', {
        fields: ['webhook_url', 'request_data.webhook_url'],
      });
    }
    webhookUrl = extracted.webhook_url;
  }

  const output = extracted.output;
  if (output !== undefined && !(BATCH_OUTPUTS as readonly unknown[]).includes(output)) {
    throw new InvalidRequestError('request_data.output must be "zip" or "merged"', {
      field: 'output',
      allowed: ['zip', 'merged'],
    });
  }
  if (!own(extracted, 'batch')) {
    if (output !== undefined) {
      throw new InvalidRequestError('request_data.output applies to a batch (request_data.batch)', {
        field: 'output',
      });
    }
    return {
      ...base,
      output: 'single',
      ...(webhookUrl ? { webhookUrl: webhookUrl as string } : {}),
      ...deliveryOf(extracted, { output: 'single' }),
    };
  }
  if (output === 'merged' && (base.options.output ?? 'pdf') !== 'pdf') {
    throw new InvalidRequestError(
      `A merged batch is one PDF: options.output "${base.options.output}" cannot be merged; use output "zip"`,
      { field: 'output', fields: ['output', 'options.output'] },
    );
  }
  if (output === 'merged' && splitPdfOptions(base.options.pdf)[1]) {
    // Encryption, attachments or Factur-X on each item would not survive (or block) the merge.
    throw new InvalidRequestError(
      `A merged batch takes no PDF finishing options (${PDF_FINISH_FIELDS.join(', ')}): use output "zip"`,
      { field: 'output' },
    );
  }
  const items = parseBatch(
    extracted.batch,
    base.request,
    outputExtension(base.options.output, base.options.image),
    limits.maxBatchItems,
  );
  const batchOutput = (output as AsyncOutput | undefined) ?? 'zip';
  return {
    ...base,
    items,
    output: batchOutput,
    ...(webhookUrl ? { webhookUrl: webhookUrl as string } : {}),
    ...deliveryOf(extracted, { output: batchOutput, itemCount: items.length }),
  };
}

function deliveryOf(
  extracted: Record<string, unknown>,
  job: { output: AsyncOutput; itemCount?: number },
): { deliverTo?: ParsedDeliverTo } {
  if (!own(extracted, 'deliver_to')) return {};
  return { deliverTo: parseDeliverTo(extracted.deliver_to, job) };
}

/** An item's file name ending in an output's extension (`.pdf`, `.docx`): replaced by the job's. */
const OUTPUT_EXTENSIONS = new RegExp(
  `\\.(${[...Object.values(OUTPUT_MEDIA), PAGE_IMAGES_ZIP].map((m) => m.extension).join('|')})$`,
  'i',
);

function parseBatch(
  batch: unknown,
  shared: RenderRequest,
  extension: string,
  maxItems: number,
): ParsedBatchItem[] {
  if (!Array.isArray(batch) || batch.length === 0) {
    throw new InvalidRequestError('request_data.batch must be a non-empty list of items', { field: 'batch' });
  }
  if (batch.length > maxItems) {
    throw new PayloadTooLargeError(`The batch has ${batch.length} items; at most ${maxItems} are accepted`, {
      field: 'batch',
      // `limit`, as every 413 names the limit it hit (docs/service.md)
      limit: maxItems,
      items: batch.length,
      max_batch_items: maxItems,
    });
  }
  const used = new Set<string>();
  return batch.map((item: unknown, index) => {
    const where = `batch[${index}]`;
    if (!isPlainObject(item)) {
      throw new InvalidRequestError(`${where} must be an object with template_data`, { field: where, index });
    }
    const unknown = Object.keys(item).filter((k) => !ITEM_FIELDS.includes(k));
    if (unknown.length > 0) {
      throw new InvalidRequestError(`${where} has unknown fields: ${unknown.join(', ')}`, {
        field: where,
        index,
        unknown,
      });
    }
    if (!isPlainObject(item.template_data)) {
      throw new InvalidRequestError(`${where}.template_data must be an object of template variables`, {
        field: `${where}.template_data`,
        index,
      });
    }
    let images = shared.images;
    if (own(item, 'images') && item.images != null) {
      if (!isPlainObject(item.images)) {
        throw new InvalidRequestError(`${where}.images must be an object`, {
          field: `${where}.images`,
          index,
        });
      }
      // Spread copies own keys as data properties (an own `__proto__` stays a plain key).
      // Sizes are settings, not template data: plain numbers, as for the shared images.
      images = { ...(shared.images ?? {}), ...checkImages(plainNumbers(item.images), where) };
    }
    if (own(item, 'filename') && item.filename != null && typeof item.filename !== 'string') {
      throw new InvalidRequestError(`${where}.filename must be a string`, {
        field: `${where}.filename`,
        index,
      });
    }
    const name = uniqueName(
      typeof item.filename === 'string' && item.filename.trim()
        ? outputFilename(item.filename.replace(OUTPUT_EXTENSIONS, ''), extension)
        : `${index}.${extension}`,
      used,
    );
    const request: RenderRequest = {
      template_data: item.template_data,
      ...(images ? { images } : {}),
      ...(shared.documents ? { documents: shared.documents } : {}),
    };
    return { request, name };
  });
}

/** `a.pdf`, then `a-2.pdf`, `a-3.pdf`… for names given twice (case-insensitively, as file systems compare). */
function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  const dot = name.lastIndexOf('.');
  for (let n = 2; used.has(candidate.toLowerCase()); n++) {
    candidate = `${name.slice(0, dot)}-${n}${name.slice(dot)}`;
  }
  used.add(candidate.toLowerCase());
  return candidate;
}
