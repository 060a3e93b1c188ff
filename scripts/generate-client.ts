/**
 * `npm run client:generate`: builds the OpenAPI document the API serves at /docs-json, in process
 * (from the built API) and without Redis (Nest's preview mode registers the controllers without creating any provider,
 * so no queue connects), writes it to clients/typescript/openapi.json and regenerates the typed
 * client (clients/typescript/src/generated) from it with @hey-api/openapi-ts. The stamp file records
 * the document's SHA-256, which apps/api/src/docs/client-stamp.spec.ts compares; the served
 * document itself is compared by test/client.e2e-spec.ts.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';

const scripts = require('./build.js') as { build: (o?: { quiet?: boolean }) => boolean; ROOT: string };

const CLIENT = join(__dirname, '..', 'clients', 'typescript');
const OPENAPI_FILE = join(CLIENT, 'openapi.json');
const GENERATED = join(CLIENT, 'src', 'generated');

/**
 * From the built API (dist/, scripts/build.js), as the API runs: SWC emits the decorator metadata
 * the document's parameter types come from, which tsx's esbuild does not.
 */
async function servedOpenApiDocument(): Promise<OpenAPIObject> {
  scripts.build({ quiet: true });
  const built = join(scripts.ROOT, 'dist', 'apps', 'api', 'src', 'docs', 'served-document.js');
  const { servedOpenApiDocument: build } = require(built) as {
    servedOpenApiDocument: () => Promise<OpenAPIObject>;
  };
  return build();
}

async function main(): Promise<void> {
  const text = `${JSON.stringify(await servedOpenApiDocument(), null, 2)}\n`;
  writeFileSync(OPENAPI_FILE, text);
  // ESM-only package: loaded by tsx's import, not require.
  const { createClient } = await import('@hey-api/openapi-ts');
  await createClient({
    input: OPENAPI_FILE,
    output: { path: GENERATED, clean: true },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
    logs: { level: 'warn' },
  });
  mkdirSync(GENERATED, { recursive: true });
  writeFileSync(join(GENERATED, 'openapi.sha256'), `${createHash('sha256').update(text).digest('hex')}\n`);
  console.error(`wrote ${OPENAPI_FILE} and regenerated ${GENERATED}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
