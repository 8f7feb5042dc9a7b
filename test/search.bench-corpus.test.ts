// The search benchmark writes its corpus straight into the tables (test/bench/search/corpus.ts).
// Its figures stand for docsift's only if those tables are the ones the pipeline builds: chunks
// by the pipeline's own writer, BM25 lists by the triggers and the worker's fold, or with
// --index-by reindex by `docsift-daemon reindex` alone. This loads the same corpus both ways and
// checks that each index is exact and that, once reindexed, the two databases hold the same rows.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { reindexText } from '../daemon/src/indexing/reindex.js';
import { CorpusLoader, createTenant, finishLoad, planDocuments, type IndexBy } from './bench/search/corpus.js';
import { createMixture } from './bench/search/vectors.js';
import { assertIndexExact, DEFAULT_PAIR } from './helpers/bm25.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

const CHUNKS = 1500;
// What the bench's reindex path orders for: the settings' defaults.
const PARAMS = DEFAULT_PAIR;

async function snapshot(sql: Sql) {
  const blocks = await sql`
    select coll, lexeme, kind, max_impact, df, postings::text from text_blocks order by coll, lexeme, kind, max_impact desc, postings`;
  const stats = await sql`
    select c.no, s.n_chunks, s.total_len from collection_text_stats s join collections c on c.id = s.collection_id order by c.no`;
  const chunks = await sql`select no, chunk_index, content, tsv::text, embedding::text from chunks order by no`;
  const order = await sql`select value from instance_settings where key = 'bm25_index'`;
  return { blocks, stats, chunks, order };
}

describe('search benchmark corpus: the tables the pipeline builds', () => {
  const dbs: TestDatabase[] = [];
  const sqls: Sql[] = [];
  after(async () => {
    for (const s of sqls) await s.end();
    for (const d of dbs) await d.drop();
  });

  async function load(indexBy: IndexBy): Promise<Sql> {
    const db = await createTestDatabase(`bench_corpus_${indexBy}`);
    dbs.push(db);
    const sql = createSql(db.url, { max: 2 });
    sqls.push(sql);
    const tenant = await createTenant(sql, CHUNKS);
    // One insert connection: chunk numbers follow the plan, so the two databases can be compared row by row.
    await new CorpusLoader(sql).load({
      tenant,
      docs: planDocuments(CHUNKS),
      mixture: createMixture(),
      model: 'bench-512',
      workers: 1,
      batchChunks: 200,
      foldEvery: 500,
      indexBy,
    });
    await finishLoad(sql, 'bench-512', { indexBy, hnswMemory: '64MB' });
    return sql;
  }

  let folded: Sql;
  let rebuilt: Sql;
  before(async () => {
    folded = await load('folds');
    rebuilt = await load('reindex');
  });

  it('folds (the triggers and the worker job) leave an exact index', async () => {
    await assertIndexExact(folded);
    const [n] = await folded<{ n: number }[]>`select count(*)::int as n from chunks`;
    assert.equal(n!.n, CHUNKS);
  });

  it('the reindex path leaves an exact index, equal row for row to the pipeline followed by a reindex', async () => {
    await assertIndexExact(rebuilt);
    await reindexText(folded, PARAMS);
    const [a, b] = [await snapshot(folded), await snapshot(rebuilt)];
    assert.ok(a.blocks.length > 1000, `${a.blocks.length} blocks`);
    assert.deepEqual(b.chunks, a.chunks);
    assert.deepEqual(b.stats, a.stats);
    assert.deepEqual(b.order, a.order);
    assert.deepEqual(b.blocks, a.blocks);
  });
});
