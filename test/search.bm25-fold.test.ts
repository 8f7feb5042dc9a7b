import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Sql } from '../daemon/src/db/client.js';
import { foldTextIndex } from '../daemon/src/indexing/fold.js';
import { assertIndexExact, assertIndexLayout, bestBlock, exhaustiveBm25, insertIndexedTexts, listBlocks } from './helpers/bm25.js';
import { makeCollection } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// The fold drains fresh rows (text_fresh) into each list's head and tail blocks and purges dead postings. Long
// lists (over 1,024 postings) are only partly rewritten, so dead postings in their full tail
// blocks stay tombstoned: these tests churn such lists and check that frequencies stay exact, every
// live posting is held once, dead ones never surface, and the block layout holds.

const fill = (sql: Sql, t: Tenant, collectionId: string, texts: string[]) => insertIndexedTexts(sql, t.userId, collectionId, texts);

const words = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
/** Every text holds "common"; lengths and repeats vary so impacts spread. */
const text = (i: number) => [...Array(1 + (i % 4)).fill('common'), ...Array(3 + (i % 11)).fill(words[i % 5]), `w${i % 97}`].join(' ');

describe('folding BM25 blocks', () => {
  let d: TestDaemon;
  let t: Tenant;
  let coll: string;
  let docs: string[] = [];
  before(async () => {
    d = await startTestDaemon({ label: 'bm25fold' });
    t = await createTenant(d, 'fold');
    coll = (await makeCollection(http(d.url), t.key, 'Fold')).uuid;
  });
  after(async () => d?.close());

  it('builds head and tail blocks for a long list; frequencies stay exact through fresh rows', async () => {
    docs = await fill(
      d.deps.sql,
      t,
      coll,
      Array.from({ length: 2600 }, (_, i) => text(i)),
    );
    await assertIndexExact(d.deps.sql);
    await d.deps.sql`select fold_text_stats()`;
    await assertIndexExact(d.deps.sql);
    await assertIndexLayout(d.deps.sql);
    const [tails] = await d.deps.sql<{ n: number }[]>`select count(*)::int as n from text_blocks where lexeme = 'common' and kind = 2`;
    assert.ok(tails!.n >= 2, 'the "common" list has full tail blocks');
  });

  it('keeps dead postings of a long list tombstoned; new high-impact postings lead the list', async () => {
    const sql = d.deps.sql;
    // Deleting 100 of 2,600 (under 1/16) leaves the long list partly rewritten.
    await sql`delete from chunks where document_id = any(${docs.slice(0, 100)}::uuid[])`;
    const fresh = await fill(sql, t, coll, ['common common common common', 'common common zeta', 'common']);
    await assertIndexExact(sql);
    await sql`select fold_text_stats()`;
    await assertIndexExact(sql);
    await assertIndexLayout(sql);
    const [dead] = await sql<{ n: number }[]>`select count(*)::int as n from text_blocks where lexeme = 'common' and df < 0`;
    assert.ok(dead!.n === 1, 'dead postings in full tail blocks stay tombstoned');
    // Appended as a block of their own (migration 113), they are read first: blocks are read in max_impact order.
    const [best] = await sql<{ no: number }[]>`select no from chunks where document_id = ${fresh[0]!}`;
    assert.equal(
      bestBlock(await listBlocks(sql, coll, 'common')).first_no,
      best!.no,
      'the new best posting of "common" opens its best block',
    );
  });

  it('search never returns a deleted chunk, and scores stay exact', async () => {
    const req = http(d.url);
    const deleted = new Set(
      (await d.deps.sql<{ id: string }[]>`select id from documents where id = any(${docs.slice(0, 100)}::uuid[])`).map((r) => r.id),
    );
    const r = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'common', mode: 'text', limit: 50, explain: true } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.results.length, 50);
    for (const hit of r.body.results) assert.ok(!deleted.has(hit.document_id));
    const [top] = await d.deps.sql<{ id: string }[]>`select id from chunks where content = 'common common common common'`;
    assert.equal(r.body.results[0].chunk_id, top!.id, 'the best posting is found');
    const exact = new Map((await exhaustiveBm25(d.deps.sql, [coll], 'common', 5000)).map((w) => [w.id, w.score]));
    for (const hit of r.body.results) assert.ok(Math.abs(hit.explain.text.score - exact.get(hit.chunk_id)!) < 1e-6, 'exact score');
  });

  it('rewrites a list whole once enough of it is dead, dropping its tombstones', async () => {
    const sql = d.deps.sql;
    await sql`delete from chunks where document_id = any(${docs.slice(100, 400)}::uuid[])`;
    await sql`select fold_text_stats()`;
    await assertIndexExact(sql);
    await assertIndexLayout(sql);
    const [dead] = await sql<{ n: number }[]>`select count(*)::int as n from text_blocks where df < 0`;
    assert.equal(dead!.n, 0);
  });

  it('gives back the space of text_fresh indexes left large by a burst, while ingestion goes on', async () => {
    const sql = d.deps.sql;
    await fill(
      sql,
      t,
      coll,
      Array.from({ length: 300 }, (_, i) => text(20_000 + i)),
    );
    const files = async () =>
      (
        await sql<
          { f: string }[]
        >`select array_agg(relfilenode order by relname)::text as f from pg_class where relname like 'text_fresh_%_idx'`
      )[0]!.f;
    const before = await files();
    assert.deepEqual(await foldTextIndex(sql), { shrunk: false, compacted: false }, 'small indexes are left alone');
    await fill(
      sql,
      t,
      coll,
      Array.from({ length: 200 }, (_, i) => text(21_000 + i)),
    );
    const [r] = await Promise.all([
      foldTextIndex(sql, { slack: { text_fresh: 0 } }),
      fill(
        sql,
        t,
        coll,
        Array.from({ length: 50 }, (_, i) => text(22_000 + i)),
      ),
    ]);
    assert.deepEqual(r, { shrunk: true, compacted: false });
    assert.notEqual(await files(), before, 'the indexes were rebuilt');
    await assertIndexExact(sql);
    await foldTextIndex(sql);
    await assertIndexExact(sql);
    await assertIndexLayout(sql);
  });

  it('a fold that empties text_fresh rebuilds its indexes once they pass 1 MB, however large the corpus', async () => {
    const sql = d.deps.sql;
    const freshIndexBytes = async () => (await sql<{ b: number }[]>`select pg_relation_size('text_fresh_list_idx')::float8 as b`)[0]!.b;
    // Each statement appends one fresh row per lexeme: 60 statements of 400 distinct lexemes.
    for (let s = 0; s < 60; s++) await fill(sql, t, coll, [Array.from({ length: 400 }, (_, i) => `burst${s}x${i}`).join(' ')]);
    assert.ok((await freshIndexBytes()) > 2 ** 20, 'the burst left more than 1 MB of text_fresh indexes');
    // The burst's 24,000 new lists also left text_blocks' btrees 45 % free from page splits: the
    // drained fold rewrites the small table too (fold.ts worthCompacting).
    assert.deepEqual(await foldTextIndex(sql), { shrunk: true, compacted: true });
    assert.ok((await freshIndexBytes()) < 2 ** 18, 'the emptied indexes were rebuilt small');
    assert.deepEqual(await foldTextIndex(sql), { shrunk: false, compacted: false }, 'small indexes are left alone');
    await assertIndexExact(sql);
  });

  it('stays exact when ingestion, deletion and folds run concurrently', async () => {
    const sql = d.deps.sql;
    let stop = false;
    const folds = (async () => {
      while (!stop) await sql`select fold_text_stats()`;
    })();
    for (let round = 0; round < 6; round++) {
      const added = await fill(
        sql,
        t,
        coll,
        Array.from({ length: 120 }, (_, i) => text(5000 + round * 120 + i)),
      );
      await Promise.all([
        sql`delete from chunks where document_id = any(${added.slice(0, 40)}::uuid[])`,
        fill(
          sql,
          t,
          coll,
          Array.from({ length: 60 }, (_, i) => text(9000 + round * 60 + i)),
        ),
        sql`delete from chunks where document_id = any(${docs.slice(400 + round * 30, 430 + round * 30)}::uuid[])`,
      ]);
    }
    stop = true;
    await folds;
    await assertIndexExact(sql);
    await sql`select fold_text_stats()`;
    await assertIndexExact(sql);
    await assertIndexLayout(sql);
  });
});
