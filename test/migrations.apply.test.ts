// Schema migrations on a fresh, empty database: apply once, idempotent re-run, concurrent starts,
// and /readyz reporting pending migrations.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { appliedVersions, listMigrations, migrate, migrationsCurrent } from '../daemon/src/db/migrate.js';
import { createLogger } from '../daemon/src/logger.js';
import { migrateWorkerSchema } from '../daemon/src/worker/runner.js';
import { http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

const created: TestDatabase[] = [];

/** A database created from scratch (not from the migrated template), dropped after the file. */
async function createEmptyDatabase(label: string): Promise<TestDatabase> {
  const db = await createTestDatabase(label, { empty: true });
  created.push(db);
  return db;
}

async function advisoryLocksHeld(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
     where l.locktype = 'advisory' and d.datname = current_database()`;
  return row!.n;
}

after(async () => {
  for (const db of created) await db.drop();
});

describe('migrate() on an empty database', () => {
  let db: TestDatabase;
  let sql: Sql;
  let versions: number[];
  before(async () => {
    db = await createEmptyDatabase('mig');
    sql = createSql(db.url, { max: 2 });
    versions = (await listMigrations()).map((m) => m.version);
  });
  after(async () => sql?.end());

  it('finds migration files in order, with unique versions', () => {
    assert.ok(versions.length >= 1);
    assert.deepEqual(
      versions,
      [...versions].sort((a, b) => a - b),
    );
    assert.equal(new Set(versions).size, versions.length);
  });

  it('reports everything pending before the first run', async () => {
    assert.equal((await appliedVersions(sql)).size, 0);
    assert.equal(await migrationsCurrent(sql), false);
  });

  it('applies every migration on the first run', async () => {
    const logged: string[] = [];
    const applied = await migrate(sql, (m) => logged.push(m));
    assert.deepEqual(applied, versions);
    assert.equal(logged.length, versions.length);
    assert.equal(await migrationsCurrent(sql), true);
    const rows = await sql<{ version: number; name: string }[]>`select version, name from schema_migrations order by version`;
    assert.deepEqual(
      rows.map((r) => r.version),
      versions,
    );
    const [tables] = await sql<{ users: string | null; keys: string | null }[]>`
      select to_regclass('public.users')::text as users, to_regclass('public.api_keys')::text as keys`;
    assert.ok(tables?.users && tables.keys, 'account tables exist');
    assert.equal(await advisoryLocksHeld(sql), 0, 'the migration lock is released');
  });

  it('applies nothing on a second run', async () => {
    assert.deepEqual(await migrate(sql), []);
    const [row] = await sql<{ n: number }[]>`select count(*)::int as n from schema_migrations`;
    assert.equal(row!.n, versions.length);
  });
});

describe('concurrent first starts', () => {
  it('two migrate() calls on separate pools both succeed and apply each migration once', async () => {
    const db = await createEmptyDatabase('migrace');
    const pools = [createSql(db.url, { max: 2 }), createSql(db.url, { max: 2 })];
    try {
      const versions = (await listMigrations()).map((m) => m.version);
      const results = await Promise.all(pools.map((p) => migrate(p)));
      assert.deepEqual(
        results.flat().sort((a, b) => a - b),
        versions,
        `applied: ${JSON.stringify(results)}`,
      );
      const rows = await pools[0]!<{ version: number }[]>`select version from schema_migrations order by version`;
      assert.deepEqual(
        rows.map((r) => r.version),
        versions,
      );
      for (const p of pools) assert.equal(await migrationsCurrent(p), true);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  // Every daemon process runs migrate() and then the job queue's own schema migration at start.
  // A lost race shows only now and then, so a few rounds of three at once.
  it('worker-schema migrations started at once all succeed', async () => {
    const logger = createLogger('silent');
    for (let round = 0; round < 3; round++) {
      const db = await createEmptyDatabase('wrkrace');
      const results = await Promise.allSettled([1, 2, 3].map(() => migrateWorkerSchema(db.url, logger)));
      const failures = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
      assert.deepEqual(failures, [], `round ${round}`);
      const sql = createSql(db.url, { max: 1 });
      try {
        const [row] = await sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.migrations`;
        assert.ok(row!.n > 0);
      } finally {
        await sql.end();
      }
    }
  });
});

describe('/readyz and migrations', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ label: 'readyz' });
  });
  after(async () => d?.close());

  it('is ready when every migration is applied', async () => {
    const r = await http(d.url)('GET', '/readyz');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { status: 'ready' });
  });

  it('answers 503 migrations_pending when an applied row is missing, and recovers', async () => {
    const [last] = await d.deps.sql<{ version: number; name: string }[]>`
      delete from schema_migrations where version = (select max(version) from schema_migrations) returning version, name`;
    assert.ok(last);
    const pending = await http(d.url)('GET', '/readyz');
    assert.equal(pending.status, 503);
    assert.deepEqual(pending.body, { status: 'migrations_pending' });
    // /healthz is liveness only and must not depend on the schema.
    assert.equal((await http(d.url)('GET', '/healthz')).status, 200);
    await d.deps.sql`insert into schema_migrations (version, name) values (${last.version}, ${last.name})`;
    assert.equal((await http(d.url)('GET', '/readyz')).status, 200);
  });
});

describe('/readyz without a database', () => {
  it('is 503 database_unreachable once the database is gone, while /healthz stays 200', async () => {
    const d = await startTestDaemon({ label: 'gone' });
    try {
      const req = http(d.url);
      assert.equal((await req('GET', '/readyz')).status, 200);
      await d.db.drop();
      const gone = await req('GET', '/readyz');
      assert.equal(gone.status, 503);
      assert.deepEqual(gone.body, { status: 'database_unreachable' });
      assert.equal((await req('GET', '/healthz')).status, 200);
    } finally {
      await d.close();
    }
  });
});
