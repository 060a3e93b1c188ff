import { isUnavailable } from './template-store';

describe('isUnavailable: a database that is not there, not a bug', () => {
  it('counts socket errors, connection SQLSTATEs and pg’s connection messages', () => {
    for (const e of [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('too many connections'), { code: '53300' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
    ])
      expect([e.message, isUnavailable(e)]).toEqual([e.message, true]);
  });

  it('lets SQL errors and programming errors through', () => {
    for (const e of [
      Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }),
      Object.assign(new Error('duplicate key'), { code: '23505' }),
      new TypeError("Cannot read properties of undefined (reading 'rows')"),
      undefined,
    ])
      expect(isUnavailable(e)).toBe(false);
  });
});
