import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { createSql, withSearchSettings, type Sql } from '../daemon/src/db/client.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

// PostgreSQL compiles a statement with LLVM when its estimated cost passes jit_above_cost (100,000),
// and the estimate counts branches that never run. At 1M chunks the vector search's exact branch
// (skipped by a one-time filter) crossed it, and every search paid 20-40 ms of compilation for 2-3 ms
// of HNSW walk (docs/performance.md, "JIT at a million chunks"). The daemon's statements are short, so
// its connections run without JIT.

/** Whether the server JIT-compiled a statement whose plan has a costly branch that never runs. */
async function compiles(sql: postgres.Sql | Sql): Promise<boolean> {
  const rows = await sql.unsafe(`
    explain (analyze, format json)
    select count(*) from generate_series(1, 10) g
     where (select false) and g in (select x from generate_series(1, 10000000) x)`);
  const plan = (rows[0] as unknown as { 'QUERY PLAN': [{ JIT?: unknown }] })['QUERY PLAN'][0];
  return plan.JIT !== undefined;
}

describe('search: the daemon runs its statements without JIT compilation', () => {
  let db: TestDatabase;
  let sql: Sql;
  before(async () => {
    db = await createTestDatabase('search_jit');
    // A server configured to compile everything it can (what jit_above_cost does to a big corpus).
    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`alter database "${db.name}" set jit = on`);
    await admin.unsafe(`alter database "${db.name}" set jit_above_cost = 0`);
    await admin.end();
    sql = createSql(db.url, { max: 2 });
  });
  after(async () => {
    await sql?.end();
    await db?.drop();
  });

  it('a plain connection to this server compiles the statement (the check can fail)', async () => {
    const plain = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await plain<{ available: boolean }[]>`select pg_jit_available() as available`;
      assert.equal(row?.available, true, 'this PostgreSQL has JIT support (llvmjit)');
      assert.equal(await compiles(plain), true);
    } finally {
      await plain.end();
    }
  });

  it('the daemon’s connections do not', async () => {
    assert.equal(await compiles(sql), false);
    assert.equal(await withSearchSettings(sql, (tx) => compiles(tx as Sql)), false);
  });
});
