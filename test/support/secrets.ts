/**
 * Where secrets must not be: every value in Redis, and log output. Shared by the specs that send
 * passwords (options.pdf.encryption) and keys (signing profiles).
 */
import type { Redis } from 'ioredis';

/** Every key in Redis with its value as text: strings, hashes, lists, sets, sorted sets and streams. */
export async function redisEntries(client: Redis): Promise<Array<{ key: string; value: string }>> {
  const entries: Array<{ key: string; value: string }> = [];
  for (const key of await client.keys('*')) {
    const type = await client.type(key);
    let value = '';
    if (type === 'string') value = (await client.getBuffer(key))?.toString('latin1') ?? '';
    else if (type === 'hash') value = JSON.stringify(await client.hgetall(key));
    else if (type === 'list') value = JSON.stringify(await client.lrange(key, 0, -1));
    else if (type === 'set') value = JSON.stringify(await client.smembers(key));
    else if (type === 'zset') value = JSON.stringify(await client.zrange(key, '0', '-1'));
    else if (type === 'stream') value = JSON.stringify(await client.xrange(key, '-', '+'));
    entries.push({ key, value });
  }
  return entries;
}

/** Every value in Redis and every key, as one text. */
export async function redisDump(client: Redis): Promise<string> {
  return (await redisEntries(client)).map(({ key, value }) => `${value}\n${key}`).join('\n');
}

/** A secret in any of its forms: as sent, and as JSON or UTF-8 escaped in a log line or a record. */
function forms(secret: string): string[] {
  return [secret, JSON.stringify(secret).slice(1, -1), Buffer.from(secret).toString('latin1')];
}

/** Fails when any form of `secret` is in any of `texts`. */
export function expectNowhere(secret: string, ...texts: string[]): void {
  for (const text of texts) for (const form of forms(secret)) expect(text.includes(form)).toBe(false);
}
