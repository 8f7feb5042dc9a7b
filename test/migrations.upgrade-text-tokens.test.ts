// Upgrading to docsift's own tokenization (migration 119): hyphenated compounds index as their parts
// only, and slash-joined words split. Collections indexed before it (with or without a stored
// language) are reindexed by the jobs the daemon enqueues at start, keep the language their owner
// sees, answer the queries the old index could not, and leave the BM25 lists exact.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { enqueueStaleLanguageReindexes } from '../daemon/src/collections/language.js';
import type { Sql } from '../daemon/src/db/client.js';
import { assertIndexExact } from './helpers/bm25.js';
import { until } from './helpers/chaos.js';
import { http, type TestDaemon } from './helpers/daemon.js';
import { insertTenant } from './helpers/old-schema.js';
import { beforeMigration, insertOldTextDocument, type Upgrade } from './helpers/upgrade.js';

const TEXTS = [
  'TNF-alpha levels rose in plasma after the infusion.',
  'The TNF alpha pathway drives inflammation in mice.',
  'Cultures were seeded at 5 cells/ml in the incubator.',
  'Stock markets fell sharply amid inflation fears.',
];

describe('upgrading to docsift tokenization (migration 119)', () => {
  let up: Upgrade;
  let sql: Sql;
  let d: TestDaemon;
  let owner: { key: string; collection: string };
  let other: { key: string; collection: string };
  let stored: string; // a collection created after migration 117: language and text_config stored
  const docs = new Map<string, number>(); // document id → index in TEXTS, owner's collections
  let oldIndex: Record<string, string[]>;

  before(async () => {
    up = await beforeMigration('text_tokens', 'upgrade_tokens');
    sql = up.sql;
    owner = await insertTenant(sql, 'tok-owner');
    other = await insertTenant(sql, 'tok-other');
    const [s] = await sql<{ id: string }[]>`
      insert into collections (owner_id, organization_id, name, slug, language, text_config)
      select owner_id, organization_id, 'stored', 'stored', 'english', 'english' from collections where id = ${owner.collection}
      returning id`;
    stored = s!.id;
    for (const c of [owner.collection, stored, other.collection])
      for (const [i, text] of TEXTS.entries()) {
        const title = `doc ${i}`;
        // As the daemon wrote them before: the english configuration as PostgreSQL ships it.
        const id = await insertOldTextDocument(sql, {
          collection: c,
          title,
          text,
          tsv: sql`to_tsvector('english', ${title} || ' ' || ${text})`,
        });
        if (c !== other.collection) docs.set(id, i);
      }
    await sql`select fold_text_stats()`;
    oldIndex = {};
    for (const q of ['TNF-alpha', 'ml'])
      oldIndex[q] = (
        await sql<{ id: string }[]>`
          select document_id::text as id from chunks where collection_id = ${owner.collection}
             and tsv @@ websearch_to_tsquery('english', ${q})`
      ).map((r) => r.id);
    d = await up.finish({ worker: true });
  });
  after(async () => up?.close());

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
