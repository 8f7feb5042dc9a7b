// Breaking migrations: a file whose first line is `--! breaking-change` (or a number in migrate.ts's
// table of files applied before the marker existed) is recorded as breaking. A daemon refuses to
// start on a database holding a breaking migration it does not know (a newer docsift applied it),
// and a running one that sees such a migration appear exits, saying why, with status 3. A
// non-breaking unknown migration only warns, as before.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { BREAKING_BEFORE_MARKER, listMigrations, migrate, SchemaTooNewError } from '../daemon/src/db/migrate.js';
import { spawnDaemon } from './helpers/daemon-process.js';
import { migrationDirs } from './helpers/migration-dirs.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

const A = { '001_a.sql': 'create table brk_a (id int);' };
const B = { '002_b.sql': '--! breaking-change\n-- drops what the previous version reads\ncreate table brk_b (id int);' };
const C = { '003_c.sql': 'create table brk_c (id int);' };

describe('breaking migrations in migrate()', () => {
  let db: TestDatabase;
  let sql: Sql;
  const { dir, removeAll } = migrationDirs();
  before(async () => {
    db = await createTestDatabase('migbreak', { empty: true });
    sql = createSql(db.url, { max: 2 });
  });
  after(async () => {
    await sql?.end();
    await db?.drop();
    await removeAll();
  });

  it('reads the marker from the first line of a file', async () => {
    const files = await listMigrations(await dir({ ...A, ...B, ...C }));
    assert.deepEqual(
      files.map((m) => [m.version, m.breaking]),
      [
        [1, false],
        [2, true],
        [3, false],
      ],
    );
  });

  it('marks 118, which drops documents.content_text, as breaking without editing the file', async () => {
    assert.ok(BREAKING_BEFORE_MARKER.has(118));
    const m = (await listMigrations()).find((x) => x.version === 118)!;
    assert.equal(m.breaking, true);
  });

  it('records which applied migrations are breaking', async () => {
    await migrate(sql, () => {}, { dir: await dir({ ...A, ...B }) });
    const rows = await sql<{ version: number; breaking: boolean }[]>`select version, breaking from schema_migrations order by version`;
    assert.deepEqual(
      rows.map((r) => [r.version, r.breaking]),
      [
        [1, false],
        [2, true],
      ],
    );
  });

  it('marks a breaking migration applied by a docsift that did not record the flag', async () => {
    await sql`alter table schema_migrations drop column breaking`;
    await migrate(sql, () => {}, { dir: await dir({ ...A, ...B }) });
    const rows = await sql<{ version: number; breaking: boolean }[]>`select version, breaking from schema_migrations order by version`;
    assert.deepEqual(
      rows.map((r) => [r.version, r.breaking]),
      [
        [1, false],
        [2, true],
      ],
    );
  });

  it('refuses a database with a breaking migration this code does not know, naming it', async () => {
    await migrate(sql, () => {}, { dir: await dir({ ...A, ...B, ...C }) });
    await assert.rejects(
      migrate(sql, () => {}, { dir: await dir({ ...A }) }),
      (err: Error) => {
        assert.ok(err instanceof SchemaTooNewError, String(err));
        assert.match(err.message, /002_b/);
        assert.match(err.message, /newer docsift/);
        assert.match(err.message, /upgrade/i);
        return true;
      },
    );
  });

  it('only warns about an unknown migration that is not breaking', async () => {
    const warnings: string[] = [];
    const applied = await migrate(sql, () => {}, { dir: await dir({ ...A, ...B }), warn: (m) => warnings.push(m) });
    assert.deepEqual(applied, []);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /003_c/);
  });
});

describe('a daemon and a newer breaking schema', () => {
  let db: TestDatabase;
  let sql: Sql;
  let highest: number;
  const env = () => ({
    DATABASE_URL: db.url,
    SIGNING_SECRET: 'test-signing-secret-0123456789abcdef0123456789abcdef',
    PORT: '0',
    DATA_DIR: path.join(os.tmpdir(), `docsift-brk-${process.pid}`),
    SCHEMA_WATCH_MS: '200',
    RATE_LIMITS_ENABLED: 'false',
    EMBEDDING_PROVIDER: 'ollama',
    OLLAMA_HOST: 'http://127.0.0.1:9',
  });
  before(async () => {
    db = await createTestDatabase('migbreak_daemon');
    sql = createSql(db.url, { max: 2 });
    highest = Math.max(...(await listMigrations()).map((m) => m.version));
  });
  after(async () => {
    await sql?.end();
    await db?.drop();
    await rm(env().DATA_DIR, { recursive: true, force: true });
  });

  it('a running daemon exits with status 3 when a breaking migration newer than itself appears', async () => {
    const p = await spawnDaemon(['serve'], env());
    try {
      await sql`insert into schema_migrations (version, name, breaking) values (${highest + 1}, 'future_breaking', true)`;
      const line = await p.waitForLog((l) => /newer docsift/.test(l.msg), 30_000, 'the incompatible-schema message');
      assert.match(line.msg, new RegExp(`${highest + 1}_future_breaking`));
      await p.stop();
      assert.equal(p.exited()?.code, 3, p.text.join('\n'));
    } finally {
      await p.kill9();
    }
  });

  it('refuses to start, with status 3 and the reason', async () => {
    await assert.rejects(spawnDaemon(['serve'], env()), (err: Error) => {
      assert.match(err.message, /"code":3/);
      assert.match(err.message, new RegExp(`${highest + 1}_future_breaking`));
      assert.match(err.message, /newer docsift/);
      return true;
    });
  });

  it('a worker refuses to start too', async () => {
    await assert.rejects(spawnDaemon(['worker'], env()), /"code":3/);
  });
});
