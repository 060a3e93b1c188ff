import { databaseStatusLine } from './database-status';

describe('databaseStatusLine', () => {
  const at = new Date('2026-11-28T10:52:03.456Z');

  it('says whether PostgreSQL answered, and when it was asked', () => {
    expect(databaseStatusLine(true, at)).toBe('Stored templates: PostgreSQL up (checked 10:52:03 UTC)');
    expect(databaseStatusLine(false, at)).toMatch(
      /^Stored templates: PostgreSQL DOWN \(checked 10:52:03 UTC\)/,
    );
  });

  it('says the store is off when no database is configured', () => {
    expect(databaseStatusLine(undefined, at)).toBe('Stored templates: off (no DATABASE_URL)');
  });
});
