/**
 * The template store in PostgreSQL: API keys, templates, their immutable numbered versions and the
 * .docx bytes (once per SHA-256 digest). Every write that makes a version is one transaction, so a
 * crash of PostgreSQL or of the process mid-upload leaves no half-written version.
 *
 * Every read and write takes the caller's namespace: another namespace's template is not found,
 * exactly as a missing one. PostgreSQL unreachable: ServiceUnavailableError (503, Retry-After).
 */
import { createHash, randomUUID } from 'node:crypto';
import { Pool, type PoolClient } from 'pg';
import { ServiceUnavailableError, TemplateNotFoundError, TypedError } from '@app/contracts';
import { hashApiKey, sameHash, type Scope } from './keys';
import { migrate } from './migrations';
import type { StoreSettings } from './settings';

export interface ApiKeyRecord {
  id: string;
  namespace: string;
  scopes: Scope[];
}

export interface VersionInfo {
  number: number;
  digest: string;
  size: number;
  /** The file's format: a Word document, a workbook or a slide deck. */
  media_type: string;
  created_at: string;
  /** The id of the API key that uploaded it (never the key). */
  created_by: string | null;
}

export interface TemplateSummary {
  template_id: string;
  name: string;
  description: string;
  labels: string[];
  current_version: number | null;
  created_at: string;
}

export interface TemplateDetail extends TemplateSummary {
  sample_data: unknown;
  versions: VersionInfo[];
}

export interface NewVersion {
  file: Buffer;
  /** The file's media type, as its package's content types tell it (the caller reads them). */
  mediaType: string;
  /** What its fill drops and a render names in its Warning header ([] when nothing). */
  warnings: string[];
  lint: unknown;
  inspection: unknown;
  createdBy: string | null;
  /** Make it the current version (the caller has checked that lint found no errors). */
  publish: boolean;
}

export interface NewTemplate extends NewVersion {
  name: string;
  description?: string;
  labels?: string[];
  sampleData?: unknown;
}

/** What a render by id needs: the job carries these, never the bytes. */
export interface ResolvedTemplate {
  templateId: string;
  name: string;
  version: number;
  /** SHA-256 of the file, hex. */
  digest: string;
  size: number;
  mediaType: string;
  warnings: string[];
}

export interface ListQuery {
  namePrefix?: string;
  label?: string;
  limit: number;
  cursor?: string;
}

/** SQLSTATE classes of a database that is not there (connection, shutdown, recovery, resources). */
const UNAVAILABLE_SQLSTATE = /^(08|57P|53)/;
/** pg's own errors for a connection that failed or timed out carry no code, only these words. */
const UNAVAILABLE_MESSAGE =
  /timeout|Connection terminated|connect|not queryable|Client has encountered a connection error/i;

/** The database is not there (socket errors, SQLSTATE classes, pg's connection errors), not a bug. */
export function isUnavailable(e: unknown): boolean {
  const { code, message } = (e ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') return /^E[A-Z]+$/.test(code) || UNAVAILABLE_SQLSTATE.test(code);
  return typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message);
}

export function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class TemplateStore {
  readonly pool: Pool;

  constructor(
    settings: Pick<StoreSettings, 'poolSize' | 'timeoutMs'> & { url: string },
    private readonly retryAfterSeconds = 2,
  ) {
    this.pool = new Pool({
      connectionString: settings.url,
      max: settings.poolSize,
      connectionTimeoutMillis: settings.timeoutMs,
      query_timeout: settings.timeoutMs,
      // Callers see the error of their own query; an idle connection's error must not crash us.
      allowExitOnIdle: true,
    });
    this.pool.on('error', () => undefined);
  }

  async migrate(): Promise<string[]> {
    return this.guard(() => migrate(this.pool));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  /** True when PostgreSQL answers (readiness, /metrics). */
  async ping(): Promise<boolean> {
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  /** Turns "the database is not there" into a 503 with Retry-After; other errors pass. */
  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      if (e instanceof TypedError) throw e;
      if (isUnavailable(e)) {
        throw new ServiceUnavailableError(
          'The template store (PostgreSQL) is unavailable',
          this.retryAfterSeconds,
          { reason: 'database_unavailable' },
        );
      }
      throw e;
    }
  }

  private async transaction<T>(work: (c: PoolClient) => Promise<T>): Promise<T> {
    return this.guard(async () => {
      const client = await this.pool.connect();
      // A connection that drops while checked out emits 'error' on the client (its query fails too):
      // without a listener that would be an uncaught exception.
      const ignore = () => undefined;
      client.on('error', ignore);
      let failure: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (e) {
        failure = e as Error;
        await client.query('ROLLBACK').catch(ignore);
        throw e;
      } finally {
        client.off('error', ignore);
        // A failed connection is dropped, not handed to the next caller.
        client.release(failure && !(failure instanceof TypedError) ? failure : undefined);
      }
    });
  }

  // ---- API keys ----

  async createKey(key: string, namespace: string, scopes: Scope[]): Promise<ApiKeyRecord> {
    const id = randomUUID();
    await this.guard(() =>
      this.pool.query('INSERT INTO api_keys (id, namespace, hash, scopes) VALUES ($1, $2, $3, $4)', [
        id,
        namespace,
        hashApiKey(key),
        scopes,
      ]),
    );
    return { id, namespace, scopes };
  }

  /** The key's record, or undefined for an unknown key. Records its use. */
  async findKey(key: string): Promise<ApiKeyRecord | undefined> {
    const hash = hashApiKey(key);
    const { rows } = await this.guard(() =>
      this.pool.query<{ id: string; namespace: string; scopes: Scope[]; hash: Buffer }>(
        'UPDATE api_keys SET last_used_at = now() WHERE hash = $1 RETURNING id, namespace, scopes, hash',
        [hash],
      ),
    );
    const row = rows[0];
    // The index found it by hash; the bytes are compared again in constant time all the same.
    if (!row || !sameHash(row.hash, hash)) return undefined;
    return { id: row.id, namespace: row.namespace, scopes: row.scopes };
  }

  // ---- templates ----

  private async putContent(c: PoolClient, v: NewVersion): Promise<string> {
    const digest = sha256Hex(v.file);
    await c.query(
      `INSERT INTO template_contents (digest, size, bytes, media_type, warnings) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (digest) DO NOTHING`,
      [digest, v.file.length, v.file, v.mediaType, v.warnings],
    );
    return digest;
  }

  private async insertVersion(c: PoolClient, templateId: string, number: number, v: NewVersion) {
    const digest = await this.putContent(c, v);
    const { rows } = await c.query<{ created_at: Date }>(
      `INSERT INTO template_versions (template_id, number, digest, lint, inspection, created_by)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at`,
      [templateId, number, digest, JSON.stringify(v.lint), JSON.stringify(v.inspection), v.createdBy],
    );
    if (v.publish)
      await c.query('UPDATE templates SET current_version = $2 WHERE id = $1', [templateId, number]);
    return { number, digest, size: v.file.length, created_at: rows[0].created_at.toISOString() };
  }

  async createTemplate(namespace: string, t: NewTemplate) {
    return this.transaction(async (c) => {
      const id = randomUUID();
      await c.query(
        `INSERT INTO templates (id, namespace, name, description, labels, sample_data)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          id,
          namespace,
          t.name,
          t.description ?? '',
          t.labels ?? [],
          t.sampleData === undefined ? null : JSON.stringify(t.sampleData),
        ],
      );
      const version = await this.insertVersion(c, id, 1, t);
      return { template_id: id, version };
    });
  }

  /** Locks the template row for the transaction; not found for a missing, deleted or foreign one. */
  private async lockTemplate(c: PoolClient, namespace: string, id: string): Promise<void> {
    if (!UUID.test(id)) throw new TemplateNotFoundError();
    const { rowCount } = await c.query(
      'SELECT 1 FROM templates WHERE id = $1 AND namespace = $2 AND NOT deleted FOR UPDATE',
      [id, namespace],
    );
    if (!rowCount) throw new TemplateNotFoundError();
  }

  async addVersion(namespace: string, id: string, v: NewVersion) {
    return this.transaction(async (c) => {
      await this.lockTemplate(c, namespace, id);
      const { rows } = await c.query<{ n: number }>(
        'SELECT coalesce(max(number), 0) + 1 AS n FROM template_versions WHERE template_id = $1',
        [id],
      );
      return this.insertVersion(c, id, rows[0].n, v);
    });
  }

  /** Makes version `number` current (also how a version is rolled back to). Returns its lint report. */
  async publish(namespace: string, id: string, number: number): Promise<{ lint: unknown }> {
    return this.transaction(async (c) => {
      await this.lockTemplate(c, namespace, id);
      const { rows } = await c.query<{ lint: unknown }>(
        'SELECT lint FROM template_versions WHERE template_id = $1 AND number = $2',
        [id, number],
      );
      if (!rows[0])
        throw new TemplateNotFoundError(`Template ${id} has no version ${number}`, { version: number });
      await c.query('UPDATE templates SET current_version = $2 WHERE id = $1', [id, number]);
      return rows[0];
    });
  }

  async list(
    namespace: string,
    q: ListQuery,
  ): Promise<{ templates: TemplateSummary[]; next_cursor: string | null }> {
    let after: [string, string] | undefined;
    if (q.cursor) {
      try {
        after = JSON.parse(Buffer.from(q.cursor, 'base64url').toString('utf8')) as [string, string];
      } catch {
        after = undefined;
      }
    }
    const { rows } = await this.guard(() =>
      this.pool.query<Row>(
        `SELECT id, name, description, labels, current_version, created_at FROM templates
         WHERE namespace = $1 AND NOT deleted
           AND ($2::text IS NULL OR starts_with(name, $2))
           AND ($3::text IS NULL OR labels @> ARRAY[$3])
           AND ($4::text IS NULL OR (name, id) > ($4, $5::uuid))
         ORDER BY name, id LIMIT $6`,
        [
          namespace,
          q.namePrefix ?? null,
          q.label ?? null,
          after?.[0] ?? null,
          after?.[1] ?? null,
          q.limit + 1,
        ],
      ),
    );
    const page = rows.slice(0, q.limit);
    const last = page[page.length - 1];
    return {
      templates: page.map(summary),
      next_cursor:
        rows.length > q.limit && last
          ? Buffer.from(JSON.stringify([last.name, last.id])).toString('base64url')
          : null,
    };
  }

  async get(namespace: string, id: string): Promise<TemplateDetail> {
    if (!UUID.test(id)) throw new TemplateNotFoundError();
    return this.guard(async () => {
      const { rows } = await this.pool.query<Row & { sample_data: unknown }>(
        `SELECT id, name, description, labels, current_version, created_at, sample_data FROM templates
         WHERE id = $1 AND namespace = $2 AND NOT deleted`,
        [id, namespace],
      );
      if (!rows[0]) throw new TemplateNotFoundError();
      const versions = await this.pool.query<{
        number: number;
        digest: string;
        size: number;
        media_type: string;
        created_at: Date;
        created_by: string | null;
      }>(
        `SELECT v.number, v.digest, c.size, c.media_type, v.created_at, v.created_by FROM template_versions v
         JOIN template_contents c USING (digest) WHERE v.template_id = $1 ORDER BY v.number`,
        [id],
      );
      return {
        ...summary(rows[0]),
        sample_data: rows[0].sample_data,
        versions: versions.rows.map((v) => ({ ...v, created_at: v.created_at.toISOString() })),
      };
    });
  }

  /** A version's lint report and inspection, as stored at upload. */
  async versionReports(
    namespace: string,
    id: string,
    number: number,
  ): Promise<{ lint: unknown; inspection: unknown }> {
    const r = await this.versionRow(namespace, id, number, 'v.lint, v.inspection');
    return r as { lint: unknown; inspection: unknown };
  }

  async versionFile(
    namespace: string,
    id: string,
    number: number,
  ): Promise<{ bytes: Buffer; digest: string }> {
    const r = await this.versionRow(namespace, id, number, 'c.bytes, v.digest');
    return r as { bytes: Buffer; digest: string };
  }

  private async versionRow(namespace: string, id: string, number: number, columns: string): Promise<unknown> {
    if (!UUID.test(id) || !Number.isInteger(number)) throw new TemplateNotFoundError();
    const { rows } = await this.guard(() =>
      this.pool.query(
        `SELECT ${columns} FROM templates t JOIN template_versions v ON v.template_id = t.id
         JOIN template_contents c USING (digest)
         WHERE t.id = $1 AND t.namespace = $2 AND NOT t.deleted AND v.number = $3`,
        [id, namespace, number],
      ),
    );
    if (!rows[0])
      throw new TemplateNotFoundError(`No version ${number} of template ${id}`, { version: number });
    return rows[0];
  }

  async delete(namespace: string, id: string): Promise<void> {
    if (!UUID.test(id)) throw new TemplateNotFoundError();
    const { rowCount } = await this.guard(() =>
      this.pool.query(
        'UPDATE templates SET deleted = true WHERE id = $1 AND namespace = $2 AND NOT deleted',
        [id, namespace],
      ),
    );
    if (!rowCount) throw new TemplateNotFoundError();
  }

  /**
   * Which version a render by id uses: `version`, else the current one. Not found when the template
   * (or that version) is missing, deleted or foreign, or when no version is published yet.
   */
  async resolve(namespace: string, id: string, version?: number): Promise<ResolvedTemplate> {
    if (!UUID.test(id)) throw new TemplateNotFoundError();
    const { rows } = await this.guard(() =>
      this.pool.query<{
        number: number;
        digest: string;
        name: string;
        size: number;
        media_type: string;
        warnings: string[];
      }>(
        `SELECT v.number, v.digest, t.name, c.size, c.media_type, c.warnings FROM templates t
         JOIN template_versions v ON v.template_id = t.id JOIN template_contents c USING (digest)
         WHERE t.id = $1 AND t.namespace = $2 AND NOT t.deleted AND v.number = coalesce($3, t.current_version)`,
        [id, namespace, version ?? null],
      ),
    );
    if (!rows[0]) {
      throw new TemplateNotFoundError(
        version === undefined
          ? `Template ${id} not found, or no version of it is published`
          : `No version ${version} of template ${id}`,
        version === undefined ? {} : { version },
      );
    }
    const r = rows[0];
    return {
      templateId: id,
      name: r.name,
      version: r.number,
      digest: r.digest,
      size: r.size,
      mediaType: r.media_type,
      warnings: r.warnings,
    };
  }

  /** The bytes of a stored .docx by its digest (the worker, on a cache miss). */
  async content(digest: string): Promise<Buffer> {
    const { rows } = await this.guard(() =>
      this.pool.query<{ bytes: Buffer }>('SELECT bytes FROM template_contents WHERE digest = $1', [digest]),
    );
    // Content-addressed: bytes that do not hash to their digest are not handed to a render.
    if (!rows[0] || sha256Hex(rows[0].bytes) !== digest) {
      throw new TemplateNotFoundError('The template version is no longer stored', { digest });
    }
    return rows[0].bytes;
  }
}

interface Row {
  id: string;
  name: string;
  description: string;
  labels: string[];
  current_version: number | null;
  created_at: Date;
}

function summary(r: Row): TemplateSummary {
  return {
    template_id: r.id,
    name: r.name,
    description: r.description,
    labels: r.labels,
    current_version: r.current_version,
    created_at: r.created_at.toISOString(),
  };
}
