/**
 * API keys from the command line (docs/templates.md):
 *
 *   npm run keys -- create --scopes render,templates:read --namespace acme [--json]
 *
 * Stores the key's SHA-256 in PostgreSQL (DATABASE_URL, else the one a running `npm start` wrote to
 * .database-url) and prints the key once: it cannot be shown again. Exits 2 for wrong usage.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isScope, NAMESPACE_PATTERN, newApiKey, TemplateStore, type Scope } from '@app/store';

const USAGE =
  'usage: npm run keys -- create --scopes render,templates:read,templates:write,admin --namespace NAME [--json]\n';

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}`);
  process.exit(2);
}

function databaseUrl(): string {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const file = join(process.env.REDIS_DATA_DIR || process.cwd(), '.database-url');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  return fail('DATABASE_URL is not set and no npm start is running here (.database-url)');
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] !== 'create') fail('unknown command');
  let scopes: Scope[] | undefined;
  let namespace: string | undefined;
  let json = false;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') json = true;
    else if (a === '--scopes') {
      const list = (argv[++i] ?? '').split(',').map((s) => s.trim());
      const wrong = list.filter((s) => !isScope(s));
      if (wrong.length || !list.length) fail(`unknown scope: ${wrong.join(', ') || '(none)'}`);
      scopes = [...new Set(list)] as Scope[];
    } else if (a === '--namespace') namespace = argv[++i];
    else fail(`unknown argument: ${a}`);
  }
  if (!scopes) fail('--scopes is required');
  if (!namespace || !NAMESPACE_PATTERN.test(namespace)) {
    fail('--namespace is required: lower-case letters, digits, _ and -, at most 63');
  }
  const store = new TemplateStore({ url: databaseUrl(), poolSize: 1, timeoutMs: 10_000 });
  try {
    await store.migrate();
    const key = newApiKey();
    const record = await store.createKey(key, namespace, scopes);
    if (json) process.stdout.write(`${JSON.stringify({ id: record.id, key, namespace, scopes })}\n`);
    else {
      process.stdout.write(
        `API key ${record.id} (namespace ${namespace}, scopes ${scopes.join(', ')}). ` +
          `Shown once, keep it now:\n${key}\n`,
      );
    }
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
