import { CheckedTemplates } from './checked-templates';

describe('CheckedTemplates', () => {
  it('checks each distinct template once and every failing one each time', () => {
    const seen: string[] = [];
    const check = (t: Buffer) => {
      seen.push(t.toString());
      if (t.toString() === 'bad') throw new Error('refused');
    };
    const cache = new CheckedTemplates(2);
    cache.ensure(Buffer.from('a'), check);
    cache.ensure(Buffer.from('a'), check);
    expect(() => cache.ensure(Buffer.from('bad'), check)).toThrow('refused');
    expect(() => cache.ensure(Buffer.from('bad'), check)).toThrow('refused');
    expect(seen).toEqual(['a', 'bad', 'bad']);
    expect(cache.size).toBe(1);
  });

  it('keeps at most its capacity, dropping the least recently used', () => {
    const seen: string[] = [];
    const cache = new CheckedTemplates(2);
    for (const t of ['a', 'b', 'a', 'c', 'a', 'b'])
      cache.ensure(Buffer.from(t), (x) => seen.push(x.toString()));
    // 'b' aged out when 'c' came ('a' had been used since), so it is checked again.
    expect(seen).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.size).toBe(2);
  });
});
