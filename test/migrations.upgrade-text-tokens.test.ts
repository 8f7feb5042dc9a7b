// Upgrading to docsift's own tokenization (migration 119): hyphenated compounds index as their parts
// only, and slash-joined words split. Collections indexed before it (with or without a stored
// language) are reindexed by the jobs the daemon enqueues at start, keep the language their owner
// sees, answer the queries the old index could not, and leave the BM25 lists exact.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toSql } from 'pgvector';
import { enqueueStaleLanguageReindexes } from '../daemon/src/collections/language.js';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { listMigrations, migrate } from '../daemon/src/db/migrate.js';
import { createLogger } from '../daemon/src/logger.js';
import { migrateWorkerSchema } from '../daemon/src/worker/runner.js';
import { assertIndexExact } from './helpers/bm25.js';
import { until } from './helpers/chaos.js';
import { fakeEmbedding, startFakeOllama, type FakeOllama } from './helpers/fake-ollama-server.js';
import { http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';
import { insertTenant } from './helpers/old-schema.js';

const DIM = 16;
const MODEL = 'nomic-embed-text';
const TEXTS = [
  'TNF-alpha levels rose in plasma after the infusion.',
  'The TNF alpha pathway drives inflammation in mice.',
  'Cultures were seeded at 5 cells/ml in the incubator.',
  'Stock markets fell sharply amid inflation fears.',
];

describe('upgrading to docsift tokenization (migration 119)', () => {
  let db: TestDatabase;
  let sql: Sql;
  let ollama: FakeOllama;
  let d: TestDaemon;
  let owner: { key: string; collection: string };
  let other: { key: string; collection: string };
  let stored: string; // a collection created after migration 117: language and text_config stored
  const docs = new Map<string, number>(); // document id → index in TEXTS, owner's collections
  let oldIndex: Record<string, string[]>;

  before(async () => {
    const version = (await listMigrations()).find((m) => m.name === 'text_tokens')!.version;
    db = await createTestDatabase('upgrade_tokens', { empty: true });
    sql = createSql(db.url, { max: 2 });
    await migrate(sql, () => {}, { upTo: version - 1 });
    await sql`insert into instance_settings (key, value) values ('embedding_model', ${sql.json({ model: MODEL, dimension: DIM })})`;
    owner = await insertTenant(sql, 'tok-owner');
    other = await insertTenant(sql, 'tok-other');
    const [s] = await sql<{ id: string }[]>`
      insert into collections (owner_id, organization_id, name, slug, language, text_config)
      select owner_id, organization_id, 'stored', 'stored', 'english', 'english' from collections where id = ${owner.collection}
      returning id`;
    stored = s!.id;
    for (const c of [owner.collection, stored, other.collection])
      for (const [i, text] of TEXTS.entries()) {
        const [doc] = await sql<{ id: string }[]>`
          insert into documents (collection_id, title, source_type, status, chunks_count, text_joins, indexed_at)
          values (${c}, ${`doc ${i}`}, 'text', 'indexed', 1, '{}', now()) returning id`;
        if (c !== other.collection) docs.set(doc!.id, i);
        // As the daemon wrote them before: the english configuration as PostgreSQL ships it.
        await sql`
          insert into chunks (document_id, collection_id, generation, chunk_index, content, token_count, embedding, embedding_model, tsv)
          values (${doc!.id}, ${c}, 1, 0, ${text}, 12, ${toSql(fakeEmbedding(text, DIM))}::halfvec, ${MODEL},
                  to_tsvector('english', ${`doc ${i}`} || ' ' || ${text}))`;
      }
    await sql`select fold_text_stats()`;
    oldIndex = {};
    for (const q of ['TNF-alpha', 'ml'])
      oldIndex[q] = (
        await sql<{ id: string }[]>`
          select document_id::text as id from chunks where collection_id = ${owner.collection}
             and tsv @@ websearch_to_tsquery('english', ${q})`
      ).map((r) => r.id);
    await migrate(sql);
    await migrateWorkerSchema(db.url, createLogger('silent'));
    ollama = await startFakeOllama({ dimension: DIM });
    d = await startTestDaemon({ db, worker: true, env: { EMBEDDING_PROVIDER: 'ollama', OLLAMA_HOST: ollama.url, OLLAMA_MODEL: MODEL } });
  });
  after(async () => {
    await d?.close();
    await ollama?.close();
    await sql?.end();
    await db?.drop();
  });

  const search = async (key: string, collection: string, query: string) => {
    const r = await http(d.url)('POST', '/api/v1/search/', { key, json: { query, mode: 'text', limit: 50, collection } });
    assert.equal(r.status, 200, r.text);
    return (r.body.results as { document_id: string }[]).map((x) => docs.get(x.document_id)).sort();
  };

  it('the old index could not find the compound’s other spelling nor a slash-joined word', () => {
    assert.equal(oldIndex['TNF-alpha']!.length, 1, 'only the hyphenated spelling');
    assert.equal(oldIndex.ml!.length, 0, '"cells/ml" was one token');
  });

  it('the daemon reindexes every collection at start; owners still see english', async () => {
    const rows = await until(
      async () => {
        const r = await sql<{ id: string; text_config: string | null }[]>`select id, text_config from collections order by id`;
        return r.every((x) => x.text_config === 'docsift_english') ? r : undefined;
      },
      30_000,
      'the reindex jobs of all three collections',
    );
    assert.equal(rows.length, 3);
    for (const [key, c] of [
      [owner.key, owner.collection],
      [owner.key, stored],
      [other.key, other.collection],
    ] as const) {
      const r = await http(d.url)('GET', `/api/v1/collections/${c}/`, { key });
      assert.equal(r.body.language, 'english', r.text);
    }
    const [lang] = await sql<{ language: string | null }[]>`select language from collections where id = ${owner.collection}`;
    assert.equal(lang!.language, null, 'no language is invented for a collection that had none');
  });

  it('answers what the old index could not, in both reindexed collections', async () => {
    for (const c of [owner.collection, stored]) {
      assert.deepEqual(await search(owner.key, c, 'TNF-alpha'), [0, 1], 'either spelling of the compound');
      assert.deepEqual(await search(owner.key, c, 'ml'), [2], 'the word after the slash');
      assert.deepEqual(await search(owner.key, c, 'cells/ml'), [2], 'the query splits the same way');
      assert.deepEqual(await search(owner.key, c, 'inflammation -TNF-alpha'), [], 'an excluded compound excludes its parts');
    }
  });

  it('the lists stay exact after the rewrite; another tenant still cannot search the collection', async () => {
    await sql`select fold_text_stats()`;
    await assertIndexExact(sql);
    const r = await http(d.url)('POST', '/api/v1/search/', {
      key: other.key,
      json: { query: 'ml', mode: 'text', collection: owner.collection },
    });
    assert.equal(r.status, 404, r.text);
  });

  it('a second start finds nothing to reindex', async () => {
    assert.equal(await enqueueStaleLanguageReindexes(sql, 'english'), 0);
  });
});
