import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';

/** Statistics as the search query sees them (base + deltas) against a recount from the chunks. */
async function compare(d: TestDaemon) {
  const sql = d.deps.sql;
  // Document frequency = sum(df) over a list's rows (blocks count their postings, tombstones
  // subtract the dead ones still held).
  const terms = await sql<{ collection_id: string; lexeme: string; df: number }[]>`
    select c.id as collection_id, b.lexeme, sum(b.df)::int as df
      from text_lists b join collections c on c.no = b.coll
     group by 1, 2 having sum(b.df) <> 0 order by 1, 2`;
  const recount = await sql<{ collection_id: string; lexeme: string; df: number }[]>`
    select c.collection_id, x.lexeme, count(*)::int as df from chunks c, unnest(c.tsv) x group by 1, 2 order by 1, 2`;
  assert.deepEqual(
    terms.map((r) => ({ ...r })),
    recount.map((r) => ({ ...r })),
  );
  const colls = await sql<{ collection_id: string; n: number; len: number }[]>`
    select collection_id, sum(n_chunks)::int as n, sum(total_len)::int as len from (
      select collection_id, n_chunks, total_len from collection_text_stats
      union all select collection_id, n_chunks, total_len from collection_text_stats_delta) s
    group by 1 having sum(n_chunks) <> 0 order by 1`;
  const colRecount = await sql<{ collection_id: string; n: number; len: number }[]>`
    select collection_id, count(*)::int as n, sum((select coalesce(sum(coalesce(cardinality(x.positions), 1)), 0) from unnest(c.tsv) x))::int as len
      from chunks c group by 1 order by 1`;
  assert.deepEqual(
    colls.map((r) => ({ ...r })),
    colRecount.map((r) => ({ ...r })),
  );
  // Every live (chunk, lexeme) pair is held exactly once in its collection's list, with its tf and
  // length; anything else held is a dead chunk's posting, and tombstoned.
  const held = await sql<{ coll: string; no: number; lexeme: string; tf: number; dl: number }[]>`
    select c.id as coll, (p >> 32)::int as no, b.lexeme, ((p >> 22) & 1023)::int as tf, (p & 4194303)::int as dl
      from text_lists b join collections c on c.no = b.coll cross join unnest(b.postings) p
     where b.df > 0 order by 1, 2, 3`;
  const live = await sql<{ coll: string; no: number; lexeme: string; tf: number; dl: number }[]>`
    select k.collection_id as coll, k.no, x.lexeme, coalesce(cardinality(x.positions), 1)::int as tf,
           (select coalesce(sum(coalesce(cardinality(y.positions), 1)), 0) from unnest(k.tsv) y)::int as dl
      from chunks k, unnest(k.tsv) x order by 1, 2, 3`;
  const liveNos = new Set(live.map((r) => r.no));
  assert.deepEqual(
    held.filter((r) => liveNos.has(r.no)).map((r) => ({ ...r })),
    live.map((r) => ({ ...r })),
  );
  const dead = held.filter((r) => !liveNos.has(r.no)).map((r) => `${r.coll} ${r.lexeme} ${r.no}`);
  const tombstoned = await sql<{ k: string }[]>`
    select c.id || ' ' || b.lexeme || ' ' || (p >> 32)::int as k
      from text_lists b join collections c on c.no = b.coll cross join unnest(b.postings) p where b.df < 0`;
  assert.deepEqual(dead.sort(), tombstoned.map((r) => r.k).sort());
}

describe('BM25 statistics stay exact', () => {
  let d: TestDaemon;
  before(async () => {
    d = await startTestDaemon({ label: 'bm25stats', worker: true });
  });
  after(async () => d?.close());

  it('through add, replace, reprocess, delete, collection delete and folding', async () => {
    const req = http(d.url);
    const t = await createTenant(d);
    const c1 = await makeCollection(req, t.key, 'One');
    const c2 = await makeCollection(req, t.key, 'Two');
    const docs = [];
    for (let i = 0; i < 6; i++)
      docs.push(
        await addText(
          req,
          t.key,
          i % 2 ? c1.uuid : c2.uuid,
          `Doc ${i}`,
          `alpha beta gamma ${'delta '.repeat(i)} epsilon document number ${i}`,
        ),
      );
    await waitSettled(
      req,
      t.key,
      docs.map((x) => x.uuid),
    );
    await compare(d);

    const fd = new FormData();
    fd.append('file', new Blob(['zeta eta theta replaced text'], { type: 'text/plain' }), 'r.txt');
    assert.equal((await req('POST', `/api/v1/documents/${docs[0].uuid}/replace/`, { key: t.key, body: fd })).status, 200);
    assert.equal((await req('POST', `/api/v1/documents/${docs[1].uuid}/reprocess/`, { key: t.key })).status, 200);
    assert.equal((await req('DELETE', `/api/v1/documents/${docs[2].uuid}/`, { key: t.key })).status, 204);
    await waitSettled(req, t.key, [docs[0].uuid, docs[1].uuid]);
    await compare(d);

    const top = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'delta', mode: 'text', explain: true, limit: 10 } });
    assert.equal(top.body.results[0].title, 'Doc 5', 'most deltas ranks first');

    assert.equal((await req('DELETE', `/api/v1/collections/${c1.uuid}/`, { key: t.key })).status, 204);
    await compare(d);
    await d.deps.sql`select fold_text_stats()`;
    const deltas = await d.deps.sql<
      { n: number }[]
    >`select (select count(*) from text_fresh) + (select count(*) from text_blocks where df < 0) + (select count(*) from collection_text_stats_delta) as n`;
    assert.equal(Number(deltas[0]!.n), 0, 'folded');
    await compare(d);
    const again = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'delta', mode: 'text', explain: true, limit: 10 } });
    assert.deepEqual(
      again.body.results.map((r: any) => r.chunk_id),
      top.body.results.filter((r: any) => r.collection_slug !== c1.slug).map((r: any) => r.chunk_id),
    );
  });
});
