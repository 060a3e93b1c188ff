/**
 * API keys: long random strings, shown once, stored only as their SHA-256.
 *
 * A fast hash is right here (not bcrypt or scrypt): a key carries 256 random bits, so there is no
 * dictionary to try and slowing each guess buys nothing, while every request pays the hash.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SCOPES = ['render', 'templates:read', 'templates:write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** Keys begin so, which makes them recognisable to secret scanners and in a leaked log. */
export const KEY_PREFIX = 'dpk_';

export const NAMESPACE_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function isScope(s: string): s is Scope {
  return (SCOPES as readonly string[]).includes(s);
}

export function newApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Constant-time comparison of two key hashes. */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** An admin key reaches every scope. */
export function hasScope(scopes: readonly string[], wanted: Scope): boolean {
  return scopes.includes(wanted) || scopes.includes('admin');
}
