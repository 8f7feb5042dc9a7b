// Upgrading a database written by the previous schema (migrations up to 014: one row per posting
// in chunk_postings, term_stats with deltas, fp32 vectors and a vector HNSW index) to the compact
// index (020: text_blocks; 021: halfvec), in place, and searching it through the API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toSql } from 'pgvector';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { migrate } from '../daemon/src/db/migrate.js';
import { fakeEmbedding, startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { generateApiKey } from '../daemon/src/auth/keys.js';
import { createLogger } from '../daemon/src/logger.js';
import { migrateWorkerSchema } from '../daemon/src/worker/runner.js';
import { exhaustiveBm25 } from './helpers/bm25.js';
import { http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

const DIM = 16;
const MODEL = 'nomic-embed-text';
const WORDS = ['cell', 'protein', 'gene', 'tumor', 'immune', 'virus', 'brain', 'heart', 'blood', 'liver', 'enzyme', 'receptor'];

function text(i: number): string {
  const words = ['study'];
  let x = (i * 2654435761) >>> 0;
  for (let j = 0; j < 4 + (i % 7); j++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(WORDS[Math.floor(WORDS.length * (x / 2 ** 32) ** 2)]!);
  }
  if (i % 9 === 4) words.push('telomerase');
  return words.join(' ');
}

interface OldTenant {
  key: string;
  collections: string[];
}

/** An organization, user, full-access key and collections, as the old schema stored them. */
async function oldTenant(sql: Sql, label: string, collections: number): Promise<OldTenant> {
  const [org] = await sql<{ id: string }[]>`insert into organizations (name) values (${label}) returning id`;
  const [user] = await sql<{ id: string }[]>`
    insert into users (organization_id, email, role) values (${org!.id}, ${`${label}@example.test`}, 'owner') returning id`;
  const k = generateApiKey();
  await sql`insert into api_keys (user_id, name, prefix, key_hash, is_full_access) values (${user!.id}, 'k', ${k.prefix}, ${k.hash}, true)`;
  const ids: string[] = [];
  for (let i = 0; i < collections; i++) {
    const [c] = await sql<{ id: string }[]>`
      insert into collections (owner_id, organization_id, name, slug) values (${user!.id}, ${org!.id}, ${`${label} ${i}`}, ${`${label}-${i}`})
      returning id`;
    ids.push(c!.id);
  }
  return { key: k.key, collections: ids };
}

/** Documents of one chunk each, written as the old ingestion job wrote them (fp32 vectors). */
async function oldDocuments(sql: Sql, collectionId: string, from: number, count: number): Promise<string[]> {
  const docIds: string[] = [];
  for (let i = from; i < from + count; i++) {
    await sql.begin(async (tx) => {
      const [doc] = await tx<{ id: string }[]>`
        insert into documents (collection_id, title, source_type, status, chunks_count, indexed_at)
        values (${collectionId}, ${`Doc ${i}`}, 'text', 'indexed', 1, now()) returning id`;
      await tx`
        insert into chunks (document_id, collection_id, generation, chunk_index, content, token_count, embedding, embedding_model, tsv)
        values (${doc!.id}, ${collectionId}, 1, 0, ${text(i)}, 10, ${toSql(fakeEmbedding(text(i), DIM))}::vector, ${MODEL},
                to_tsvector('english', ${`Doc ${i}`} || ' ' || ${text(i)}))`;
      docIds.push(doc!.id);
    });
  }
  return docIds;
}

describe('upgrading a database built by the previous schema', () => {
  let db: TestDatabase;
  let sql: Sql;
  let ollama: FakeOllama;
  let d: TestDaemon;
  let a: OldTenant;
  let b: OldTenant;

  before(async () => {
    db = await createTestDatabase('upgrade', { empty: true });
    sql = createSql(db.url, { max: 2 });
    const applied = await migrate(sql, () => {}, { upTo: 14 });
    assert.equal(applied.at(-1), 14);
    await sql`insert into instance_settings (key, value) values ('embedding_model', ${sql.json({ model: MODEL, dimension: DIM })})`;
    // The old ingestion job created this index on first use (search/embedding-model.ts before 021).
    await sql.unsafe(
      `create index chunks_embedding_hnsw_${DIM} on chunks using hnsw ((embedding::vector(${DIM})) vector_cosine_ops) where vector_dims(embedding) = ${DIM}`,
    );
    a = await oldTenant(sql, 'upa', 2);
    b = await oldTenant(sql, 'upb', 1);
    await oldDocuments(sql, a.collections[0]!, 0, 40);
    await sql`select fold_text_stats()`; // statistics split between folded rows and deltas
    await oldDocuments(sql, a.collections[1]!, 40, 25);
    const gone = await oldDocuments(sql, b.collections[0]!, 65, 20);
    await sql`delete from chunks where document_id = ${gone[0]!}`; // negative deltas, never folded
    await sql`update documents set deleted_at = now() where id = ${gone[0]!}`;
    const [old] = await sql<{ postings: number; deltas: number }[]>`
      select (select count(*) from chunk_postings)::int as postings, (select count(*) from term_stats_delta)::int as deltas`;
    assert.ok(old!.postings > 300 && old!.deltas > 0, 'the old index holds postings and unfolded deltas');

    await migrate(sql);
    await migrateWorkerSchema(db.url, createLogger('silent'));
    ollama = await startFakeOllama({ dimension: DIM });
    d = await startTestDaemon({ db, env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: MODEL } });
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
    await sql?.end();
    await db?.drop();
  });

  it('replaces the per-posting tables with blocks whose frequencies match a recount from the chunks', async () => {
    const [gone] = await sql<{ t: string | null }[]>`
      select coalesce(to_regclass('chunk_postings')::text, to_regclass('term_stats')::text, to_regclass('term_stats_delta')::text) as t`;
    assert.equal(gone!.t, null);
    const held = await sql<{ coll: string; lexeme: string; df: number }[]>`
      select c.id as coll, b.lexeme, sum(b.df)::int as df from text_lists b join collections c on c.no = b.coll group by 1, 2 order by 1, 2`;
    const recount = await sql<{ coll: string; lexeme: string; df: number }[]>`
      select k.collection_id as coll, x.lexeme, count(*)::int as df from chunks k, unnest(k.tsv) x group by 1, 2 order by 1, 2`;
    assert.deepEqual(
      held.map((r) => ({ ...r })),
      recount.map((r) => ({ ...r })),
    );
    const [stats] = await sql<{ bad: number }[]>`
      select count(*)::int as bad from (
        select collection_id, sum(n_chunks) as n from (
          select collection_id, n_chunks from collection_text_stats union all select collection_id, n_chunks from collection_text_stats_delta) s
        group by 1) s
      full join (select collection_id, count(*) as n from chunks group by 1) k using (collection_id)
      where s.n is distinct from k.n`;
    assert.equal(stats!.bad, 0, 'chunk counts per collection are exact, the stale deltas gone');
  });

  it('converts vectors to halfvec and rebuilds the HNSW index for them', async () => {
    const [col] = await sql<{ t: string }[]>`
      select format_type(atttypid, atttypmod) as t from pg_attribute where attrelid = 'chunks'::regclass and attname = 'embedding'`;
    assert.equal(col!.t, 'halfvec');
    const [idx] = await sql<{ def: string }[]>`select pg_get_indexdef(${`chunks_embedding_hnsw_${DIM}`}::regclass) as def`;
    assert.match(idx!.def, /hnsw .*halfvec\(16\).*halfvec_cosine_ops/);
  });

  it('answers text searches with exact BM25 scores over the upgraded index', async () => {
    const req = http(d.url);
    for (const query of ['telomerase protein', 'gene receptor study', 'immune cell']) {
      const r = await req('POST', '/api/v1/search/', { key: a.key, json: { query, mode: 'text', limit: 10, explain: true } });
      assert.equal(r.status, 200, r.text);
      const want = await exhaustiveBm25(sql, a.collections, query);
      assert.equal(r.body.results.length, Math.min(10, want.length));
      const got: number[] = r.body.results.map((h: { explain: { text: { score: number } } }) => h.explain.text.score);
      for (const [i, w] of want.slice(0, 10).entries())
        assert.ok(Math.abs(w.score - got[i]!) < 1e-6, `${query} #${i + 1}: ${got[i]} vs ${w.score}`);
    }
  });

  it('finds a chunk by its own text through the converted vectors, and hybrid search works', async () => {
    const req = http(d.url);
    const content = text(7);
    const r = await req('POST', '/api/v1/search/', { key: a.key, json: { query: content, mode: 'vector', limit: 3, explain: true } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.results[0].content, content);
    assert.ok(r.body.results[0].explain.vector.score > 0.99);
    const h = await req('POST', '/api/v1/search/', { key: a.key, json: { query: 'telomerase', mode: 'hybrid', limit: 5 } });
    assert.equal(h.status, 200, h.text);
    assert.ok(h.body.results.length > 0);
  });

  it('keeps tenants apart, and a document deleted before the upgrade stays out of the index', async () => {
    const req = http(d.url);
    const foreign = new Set(
      (await sql<{ id: string }[]>`select id from chunks where collection_id = ${b.collections[0]!}`).map((r) => r.id),
    );
    for (const mode of ['text', 'hybrid', 'vector']) {
      const r = await req('POST', '/api/v1/search/', { key: a.key, json: { query: 'telomerase study cell', mode, limit: 50 } });
      assert.equal(r.status, 200, r.text);
      assert.ok(r.body.results.length > 0);
      for (const hit of r.body.results) assert.ok(!foreign.has(hit.chunk_id), `${mode}: no chunk of the other tenant`);
    }
    const rb = await req('POST', '/api/v1/search/', { key: b.key, json: { query: text(65), mode: 'text', limit: 50 } });
    assert.equal(rb.status, 200);
    assert.ok(rb.body.results.every((h: { title: string }) => h.title !== 'Doc 65'));
    assert.ok(rb.body.results.every((h: { chunk_id: string }) => foreign.has(h.chunk_id)));
  });
});
