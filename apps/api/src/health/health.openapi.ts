/** OpenAPI schemas of the health endpoints (kept beside them; see docs/ for the wider API). */
import type { SchemaObject } from '@nestjs/swagger';

export const HEALTHY_SCHEMA: SchemaObject = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['Service is healthy !'] } },
  required: ['status'],
  example: { status: 'Service is healthy !' },
};

const CHECK: SchemaObject = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['up', 'down', 'unknown'] } },
  required: ['status'],
  additionalProperties: true,
};

export const READINESS_SCHEMA: SchemaObject = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'error'] },
    failed: { type: 'array', items: { type: 'string', enum: ['api', 'redis', 'workers', 'converter'] } },
    checks: {
      type: 'object',
      properties: {
        api: CHECK,
        redis: CHECK,
        workers: { ...CHECK, properties: { ...CHECK.properties, live: { type: 'integer' } } },
        converter: { ...CHECK, properties: { ...CHECK.properties, healthy_workers: { type: 'integer' } } },
      },
    },
  },
  required: ['status', 'failed', 'checks'],
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
};
