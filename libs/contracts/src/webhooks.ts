/**
 * Webhooks: the URL check against server-side request forgery (caller-url.ts, shared with result
 * delivery), the Standard Webhooks signature, and one delivery attempt.
 */
import type { LookupAddress } from 'node:dns';
import { Webhook } from 'standardwebhooks';
import { type Static, Type } from '@sinclair/typebox';
import {
  callCheckedUrl,
  type CallOutcome,
  type CallerUrlKind,
  checkCallerUrl,
  type Resolver,
} from './caller-url';
import { DeliveryViewSchema } from './payload/job-view';
import { ErrorBodySchema, type ErrorDetails, TypedError } from './errors';

/** A webhook URL the service will not call; `details.reason` says why. */
export class InvalidWebhookUrlError extends TypedError {
  readonly errorType = 'invalid_webhook_url';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** It is stored with the job and sent with every attempt: a URL, not a payload. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

const WEBHOOK_URL: CallerUrlKind = {
  field: 'webhook_url',
  maxLength: MAX_WEBHOOK_URL_LENGTH,
  error: (message, details) => new InvalidWebhookUrlError(message, details),
};

/**
 * Parses and checks a webhook URL (checkCallerUrl): http or https, no credentials, and every
 * address its host resolves to is public unless WEBHOOK_ALLOWED_HOSTS lists the host (or
 * host:port). Throws InvalidWebhookUrlError with the reason in details.
 */
export function checkWebhookUrl(
  raw: string,
  allowed: ReadonlySet<string>,
  resolve?: Resolver,
): Promise<{ url: URL; addresses: LookupAddress[] }> {
  return checkCallerUrl(raw, allowed, WEBHOOK_URL, resolve);
}

/** Signs a payload per Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function webhookHeaders(
  secret: string,
  id: string,
  body: string,
  now: Date = new Date(),
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, now, body),
  };
}

/** The JSON a webhook carries, defined once: WebhookEvent is its type, the OpenAPI schema is it. */
export const WebhookEventSchema = Type.Object(
  {
    type: Type.Union([Type.Literal('job.completed'), Type.Literal('job.failed')]),
    timestamp: Type.String({ format: 'date-time' }),
    data: Type.Object({
      job_id: Type.String(),
      status: Type.Union([Type.Literal('completed'), Type.Literal('failed')]),
      result_url: Type.String({
        format: 'uri',
        description: "Absolute: PUBLIC_BASE_URL or the request's host",
      }),
      error: Type.Optional(ErrorBodySchema),
      delivery: Type.Optional(DeliveryViewSchema),
    }),
  },
  {
    $id: 'WebhookEvent',
    description:
      'The body POSTed to webhook_url, with headers webhook-id (the same on every attempt), webhook-timestamp and ' +
      'webhook-signature (v1,<base64 HMAC-SHA256 of "id.timestamp.body"> keyed by WEBHOOK_SECRET)',
  },
);
export type WebhookEvent = Static<typeof WebhookEventSchema>;

export type DeliveryOutcome = CallOutcome;

export interface DeliveryInput {
  url: string;
  id: string;
  body: string;
  secret: string;
  timeoutMs: number;
  allowed: ReadonlySet<string>;
  resolve?: Resolver;
}

/** One attempt (callCheckedUrl): POSTs the signed body to the address just checked. */
export function deliverWebhook(input: DeliveryInput): Promise<DeliveryOutcome> {
  return callCheckedUrl({
    url: input.url,
    kind: WEBHOOK_URL,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'docx-template-service-webhooks',
      ...webhookHeaders(input.secret, input.id, input.body),
    },
    body: input.body,
    timeoutMs: input.timeoutMs,
    allowed: input.allowed,
    resolve: input.resolve,
  });
}
