/**
 * The store's schema, as numbered migrations run at start by the API and the workers.
 *
 * Umzug runs them (a well-kept, framework-free migration runner; node-pg-migrate 9 is ESM-only,
 * which neither this CommonJS build nor Jest loads). The migrations live in code, not in files
 * found by a glob, so dist/ needs no copied SQL. Each migration and the row recording it commit in
 * one transaction (the storage's logMigration is then a no-op): a crash mid-migration leaves the
 * schema at the previous step. An advisory lock keeps the API and the workers, starting together,
 * from migrating at once.
 */
import type { Pool, PoolClient } from 'pg';
import { Umzug, type UmzugStorage } from 'umzug';

const TABLE = 'schema_migrations';
/** Any constant: the key of the advisory lock held while migrating. */
const MIGRATION_LOCK = 38_380_038;

interface Migration {
  name: string;
  sql: string;
}

/** Step 1: the first schema (keys, templates, versions and their contents). */
const FIRST_SCHEMA = `
CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  namespace text NOT NULL,
  -- SHA-256 of the key: the key itself is never stored.
  hash bytea NOT NULL UNIQUE,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE templates (
  id uuid PRIMARY KEY,
  namespace text NOT NULL,
  name text NOT NULL,
  current_version integer,
  deleted boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX templates_namespace_name ON templates (namespace, name, id) WHERE NOT deleted;
-- A template file once, however many versions (of however many templates) share it.
CREATE TABLE template_contents (
  digest text PRIMARY KEY,
  size integer NOT NULL,
  bytes bytea NOT NULL
);
CREATE TABLE template_versions (
  template_id uuid NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
  number integer NOT NULL,
  digest text NOT NULL REFERENCES template_contents (digest),
  lint jsonb NOT NULL,
  inspection jsonb NOT NULL,
  created_by uuid REFERENCES api_keys (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (template_id, number)
);
`;

/** Step 2: descriptions, labels and sample data on templates; when a key was last used. */
const METADATA_AND_KEY_USE = `
ALTER TABLE templates ADD COLUMN description text NOT NULL DEFAULT '';
ALTER TABLE templates ADD COLUMN labels text[] NOT NULL DEFAULT '{}';
ALTER TABLE templates ADD COLUMN sample_data jsonb;
CREATE INDEX templates_labels ON templates USING gin (labels);
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
`;

/**
 * Step 3: a stored file's format (its media type: a Word document, a workbook or a deck) and what
 * its fill drops (a workbook's external links: the Warning header of a render by id, which never
 * reads the bytes in the API). Every file stored before was a Word document (the store took no
 * other), with nothing to drop: the defaults describe them.
 */
const FORMATS = `
ALTER TABLE template_contents ADD COLUMN media_type text NOT NULL
  DEFAULT 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
ALTER TABLE template_contents ADD COLUMN warnings text[] NOT NULL DEFAULT '{}';
`;

export const MIGRATIONS: readonly Migration[] = [
  { name: '0001-first-schema', sql: FIRST_SCHEMA },
  { name: '0002-metadata-and-key-use', sql: METADATA_AND_KEY_USE },
  { name: '0003-formats', sql: FORMATS },
];

/** On the migrating connection: a pool of one must not wait for a second connection. */
function storage(pool: PoolClient): UmzugStorage {
  return {
    async executed() {
      await pool.query(
        `CREATE TABLE IF NOT EXISTS ${TABLE} (name text PRIMARY KEY, run_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await pool.query<{ name: string }>(`SELECT name FROM ${TABLE} ORDER BY name`);
      return rows.map((r) => r.name);
    },
    // Recorded by the migration's own transaction (runInTransaction).
    async logMigration() {},
    async unlogMigration({ name }) {
      await pool.query(`DELETE FROM ${TABLE} WHERE name = $1`, [name]);
    },
  };
}

async function runInTransaction(client: PoolClient, m: Migration): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(m.sql);
    await client.query(`INSERT INTO ${TABLE} (name) VALUES ($1)`, [m.name]);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/**
 * Brings the schema up to `to` (a migration's name; default: the last). Returns the names of the
 * migrations it ran.
 */
export async function migrate(pool: Pool, to?: string): Promise<string[]> {
  const client = await pool.connect();
  const ignore = () => undefined;
  client.on('error', ignore);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const umzug = new Umzug({
      migrations: MIGRATIONS.map((m) => ({ name: m.name, up: () => runInTransaction(client, m) })),
      storage: storage(client),
      logger: undefined,
    });
    const ran = await umzug.up(to ? { to } : {});
    return ran.map((m) => m.name);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(ignore);
    client.off('error', ignore);
    client.release();
  }
}
