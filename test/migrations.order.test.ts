// migrate() and the order of migration files: a file numbered below the highest applied one (a
// branch merged with a stale number) is refused before anything runs, and a database that has
// migrations this code does not know (a newer daemon migrated it) is reported as a warning.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { migrate } from '../daemon/src/db/migrate.js';
import { migrationDirs } from './helpers/migration-dirs.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

const A = { '001_a.sql': 'create table mig_a (id int);' };
const C = { '003_c.sql': 'create table mig_c (id int);' };
const B = { '002_b.sql': 'create table mig_b (id int);' };

describe('migrate() and the order of migration files', () => {
  let db: TestDatabase;
  let sql: Sql;
  const { dir, removeAll } = migrationDirs();
  before(async () => {
    db = await createTestDatabase('migorder', { empty: true });
    sql = createSql(db.url, { max: 2 });
  });
  after(async () => {
    await sql?.end();
    await db?.drop();
    await removeAll();
  });

  it('applies files in number order, with gaps in the numbering', async () => {
    assert.deepEqual(await migrate(sql, () => {}, { dir: await dir({ ...A, ...C }) }), [1, 3]);
  });

  it('refuses an unapplied file numbered below the highest applied one, before running anything', async () => {
    const d = await dir({ ...A, ...B, ...C, '004_d.sql': 'create table mig_d (id int);' });
    await assert.rejects(
      migrate(sql, () => {}, { dir: d }),
      (err: Error) => {
        assert.match(err.message, /002_b/);
        assert.match(err.message, /003/);
        return true;
      },
    );
    const [t] = await sql<{ b: string | null; d: string | null }[]>`
      select to_regclass('public.mig_b')::text as b, to_regclass('public.mig_d')::text as d`;
    assert.equal(t!.b, null, 'the stale file did not run');
    assert.equal(t!.d, null, 'nothing after it ran either');
    const rows = await sql<{ version: number }[]>`select version from schema_migrations order by version`;
    assert.deepEqual(
      rows.map((r) => r.version),
      [1, 3],
    );
  });

  it('warns, and applies nothing, when the database has migrations the code does not know', async () => {
    const warnings: string[] = [];
    const applied = await migrate(sql, () => {}, { dir: await dir({ ...A }), warn: (m) => warnings.push(m) });
    assert.deepEqual(applied, []);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /003_c/);
  });

  it('says nothing when the code knows every applied migration', async () => {
    const warnings: string[] = [];
    await migrate(sql, () => {}, { dir: await dir({ ...A, ...C }), warn: (m) => warnings.push(m) });
    assert.deepEqual(warnings, []);
  });
});
