/**
 * The status of an asynchronous job (GET /api/v1/jobs/{id}), defined once: JobView is its type
 * for the queue's JobsService that builds it, and the OpenAPI document shows the same schema
 * (apps/api/src/docs/jobs.openapi.ts). Here so the API's queue folder needs no docs or jobs folder.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { AsyncJobStatus } from '../async-job';
import type { ErrorBody } from '../errors';
import { OneOf } from './schema';

const uri = (options: object = {}) => Type.String({ format: 'uri', ...options });
/** OpenAPI 3.0 says "or null" with `nullable`, which JSON Schema's unions do not give. */
const dateTimeOrNull = (options: object = {}) =>
  Type.Unsafe<string | null>({ type: 'string', format: 'date-time', nullable: true, ...options });
const ERROR_BODY_REF = { $ref: '#/components/schemas/ErrorBody' };

const ASYNC_JOB_STATUSES = [
  'queued',
  'active',
  'completed',
  'failed',
] as const satisfies readonly AsyncJobStatus[];

const stringOrNull = (options: object = {}) =>
  Type.Unsafe<string | null>({ type: 'string', nullable: true, ...options });

/** deliver_to's progress: in the status and in the webhook, which is sent once it has finished. */
export const DeliveryViewSchema = Type.Object(
  {
    status: OneOf(['pending', 'delivered', 'failed'] as const, {
      description: 'pending until the PUT succeeded (delivered) or the last attempt failed (failed)',
    }),
    attempts: Type.Integer({ description: 'PUT attempts so far (at most DELIVERY_RETRIES)' }),
    last_error: stringOrNull({
      description: "The last failed attempt's reason (an HTTP status or a network error); null if none",
    }),
  },
  { description: 'Present when the job was submitted with deliver_to' },
);
export type DeliveryView = Static<typeof DeliveryViewSchema>;

export const JobViewSchema = Type.Object({
  job_id: Type.String(),
  status: OneOf(ASYNC_JOB_STATUSES),
  progress: Type.Object({ done: Type.Integer(), total: Type.Integer() }),
  created_at: Type.String({ format: 'date-time' }),
  finished_at: dateTimeOrNull(),
  expires_at: dateTimeOrNull({
    description:
      'When this job and its result go: finished_at + RESULT_TTL_S; before it finishes, when an unfinished job is dropped (created_at + max(RESULT_TTL_S, 24 h))',
  }),
  result_url: Type.Optional(uri({ description: 'Once completed' })),
  delivery: Type.Optional(DeliveryViewSchema),
  template_id: Type.Optional(Type.String({ description: 'A render by id: the stored template' })),
  template_version: Type.Optional(Type.Integer({ description: 'A render by id: the version that renders' })),
  warnings: Type.Optional(
    Type.Array(Type.String(), {
      description:
        "What the fill drops from the template, never fetched (a workbook's external links and data connections, e.g. `dropped external link (externalLink1.xml)`): the synchronous answer's and the result's Warning header; absent when nothing",
    }),
  ),
  error: Type.Optional(
    Type.Unsafe<ErrorBody>({
      ...ERROR_BODY_REF,
      description:
        'Once failed: the typed error body the synchronous endpoint would have given; for a batch, details.item_index names the item',
    }),
  ),
});
export type JobView = Static<typeof JobViewSchema>;
