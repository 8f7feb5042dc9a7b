import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { foldTextIndex, textBlocksLive } from '../daemon/src/indexing/fold.js';
import { assertIndexExact, assertIndexLayout, insertIndexedTexts } from './helpers/bm25.js';
import { makeCollection } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// A fold that rewrites lists writes them as new rows; after a burst of churn a small text_blocks
// keeps the old rows' space free. The fold then rewrites a small table compactly (VACUUM FULL, SKIP_LOCKED):
// the index and every search answer stay exactly what they were, and a running search is never
// waited for.

function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
const rand = seeded(5);
/** 30 words of a 4,000-word vocabulary: thousands of short lists, as a small corpus has. */
const texts = (n: number) =>
  Array.from({ length: n }, () => Array.from({ length: 30 }, () => `v${Math.floor(4000 * rand() ** 2)}`).join(' '));
const QUERIES = ['v1 v2 v3', 'v40 v977', 'v3999 v12 v250', 'v7'];

describe('index: compacting a small text_blocks after a burst', () => {
  let d: TestDaemon;
  let owner: Tenant;
  let other: Tenant;
  let coll: string;
  const heap = async () => (await d.deps.sql<{ b: number }[]>`select pg_relation_size('text_blocks')::float8 as b`)[0]!.b;
  const answers = async (key: string) => {
    const out: unknown[] = [];
    for (const query of QUERIES) {
      const r = await http(d.url)('POST', '/api/v1/search/', { key, json: { query, mode: 'text', limit: 50 } });
      assert.equal(r.status, 200, r.text);
      out.push(r.body.results.map((x: { chunk_id: string; score: number }) => [x.chunk_id, x.score]));
    }
    return out;
  };

  before(async () => {
    d = await startTestDaemon({ label: 'compact' });
    owner = await createTenant(d, 'compact-owner');
    other = await createTenant(d, 'compact-other');
    coll = (await makeCollection(http(d.url), owner.key, 'Compact')).uuid;
    const first = await insertIndexedTexts(d.deps.sql, owner.userId, coll, texts(4000));
    await foldTextIndex(d.deps.sql);
    // A second burst, and a third of the first deleted, touch nearly every list: lists with at
    // least 1/16 of their postings dead are rewritten whole, their old rows left behind (a fold
    // that only adds postings appends blocks and frees nothing: migration 113).
    await insertIndexedTexts(d.deps.sql, owner.userId, coll, texts(1500));
    await d.deps.sql`delete from documents where id = any(${first.slice(0, 1300)}::uuid[])`;
    // Folded, and text_fresh's drained indexes rebuilt, but not compacted (the tests below do that):
    // the rebuild (REINDEX CONCURRENTLY) waits for older transactions such as the first test's reader.
    assert.equal((await foldTextIndex(d.deps.sql, { compactMaxBytes: 0 })).compacted, false);
    await d.deps.sql`vacuum text_blocks`;
  });
  after(async () => d?.close());

  it('never waits for a running search: a table in use is left for the next fold', async () => {
    const before = await heap();
    const reader = await d.deps.sql.reserve();
    try {
      await reader`begin`;
      await reader`select count(*) from text_blocks`;
      const r = await foldTextIndex(d.deps.sql, { compactMinFreeBytes: 0 });
      assert.deepEqual(r, { shrunk: false, compacted: false });
      assert.equal(await heap(), before);
    } finally {
      await reader`commit`;
      reader.release();
    }
  });

  it('leaves a table past the size cap alone', async () => {
    const before = await heap();
    assert.deepEqual(await foldTextIndex(d.deps.sql, { compactMinFreeBytes: 0, compactMaxBytes: before - 1 }), {
      shrunk: false,
      compacted: false,
    });
    assert.equal(await heap(), before);
  });

  it('rewrites a third-free table compactly; the index and every answer stay exact, and a compact table is left alone', async () => {
    const before = await heap();
    const answersBefore = await answers(owner.key);
    assert.deepEqual(await foldTextIndex(d.deps.sql, { compactMinFreeBytes: 0 }), { shrunk: false, compacted: true });
    const after = await heap();
    assert.ok(after < before * 0.8, `text_blocks ${before} → ${after} B`);
    // The rule's estimate of compact indexes is what a rewrite builds (within 15 %).
    const live = await textBlocksLive(d.deps.sql);
    const [built] = await d.deps.sql<{ b: number }[]>`select pg_indexes_size('text_blocks')::float8 as b`;
    const estimate = live.indexes;
    assert.ok(Math.abs(estimate - built!.b) < built!.b * 0.15, `indexes estimated ${estimate.toFixed(0)} B, built ${built!.b} B`);
    await assertIndexExact(d.deps.sql);
    await assertIndexLayout(d.deps.sql);
    assert.deepEqual(await answers(owner.key), answersBefore);
    assert.deepEqual(
      await answers(other.key),
      QUERIES.map(() => []),
      'another organization sees none of it',
    );
    assert.deepEqual(await foldTextIndex(d.deps.sql, { compactMinFreeBytes: 0 }), { shrunk: false, compacted: false });
    assert.equal(await heap(), after);
  });
});
