/**
 * Webhooks: the URL check against server-side request forgery, the Standard Webhooks signature,
 * and one delivery attempt. The API checks a URL when a job is submitted; the worker checks it
 * again with every attempt and connects to the very address it checked, so a name that resolves
 * to a public address at submission and to a private one later (DNS rebinding) is refused.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import * as ipaddr from 'ipaddr.js';
import { Webhook } from 'standardwebhooks';
import { type Static, Type } from '@sinclair/typebox';
import { ErrorBodySchema, type ErrorDetails, TypedError } from './errors';

/** A webhook URL the service will not call; `details.reason` says why. */
export class InvalidWebhookUrlError extends TypedError {
  readonly errorType = 'invalid_webhook_url';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** Hosts (`host` or `host:port`, IPv6 in brackets) exempt from the address check, lower-cased. */
export function parseAllowedHosts(list: string | undefined): ReadonlySet<string> {
  return new Set(
    (list ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** Why an address may not be called, or null when it is a public unicast address. */
export function refusedRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  // process() turns IPv4-mapped IPv6 (::ffff:10.0.0.1) into the IPv4 address it carries.
  const range = ipaddr.process(address).range();
  // Only global unicast is called: loopback, private, link-local, unique-local, multicast,
  // unspecified, carrier-grade NAT, reserved and the translation prefixes (6to4, Teredo, NAT64,
  // which can carry a private IPv4 address) are all refused.
  return range === 'unicast' ? null : range;
}

type Resolver = (host: string) => Promise<LookupAddress[]>;

/** It is stored with the job and sent with every attempt: a URL, not a payload. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) =>
      err ? reject(err) : resolve(addresses),
    ),
  );

function effectivePort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** The URL's host without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export function isAllowedHost(url: URL, allowed: ReadonlySet<string>): boolean {
  const host = url.hostname.toLowerCase();
  return allowed.has(host) || allowed.has(`${host}:${effectivePort(url)}`);
}

/**
 * Parses and checks a webhook URL: http or https, no credentials, and every address its host
 * resolves to is public unless WEBHOOK_ALLOWED_HOSTS lists the host (or host:port). Returns the
 * addresses checked; throws InvalidWebhookUrlError with the reason in details.
 */
export async function checkWebhookUrl(
  raw: string,
  allowed: ReadonlySet<string>,
  resolve: Resolver = systemResolver,
): Promise<{ url: URL; addresses: LookupAddress[] }> {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    throw new InvalidWebhookUrlError(`webhook_url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`, {
      reason: 'too_long',
      max_length: MAX_WEBHOOK_URL_LENGTH,
    });
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidWebhookUrlError('webhook_url is not a valid URL', { reason: 'not_a_url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidWebhookUrlError('webhook_url must be an http or https URL', {
      reason: 'scheme_not_allowed',
      scheme: url.protocol.replace(/:$/, ''),
    });
  }
  if (url.username || url.password) {
    // Credentials would be logged and stored with the job.
    throw new InvalidWebhookUrlError('webhook_url must not carry credentials', { reason: 'credentials' });
  }
  const host = bareHost(url);
  const addresses = ipaddr.isValid(host)
    ? [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }]
    : await resolve(host).catch((e: unknown) => {
        throw new InvalidWebhookUrlError('The host of webhook_url does not resolve', {
          reason: 'unresolvable',
          host,
          code: (e as { code?: unknown })?.code ?? null,
        });
      });
  if (addresses.length === 0) {
    throw new InvalidWebhookUrlError('The host of webhook_url does not resolve', {
      reason: 'unresolvable',
      host,
    });
  }
  if (!isAllowedHost(url, allowed)) {
    for (const { address } of addresses) {
      const range = refusedRange(address);
      if (range) {
        throw new InvalidWebhookUrlError(
          `webhook_url resolves to a ${range} address, which the service does not call`,
          { reason: 'address_not_allowed', host, address, range },
        );
      }
    }
  }
  return { url, addresses };
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

export type DeliveryOutcome =
  | { outcome: 'delivered'; status: number }
  /** Not 2xx, or no answer: worth another attempt. */
  | { outcome: 'failed'; status?: number; reason: string }
  /** The URL no longer passes the check: never retried. */
  | { outcome: 'refused'; reason: string };

export interface DeliveryInput {
  url: string;
  id: string;
  body: string;
  secret: string;
  timeoutMs: number;
  allowed: ReadonlySet<string>;
  resolve?: Resolver;
}

/**
 * One attempt: checks the URL again, then POSTs to the address just checked (the socket's lookup
 * is pinned to it, so nothing is resolved twice). Redirects are not followed; the answer's body
 * is read and dropped, at most 64 KiB.
 */
export async function deliverWebhook(input: DeliveryInput): Promise<DeliveryOutcome> {
  let checked: { url: URL; addresses: LookupAddress[] };
  try {
    checked = await checkWebhookUrl(input.url, input.allowed, input.resolve);
  } catch (e) {
    if (e instanceof InvalidWebhookUrlError && e.details.reason !== 'unresolvable')
      return { outcome: 'refused', reason: e.message };
    return { outcome: 'failed', reason: e instanceof Error ? e.message : String(e) };
  }
  const { url, addresses } = checked;
  const pinned = addresses[0];
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: LookupAddress[]) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<DeliveryOutcome>((resolve) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        lookup,
        timeout: input.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'docx-template-service-webhooks',
          ...webhookHeaders(input.secret, input.id, input.body),
        },
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > 64 * 1024) res.destroy();
        });
        const done = () => {
          const status = res.statusCode ?? 0;
          resolve(
            status >= 200 && status < 300
              ? { outcome: 'delivered', status }
              : { outcome: 'failed', status, reason: `answered ${status}` },
          );
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    // The per-attempt limit covers the whole exchange, not only idle sockets.
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${input.timeoutMs} ms`)),
      input.timeoutMs,
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${input.timeoutMs} ms`)));
    req.on('error', (e) => resolve({ outcome: 'failed', reason: e.message }));
    req.on('close', () => clearTimeout(timer));
    req.end(input.body);
  });
}
