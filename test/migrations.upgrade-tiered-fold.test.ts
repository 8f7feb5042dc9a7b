// Upgrading a database written with migration 112's text index (every fold rewrote the lists it
// touched; the triggers wrote fresh rows in no order into a text_fresh with two indexes) to 113
// (folds append) and 114 (one fresh index, rows in its order), with a fold's worth of fresh rows
// and tombstones left unfolded by the old triggers, and searching it through the API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUserWithKey } from '../daemon/src/accounts/create.js';
import { createSql, type Sql } from '../daemon/src/db/client.js';
import { migrate } from '../daemon/src/db/migrate.js';
import { createLogger } from '../daemon/src/logger.js';
import { migrateWorkerSchema } from '../daemon/src/worker/runner.js';
import { assertIndexExact, assertIndexLayout, exhaustiveBm25, insertIndexedTexts, listBlocks } from './helpers/bm25.js';
import { http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { createTestDatabase, type TestDatabase } from './helpers/pg.js';

const WORDS = ['cell', 'protein', 'gene', 'tumor', 'immune', 'virus', 'brain', 'heart'];
const text = (i: number) =>
  ['common', ...Array.from({ length: 2 + (i % 6) }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]!), `u${i % 53}`].join(' ');

describe('upgrading a database written by the fold of migration 112', () => {
  let db: TestDatabase;
  let sql: Sql;
  let d: TestDaemon;
  let key: string;
  let other: string;
  let coll: string;

  before(async () => {
    db = await createTestDatabase('upgrade_fold', { empty: true });
    sql = createSql(db.url, { max: 2 });
    assert.equal((await migrate(sql, () => {}, { upTo: 112 })).at(-1), 112);
    const owner = await createUserWithKey(sql, { email: 'fold-owner@example.test', newOrganization: 'Fold', now: new Date() });
    const stranger = await createUserWithKey(sql, { email: 'fold-other@example.test', newOrganization: 'Other', now: new Date() });
    key = owner.key;
    other = stranger.key;
    const [c] = await sql<{ id: string }[]>`
      insert into collections (owner_id, organization_id, name, slug) values (${owner.user.id}, ${owner.organization.id}, 'Fold', 'fold') returning id`;
    coll = c!.id;
    const docs = await insertIndexedTexts(
      sql,
      owner.user.id,
      coll,
      Array.from({ length: 1500 }, (_, i) => text(i)),
    );
    await sql`select fold_text_stats()`;
    // Left unfolded by the old triggers: new postings, and tombstones of deleted chunks.
    await insertIndexedTexts(
      sql,
      owner.user.id,
      coll,
      Array.from({ length: 60 }, (_, i) => text(2000 + i)),
    );
    await sql`delete from documents where id = any(${docs.slice(0, 30)}::uuid[])`;
    const [fresh] = await sql<{ n: number; dead: number }[]>`
      select count(*)::int as n, count(*) filter (where df < 0)::int as dead from text_fresh`;
    assert.ok(fresh!.n > 0 && fresh!.dead > 0, 'fresh postings and tombstones wait for a fold');

    await migrate(sql);
    await migrateWorkerSchema(db.url, createLogger('silent'));
    d = await startTestDaemon({ db });
  });
  after(async () => {
    await d?.close();
    await sql?.end();
    await db?.drop();
  });

  it('keeps the fresh rows and drops the second fresh index; the index is exact before and after a fold', async () => {
    const [idx] = await sql<{ names: string[] }[]>`
      select array_agg(indexname::text order by indexname) as names from pg_indexes where tablename = 'text_fresh'`;
    assert.deepEqual(idx!.names, ['text_fresh_list_idx']);
    await assertIndexExact(sql);
    await sql`select fold_text_stats()`;
    await assertIndexExact(sql);
    await assertIndexLayout(sql);
  });

  it('writes new fresh rows through the new triggers and folds them by appending to the old lists', async () => {
    const [owner] = await sql<{ id: string }[]>`select id from users where email = 'fold-owner@example.test'`;
    const before = await listBlocks(sql, coll, 'u7');
    await insertIndexedTexts(sql, owner!.id, coll, ['u7 u7 fresh']);
    await sql`select fold_text_stats()`;
    await assertIndexExact(sql);
    await assertIndexLayout(sql);
    const after = await listBlocks(sql, coll, 'u7');
    for (const b of before)
      assert.ok(
        after.some((a) => a.ctid === b.ctid),
        'the old block was left in place',
      );
    assert.equal(after.length, before.length + 1, 'the new posting was appended as a block');
  });

  it('answers text searches with the exhaustive BM25 top 10 scores, each exact for its chunk; another organization sees nothing', async () => {
    const req = http(d.url);
    for (const query of ['common', 'cell tumor', 'u7 brain']) {
      const r = await req('POST', '/api/v1/search/', { key, json: { query, mode: 'text', limit: 10, explain: true } });
      assert.equal(r.status, 200, r.text);
      // Many chunks tie (same words, same length), so the top 10 is checked by its scores, and every
      // returned chunk's score against its own exhaustive score.
      const exact = await exhaustiveBm25(sql, [coll], query, 5000);
      const byId = new Map(exact.map((e) => [e.id, e.score]));
      assert.equal(r.body.results.length, 10, query);
      for (const [i, hit] of r.body.results.entries()) {
        assert.ok(Math.abs(hit.explain.text.score - exact[i]!.score) < 1e-6, `${query}: rank ${i + 1} has the exhaustive top 10's score`);
        assert.ok(Math.abs(hit.explain.text.score - byId.get(hit.chunk_id)!) < 1e-6, `${query}: the chunk's own exact score`);
      }
      const theirs = await req('POST', '/api/v1/search/', { key: other, json: { query, mode: 'text', limit: 10 } });
      assert.equal(theirs.status, 200, theirs.text);
      assert.deepEqual(theirs.body.results, []);
    }
  });
});
