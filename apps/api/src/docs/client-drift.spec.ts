/**
 * The typed client (clients/typescript) is generated from the OpenAPI document the API serves:
 * this fails when the committed openapi.json differs from the document built now, or when the
 * generated code was not regenerated from that openapi.json (its stamp holds the SHA-256 of the
 * document it came from). The fix in both cases: `npm run client:generate`, and commit.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';

const ROOT = join(__dirname, '..', '..', '..', '..');
const CLIENT = join(ROOT, 'clients', 'typescript');
const FIX = 'run `npm run client:generate` and commit clients/typescript';

describe('the committed typed client', () => {
  const committed = readFileSync(join(CLIENT, 'openapi.json'), 'utf8');

  it('was generated from the document the API serves', () => {
    // In a child process: @nestjs/core is an ES module, which Jest cannot require() before Node 24.9.
    const served = execFileSync(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      ['scripts/generate-client.ts', '--print'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      },
    );
    if (served !== committed) {
      // The first differing line says what changed.
      const [a, b] = [served.split('\n'), committed.split('\n')];
      const at = a.findIndex((line, i) => line !== b[i]);
      throw new Error(`clients/typescript/openapi.json differs at line ${at + 1} (served: ${a[at]}); ${FIX}`);
    }
    expect(served).toBe(committed);
  });

  it("'s generated code matches its openapi.json", () => {
    const stamp = readFileSync(join(CLIENT, 'src', 'generated', 'openapi.sha256'), 'utf8').trim();
    expect({ stamp, fix: FIX }).toEqual({
      stamp: createHash('sha256').update(committed).digest('hex'),
      fix: FIX,
    });
  });
});
