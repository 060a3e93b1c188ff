import { WaitQueue } from './wait-queue';

describe('the converters’ wait queue', () => {
  it('serves first come first, refuses past its bound, lets a priority caller in first', async () => {
    const queue = new WaitQueue<string>(2, (jobId) => new Error(`full (${jobId})`));
    const order: string[] = [];
    const a = queue.wait('a').then((slot) => order.push(`a:${slot}`));
    const b = queue.wait('b').then((slot) => order.push(`b:${slot}`));
    await expect(queue.wait('c')).rejects.toThrow('full (c)');
    const health = queue.wait(undefined, true).then((slot) => order.push(`health:${slot}`));
    expect(queue.length).toBe(3);
    expect(queue.handOver('1')).toBe(true);
    expect(queue.handOver('2')).toBe(true);
    expect(queue.handOver('3')).toBe(true);
    expect(queue.handOver('4')).toBe(false);
    await Promise.all([a, b, health]);
    expect(order).toEqual(['health:1', 'a:2', 'b:3']);
  });

  it('fails every waiting caller at once', async () => {
    const queue = new WaitQueue<void>(5, () => new Error('full'));
    const waiting = [queue.wait(), queue.wait()];
    queue.rejectAll(new Error('closed'));
    for (const w of waiting) await expect(w).rejects.toThrow('closed');
    expect(queue.length).toBe(0);
  });
});
