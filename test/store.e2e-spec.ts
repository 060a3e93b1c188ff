/**
 * libs/store against a real PostgreSQL (test/support/postgres.ts): migrations from an empty
 * database and from the previous schema, and a version written in one transaction even when
 * PostgreSQL is SIGKILLed during the upload.
 */
import { Client } from 'pg';
import { MIGRATIONS, TemplateStore, migrate, newApiKey } from '@app/store';
import { startPostgres, type RunningPostgres } from './support/postgres';

jest.setTimeout(60_000);

let pg: RunningPostgres;
beforeAll(async () => {
  pg = await startPostgres();
});
afterAll(async () => {
  await pg?.stop();
});

async function withDatabase<T>(name: string, work: (url: string) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: pg.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return work(pg.url.replace(/\/postgres$/, `/${name}`));
}

function storeAt(url: string): TemplateStore {
  return new TemplateStore({ url, poolSize: 3, timeoutMs: 3_000 }, 1);
}

const report = { errors: [], warnings: [] };
const DOCX_MEDIA = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
/** What the API tells the store of a Word file: its media type and nothing its fill drops. */
const word = { mediaType: DOCX_MEDIA, warnings: [] };

test('migrations run from an empty database, and again as a no-op', async () => {
  await withDatabase('fresh', async (url) => {
    const store = storeAt(url);
    expect(await store.migrate()).toEqual(MIGRATIONS.map((m) => m.name));
    expect(await store.migrate()).toEqual([]);
    const created = await store.createTemplate('ns', {
      name: 'invoice',
      labels: ['billing'],
      file: Buffer.from('docx'),
      lint: report,
      ...word,
      inspection: {},
      createdBy: null,
      publish: true,
    });
    expect(created.version.number).toBe(1);
    await store.close();
  });
});

test('two processes migrating at once both succeed (the advisory lock)', async () => {
  await withDatabase('racing', async (url) => {
    const [a, b] = [storeAt(url), storeAt(url)];
    const ran = await Promise.all([a.migrate(), b.migrate()]);
    expect(ran.flat().sort()).toEqual(MIGRATIONS.map((m) => m.name));
    await Promise.all([a.close(), b.close()]);
  });
});

test('migrating from the first schema to the latest keeps the data; files stored before are Word documents', async () => {
  await withDatabase('previous', async (url) => {
    const store = storeAt(url);
    expect(await migrate(store.pool, MIGRATIONS[0].name)).toEqual([MIGRATIONS[0].name]);
    // Rows as the first schema wrote them.
    await store.pool.query(
      `INSERT INTO api_keys (id, namespace, hash, scopes) VALUES ('00000000-0000-4000-8000-000000000001', 'ns', '\\x00', '{render}')`,
    );
    await store.pool.query(
      `INSERT INTO templates (id, namespace, name, current_version) VALUES ('00000000-0000-4000-8000-000000000002', 'ns', 'old', 1)`,
    );
    await store.pool.query(
      `INSERT INTO template_contents (digest, size, bytes) VALUES ('d1', 3, '\\x010203')`,
    );
    await store.pool.query(
      `INSERT INTO template_versions (template_id, number, digest, lint, inspection, created_by)
       VALUES ('00000000-0000-4000-8000-000000000002', 1, 'd1', '{}', '{}', '00000000-0000-4000-8000-000000000001')`,
    );
    expect(await store.migrate()).toEqual(MIGRATIONS.slice(1).map((m) => m.name));
    const detail = await store.get('ns', '00000000-0000-4000-8000-000000000002');
    expect(detail).toMatchObject({ name: 'old', description: '', labels: [], current_version: 1 });
    expect(detail.versions).toEqual([
      expect.objectContaining({
        number: 1,
        digest: 'd1',
        size: 3,
        media_type: DOCX_MEDIA,
        created_by: '00000000-0000-4000-8000-000000000001',
      }),
    ]);
    // The store took only Word files before formats were recorded: one with nothing to drop.
    expect(await store.resolve('ns', detail.template_id)).toMatchObject({
      mediaType: DOCX_MEDIA,
      warnings: [],
    });
    expect((await store.versionFile('ns', detail.template_id, 1)).bytes).toEqual(Buffer.from([1, 2, 3]));
    await store.close();
  });
});

test('PostgreSQL SIGKILLed during an upload: no half-written version, and the store recovers', async () => {
  await withDatabase('crash', async (url) => {
    const store = storeAt(url);
    await store.migrate();
    const key = await store.createKey(newApiKey(), 'ns', ['templates:write']);
    const { template_id } = await store.createTemplate('ns', {
      name: 'big',
      file: Buffer.from('v1'),
      lint: report,
      ...word,
      inspection: {},
      createdBy: key.id,
      publish: true,
    });
    // A 24 MiB version takes PostgreSQL long enough to be killed in the middle of its write.
    const big = Buffer.alloc(24 * 1024 * 1024, 7);
    const upload = store
      .addVersion('ns', template_id, {
        file: big,
        lint: report,
        ...word,
        inspection: {},
        createdBy: key.id,
        publish: true,
      })
      .then(
        () => 'committed',
        (e: Error) => e.constructor.name,
      );
    await new Promise((r) => setTimeout(r, 150));
    await pg.kill9();
    const outcome = await upload;
    await pg.restart();
    const after = await store.get('ns', template_id);
    if (outcome === 'committed') {
      // Too fast for the kill: then the version must be whole.
      expect(after.versions.map((v) => v.number)).toEqual([1, 2]);
      expect((await store.versionFile('ns', template_id, 2)).bytes.equals(big)).toBe(true);
    } else {
      expect(outcome).toBe('ServiceUnavailableError');
      expect(after.versions.map((v) => v.number)).toEqual([1]);
      expect(after.current_version).toBe(1);
      const { rows } = await store.pool.query('SELECT count(*)::int AS n FROM template_contents');
      expect(rows[0].n).toBe(1);
    }
    // And it takes uploads again.
    const next = await store.addVersion('ns', template_id, {
      file: Buffer.from('v-next'),
      lint: report,
      ...word,
      inspection: {},
      createdBy: key.id,
      publish: false,
    });
    expect(next.number).toBe(after.versions.length + 1);
    await store.close();
  });
});
