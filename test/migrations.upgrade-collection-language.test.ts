// Upgrading to a language per collection (migration 117): collections that predate it keep the
// index they were built with (english, TEXT_SEARCH_CONFIG's default), answer the same text
// searches as before, show `language: english`, and can switch language afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toSql } from 'pgvector';
import { reindexCollectionLanguage } from '../daemon/src/collections/language.js';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { listMigrations, migrate } from '../daemon/src/db/migrate.js';
import { createLogger } from '../daemon/src/logger.js';
import { migrateWorkerSchema } from '../daemon/src/worker/runner.js';
import { fakeEmbedding, startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { insertTenant } from './helpers/old-schema.js';

const DIM = 16;
const MODEL = 'nomic-embed-text';
const TEXTS = [
  'Running horses gallop across the meadows at dawn.',
  'The horse runs; a rider follows the running herd.',
  'Les chevaux galopent dans la prairie.',
  'Stock markets fell sharply amid inflation fears.',
];
// Each query with its exhaustive meaning (plain words are OR-ed; phrases and negations filter).
const QUERIES: Record<string, string> = {
  running: 'running',
  horses: 'horses',
  'runs gallop': 'runs or gallop',
  chevaux: 'chevaux',
  'markets -inflation': 'markets -inflation',
  '"running horses"': '"running horses"',
};

describe('upgrading to a language per collection (migration 117)', () => {
  let db: TestDatabase;
  let sql: Sql;
  let ollama: FakeOllama;
  let d: TestDaemon;
  let key: string;
  let otherKey: string;
  let collection: string;
  const oracle: Record<string, string[]> = {};

  before(async () => {
    const version = (await listMigrations()).find((m) => m.name === 'collection_language')!.version;
    db = await createTestDatabase('upgrade_lang', { empty: true });
    sql = createSql(db.url, { max: 2 });
    await migrate(sql, () => {}, { upTo: version - 1 });
    await sql`insert into instance_settings (key, value) values ('embedding_model', ${sql.json({ model: MODEL, dimension: DIM })})`;
    const tenant = (label: string) => insertTenant(sql, label);
    const owner = await tenant('upl-owner');
    const other = await tenant('upl-other');
    key = owner.key;
    otherKey = other.key;
    collection = owner.collection;
    for (const [i, text] of TEXTS.entries())
      for (const c of [owner.collection, other.collection]) {
        const [doc] = await sql<{ id: string }[]>`
          insert into documents (collection_id, title, source_type, status, chunks_count, text_joins, indexed_at)
          values (${c}, ${`doc ${i}`}, 'text', 'indexed', 1, '{}', now()) returning id`;
        // As the daemon wrote them before: TEXT_SEARCH_CONFIG (english) for every collection.
        await sql`
          insert into chunks (document_id, collection_id, generation, chunk_index, content, token_count, embedding, embedding_model, tsv)
          values (${doc!.id}, ${c}, 1, 0, ${text}, 12, ${toSql(fakeEmbedding(text, DIM))}::halfvec, ${MODEL},
                  to_tsvector('english', ${`doc ${i}`} || ' ' || ${text}))`;
      }
    // What each query matched before the upgrade, exhaustively, in the owner's collection.
    for (const [q, meaning] of Object.entries(QUERIES))
      oracle[q] = (
        await sql<{ id: string }[]>`
          select document_id::text as id from chunks
           where collection_id = ${owner.collection} and tsv @@ websearch_to_tsquery('english', ${meaning}) order by 1`
      ).map((r) => r.id);
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

  const search = async (k: string, q: string) => {
    const r = await http(d.url)('POST', '/api/v1/search/', { key: k, json: { query: q, mode: 'text', limit: 50, collection } });
    return r;
  };

  it('existing collections show english and keep their index (no language stored)', async () => {
    const r = await http(d.url)('GET', `/api/v1/collections/${collection}/`, { key });
    assert.equal(r.body.language, 'english');
    const [row] = await sql<{ language: string | null; text_config: string | null }[]>`
      select language, text_config from collections where id = ${collection}`;
    assert.deepEqual({ ...row }, { language: null, text_config: null });
  });

  it('answers every text query with the documents it matched before the upgrade', async () => {
    assert.ok(oracle.running!.length >= 2 && oracle.chevaux!.length === 1, JSON.stringify(oracle));
    for (const q of Object.keys(QUERIES)) {
      const r = await search(key, q);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.results.map((x: { document_id: string }) => x.document_id).sort(), oracle[q], q);
    }
  });

  it('another tenant still cannot search it; switching it to french reindexes only it', async () => {
    assert.equal((await search(otherKey, 'horses')).status, 404);
    const p = await http(d.url)('PATCH', `/api/v1/collections/${collection}/`, { key, json: { language: 'french' } });
    assert.equal(p.status, 200, p.text);
    assert.deepEqual(await reindexCollectionLanguage(d.deps, collection), { chunks: TEXTS.length });
    const r = await search(key, 'cheval');
    assert.equal(r.body.results.length, 1);
    const [n] = await sql<{ n: number }[]>`
      select count(*)::int as n from chunks k join collections c on c.id = k.collection_id
       where c.id <> ${collection} and k.tsv = to_tsvector('english', (select title from documents where id = k.document_id) || ' ' || k.content)`;
    assert.equal(n!.n, TEXTS.length, 'the other tenant’s chunks are untouched');
  });
});
