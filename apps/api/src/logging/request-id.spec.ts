import { isSafeRequestId, requestIdFrom } from './request-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it("keeps the caller's id when it is a safe token", () => {
    expect(requestIdFrom('abc-123_X.y')).toBe('abc-123_X.y');
    expect(requestIdFrom('a'.repeat(128))).toBe('a'.repeat(128));
  });

  it('replaces anything else with a fresh UUID', () => {
    for (const bad of [undefined, '', 'a'.repeat(129), 'has space', 'new\nline', '{"json":1}', ['a', 'b']]) {
      const id = requestIdFrom(bad as string | string[] | undefined);
      expect(id).toMatch(UUID);
      expect(isSafeRequestId(id)).toBe(true);
    }
    expect(requestIdFrom(undefined)).not.toBe(requestIdFrom(undefined));
  });
});
