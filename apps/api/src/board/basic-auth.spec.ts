import { checkBasicAuth, parseBasicAuth } from './basic-auth';

const header = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('basic auth', () => {
  it('accepts the configured user and password only', () => {
    expect(checkBasicAuth(header('ops', 'p:w'), 'ops', 'p:w')).toBe(true);
    expect(checkBasicAuth(header('ops', 'wrong'), 'ops', 'p:w')).toBe(false);
    expect(checkBasicAuth(header('other', 'p:w'), 'ops', 'p:w')).toBe(false);
    expect(checkBasicAuth(undefined, 'ops', 'p:w')).toBe(false);
    expect(checkBasicAuth('Bearer abc', 'ops', 'p:w')).toBe(false);
  });

  it('splits at the first colon (passwords may hold colons, users may not)', () => {
    expect(parseBasicAuth(header('u', 'a:b:c'))).toEqual({ user: 'u', password: 'a:b:c' });
    expect(parseBasicAuth(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeUndefined();
  });

  it('never accepts an empty header against empty credentials', () => {
    expect(checkBasicAuth(undefined, '', '')).toBe(false);
  });
});
