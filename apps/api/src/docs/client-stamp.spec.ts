/**
 * The typed client (clients/typescript) is generated from openapi.json by `npm run
 * client:generate`, which records the SHA-256 of the document it generated from: this fails when
 * openapi.json changed but the code was not regenerated (or the code was edited by hand after).
 * That openapi.json is the document the API serves is test/client.e2e-spec.ts's check (the
 * document needs the built API: its parameter types come from SWC's decorator metadata).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const CLIENT = join(__dirname, '..', '..', '..', '..', 'clients', 'typescript');

it("the generated client is its openapi.json's (else: npm run client:generate, and commit)", () => {
  const document = readFileSync(join(CLIENT, 'openapi.json'));
  const stamp = readFileSync(join(CLIENT, 'src', 'generated', 'openapi.sha256'), 'utf8').trim();
  expect(stamp).toBe(createHash('sha256').update(document).digest('hex'));
});
