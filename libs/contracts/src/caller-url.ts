/**
 * Callers' URLs the service calls (webhooks, result delivery): the check against server-side
 * request forgery and one HTTP exchange with the address just checked. The API checks a URL when
 * a job is submitted; the worker checks it again with every attempt and connects to the very
 * address it checked, so a name that resolves to a public address at submission and to a private
 * one later (DNS rebinding) is refused. Redirects are never followed.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import * as ipaddr from 'ipaddr.js';
import { type ErrorDetails, TypedError } from './errors';

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

export type Resolver = (host: string) => Promise<LookupAddress[]>;

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

/** Which field a URL came from, its length limit, and the typed error its refusals are. */
export interface CallerUrlKind {
  /** As named in messages: `webhook_url`, `deliver_to.url`. */
  field: string;
  maxLength: number;
  error: (message: string, details: ErrorDetails) => TypedError;
}

/**
 * Parses and checks a caller's URL: http or https, no credentials, and every address its host
 * resolves to is public unless `allowed` lists the host (or host:port). Returns the addresses
 * checked; throws kind.error with the reason in details. Messages and details name the host,
 * never the path or query (which may carry a signature).
 */
export async function checkCallerUrl(
  raw: string,
  allowed: ReadonlySet<string>,
  kind: CallerUrlKind,
  resolve: Resolver = systemResolver,
): Promise<{ url: URL; addresses: LookupAddress[] }> {
  const { field } = kind;
  if (raw.length > kind.maxLength) {
    throw kind.error(`${field} is longer than ${kind.maxLength} characters`, {
      reason: 'too_long',
      max_length: kind.maxLength,
    });
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw kind.error(`${field} is not a valid URL`, { reason: 'not_a_url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw kind.error(`${field} must be an http or https URL`, {
      reason: 'scheme_not_allowed',
      scheme: url.protocol.replace(/:$/, ''),
    });
  }
  if (url.username || url.password) {
    // Credentials would be logged and stored with the job.
    throw kind.error(`${field} must not carry credentials`, { reason: 'credentials' });
  }
  const host = bareHost(url);
  const addresses = ipaddr.isValid(host)
    ? [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }]
    : await resolve(host).catch((e: unknown) => {
        throw kind.error(`The host of ${field} does not resolve`, {
          reason: 'unresolvable',
          host,
          code: (e as { code?: unknown })?.code ?? null,
        });
      });
  if (addresses.length === 0) {
    throw kind.error(`The host of ${field} does not resolve`, { reason: 'unresolvable', host });
  }
  if (!isAllowedHost(url, allowed)) {
    for (const { address } of addresses) {
      const range = refusedRange(address);
      if (range) {
        throw kind.error(`${field} resolves to a ${range} address, which the service does not call`, {
          reason: 'address_not_allowed',
          host,
          address,
          range,
        });
      }
    }
  }
  return { url, addresses };
}

export type CallOutcome =
  | { outcome: 'delivered'; status: number }
  /** Not 2xx, or no answer: worth another attempt. */
  | { outcome: 'failed'; status?: number; reason: string }
  /** The URL no longer passes the check: never retried. */
  | { outcome: 'refused'; reason: string };

export interface CallInput {
  url: string;
  kind: CallerUrlKind;
  method: 'POST' | 'PUT';
  headers: Record<string, string>;
  body: Buffer | string;
  timeoutMs: number;
  allowed: ReadonlySet<string>;
  resolve?: Resolver;
}

/**
 * One attempt: checks the URL again, then sends to the address just checked (the socket's lookup
 * is pinned to it, so nothing is resolved twice). Redirects are not followed; the answer's body
 * is read and dropped, at most 64 KiB. Reasons name no part of the URL.
 */
export async function callCheckedUrl(input: CallInput): Promise<CallOutcome> {
  let checked: { url: URL; addresses: LookupAddress[] };
  try {
    checked = await checkCallerUrl(input.url, input.allowed, input.kind, input.resolve);
  } catch (e) {
    if (e instanceof TypedError && e.details.reason !== 'unresolvable')
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
  return new Promise<CallOutcome>((resolve) => {
    const req = client.request(
      url,
      { method: input.method, lookup, timeout: input.timeoutMs, headers: input.headers },
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
