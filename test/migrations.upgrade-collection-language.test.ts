// Upgrading to a language per collection (migration 117): collections that predate it keep the
// index they were built with (english, TEXT_SEARCH_CONFIG's default), answer the same text
// searches as before, show `language: english`, and can switch language afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { reindexCollectionLanguage } from '../daemon/src/collections/language.js';
import type { Sql } from '../daemon/src/db/client.js';
import { http, type TestDaemon } from './helpers/daemon.js';
import { insertTenant } from './helpers/old-schema.js';
import { beforeMigration, insertOldTextDocument, type Upgrade } from './helpers/upgrade.js';

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
  let up: Upgrade;
  let sql: Sql;
  let d: TestDaemon;
  let key: string;
  let otherKey: string;
  let collection: string;
  const oracle: Record<string, string[]> = {};

  before(async () => {
    up = await beforeMigration('collection_language', 'upgrade_lang');
    sql = up.sql;
    const tenant = (label: string) => insertTenant(sql, label);
    const owner = await tenant('upl-owner');
    const other = await tenant('upl-other');
    key = owner.key;
    otherKey = other.key;
    collection = owner.collection;
    for (const [i, text] of TEXTS.entries())
      for (const c of [owner.collection, other.collection]) {
        const title = `doc ${i}`;
        // As the daemon wrote them before: TEXT_SEARCH_CONFIG (english) for every collection.
        await insertOldTextDocument(sql, { collection: c, title, text, tsv: sql`to_tsvector('english', ${title} || ' ' || ${text})` });
      }
    // What each query matched before the upgrade, exhaustively, in the owner's collection.
    for (const [q, meaning] of Object.entries(QUERIES))
      oracle[q] = (
        await sql<{ id: string }[]>`
          select document_id::text as id from chunks
           where collection_id = ${owner.collection} and tsv @@ websearch_to_tsquery('english', ${meaning}) order by 1`
      ).map((r) => r.id);
    d = await up.finish();
  });
  after(async () => up?.close());

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
