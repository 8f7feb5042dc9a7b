import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Sql } from '../daemon/src/db/client.js';
import { assertIndexExact, assertIndexLayout, bestBlock, exhaustiveBm25, insertIndexedTexts, listBlocks } from './helpers/bm25.js';
import { makeCollection } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// Folds append up to 128 fresh postings to a list as a block of their own while the list holds
// fewer than 4 blocks of under 1,000 postings, and merge those small blocks (never its full tails)
// at the 4th or for a bigger run (migration 113). These tests follow one short and one long list through several folds by the
// blocks' row addresses: a block left in place keeps its ctid, a rewritten one does not.

describe('tiered folds of BM25 lists', () => {
  let d: TestDaemon;
  let t: Tenant;
  let coll: string;
  let other: string;
  before(async () => {
    d = await startTestDaemon({ label: 'bm25tiered' });
    t = await createTenant(d, 'quokka');
    coll = (await makeCollection(http(d.url), t.key, 'Tiered')).uuid;
    other = (await makeCollection(http(d.url), t.key, 'Other')).uuid;
  });
  after(async () => d?.close());

  const fill = (sql: Sql, collectionId: string, texts: string[]) => insertIndexedTexts(sql, t.userId, collectionId, texts);
  const blocks = (lexeme: string, collectionId = coll) => listBlocks(d.deps.sql, collectionId, lexeme);
  const fold = async () => {
    await d.deps.sql`select fold_text_stats()`;
    await assertIndexExact(d.deps.sql);
    await assertIndexLayout(d.deps.sql);
  };
  /** Varied lengths and repeats, so impacts spread and a new posting can outrank the head. */
  const text = (word: string, i: number) =>
    [...Array(1 + (i % 5)).fill(word), ...Array(2 + (i % 13)).fill('filler'), `n${i % 31}`].join(' ');

  it('appends fresh postings to a short list as a new block, leaving its blocks in place, and merges at the fourth', async () => {
    const sql = d.deps.sql;
    await fill(
      sql,
      coll,
      Array.from({ length: 600 }, (_, i) => text('quokka', i)),
    );
    await fold();
    const first = await blocks('quokka');
    assert.deepEqual(
      first.map((b) => [b.kind, b.df]),
      [
        [1, 128],
        [2, 472],
      ],
      'a new list is written whole: head and tail',
    );

    const seen = first.map((b) => b.ctid);
    for (const [round, small] of [
      [1, 3],
      [2, 4],
    ] as const) {
      await fill(
        sql,
        coll,
        Array.from({ length: 10 }, (_, i) => text('quokka', 1000 * round + i)),
      );
      await fold();
      const now = await blocks('quokka');
      for (const c of seen)
        assert.ok(
          now.some((b) => b.ctid === c),
          `round ${round}: block ${c} was left in place`,
        );
      assert.equal(now.length, small, `round ${round}: one block more`);
      const added = now.filter((b) => !seen.includes(b.ctid));
      assert.deepEqual(
        added.map((b) => [b.kind, b.df]),
        [[2, 10]],
        `round ${round}: the fresh postings, as one block`,
      );
      seen.push(added[0]!.ctid);
    }

    await fill(
      sql,
      coll,
      Array.from({ length: 10 }, (_, i) => text('quokka', 3000 + i)),
    );
    await fold();
    const merged = await blocks('quokka');
    assert.ok(!merged.some((b) => seen.includes(b.ctid)), 'at the fourth small block the list is merged: every block rewritten');
    assert.deepEqual(merged.map((b) => [b.kind, b.df]).sort(), [
      [1, 128],
      [2, 502],
    ]);
  });

  it('merges a run of more than 128 fresh postings, so the first block a search reads stays head-sized', async () => {
    const sql = d.deps.sql;
    const seen = (await blocks('quokka')).map((b) => b.ctid);
    await fill(
      sql,
      coll,
      // The best possible postings, so an appended run would be read first.
      Array.from({ length: 200 }, () => 'quokka quokka quokka quokka quokka quokka'),
    );
    await fold();
    const now = await blocks('quokka');
    assert.ok(!now.some((b) => seen.includes(b.ctid)), 'the list was rewritten');
    assert.deepEqual(now.map((b) => [b.kind, b.df]).sort(), [
      [1, 128],
      [2, 702],
    ]);
    assert.equal(bestBlock(now).df, 128);
  });

  it('a long list keeps its full tails through appends and merges; only its small blocks are rewritten', async () => {
    const sql = d.deps.sql;
    await fill(
      sql,
      coll,
      Array.from({ length: 2300 }, (_, i) => text('longlist', i)),
    );
    await fold();
    const full = (await blocks('longlist')).filter((b) => b.df === 1000).map((b) => b.ctid);
    assert.equal(full.length, 2, 'two full tails');
    for (let round = 1; round <= 4; round++) {
      await fill(
        sql,
        coll,
        // The best possible postings (many repeats, short text), so appended blocks outrank the head.
        Array.from({ length: 5 }, () => 'longlist longlist longlist longlist longlist longlist'),
      );
      await fold();
      const now = await blocks('longlist');
      for (const c of full)
        assert.ok(
          now.some((b) => b.ctid === c),
          `round ${round}: full tail ${c} left in place`,
        );
      assert.ok(now.filter((b) => b.df < 1000).length <= 4, `round ${round}: at most 4 small blocks`);
    }
  });

  it('searches over appended blocks return the exhaustive BM25 top 10 with exact scores', async () => {
    const req = http(d.url);
    for (const query of ['longlist', 'quokka', 'quokka longlist n7']) {
      const r = await req('POST', '/api/v1/search/', {
        key: t.key,
        json: { query, mode: 'text', collection_id: coll, limit: 10, explain: true },
      });
      assert.equal(r.status, 200, r.text);
      const exact = await exhaustiveBm25(d.deps.sql, [coll], query, 10);
      assert.deepEqual(
        r.body.results.map((h: { chunk_id: string }) => h.chunk_id),
        exact.map((e) => e.id),
        query,
      );
      for (const [i, hit] of r.body.results.entries())
        assert.ok(Math.abs(hit.explain.text.score - exact[i]!.score) < 1e-6, `${query}: exact score`);
    }
  });

  it("a fold of one collection's list leaves another collection's list of the same lexeme alone, and searches stay in their collection", async () => {
    const sql = d.deps.sql;
    await fill(
      sql,
      other,
      Array.from({ length: 40 }, (_, i) => text('quokka', 5000 + i)),
    );
    await fold();
    const theirs = (await blocks('quokka', other)).map((b) => b.ctid);
    const before = (await blocks('quokka')).length;
    await fill(
      sql,
      coll,
      Array.from({ length: 10 }, (_, i) => text('quokka', 6000 + i)),
    );
    await fold();
    assert.deepEqual(
      (await blocks('quokka', other)).map((b) => b.ctid),
      theirs,
      "the other collection's blocks were not touched",
    );
    assert.equal((await blocks('quokka')).length, before + 1);
    const r = await http(d.url)('POST', '/api/v1/search/', {
      key: t.key,
      json: { query: 'quokka', mode: 'text', collection_id: other, limit: 50 },
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.results.length, 40);
    const ours = new Set((await sql<{ id: string }[]>`select id from chunks where collection_id = ${coll}`).map((c) => c.id));
    for (const hit of r.body.results) assert.ok(!ours.has(hit.chunk_id), 'only the searched collection');
  });
});
