/**
 * Result delivery (docs/jobs.md, "Delivery"): a job's result PUT to a caller's pre-signed URL
 * (S3, Google Cloud Storage, Azure Blob Storage), or a batch's items one URL each. The checks at
 * submission (deliver_to's shape, its headers, every URL as callers' URLs are checked), the one
 * PUT attempt, and the URL as it may be shown: host and path, never the query that signs it.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { AsyncOutput } from './async-job';
import {
  type CallOutcome,
  type CallerUrlKind,
  callCheckedUrl,
  checkCallerUrl,
  type Resolver,
} from './caller-url';
import { type ErrorDetails, TypedError } from './errors';
import { DeliveryItemsSchema, DeliveryTargetSchema } from './payload/job-request';
import { isPlainObject, schemaProblems } from './payload/schema';

/** A deliver_to the service will not use; `details.reason` says why, `details.field` where. */
export class InvalidDeliverToError extends TypedError {
  readonly errorType = 'invalid_deliver_to';
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details);
  }
}

/** Pre-signed URLs carry long signatures and, with temporary credentials, a session token. */
export const MAX_DELIVERY_URL_LENGTH = 8192;
export const MAX_DELIVERY_HEADERS = 32;
/** Names and values of one target's headers together (UTF-8 bytes). */
export const MAX_DELIVERY_HEADER_BYTES = 8192;

/**
 * Headers the caller may not set: Host and the hop-by-hop headers (RFC 9110 7.6.1) would let a
 * caller steer the connection; the length and type are the result's own.
 */
const REFUSED_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
  'content-type',
  'expect',
]);

export interface DeliveryTarget {
  url: string;
  headers?: Record<string, string>;
}

/** `whole`: the job's result (one document, the ZIP or the merged PDF); `items`: one target per batch item. */
export interface ParsedDeliverTo {
  mode: 'whole' | 'items';
  targets: DeliveryTarget[];
}

const fail = (message: string, field: string, details: ErrorDetails = {}) =>
  new InvalidDeliverToError(message, { field, ...details });

function checkHeaders(headers: Record<string, string> | undefined, field: string): void {
  if (!headers) return;
  const names = Object.keys(headers);
  if (names.length > MAX_DELIVERY_HEADERS) {
    throw fail(`${field} has ${names.length} headers; at most ${MAX_DELIVERY_HEADERS}`, field, {
      reason: 'too_many_headers',
      limit: MAX_DELIVERY_HEADERS,
    });
  }
  let bytes = 0;
  const seen = new Set<string>();
  for (const name of names) {
    const value = headers[name];
    const lower = name.toLowerCase();
    // Node's own checks: a name is an RFC 9110 token, a value has no CR, LF or NUL.
    try {
      validateHeaderName(name);
    } catch {
      throw fail(`${field}: "${name}" is not a valid header name`, `${field}.${name}`, {
        reason: 'invalid_header_name',
      });
    }
    try {
      validateHeaderValue(name, value);
    } catch {
      throw fail(
        `${field}.${name} has characters a header value may not hold (CR, LF, NUL)`,
        `${field}.${name}`,
        {
          reason: 'invalid_header_value',
        },
      );
    }
    if (REFUSED_HEADERS.has(lower) || lower.startsWith('proxy-')) {
      throw fail(
        `${field} may not set ${name}: the service sets it, or it belongs to the connection`,
        `${field}.${name}`,
        {
          reason: 'header_not_allowed',
          header: name,
        },
      );
    }
    if (seen.has(lower)) {
      throw fail(`${field} sets ${name} twice (header names are case-insensitive)`, `${field}.${name}`, {
        reason: 'duplicate_header',
      });
    }
    seen.add(lower);
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
  }
  if (bytes > MAX_DELIVERY_HEADER_BYTES) {
    throw fail(`${field} hold ${bytes} bytes; at most ${MAX_DELIVERY_HEADER_BYTES}`, field, {
      reason: 'headers_too_large',
      limit: MAX_DELIVERY_HEADER_BYTES,
    });
  }
}

function checkTarget(value: unknown, field: string): DeliveryTarget {
  const [problem] = schemaProblems(DeliveryTargetSchema, value, field);
  if (problem) {
    throw fail(`${problem.field} ${problem.problems[0]}`, problem.field, { reason: 'invalid_structure' });
  }
  const target = value as DeliveryTarget;
  checkHeaders(target.headers, `${field}.headers`);
  return { url: target.url, ...(target.headers ? { headers: { ...target.headers } } : {}) };
}

/**
 * request_data.deliver_to, checked for its shape and headers (its URLs are checked by
 * checkDeliveryUrls, which resolves names). `items` asks for one target per batch item, in order.
 */
export function parseDeliverTo(
  value: unknown,
  job: { output: AsyncOutput; itemCount?: number },
): ParsedDeliverTo {
  if (!isPlainObject(value)) {
    throw fail('deliver_to must be an object: {"url": …, "headers"?: {…}} or {"items": […]}', 'deliver_to', {
      reason: 'invalid_structure',
    });
  }
  if (!Object.prototype.hasOwnProperty.call(value, 'items')) {
    return { mode: 'whole', targets: [checkTarget(value, 'deliver_to')] };
  }
  const [problem] = schemaProblems(DeliveryItemsSchema, value, 'deliver_to');
  if (problem && !/^deliver_to\.items\[\d+\]/.test(problem.field)) {
    throw fail(`${problem.field} ${problem.problems[0]}`, problem.field, { reason: 'invalid_structure' });
  }
  const items = value.items as unknown[];
  if (job.itemCount === undefined || job.output !== 'zip') {
    throw fail(
      'deliver_to.items is for a batch with output "zip": one URL per item (a merged PDF or a single document takes deliver_to.url)',
      'deliver_to.items',
      { reason: 'items_need_a_zip_batch' },
    );
  }
  if (items.length !== job.itemCount) {
    throw fail(
      `deliver_to.items has ${items.length} URLs for a batch of ${job.itemCount} items`,
      'deliver_to.items',
      { reason: 'items_count_mismatch', items: items.length, batch_items: job.itemCount },
    );
  }
  return { mode: 'items', targets: items.map((item, i) => checkTarget(item, `deliver_to.items[${i}]`)) };
}

const urlKind = (field: string): CallerUrlKind => ({
  field,
  maxLength: MAX_DELIVERY_URL_LENGTH,
  error: (message, details) => new InvalidDeliverToError(message, { field, ...details }),
});

const fieldOf = (parsed: ParsedDeliverTo, index: number) =>
  parsed.mode === 'whole' ? 'deliver_to.url' : `deliver_to.items[${index}].url`;

/**
 * Checks every URL as callers' URLs are checked (checkCallerUrl: http(s), no credentials, public
 * addresses unless DELIVERY_ALLOWED_HOSTS lists the host). Names are resolved once each.
 */
export async function checkDeliveryUrls(
  parsed: ParsedDeliverTo,
  allowed: ReadonlySet<string>,
  resolve?: Resolver,
): Promise<void> {
  for (const [i, target] of parsed.targets.entries()) {
    await checkCallerUrl(target.url, allowed, urlKind(fieldOf(parsed, i)), resolve);
  }
}

/**
 * What may be shown of a delivery URL (logs, errors, the job's status): scheme, host and path.
 * The query is left out: a pre-signed URL's signature is there.
 */
export function shownUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

export interface PutInput {
  target: DeliveryTarget;
  field: string;
  body: Buffer;
  contentType: string;
  timeoutMs: number;
  allowed: ReadonlySet<string>;
  resolve?: Resolver;
}

/**
 * One PUT of a result (callCheckedUrl: the URL checked again, the socket pinned to the address
 * checked, no redirects), with the caller's headers and the result's type and length. 2xx is
 * delivered.
 */
export function putResult(input: PutInput): Promise<CallOutcome> {
  return callCheckedUrl({
    url: input.target.url,
    kind: urlKind(input.field),
    method: 'PUT',
    headers: {
      'user-agent': 'docx-template-service-delivery',
      ...(input.target.headers ?? {}),
      'content-type': input.contentType,
      'content-length': String(input.body.length),
    },
    body: input.body,
    timeoutMs: input.timeoutMs,
    allowed: input.allowed,
    resolve: input.resolve,
  });
}
