/**
 * The layout's import rules, Redis only in libs/queue, and unit specs that start no service are
 * enforced by lint (eslint.config.mjs); these cases prove each rule fires, so a loosened config
 * cannot pass unnoticed.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

const REFUSED: [string, string, RegExp][] = [
  ['apps/worker/src/x.ts', "import { y } from '../../api/src/config/config.module';", /never imports an app/],
  [
    'apps/api/src/a/x.ts',
    "import { y } from '../../../worker/src/render.processor';",
    /never imports an app/,
  ],
  ['apps/cli/src/x.ts', "import { y } from '../../api/src/main';", /never imports an app/],
  ['libs/engine/src/x.ts', "import { y } from '../../../apps/api/src/main';", /never imports an app/],
  ['libs/engine/src/x.ts', "import { y } from '../../converters/src/errors';", /through its @app/],
  ['apps/api/src/x.ts', "import { y } from '@app/engine/render';", /through its index/],
  ['apps/api/src/x.ts', "import { y } from '@app/converters';", /API never loads LibreOffice/],
  ['apps/api/src/a/x.ts', "import { y } from '@app/pipeline';", /API never loads LibreOffice/],
  [
    'libs/converters/src/x.ts',
    "import { y } from '@app/pipeline';",
    /only the apps call the document pipeline/,
  ],
  ['libs/engine/src/x.ts', "import { y } from '@app/converters';", /engine knows no converter/],
  [
    'libs/converters/src/x.ts',
    "import { y } from '../../../test/support/converter-fixtures';",
    /never imports test/,
  ],
  ['apps/worker/src/x.ts', "import { y } from '../../../test/service-harness';", /never imports test/],
  // Redis is libs/queue's: no ioredis elsewhere, no command called on a connection.
  ['apps/worker/src/x.ts', "import { Redis as y } from 'ioredis';", /only libs\/queue talks to Redis/],
  [
    'libs/contracts/src/x.ts',
    "import type { Cluster as y } from 'ioredis';",
    /only libs\/queue talks to Redis/,
  ],
  ['apps/api/src/x.ts', "declare const redis: any; void redis.get('k');", /only libs\/queue calls Redis/],
  [
    'apps/api/src/x.ts',
    "declare const redis: any; void redis.getBuffer('k');",
    /only libs\/queue calls Redis/,
  ],
  [
    'apps/worker/src/x.ts',
    'declare const deps: any; void deps.redis.multi();',
    /only libs\/queue calls Redis/,
  ],
  [
    'apps/api/src/x.ts',
    "class A { redis: any; f() { return this.redis.hgetall('k'); } }",
    /only libs\/queue calls Redis/,
  ],
  [
    'apps/worker/src/x.ts',
    "declare const redisConnection: any; void redisConnection.eval('return 1', 0);",
    /only libs\/queue calls Redis/,
  ],
  // A unit spec (beside the code, `npm run test:unit`) neither imports a helper that starts a service
  // nor spawns one: such a test belongs in test/ as *.e2e-spec.ts.
  [
    'libs/queue/src/x.spec.ts',
    "import { redisForTests as y } from '../../../test/service-harness';",
    /a unit spec needs no service/,
  ],
  [
    'libs/engine/src/x.spec.ts',
    "import { DOCXTPL_PYTHON as y } from '../../../test/support/docxtpl';",
    /a unit spec needs no service/,
  ],
  [
    'libs/converters/src/x.spec.ts',
    "import { pdfToText as y } from '../../../test/support/converter-fixtures';",
    /a unit spec needs no service/,
  ],
  [
    'libs/engine/src/x.spec.ts',
    "import { spawnSync } from 'node:child_process'; const y = spawnSync('/usr/bin/python3', ['-c', '1']);",
    /a unit spec needs no service/,
  ],
  [
    'apps/worker/src/x.spec.ts',
    "import { execFile } from 'node:child_process'; const y = execFile('redis-server', ['--port', '0']);",
    /a unit spec needs no service/,
  ],
  [
    'libs/converters/src/x.spec.ts',
    "import * as cp from 'node:child_process'; const y = cp.spawn(`soffice`, ['--headless']);",
    /a unit spec needs no service/,
  ],
  // The end-to-end tests reach a library through its index too.
  ['test/x.e2e-spec.ts', "import { y } from '../libs/queue/src/bullmq-state';", /through its @app/],
  ['test/x.e2e-spec.ts', "import { y } from '@app/engine/render';", /through its index/],
];
const ALLOWED: [string, string][] = [
  ['apps/worker/src/x.ts', "import { y } from '@app/contracts';"],
  ['apps/worker/src/x.ts', "import { y } from '@app/pipeline';"],
  ['apps/cli/src/x.ts', "import { y } from '@app/pipeline';"],
  ['libs/pipeline/src/x.ts', "import { y } from '@app/converters';"],
  ['apps/api/src/x.ts', "import { y } from '@app/contracts';"],
  ['libs/engine/src/docx/x.ts', "import { y } from '../errors';"],
  ['libs/engine/src/x.spec.ts', "import { y } from '../../../test/support/docx-text';"],
  ['test/x.e2e-spec.ts', "import { y } from '../apps/api/src/app.module';"],
  ['libs/queue/src/x.ts', "import { Redis as y } from 'ioredis';"],
  ['libs/queue/src/x.ts', "declare const redis: any; void redis.get('k');"],
  ['apps/worker/src/x.spec.ts', "import { Redis as y } from 'ioredis';"],
  ['test/x.e2e-spec.ts', "import { Redis as y } from 'ioredis';"],
  ['apps/api/src/x.ts', "declare const payloads: any; void payloads.drop('k');"],
  ['apps/api/src/x.ts', "const seen = new Map(); void seen.get('k');"],
  [
    'libs/engine/src/x.spec.ts',
    "import { spawnSync } from 'node:child_process'; const y = spawnSync(process.execPath, ['-e', '1']);",
  ],
  ['test/x.e2e-spec.ts', "import { redisForTests as y } from './service-harness';"],
  [
    'test/x.e2e-spec.ts',
    "import { spawnSync } from 'node:child_process'; const y = spawnSync('/usr/bin/python3', ['-c', '1']);",
  ],
  ['test/x.e2e-spec.ts', "import { y } from '@app/queue';"],
];

/**
 * Lints every case with the project's real config in one child process: ESLint loads its .mjs
 * config with a dynamic import, which Jest's module sandbox does not allow.
 */
function lintAll(cases: [string, string][]): string[][] {
  const script = `
    const { ESLint } = require('eslint');
    (async () => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const out = [];
      for (const [file, source] of JSON.parse(process.argv[1])) {
        const [r] = await eslint.lintText(source + '\\nexport const x = y;\\n', { filePath: file });
        const rules = ['no-restricted-imports', 'no-restricted-syntax'];
        out.push(r.messages.filter((m) => rules.includes(m.ruleId)).map((m) => m.message));
      }
      console.log(JSON.stringify(out));
    })();`;
  const run = spawnSync(
    process.execPath,
    ['-e', script, JSON.stringify(cases.map(([f, s]) => [join(ROOT, f), s]))],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as string[][];
}

let results: string[][];
beforeAll(() => {
  results = lintAll([...REFUSED.map(([f, s]) => [f, s] as [string, string]), ...ALLOWED]);
});

describe('import boundaries', () => {
  it.each(REFUSED.map((c, i) => [...c, i] as const))('%s: %s is refused', (_file, _source, message, i) => {
    expect(results[i].length).toBe(1);
    expect(results[i][0]).toMatch(message);
  });

  it.each(ALLOWED.map((c, i) => [...c, REFUSED.length + i] as const))('%s: %s is allowed', (_f, _s, i) => {
    expect(results[i]).toEqual([]);
  });
});
