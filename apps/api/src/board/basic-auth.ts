/**
 * HTTP basic auth for Bull Board. Both user and password are always compared, each in constant
 * time over SHA-256 digests (equal length whatever was sent), so the answer time says nothing
 * about how much of either matched.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** The user and password of an `Authorization: Basic …` header, or undefined. */
export function parseBasicAuth(header: string | undefined): { user: string; password: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export function checkBasicAuth(header: string | undefined, user: string, password: string): boolean {
  const given = parseBasicAuth(header) ?? { user: '', password: '' };
  // `&` rather than `&&`: the password is compared even when the user is wrong.
  const userOk = constantTimeEqual(given.user, user);
  const passwordOk = constantTimeEqual(given.password, password);
  return Boolean(Number(userOk) & Number(passwordOk)) && header !== undefined;
}
