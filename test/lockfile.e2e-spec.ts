/**
 * `npm ci` refuses a lock that lacks an optional binary some platform would install, so the lock
 * must name every platform's @swc/core binary that Linux x64/arm64 and macOS developers need
 * (issue 22: the old lock had Linux's only and every install fell back to `npm install`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const lock = JSON.parse(readFileSync(join(__dirname, '..', 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; optionalDependencies?: Record<string, string> }>;
};

describe('package-lock.json', () => {
  const swc = lock.packages['node_modules/@swc/core'];

  it.each(['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'darwin-arm64', 'darwin-x64'])(
    'records @swc/core-%s at the version @swc/core asks for',
    (platform) => {
      const name = `@swc/core-${platform}`;
      const wanted = swc.optionalDependencies?.[name];
      expect(wanted).toBeDefined();
      expect(lock.packages[`node_modules/${name}`]?.version).toBe(wanted);
    },
  );

  it('pins bullmq exactly: the queue adapter reads keys of that version', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(pkg.dependencies.bullmq).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lock.packages['node_modules/bullmq'].version).toBe(pkg.dependencies.bullmq);
  });
});
