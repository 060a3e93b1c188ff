/**
 * The health endpoints' answers, one definition each: the TypeBox schema gives the type that
 * readiness.ts returns and, converted, the OpenAPI schema the controller documents.
 */
import type { SchemaObject } from '@nestjs/swagger';
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { OneOf, toOpenApi } from '@app/contracts';

const openApi = (schema: TSchema) => toOpenApi(schema) as unknown as SchemaObject;

const HealthySchema = Type.Object(
  { status: OneOf(['Service is healthy !'] as const) },
  { example: { status: 'Service is healthy !' } },
);

export const CHECK_NAMES = ['api', 'redis', 'workers', 'converter'] as const;
export type CheckName = (typeof CHECK_NAMES)[number];
const CheckStatusSchema = OneOf(['up', 'down', 'unknown'] as const);

/** One check: its status and, beside it, what explains it (a reason, a count). */
const check = <P extends Record<string, TSchema>>(details: P) =>
  Type.Object({ status: CheckStatusSchema, ...details }, { additionalProperties: true });

export const ReadinessBodySchema = Type.Object(
  {
    status: OneOf(['ok', 'error'] as const),
    /** The checks that failed, in the order they were made; empty when ready. */
    failed: Type.Array(OneOf(CHECK_NAMES)),
    checks: Type.Object({
      api: check({ reason: Type.Optional(Type.String()) }),
      redis: check({}),
      workers: check({ live: Type.Optional(Type.Integer()) }),
      converter: check({ healthy_workers: Type.Optional(Type.Integer()) }),
      /**
       * PostgreSQL of the stored templates (docs/templates.md), when DATABASE_URL is set. Reported,
       * never failing readiness: uploads render without it, only requests by id answer 503.
       */
      database: Type.Optional(check({ reason: Type.Optional(Type.String()) })),
    }),
  },
  {
    example: {
      status: 'error',
      failed: ['workers'],
      checks: {
        api: { status: 'up' },
        redis: { status: 'up' },
        workers: { status: 'down', live: 0 },
        converter: { status: 'unknown' },
      },
    },
  },
);
export type ReadinessBody = Static<typeof ReadinessBodySchema>;
export type Check = ReadinessBody['checks'][CheckName];

export const HEALTHY_SCHEMA = openApi(HealthySchema);
export const READINESS_SCHEMA = openApi(ReadinessBodySchema);
