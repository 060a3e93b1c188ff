/**
 * The JSON of `request_data` when it carries a job (POST /api/v1/jobs, or a batch on the
 * synchronous endpoint): the EnhancedRequest's fields plus `batch` (items of BatchItem), `output`
 * `webhook_url` and `deliver_to`. The parser (request/job-fields.ts) takes its field lists from these schemas,
 * and the OpenAPI document shows them, so a field added here is both accepted and documented.
 */
import { type Static, Type } from '@sinclair/typebox';
import { EnhancedRequestSchema, ImageDataSchema } from './render-request';
import { OneOf } from './schema';

export const BatchItemSchema = Type.Object(
  {
    template_data: Type.Record(Type.String(), Type.Unknown(), {
      description: "This item's template variables.",
      problem: 'must be an object of template variables',
    }),
    images: Type.Optional(
      Type.Record(Type.String(), ImageDataSchema, {
        description: "Images of this item, over the request's shared `images` (same names replaced).",
        problem: 'must be an object',
      }),
    ),
    filename: Type.Optional(
      Type.String({
        description:
          'Its name in the ZIP (cleaned; `.pdf`/`.docx` added; a name used twice gets `-2`, `-3`…). Default: its index.',
        problem: 'must be a string',
      }),
    ),
  },
  {
    $id: 'BatchItem',
    description: 'One document of a batch. Other fields are refused (400 invalid_request_structure).',
    additionalProperties: false,
    problem: 'must be an object with template_data',
  },
);
export type BatchItem = Static<typeof BatchItemSchema>;

export const BATCH_OUTPUTS = ['zip', 'merged'] as const;

/** Where a result is PUT (a pre-signed URL), with the caller's own headers. */
export const DeliveryTargetSchema = Type.Object(
  {
    // No `format`: TypeBox knows none, and checkCallerUrl checks the URL whole.
    url: Type.String({
      maxLength: 8192,
      description:
        'A pre-signed PUT URL (S3, Google Cloud Storage, Azure Blob Storage): http or https, public addresses only ' +
        'unless DELIVERY_ALLOWED_HOSTS lists its host. Its query (the signature) is never logged or shown.',
      problem: 'must be a URL',
    }),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          "Sent with the PUT (e.g. Azure's `x-ms-blob-type: BlockBlob`). At most 32, 8 KiB in all; no CR/LF, no Host, " +
          'Content-Type, Content-Length, Expect or hop-by-hop headers (Connection, Keep-Alive, Transfer-Encoding, TE, ' +
          'Trailer, Upgrade, Proxy-*).',
        problem: 'must be an object of header names to text values',
      }),
    ),
  },
  {
    $id: 'DeliveryTarget',
    additionalProperties: false,
    problem: 'must be an object with url',
  },
);

/** A batch's items, one target each, in item order. */
export const DeliveryItemsSchema = Type.Object(
  {
    items: Type.Array(DeliveryTargetSchema, {
      minItems: 1,
      description:
        'One target per item of `batch`, in order (as many as there are items); output "zip" only.',
      problem: 'must be a list of {"url": …, "headers"?: {…}}, one per batch item',
    }),
  },
  { additionalProperties: false, problem: 'must be an object with items' },
);

/** The job's own fields, beside EnhancedRequestSchema's. */
export const JobFieldsSchema = Type.Object({
  batch: Type.Optional(
    Type.Array(BatchItemSchema, {
      minItems: 1,
      description:
        'At most MAX_BATCH_ITEMS items (413 payload_too_large beyond). With a batch, `template_data` may be left out.',
    }),
  ),
  output: Type.Optional(
    OneOf(BATCH_OUTPUTS, {
      description:
        '`zip` (default for a batch): one file per item; `merged`: one PDF, items in order (no finishing options).',
    }),
  ),
  webhook_url: Type.Optional(
    Type.String({
      format: 'uri',
      description: 'As the form field webhook_url (the same value if both are sent).',
    }),
  ),
  deliver_to: Type.Optional(
    Type.Union([DeliveryTargetSchema, DeliveryItemsSchema], {
      description:
        "Where the worker PUTs the result once stored (the job's result, ZIP or merged PDF), or `items`: one URL per " +
        'batch item. Retried with exponential backoff (DELIVERY_RETRIES); the status shows `delivery`; the webhook ' +
        'follows the delivery. Errors: 400 invalid_deliver_to. See docs/jobs.md, "Delivery".',
    }),
  ),
});

export const JobRequestSchema = Type.Object(
  { ...EnhancedRequestSchema.properties, ...JobFieldsSchema.properties },
  {
    $id: 'JobRequest',
    description:
      'The JSON text of `request_data` for POST /api/v1/jobs (and a batch on the synchronous endpoint): an ' +
      'EnhancedRequest plus batch, output, webhook_url and deliver_to. Unknown fields are refused.',
    additionalProperties: false,
  },
);
export type JobRequest = Static<typeof JobRequestSchema>;

/** The job's named request schemas, for the OpenAPI document's components (beside REQUEST_SCHEMAS). */
export const JOB_REQUEST_SCHEMAS = [BatchItemSchema, DeliveryTargetSchema, JobRequestSchema] as const;
