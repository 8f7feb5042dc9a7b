import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { ensureVectorIndex, vectorIndexName } from '../daemon/src/indexing/embedding-model.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

// The HNSW graph's build parameters decide recall at the daemon's ef_search (100). With m 16 and
// ef_construction 64 recall@10 at 100k bench chunks varied between builds of the same rows from
// 0.945 to 0.971 (parallel builds are not deterministic); ef_construction 128 measured 0.995
// (test/bench/search/hnsw-sweep.ts, text-index.md "Vectors").

async function indexDefinition(sql: Sql, dimension: number) {
  const [row] = await sql<{ options: string[] | null; def: string }[]>`
    select c.reloptions as options, pg_get_indexdef(c.oid) as def from pg_class c where c.relname = ${vectorIndexName(dimension)}`;
  return row;
}

describe('search: the per-dimension HNSW index', () => {
  let db: TestDatabase;
  let sql: Sql;
  before(async () => {
    db = await createTestDatabase('vector_index');
    sql = createSql(db.url, { max: 1 });
  });
  after(async () => {
    await sql?.end();
    await db?.drop();
  });

  it('is built with m 16 and ef_construction 128, once', async () => {
    await ensureVectorIndex(sql, 8);
    await ensureVectorIndex(sql, 8);
    const row = await indexDefinition(sql, 8);
    assert.ok(row, 'the index exists');
    assert.deepEqual([...(row.options ?? [])].sort(), ['ef_construction=128', 'm=16']);
    assert.match(row.def, /USING hnsw \(\(\(embedding\)::halfvec\(8\)\) halfvec_cosine_ops\)/);
  });

  it('refuses a dimension pgvector cannot index', async () => {
    await assert.rejects(ensureVectorIndex(sql, 0), /invalid dimension/);
    await assert.rejects(ensureVectorIndex(sql, 4001), /invalid dimension/);
    await assert.rejects(ensureVectorIndex(sql, 1.5), /invalid dimension/);
  });

  it('holds only vectors of its own dimension (a partial index: another model never enters the graph)', async () => {
    const row = await indexDefinition(sql, 8);
    assert.match(row!.def, /WHERE \(vector_dims\(embedding\) = 8\)/);
  });
});
