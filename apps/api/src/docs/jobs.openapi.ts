/**
 * The job endpoints' payloads, each defined once as a TypeBox schema (see @app/contracts'
 * payload/schema.ts): the form (the render form plus webhook_url), the 202 answer (JobAccepted)
 * and the status (JobView); the webhook's body is @app/contracts' WebhookEventSchema. Their
 * TypeScript types are Static<> of these, so a field the code adds without the schema fails tsc;
 * the OpenAPI document is toOpenApi() of the same objects (docs/jobs.md says it in prose).
 */
import type { SchemaObject } from '@nestjs/swagger';
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { JobViewSchema, RenderFormSchema, toOpenApi, WebhookEventSchema } from '@app/contracts';

const openApi = (schema: TSchema) => toOpenApi(schema) as unknown as SchemaObject;

const uri = (options: object = {}) => Type.String({ format: 'uri', ...options });
/** The render form (RenderFormSchema) with a longer request_data and webhook_url. */
export const JobFormSchema = Type.Object({
  ...RenderFormSchema.properties,
  request_data: Type.Optional(
    Type.String({
      description:
        'As for /api/v1/process-template-document, plus: `batch` (a list of at most MAX_BATCH_ITEMS items, each ' +
        '`{"template_data": {…}, "images"?: {…}, "filename"?: "…"}`; top-level `images` are shared by every item, ' +
        '`template_data` may then be left out), `output` ("zip", the default for a batch: one file per item named by ' +
        'its filename or its index; or "merged": one PDF, items in order), `webhook_url` and `deliver_to` ' +
        '(`{"url": "<pre-signed PUT URL>", "headers"?: {…}}`, or `{"items": [...]}` one per item of a ZIP batch). ' +
        'Schema: #/components/schemas/JobRequest (items: #/components/schemas/BatchItem).',
      example: JSON.stringify({
        batch: [
          { template_data: { name: 'Ada' }, filename: 'ada.pdf' },
          { template_data: { name: 'Grace' }, filename: 'grace.pdf' },
        ],
        output: 'zip',
        webhook_url: 'https://hooks.example.com/docs',
      }),
    }),
  ),
  webhook_url: Type.Optional(
    uri({
      description:
        'http(s) URL POSTed when the job completes or fails, signed per Standard Webhooks (WEBHOOK_SECRET). Its host ' +
        'must resolve to public addresses only, unless WEBHOOK_ALLOWED_HOSTS lists it (400 invalid_webhook_url).',
    }),
  ),
});
export type JobForm = Static<typeof JobFormSchema>;

export const JobAcceptedSchema = Type.Object({
  job_id: Type.String({ description: '128 random bits, base64url; the only key to the result' }),
  status: Type.Literal('queued'),
  status_url: uri(),
  result_url: uri(),
});
export type JobAccepted = Static<typeof JobAcceptedSchema>;

// JobView is @app/contracts' (payload/job-view.ts): the queue's JobsService builds it too.

export const JOB_BODY_SCHEMA = openApi(JobFormSchema);
export const JOB_ACCEPTED_SCHEMA = openApi(JobAcceptedSchema);
export const JOB_STATUS_SCHEMA = openApi(JobViewSchema);

export const WEBHOOK_EVENT_SCHEMA = openApi(WebhookEventSchema);
