// Upgrading to the segmented languages (migration 122): collections indexed before it keep their
// index and answer as they did; an operator's own configuration named like a new language stays
// theirs; changing a collection's language to a segmented one (and back) reindexes it through the
// worker, segmented in the daemon, and the BM25 lists stay exact.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { enqueueStaleLanguageReindexes } from '../daemon/src/collections/language.js';
import type { Sql } from '../daemon/src/db/client.js';
import { assertIndexExact } from './helpers/bm25.js';
import { until } from './helpers/chaos.js';
import { http, type TestDaemon } from './helpers/daemon.js';
import { insertTenant } from './helpers/old-schema.js';
import { beforeMigration, insertOldTextDocument, type Upgrade } from './helpers/upgrade.js';

const ZH = ['维多利亚州的经济以服务业为主导。', '服务和农业是这个国家的两大产业。'];
const TH = 'ภาษาไทยเป็นภาษาที่สวยงาม';

describe('upgrading to segmented languages (migration 122)', () => {
  let up: Upgrade;
  let sql: Sql;
  let d: TestDaemon;
  let owner: { key: string; collection: string };
  let other: { key: string; collection: string };
  let thai: string; // a collection of the operator's own `thai` configuration
  const docs = new Map<string, number>(); // document id → index in ZH

  before(async () => {
    up = await beforeMigration('segmented_languages', 'upgrade_segmented');
    sql = up.sql;
    // An operator's configuration, made before docsift offered the language.
    await sql`create text search configuration thai (copy = pg_catalog.simple)`;
    owner = await insertTenant(sql, 'seg-owner');
    other = await insertTenant(sql, 'seg-other');
    await sql`update collections set language = 'simple', text_config = 'docsift_simple' where id in ${sql([owner.collection, other.collection])}`;
    const [t] = await sql<{ id: string }[]>`
      insert into collections (owner_id, organization_id, name, slug, language, text_config)
      select owner_id, organization_id, 'thai', 'thai', 'thai', 'thai' from collections where id = ${owner.collection}
      returning id`;
    thai = t!.id;
    // As the daemon wrote them before: the text as typed, parsed by the collection's configuration.
    const add = (collection: string, config: string, text: string) =>
      insertOldTextDocument(sql, { collection, title: 'Doc', text, tsv: sql`docsift_tsvector(${config}, 'Doc ' || ${text})` });
    for (const [i, text] of ZH.entries()) {
      docs.set(await add(owner.collection, 'docsift_simple', text), i);
      await add(other.collection, 'docsift_simple', text);
    }
    await add(thai, 'thai', TH);
    await sql`select fold_text_stats()`;
    d = await up.finish({ worker: true });
  });
  after(async () => up?.close());

  const search = async (query: string, collection = owner.collection, key = owner.key) => {
    const r = await http(d.url)('POST', '/api/v1/search/', { key, json: { query, mode: 'text', limit: 50, collection } });
    assert.equal(r.status, 200, r.text);
    return (r.body.results as { document_id: string }[]).map((x) => docs.get(x.document_id) ?? x.document_id).sort();
  };
  const textConfig = async (id: string) => (await sql<{ c: string }[]>`select text_config as c from collections where id = ${id}`)[0]!.c;

  it('collections indexed before keep their index and answer as before', async () => {
    assert.equal(await enqueueStaleLanguageReindexes(sql, 'english'), 0, 'nothing to reindex');
    assert.equal(await textConfig(owner.collection), 'docsift_simple');
    assert.deepEqual(await search('经济'), [], 'under simple a sentence is one word');
    assert.deepEqual(await search('服务和农业是这个国家的两大产业'), [1]);
  });

  it('an operator’s own configuration of a new language’s name stays theirs', async () => {
    const [row] = await sql<{ segmented: boolean; index: string }[]>`
      select text_config_segmented(text_index_config('thai')) as segmented, text_index_config('thai') as index`;
    assert.deepEqual(row, { segmented: false, index: 'thai' });
    const langs = await http(d.url)('GET', '/api/v1/languages/', { key: owner.key });
    const kind = Object.fromEntries(langs.body.languages.map((l: any) => [l.name, l.kind]));
    assert.equal(kind.thai, 'custom');
    assert.equal(kind.chinese, 'segmented');
    assert.equal(await textConfig(thai), 'thai');
    assert.equal((await search(TH, thai)).length, 1, 'the whole sentence, one word to the operator’s configuration');
  });

  it('a change to a segmented language reindexes through the worker, and back', async () => {
    const patch = async (language: string) => {
      const r = await http(d.url)('PATCH', `/api/v1/collections/${owner.collection}/`, { key: owner.key, json: { language } });
      assert.equal(r.status, 200, r.text);
    };
    const reindexed = (config: string) =>
      until(async () => ((await textConfig(owner.collection)) === config ? true : undefined), 30_000, `text_config ${config}`);
    await patch('chinese');
    await reindexed('docsift_chinese');
    assert.deepEqual(await search('经济'), [0]);
    assert.deepEqual(await search('"服务业"'), [0]);
    assert.deepEqual(await search('服务 -农业'), [0]);
    await sql`select fold_text_stats()`;
    await assertIndexExact(sql);
    await patch('english');
    await reindexed('docsift_english');
    assert.deepEqual(await search('经济'), []);
    await sql`select fold_text_stats()`;
    await assertIndexExact(sql);
  });

  it('another tenant’s collection is untouched and unreachable', async () => {
    assert.equal(await textConfig(other.collection), 'docsift_simple');
    const r = await http(d.url)('POST', '/api/v1/search/', {
      key: other.key,
      json: { query: '经济', mode: 'text', collection: owner.collection },
    });
    assert.equal(r.status, 404, r.text);
  });
});
