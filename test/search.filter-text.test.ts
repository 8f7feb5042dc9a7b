// The text channel under a selective filter: a word in every chunk is read through its best blocks
// only, so the chunks that pass a filter matching a few documents may lie outside them. Every
// passing chunk that contains a query word must still be found, ranked as exhaustive BM25 ranks
// it, and nothing of another tenant's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exhaustiveBm25 } from './helpers/bm25.js';
import { makeCollection } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

const CHUNKS = 3000;
const PASSING = 12; // documents with {"team": "rare"}, one chunk each

async function fill(d: TestDaemon, t: Tenant, collectionId: string, team: (i: number) => string): Promise<void> {
  await d.deps.sql.begin(async (tx) => {
    const ids = await tx<{ id: string; i: number }[]>`
      insert into documents (collection_id, uploaded_by, title, source_type, status, chunks_count, indexed_at, metadata)
      select ${collectionId}, ${t.userId}, 'Doc ' || g, 'text', 'indexed', 1, now(), jsonb_build_object('team', m)
        from unnest(${Array.from({ length: CHUNKS }, (_, i) => team(i))}::text[]) with ordinality as x(m, g)
      returning id, (regexp_replace(title, '\\D', '', 'g'))::int as i`;
    ids.sort((a, b) => a.i - b.i);
    // "common" in every chunk, repeated in the long ones: far past the 5,000-posting budget's share.
    const text = (i: number) => `${'common '.repeat(1 + (i % 7))}filler word${i % 13} ${i % 3 ? 'kinase' : ''}`;
    await tx`
      insert into chunks (document_id, collection_id, generation, chunk_index, content, embedding_model, tsv)
      select x.id, ${collectionId}, 1, 0, x.content, 'none', docsift_tsvector('docsift_english', x.content)
        from unnest(${ids.map((r) => r.id)}::uuid[], ${ids.map((r) => text(r.i))}::text[]) as x(id, content)`;
  });
  await d.deps.sql`select fold_text_stats()`;
}

describe('search: the text channel under a selective filter', () => {
  let d: TestDaemon;
  let a: Tenant;
  let b: Tenant;
  let coll: string;
  let otherColl: string;

  before(async () => {
    d = await startTestDaemon({ label: 'filtertext' });
    const req = http(d.url);
    a = await createTenant(d, 'ft-a');
    b = await createTenant(d, 'ft-b');
    coll = (await makeCollection(req, a.key, 'Teams')).uuid;
    otherColl = (await makeCollection(req, b.key, 'Teams b')).uuid;
    // The passing documents are spread through the collection, none among the best-scored.
    await fill(d, a, coll, (i) => (i % Math.floor(CHUNKS / PASSING) === 5 ? 'rare' : 'many'));
    await fill(d, b, otherColl, () => 'rare');
    await d.deps.sql`analyze chunks`;
  });
  after(async () => d?.close());

  const search = async (key: string, json: Record<string, unknown>) => {
    const r = await http(d.url)('POST', '/api/v1/search/', { key, json: { mode: 'text', limit: 50, ...json } });
    assert.equal(r.status, 200, r.text);
    return r.body.results as { chunk_id: string; score: number; explain?: { text?: { score: number } } }[];
  };

  it('finds every passing chunk with a common word, in exhaustive BM25 order', async () => {
    const passing = await d.deps.sql<{ id: string }[]>`
      select k.id from chunks k join documents d on d.id = k.document_id where d.collection_id = ${coll} and d.metadata @> '{"team": "rare"}'`;
    assert.equal(passing.length, PASSING);
    const got = await search(a.key, { query: 'common', collection: coll, filter: { team: 'rare' }, explain: true });
    assert.equal(got.length, PASSING, `every passing chunk contains "common" (got ${got.length})`);
    const ids = new Set(passing.map((p) => p.id));
    for (const g of got) assert.ok(ids.has(g.chunk_id), 'only chunks that pass the filter');
    const exact = (await exhaustiveBm25(d.deps.sql, [coll], 'common', CHUNKS)).filter((w) => ids.has(w.id));
    assert.deepEqual(
      got.map((g) => g.explain!.text!.score.toFixed(6)),
      exact.map((w) => w.score.toFixed(6)),
      'scores and order as exhaustive BM25 over the collection',
    );
  });

  it('combines with a second word, phrases and exclusions', async () => {
    const got = await search(a.key, { query: 'common kinase -word5', collection: coll, filter: { team: 'rare' } });
    const rows = await d.deps.sql<{ id: string }[]>`
      select k.id from chunks k join documents d on d.id = k.document_id
       where d.collection_id = ${coll} and d.metadata @> '{"team": "rare"}' and k.content not like '%word5 %'`;
    assert.deepEqual(got.map((g) => g.chunk_id).sort(), rows.map((r) => r.id).sort());
  });

  it('never returns another tenant’s chunks, though they pass the same filter', async () => {
    const got = await search(a.key, { query: 'common', filter: { team: 'rare' } });
    const foreign = new Set(
      (await d.deps.sql<{ id: string }[]>`select id from chunks where collection_id = ${otherColl}`).map((r) => r.id),
    );
    assert.equal(got.length, PASSING);
    for (const g of got) assert.ok(!foreign.has(g.chunk_id));
    const theirs = await search(b.key, { query: 'common', collection: otherColl, filter: { team: 'rare' } });
    assert.equal(theirs.length, 50, 'the other tenant finds its own, up to the limit');
  });

  it('a filter nothing passes answers no result, not an error', async () => {
    assert.deepEqual(await search(a.key, { query: 'common', collection: coll, filter: { team: 'nobody' } }), []);
  });
});
