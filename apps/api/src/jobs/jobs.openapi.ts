/**
 * OpenAPI schemas of the job endpoints, written from jobs.controller.ts, job-request.ts and
 * jobs.service.ts (docs/jobs.md says the same in prose).
 */
import type { SchemaObject } from '@nestjs/swagger';
import { RenderFormSchema, toOpenApi } from '@app/contracts';
import { ERROR_BODY_REF } from '../docs/answer-schemas';

/** The render form (RenderFormSchema), which the job form extends. */
const RENDER_BODY_SCHEMA = toOpenApi(RenderFormSchema) as unknown as SchemaObject & {
  properties: Record<string, SchemaObject>;
};

export const JOB_BODY_SCHEMA: SchemaObject = {
  ...RENDER_BODY_SCHEMA,
  properties: {
    ...RENDER_BODY_SCHEMA.properties,
    request_data: {
      type: 'string',
      description:
        'As for /api/v1/process-template-document, plus: `batch` (a list of at most MAX_BATCH_ITEMS items, each ' +
        '`{"template_data": {…}, "images"?: {…}, "filename"?: "…"}`; top-level `images` are shared by every item, ' +
        '`template_data` may then be left out), `output` ("zip", the default for a batch: one file per item named by ' +
        'its filename or its index; or "merged": one PDF, items in order) and `webhook_url`.',
      example: JSON.stringify({
        batch: [
          { template_data: { name: 'Ada' }, filename: 'ada.pdf' },
          { template_data: { name: 'Grace' }, filename: 'grace.pdf' },
        ],
        output: 'zip',
        webhook_url: 'https://hooks.example.com/docs',
      }),
    },
    webhook_url: {
      type: 'string',
      format: 'uri',
      description:
        'http(s) URL POSTed when the job completes or fails, signed per Standard Webhooks (WEBHOOK_SECRET). Its host ' +
        'must resolve to public addresses only, unless WEBHOOK_ALLOWED_HOSTS lists it (400 invalid_webhook_url).',
    },
  },
};

export const JOB_ACCEPTED_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['job_id', 'status', 'status_url', 'result_url'],
  properties: {
    job_id: { type: 'string', description: '128 random bits, base64url; the only key to the result' },
    status: { type: 'string', enum: ['queued'] },
    status_url: { type: 'string', format: 'uri' },
    result_url: { type: 'string', format: 'uri' },
  },
};

export const JOB_STATUS_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['job_id', 'status', 'progress', 'created_at', 'finished_at', 'expires_at'],
  properties: {
    job_id: { type: 'string' },
    status: { type: 'string', enum: ['queued', 'active', 'completed', 'failed'] },
    progress: {
      type: 'object',
      required: ['done', 'total'],
      properties: { done: { type: 'integer' }, total: { type: 'integer' } },
    },
    created_at: { type: 'string', format: 'date-time' },
    finished_at: { type: 'string', format: 'date-time', nullable: true },
    expires_at: {
      type: 'string',
      format: 'date-time',
      description:
        'When this job and its result go: finished_at + RESULT_TTL_S; before it finishes, when an unfinished job is dropped (created_at + max(RESULT_TTL_S, 24 h))',
    },
    result_url: { type: 'string', format: 'uri', description: 'Once completed' },
    error: {
      ...ERROR_BODY_REF,
      description:
        'Once failed: the typed error body the synchronous endpoint would have given; for a batch, details.item_index names the item',
    },
  },
};

export const WEBHOOK_EVENT_SCHEMA: SchemaObject = {
  type: 'object',
  description:
    'The body POSTed to webhook_url, with headers webhook-id (the same on every attempt), webhook-timestamp and ' +
    'webhook-signature (v1,<base64 HMAC-SHA256 of "id.timestamp.body"> keyed by WEBHOOK_SECRET)',
  required: ['type', 'timestamp', 'data'],
  properties: {
    type: { type: 'string', enum: ['job.completed', 'job.failed'] },
    timestamp: { type: 'string', format: 'date-time' },
    data: {
      type: 'object',
      required: ['job_id', 'status', 'result_url'],
      properties: {
        job_id: { type: 'string' },
        status: { type: 'string', enum: ['completed', 'failed'] },
        result_url: {
          type: 'string',
          format: 'uri',
          description: "Absolute: PUBLIC_BASE_URL or the request's host",
        },
        error: ERROR_BODY_REF,
      },
    },
  },
};
