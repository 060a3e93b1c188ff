import { PNG } from 'pngjs';
import { b64, garbageIdat, solid } from '../../../../test/support/hostile-png';
import { ImageProcessingError } from '../errors';
import { prepareImage, DEFAULT_IMAGE_LIMITS } from './images';
import { RecentDigests } from './recent-digests';

describe('RecentDigests', () => {
  it('checks each distinct input once and every failing one each time', () => {
    const seen: string[] = [];
    const check = (t: Buffer) => {
      seen.push(t.toString());
      if (t.toString() === 'bad') throw new Error('refused');
    };
    const cache = new RecentDigests(2);
    cache.ensure(Buffer.from('a'), check);
    cache.ensure(Buffer.from('a'), check);
    expect(() => cache.ensure(Buffer.from('bad'), check)).toThrow('refused');
    expect(() => cache.ensure(Buffer.from('bad'), check)).toThrow('refused');
    expect(seen).toEqual(['a', 'bad', 'bad']);
    expect(cache.size).toBe(1);
  });

  it('keeps at most its capacity, dropping the least recently used', () => {
    const seen: string[] = [];
    const cache = new RecentDigests(2);
    for (const t of ['a', 'b', 'a', 'c', 'a', 'b'])
      cache.ensure(Buffer.from(t), (x) => seen.push(x.toString()));
    // 'b' aged out when 'c' came ('a' had been used since), so it is checked again.
    expect(seen).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.size).toBe(2);
  });

  it('decodes a PNG sent again only once, and a PNG that fails to decode every time', () => {
    const decode = jest.spyOn(PNG.sync, 'read');
    try {
      const decoded = new RecentDigests();
      const good = { data: b64(solid(4, 3)) };
      for (let i = 0; i < 3; i++)
        expect(prepareImage('logo', good, DEFAULT_IMAGE_LIMITS, { decodedBefore: decoded }).widthPx).toBe(4);
      expect(decode).toHaveBeenCalledTimes(1);
      const bad = { data: b64(garbageIdat()) };
      for (let i = 0; i < 2; i++)
        expect(() => prepareImage('bad', bad, DEFAULT_IMAGE_LIMITS, { decodedBefore: decoded })).toThrow(
          ImageProcessingError,
        );
      expect(decoded.size).toBe(1);
    } finally {
      decode.mockRestore();
    }
  });
});
