import { RedisScript } from '@app/queue';
import { redisForTests } from './service-harness';

// A real Redis: what is asserted is which commands it received.
const redisServer = redisForTests();

/** Calls of one command since the last CONFIG RESETSTAT. */
async function calls(command: 'eval' | 'evalsha'): Promise<number> {
  const info = await redisServer.client.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}

describe('RedisScript', () => {
  const redis = () => redisServer.client;
  const script = new RedisScript("return {KEYS[1], ARGV[1], redis.call('STRLEN', KEYS[1])}");

  it('sends the script once, then only its SHA-1, and loads it again after SCRIPT FLUSH', async () => {
    await redis().script('FLUSH');
    await redis().set('k', Buffer.from([0, 1, 2, 255]));
    await redis().config('RESETSTAT');

    expect(await script.run(redis(), ['k'], ['a'])).toEqual(['k', 'a', 4]);
    expect(await script.run(redis(), ['k'], [Buffer.from('b')])).toEqual(['k', 'b', 4]);
    expect(await script.run(redis(), ['k'], [7])).toEqual(['k', '7', 4]);
    expect(await calls('eval')).toBe(1); // after the first EVALSHA's NOSCRIPT
    expect(await calls('evalsha')).toBe(3);

    await redis().script('FLUSH'); // a restarted Redis, another cluster node
    expect(await script.run(redis(), ['k'], ['c'])).toEqual(['k', 'c', 4]);
    expect(await calls('eval')).toBe(2);
  });

  it('passes on errors other than NOSCRIPT as they are', async () => {
    const failing = new RedisScript("return redis.call('INCR', KEYS[1])");
    await redis().set('text', 'not a number');
    await failing.run(redis(), ['n'], []); // loads it
    await expect(failing.run(redis(), ['text'], [])).rejects.toThrow(/not an integer/);
  });
});
