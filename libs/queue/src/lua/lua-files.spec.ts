import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RedisScript } from '../redis-script';

// No Redis: what is checked is that the scripts the library names are the files it ships.
const LUA_DIR = __dirname;
const SRC = join(__dirname, '..');

describe('the Lua scripts of libs/queue', () => {
  const files = readdirSync(LUA_DIR)
    .filter((f) => f.endsWith('.lua'))
    .map((f) => f.replace(/\.lua$/, ''));
  const named = readdirSync(SRC)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
    .flatMap((f) =>
      [...readFileSync(join(SRC, f), 'utf8').matchAll(/RedisScript\.file\('([^']+)'\)/g)].map((m) => m[1]),
    );

  it('every script named in the code is a file here, and every file is named', () => {
    expect(named.length).toBeGreaterThan(0);
    expect([...new Set(named)].sort()).toEqual(files.sort());
  });

  it.each(files)('%s.lua loads', (name) => {
    expect(() => RedisScript.file(name)).not.toThrow();
  });

  it('an unknown script fails at load, not at its first call', () => {
    expect(() => RedisScript.file('no-such-script')).toThrow(/ENOENT/);
  });
});
