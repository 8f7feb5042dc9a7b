import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addText, makeCollection, waitSettled } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type TestDaemon } from './helpers/daemon.js';

/** Statistics as the search query sees them (base + deltas) against a recount from the chunks. */
async function compare(d: TestDaemon) {
  const sql = d.deps.sql;
  const terms = await sql<{ collection_id: string; lexeme: string; df: number }[]>`
    select collection_id, lexeme, sum(df)::int as df from (
      select collection_id, lexeme, df from term_stats union all select collection_id, lexeme, df from term_stats_delta) s
    group by 1, 2 having sum(df) <> 0 order by 1, 2`;
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
  const postings = await sql<{ n: number }[]>`select count(*)::int as n from chunk_postings`;
  const expected = await sql<{ n: number }[]>`select count(*)::int as n from chunks c, unnest(c.tsv)`;
  assert.equal(postings[0]!.n, expected[0]!.n);
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
    >`select (select count(*) from term_stats_delta) + (select count(*) from collection_text_stats_delta) as n`;
    assert.equal(Number(deltas[0]!.n), 0, 'folded');
    await compare(d);
    const again = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'delta', mode: 'text', explain: true, limit: 10 } });
    assert.deepEqual(
      again.body.results.map((r: any) => r.chunk_id),
      top.body.results.filter((r: any) => r.collection_slug !== c1.slug).map((r: any) => r.chunk_id),
    );
  });
});
