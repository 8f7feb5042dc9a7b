import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Sql } from '../daemon/src/db/client.js';
import { foldTextIndex } from '../daemon/src/index/fold.js';
import { exhaustiveBm25 } from './helpers/bm25.js';
import { makeCollection } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// The fold drains fresh rows (text_fresh) into each list's head and tail blocks and purges dead postings. Long
// lists (over 1,024 postings) are only partly rewritten, so dead postings in their full tail
// blocks stay tombstoned: these tests churn such lists and check that frequencies stay exact, every
// live posting is held once, dead ones never surface, and the head/tail order holds.

async function fill(sql: Sql, t: Tenant, collectionId: string, texts: string[]): Promise<string[]> {
  return sql.begin(async (tx) => {
    const docs = await tx<{ id: string }[]>`
      insert into documents (collection_id, uploaded_by, title, source_type, status, chunks_count, indexed_at)
      select ${collectionId}, ${t.userId}, 'Doc', 'text', 'indexed', 1, now() from unnest(${texts}::text[]) returning id`;
    await tx`
      insert into chunks (document_id, collection_id, generation, chunk_index, content, embedding_model, tsv)
      select (${docs.map((r) => r.id)}::uuid[])[k], ${collectionId}, 1, 0, t.content, 'none', to_tsvector('english', t.content)
        from unnest(${texts}::text[]) with ordinality as t(content, k)`;
    return docs.map((r) => r.id);
  });
}

const words = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
/** Every text holds "common"; lengths and repeats vary so impacts spread. */
const text = (i: number) => [...Array(1 + (i % 4)).fill('common'), ...Array(3 + (i % 11)).fill(words[i % 5]), `w${i % 97}`].join(' ');

/** Frequencies, held postings, tombstones and the block layout, checked against the chunks. */
async function check(sql: Sql): Promise<void> {
  const df = await sql<{ bad: number }[]>`
    select count(*)::int as bad from (
      select b.coll, b.lexeme, sum(b.df) as df from text_lists b group by 1, 2 having sum(b.df) <> 0) h
    full join (
      select c.no as coll, x.lexeme, count(*) as df from chunks k join collections c on c.id = k.collection_id, unnest(k.tsv) x group by 1, 2) r
      using (coll, lexeme)
    where h.df is distinct from r.df`;
  assert.equal(df[0]!.bad, 0, 'document frequencies are exact');
  const held = await sql<{ dup: number; missing: number; untombstoned: number }[]>`
    with h as (
      select b.coll, b.lexeme, (p >> 32)::int as no, b.df > 0 as posting from text_lists b cross join unnest(b.postings) p
    ),
    live as (select c.no as coll, x.lexeme, k.no from chunks k join collections c on c.id = k.collection_id, unnest(k.tsv) x)
    select (select count(*) from (select 1 from h where posting group by coll, lexeme, no having count(*) > 1) x)::int as dup,
           (select count(*) from live l where not exists (select 1 from h where h.posting and (h.coll, h.lexeme, h.no) = (l.coll, l.lexeme, l.no)))::int as missing,
           (select count(*) from h where posting and not exists (select 1 from live l where (l.coll, l.lexeme, l.no) = (h.coll, h.lexeme, h.no))
                                  and not exists (select 1 from h t where not t.posting and (t.coll, t.lexeme, t.no) = (h.coll, h.lexeme, h.no)))::int as untombstoned`;
  assert.deepEqual({ ...held[0] }, { dup: 0, missing: 0, untombstoned: 0 });
}

/** After a fold: one head of <= 128 postings per list, tails of <= 1000 below it, blocks sorted. */
async function checkLayout(sql: Sql): Promise<void> {
  const [r] = await sql<{ fresh: number; heads: number; big_head: number; above: number; unsorted: number; partial_tails: number }[]>`
    with b as (select *, (select array_agg(text_posting_impact(p) order by o) from unnest(postings) with ordinality u(p, o)) as imps from text_blocks where df > 0),
         head_min as (select coll, lexeme, imps[cardinality(imps)] as m from b where kind = 1)
    select (select count(*) from text_fresh)::int as fresh,
           (select count(*) from (select 1 from b where kind = 1 group by coll, lexeme having count(*) > 1) x)::int as heads,
           (select count(*) from b where kind = 1 and df > 128)::int as big_head,
           (select count(*) from b join head_min h using (coll, lexeme) where b.kind = 2 and b.max_impact > h.m)::int as above,
           (select count(*) from b where max_impact <> imps[1] or exists (select 1 from generate_series(2, cardinality(imps)) i where imps[i] > imps[i - 1]))::int as unsorted,
           (select count(*) from (select 1 from b where kind = 2 and df < 1000 group by coll, lexeme having count(*) > 1) x)::int as partial_tails`;
  assert.deepEqual({ ...r }, { fresh: 0, heads: 0, big_head: 0, above: 0, unsorted: 0, partial_tails: 0 });
}

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
    await check(d.deps.sql);
    await d.deps.sql`select fold_text_stats()`;
    await check(d.deps.sql);
    await checkLayout(d.deps.sql);
    const [tails] = await d.deps.sql<{ n: number }[]>`select count(*)::int as n from text_blocks where lexeme = 'common' and kind = 2`;
    assert.ok(tails!.n >= 2, 'the "common" list has full tail blocks');
  });

  it('keeps dead postings of a long list tombstoned, folds new high-impact postings into its head', async () => {
    const sql = d.deps.sql;
    // Deleting 100 of 2,600 (under 1/16) leaves the long list partly rewritten.
    await sql`delete from chunks where document_id = any(${docs.slice(0, 100)}::uuid[])`;
    const fresh = await fill(sql, t, coll, ['common common common common', 'common common zeta', 'common']);
    await check(sql);
    await sql`select fold_text_stats()`;
    await check(sql);
    await checkLayout(sql);
    const [dead] = await sql<{ n: number }[]>`select count(*)::int as n from text_blocks where lexeme = 'common' and df < 0`;
    assert.ok(dead!.n === 1, 'dead postings in full tail blocks stay tombstoned');
    const [head] = await sql<{ nos: number[] }[]>`
      select array(select (p >> 32)::int from unnest(postings) p) as nos from text_blocks b join collections c on c.no = b.coll
       where c.id = ${coll} and lexeme = 'common' and kind = 1`;
    const [best] = await sql<{ no: number }[]>`select no from chunks where document_id = ${fresh[0]!}`;
    assert.ok(head!.nos.includes(best!.no), 'the new best posting of "common" is in the head');
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
    assert.equal(r.body.results[0].chunk_id, top!.id, 'the folded head holds the best posting');
    const exact = new Map((await exhaustiveBm25(d.deps.sql, [coll], 'common', 5000)).map((w) => [w.id, w.score]));
    for (const hit of r.body.results) assert.ok(Math.abs(hit.explain.text.score - exact.get(hit.chunk_id)!) < 1e-6, 'exact score');
  });

  it('rewrites a list whole once enough of it is dead, dropping its tombstones', async () => {
    const sql = d.deps.sql;
    await sql`delete from chunks where document_id = any(${docs.slice(100, 400)}::uuid[])`;
    await sql`select fold_text_stats()`;
    await check(sql);
    await checkLayout(sql);
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
    assert.deepEqual(await foldTextIndex(sql), { shrunk: false }, 'small indexes are left alone');
    await fill(
      sql,
      t,
      coll,
      Array.from({ length: 200 }, (_, i) => text(21_000 + i)),
    );
    const [r] = await Promise.all([
      foldTextIndex(sql, { freshIndexSlack: 0 }),
      fill(
        sql,
        t,
        coll,
        Array.from({ length: 50 }, (_, i) => text(22_000 + i)),
      ),
    ]);
    assert.deepEqual(r, { shrunk: true });
    assert.notEqual(await files(), before, 'the indexes were rebuilt');
    await check(sql);
    await foldTextIndex(sql);
    await check(sql);
    await checkLayout(sql);
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
    await check(sql);
    await sql`select fold_text_stats()`;
    await check(sql);
    await checkLayout(sql);
  });
});
