// Quality + latency of text-channel variants on SciFact (300 test queries).
// Requires: node --import tsx load-scifact.ts   (database bm25_scifact)
// Usage: node --import tsx eval-scifact.ts [database] [collectionId]
import { bm25MaxScore } from './maxscore-query.js';
import { operatorFilter } from '../../../../daemon/src/search/operators.js';
import { bm25Search, connect, loadTestQueries, mean, ndcgAt10, percentile, recallAt, scifactCollection, uuidDoc, type Sql } from './lib.js';

const db = process.argv[2] ?? 'bm25_scifact';
const coll = process.argv[3] ?? scifactCollection;
const sql = connect(db);
const queries = loadTestQueries();
const exhaustive = 1_000_000_000;

type Runner = (q: string) => Promise<string[]>;

async function evaluate(label: string, run: Runner): Promise<void> {
  for (const q of queries.slice(0, 20)) await run(q.text); // warm cache + plan cache
  const nd: number[] = [];
  const rc: number[] = [];
  const ms: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const ranked = await run(q.text);
    ms.push(performance.now() - t0);
    nd.push(ndcgAt10(ranked, q.relevant));
    rc.push(recallAt(ranked, q.relevant, 100));
  }
  console.log(
    [label.padEnd(44), mean(nd).toFixed(4), mean(rc).toFixed(4), percentile(ms, 50).toFixed(1), percentile(ms, 99).toFixed(1)].join(' | '),
  );
}

const bm25 =
  (k: number, k1 = 0.9, b = 0.4, rescore = 0): Runner =>
  async (q) =>
    (await bm25Search(sql, { q, ids: [coll], k, n: 100, k1, b, rescore })).map((r) => uuidDoc(r.chunk_id));

// ts_rank over OR-ed lexemes: the baseline from the issue.
const tsRank: Runner = async (q) =>
  (
    await sql<{ id: string }[]>`
  with qq as (select replace(plainto_tsquery('english', ${q})::text, '&', '|')::tsquery as tq)
  select id from chunks, qq where collection_id = ${coll} and tsv @@ tq
  order by ts_rank(tsv, tq) desc limit 100`
  ).map((r) => uuidDoc(r.id));

// AND semantics: exhaustive BM25 restricted to chunks matching every query lexeme.
const bm25And: Runner = async (q) => {
  const hits = await bm25Search(sql, { q, ids: [coll], k: exhaustive, n: 100_000 });
  if (hits.length === 0) return [];
  const ok = await sql<{ id: string }[]>`
    select id from chunks where id = any(${hits.map((h) => h.chunk_id)}::uuid[])
      and tsv @@ plainto_tsquery('english', ${q})`;
  const keep = new Set(ok.map((r) => r.id));
  return hits
    .filter((h) => keep.has(h.chunk_id))
    .slice(0, 100)
    .map((h) => uuidDoc(h.chunk_id));
};

async function setRefLen(len: number): Promise<void> {
  await sql`update chunk_postings set impact = (tf * 1.9 / (tf + 0.9 * (0.6 + 0.4 * doc_len / ${len}::float8)))::real`;
  await sql`vacuum analyze chunk_postings`;
}

async function parserEdgeCases(s: Sql): Promise<void> {
  const odd = [
    '',
    '-',
    '"',
    '"unterminated phrase',
    'a & b | !c :* (d',
    "o'brien's \\ x",
    'the of and',
    '-mice "gene expression" covid-19',
    'IL-6 or TNF',
    '💥 ∆ émigré',
  ];
  for (const q of odd) {
    const r = await bm25Search(s, { q, ids: [coll], k: 100, n: 3 });
    const [lx] = await s<{ l: string[] }[]>`
      select coalesce(array_agg(distinct replace(m[1], '''''', '''')), '{}') as l
      from regexp_matches(querytree(websearch_to_tsquery('english', ${q})), '''((?:[^'']|'''')*)''', 'g') as m`;
    console.log(`  ${JSON.stringify(q).padEnd(36)} lexemes=${JSON.stringify(lx?.l)} hits=${r.length}`);
  }
}

console.log('variant | nDCG@10 | Recall@100 | p50 ms | p99 ms');
const mode = process.argv[4] ?? 'all';
if (mode === 'all' || mode === 'base') {
  await evaluate('ts_rank, OR-ed lexemes', tsRank);
  await evaluate('BM25 exhaustive k1=0.9 b=0.4', bm25(exhaustive));
  await evaluate('BM25 exhaustive k1=1.2 b=0.75', bm25(exhaustive, 1.2, 0.75));
  await evaluate('BM25 exhaustive AND semantics k1=0.9 b=0.4', bm25And);
  for (const k of [100, 200, 500, 1000, 2000]) await evaluate(`BM25 top-K=${k} k1=0.9 b=0.4`, bm25(k));
  for (const k of [200, 1000]) await evaluate(`BM25 top-K=${k} k1=1.2 b=0.75`, bm25(k, 1.2, 0.75));
  console.log('query parser edge cases (must never error):');
  await parserEdgeCases(sql);
}
if (mode === 'all' || mode === 'rescore') {
  for (const k of [100, 200, 500, 1000]) {
    for (const m of [100, 200, 500]) await evaluate(`BM25 top-K=${k} + rescore M=${m}`, bm25(k, 0.9, 0.4, m));
  }
}
if (mode === 'all' || mode === 'reflen') {
  for (const len of [30, 154, 400]) {
    await setRefLen(len);
    for (const k of [100, 200]) await evaluate(`ref_len=${len} top-K=${k}`, bm25(k));
  }
  await setRefLen(100);
}
if (mode === 'all' || mode === 'filter') {
  // Operator queries: every hit must satisfy the phrase / negation filter.
  for (const q of [
    '"gene expression" stem cells',
    'stem cells -mice',
    '-"embryonic stem" cells differentiation',
    'vitamin D -"vitamin D3" deficiency',
  ]) {
    const filter = operatorFilter(q);
    const plain = await bm25MaxScore(sql, { q, ids: [coll], budget: 5000, k: 100, m: 200, n: 100 });
    const hits = await bm25MaxScore(sql, { q, ids: [coll], budget: 5000, k: 100, m: 200, n: 100, filter });
    const [bad] = await sql<{ n: number }[]>`
      select count(*)::int as n from chunks
      where id = any(${hits.map((h) => h.chunk_id)}::uuid[])
        and not tsv @@ websearch_to_tsquery('english', ${filter})`;
    console.log(
      `  ${JSON.stringify(q).padEnd(44)} filter=${JSON.stringify(filter)} plain=${plain.length} filtered=${hits.length} violating=${bad?.n}`,
    );
  }
}
await sql.end();
