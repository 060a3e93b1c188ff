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
  template_id: Type.Optional(Type.String({ description: 'A render by id: the stored template' })),
  template_version: Type.Optional(Type.Integer({ description: 'A render by id: the version that renders' })),
  error: Type.Optional(
    Type.Unsafe<ErrorBody>({
      ...ERROR_BODY_REF,
      description:
        'Once failed: the typed error body the synchronous endpoint would have given; for a batch, details.item_index names the item',
    }),
  ),
});
export type JobView = Static<typeof JobViewSchema>;
