import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exhaustiveBm25 } from './helpers/bm25.js';
import { makeCollection } from './helpers/docs.js';
import { createTenant, http, startTestDaemon, type Tenant, type TestDaemon } from './helpers/daemon.js';

// The text channel reads common lexemes only through pruned top-K lists, from per-collection
// lists or, when the searched collections hold most of the corpus, from global ones. Both paths
// need corpora where some query lexemes exceed the 5,000-posting budget, so chunks are written
// straight into the tables here (the triggers build postings and statistics as ingestion does).
// The oracle is exhaustive BM25 computed from chunks.tsv alone.

const VOCAB = [
  'cell',
  'protein',
  'gene',
  'tumor',
  'immune',
  'virus',
  'brain',
  'heart',
  'blood',
  'insulin',
  'neuron',
  'muscle',
  'liver',
  'kidney',
  'enzyme',
  'receptor',
];
const RARE = ['telomerase', 'microglia', 'apoptosis', 'cholesterol', 'dopamine'];

/** Deterministic text: every chunk has "common"; vocabulary words Zipf-like; a rare word in one chunk of 40. */
function chunkText(i: number): string {
  const words = ['common', 'study'];
  let x = (i * 2654435761) >>> 0;
  const n = 5 + (i % 9);
  for (let j = 0; j < n; j++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(VOCAB[Math.floor(VOCAB.length * (x / 2 ** 32) ** 2)]!);
  }
  if (i % 40 === 7) words.push(RARE[((i / 40) % RARE.length) | 0]!);
  if (i % 3 === 0) words.push('common');
  return words.join(' ');
}

async function fill(d: TestDaemon, t: Tenant, collectionId: string, from: number, count: number): Promise<void> {
  const docs = Math.ceil(count / 10);
  await d.deps.sql.begin(async (tx) => {
    const ids = await tx<{ id: string }[]>`
      insert into documents (collection_id, uploaded_by, title, source_type, status, chunks_count, indexed_at)
      select ${collectionId}, ${t.userId}, 'Doc ' || g, 'text', 'indexed', 10, now() from generate_series(1, ${docs}) g returning id`;
    const texts = Array.from({ length: count }, (_, k) => chunkText(from + k));
    await tx`
      insert into chunks (document_id, collection_id, generation, chunk_index, content, embedding_model, tsv)
      select (${ids.map((r) => r.id)}::uuid[])[(k - 1) / 10 + 1], ${collectionId}, 1, (k - 1) % 10, t.content, 'none',
             to_tsvector('english', 'Doc ' || t.content)
        from unnest(${texts}::text[]) with ordinality as t(content, k)`;
  });
}

const QUERIES = ['common telomerase protein', 'common study gene receptor', 'microglia dopamine common immune', 'cell common'];

describe('BM25 pruning stays exact where it scores', () => {
  const overlap = { small: [] as number[], big: [] as number[] };
  let d: TestDaemon;
  let small: Tenant;
  let big: Tenant;
  const smallColls: string[] = [];
  const bigColls: string[] = [];

  before(async () => {
    d = await startTestDaemon({ label: 'bm25prune' });
    const req = http(d.url);
    small = await createTenant(d, 'small');
    big = await createTenant(d, 'big');
    for (const [t, list, sizes] of [
      [small, smallColls, [400, 300, 200]],
      [big, bigColls, [6000, 2100]],
    ] as const) {
      let from = list === smallColls ? 100_000 : 0;
      for (const [i, size] of sizes.entries()) {
        const c = await makeCollection(req, t.key, `${t === small ? 'Small' : 'Big'} ${i}`);
        (list as string[]).push(c.uuid);
        await fill(d, t, c.uuid, from, size);
        from += size;
        // Statistics live in folded base rows and in deltas: both must be read, and scoped.
        if (i === 0) await d.deps.sql`select fold_text_stats()`;
      }
    }
    await d.deps.sql`analyze chunks`;
  });
  after(async () => d?.close());

  it('covers both candidate lists: a small multi-collection tenant and one holding most of the corpus', async () => {
    const share = async (ids: string[]) =>
      (
        await d.deps.sql<{ s: number }[]>`
        select (select count(*) from chunks where collection_id = any(${ids}::uuid[]))::float8 / (select reltuples from pg_class where oid = 'chunks'::regclass) as s`
      )[0]!.s;
    assert.ok((await share(smallColls)) < 0.25, 'the small tenant searches per-collection lists');
    assert.ok((await share(bigColls)) >= 0.25, 'the big tenant searches the global lists');
    const df = await d.deps.sql<{ base: number; delta: number }[]>`
      select (select sum(b.df) from text_blocks b join collections c on c.no = b.coll
               where b.lexeme = 'common' and b.kind in (1, 2) and c.id = any(${bigColls}::uuid[]))::int as base,
             (select sum(b.df) from text_fresh b join collections c on c.no = b.coll
               where b.lexeme = 'common' and c.id = any(${bigColls}::uuid[]))::int as delta`;
    assert.ok(df[0]!.base > 0 && df[0]!.delta > 0, 'postings are split between folded blocks and fresh rows');
    assert.ok(df[0]!.base + df[0]!.delta > 5000, '"common" is past the read-everything budget, so only its top-K lists are read');
  });

  for (const query of QUERIES) {
    it(`"${query}": scores equal exhaustive BM25 and the top 10 is measured, for both tenants`, async () => {
      const req = http(d.url);
      for (const [t, ids] of [
        [small, smallColls],
        [big, bigColls],
      ] as const) {
        const r = await req('POST', '/api/v1/search/', { key: t.key, json: { query, mode: 'text', limit: 10, explain: true } });
        assert.equal(r.status, 200, r.text);
        const want = await exhaustiveBm25(d.deps.sql, [...ids], query, 200);
        const exactScore = new Map(want.map((w) => [w.id, w.score]));
        assert.equal(r.body.results.length, 10);
        for (const hit of r.body.results) {
          const s = exactScore.get(hit.chunk_id);
          assert.ok(s !== undefined, `${hit.chunk_id} is within the exhaustive top 200`);
          assert.ok(Math.abs(hit.explain.text.score - s) < 1e-6, `exact score for ${hit.chunk_id}: ${hit.explain.text.score} vs ${s}`);
        }
        // Pruning may miss chunks that are in no candidate list, never mis-score the ones it finds:
        // results are in exact-score order, and agreement with the exhaustive top 10 is measured
        // (multiset of scores, as ties make ids ambiguous).
        const got: number[] = r.body.results.map((h: { explain: { text: { score: number } } }) => h.explain.text.score);
        assert.deepEqual(
          got,
          [...got].sort((a, b) => b - a),
        );
        const pool = want.slice(0, 10).map((w) => w.score.toFixed(6));
        let found = 0;
        for (const g of got.map((x) => x.toFixed(6))) {
          const at = pool.indexOf(g);
          if (at >= 0) pool.splice(at, 1), found++;
        }
        overlap[t === small ? 'small' : 'big'].push(found / 10);
      }
    });
  }

  it('top-10 agreement with exhaustive BM25: complete for per-collection lists, at least 0.85 on average for global ones', () => {
    assert.equal(overlap.small.length, QUERIES.length);
    assert.deepEqual(
      overlap.small,
      QUERIES.map(() => 1),
    );
    const mean = overlap.big.reduce((a, b) => a + b, 0) / overlap.big.length;
    assert.ok(mean >= 0.85, `global lists: mean top-10 agreement ${mean} (${overlap.big.join(', ')})`);
  });

  it('tenants never see each other through either list', async () => {
    const req = http(d.url);
    for (const [t, other] of [
      [small, bigColls],
      [big, smallColls],
    ] as const) {
      const foreign = new Set(
        (await d.deps.sql<{ id: string }[]>`select id from chunks where collection_id = any(${[...other]}::uuid[])`).map((r) => r.id),
      );
      const r = await req('POST', '/api/v1/search/', { key: t.key, json: { query: 'common telomerase', mode: 'text', limit: 50 } });
      assert.equal(r.status, 200);
      assert.equal(r.body.results.length, 50);
      for (const hit of r.body.results) assert.ok(!foreign.has(hit.chunk_id), 'no chunk of the other tenant');
    }
  });
});
