/**
 * The OpenAPI answer of an error status: the ErrorBody schema with that status's examples, and on
 * 503 the Retry-After header every ServiceUnavailableError sends. One definition for every
 * controller.
 */
import { ApiResponse } from '@nestjs/swagger';
import { ERROR_BODY_REF } from './answer-schemas';
import { ERROR_TYPES_BY_STATUS, errorExamples } from './examples';

export const ErrorResponse = (status: keyof typeof ERROR_TYPES_BY_STATUS, description: string) =>
  ApiResponse({
    status,
    description,
    content: { 'application/json': { schema: ERROR_BODY_REF, examples: errorExamples(status) } },
    ...(status === 503
      ? {
          headers: {
            'Retry-After': {
              description:
                "Seconds: RETRY_AFTER_SECONDS, or when no LibreOffice instance could start, the worker pool's estimate",
              schema: { type: 'integer' },
            },
          },
        }
      : {}),
  });
