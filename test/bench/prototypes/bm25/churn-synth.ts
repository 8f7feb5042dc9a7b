// Correctness of the statistics under concurrent ingest, deletes and updates, before and
// after folding the deltas; plus ingest throughput with the final index set and the lock
// waits seen while several workers ingest into the same collections.
// Usage: node --import tsx churn-synth.ts [db=bm25_synth] [newChunks=5000] [workers=2]
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { connect, loadTestQueries, percentile, type Sql } from './lib.js';
import { bm25MaxScore } from './maxscore-query.js';
import { makeGenerator, rng } from '../../search/synth-text.js';

const db = process.argv[2] ?? 'bm25_synth';
const newChunks = Number(process.argv[3] ?? 5000);
const workers = Number(process.argv[4] ?? 2);
const sql = connect(db);
const gen = makeGenerator(4242);
const rand = rng(99);
const colls = await sql<{ id: string; n: number }[]>`
  select collection_id as id, n_chunks::int as n from collection_text_stats order by n_chunks desc`;
const big = colls[0]?.id ?? '';

// Stats that disagree with a recount from the postings / chunks themselves.
async function mismatches(s: Sql): Promise<{ terms: number; colls: number }> {
  const [t] = await s<{ n: number }[]>`
    with live as (select collection_id, lexeme, count(*) as df from chunk_postings group by 1, 2),
    kept as (
      select collection_id, lexeme, sum(df) as df
      from (select collection_id, lexeme, df from term_stats
            union all select collection_id, lexeme, df from term_stats_delta) u
      group by 1, 2 having sum(df) <> 0
    )
    select count(*)::int as n from live full join kept using (collection_id, lexeme)
    where live.df is distinct from kept.df`;
  const [c] = await s<{ n: number }[]>`
    with live as (
      select collection_id, count(*) as n,
             sum((select coalesce(sum(coalesce(cardinality(positions), 1)), 0) from unnest(tsv))) as len
      from chunks group by 1
    ),
    kept as (
      select collection_id, sum(n_chunks) as n, sum(total_len) as len
      from (select collection_id, n_chunks, total_len from collection_text_stats
            union all select collection_id, n_chunks, total_len from collection_text_stats_delta) u
      group by 1 having sum(n_chunks) <> 0
    )
    select count(*)::int as n from live full join kept using (collection_id)
    where live.n is distinct from kept.n or live.len is distinct from kept.len`;
  return { terms: t?.n ?? -1, colls: c?.n ?? -1 };
}

// Phase A: concurrent ingest, sampling what sessions wait on.
const waits = new Map<string, number>();
const conns = Array.from({ length: workers }, () => connect(db));
const sampler = setInterval(() => {
  void sql<{ w: string }[]>`
    select wait_event_type || ':' || wait_event as w from pg_stat_activity
    where datname = ${db} and wait_event_type in ('Lock', 'LWLock')`.then((rows) => {
    for (const r of rows) waits.set(r.w, (waits.get(r.w) ?? 0) + 1);
  });
}, 200);
let left = newChunks;
const t0 = performance.now();
await Promise.all(
  conns.map(async (c) => {
    while (left > 0) {
      const n = Math.min(left, 1 + Math.floor(rand() * 20));
      left -= n;
      // Half the documents go to the big tenant, so workers really collide on its lexemes.
      const coll = rand() < 0.5 ? big : (colls[Math.floor(rand() * colls.length)]?.id ?? big);
      const parts = Array.from({ length: n }, () => gen());
      await c`
      insert into chunks (id, document_id, collection_id, chunk_index, content, tsv)
      select gen_random_uuid(), ${randomUUID()}::uuid, ${coll}::uuid, i::int - 1, body,
             to_tsvector('english', title || E'\n' || body)
      from unnest(${parts.map((p) => p.title)}::text[], ${parts.map((p) => p.content)}::text[])
        with ordinality as t(title, body, i)`;
    }
  }),
);
const ingestSec = (performance.now() - t0) / 1000;
clearInterval(sampler);
await Promise.all(conns.map((c) => c.end()));

// Phase B: delete 200 whole documents, rewrite 200 chunks (tsv changes), touch embeddings.
const delDocs = await sql<{ document_id: string }[]>`
  select document_id from chunks group by document_id order by md5(document_id::text) limit 200`;
let t = performance.now();
await sql`delete from chunks where document_id = any(${delDocs.map((d) => d.document_id)}::uuid[])`;
const deleteMs = performance.now() - t;
t = performance.now();
await sql`
  update chunks set content = content || ' appended erratum text',
    tsv = to_tsvector('english', content || ' appended erratum text')
  where id in (select id from chunks order by md5(id::text) limit 200)`;
const updateMs = performance.now() - t;
await sql`update chunks set embedding = null where id in (select id from chunks order by md5(id::text) limit 500)`;

const before = await mismatches(sql);
const [d] = await sql<{ n: number }[]>`select count(*)::int as n from term_stats_delta`;
const queries = loadTestQueries().slice(0, 100);
const search = (q: string) => bm25MaxScore(sql, { q, ids: [big], budget: 5000, k: 100, m: 200, n: 100 });
const runAll = async () => {
  const ms: number[] = [];
  const out: string[] = [];
  for (const q of queries) {
    const s = performance.now();
    const r = await search(q.text);
    ms.push(performance.now() - s);
    out.push(r.map((x) => `${x.chunk_id}:${x.score.toFixed(9)}`).join(','));
  }
  return { ms, out };
};
await runAll();
const unfolded = await runAll();
t = performance.now();
await sql`select fold_text_stats()`;
const foldMs = performance.now() - t;
await sql`vacuum analyze`;
const after = await mismatches(sql);
const folded = await runAll();
const same = unfolded.out.filter((o, i) => o === folded.out[i]).length;

const result = {
  workers,
  newChunks,
  ingestSec,
  chunksPerSec: newChunks / ingestSec,
  waitSamples: Object.fromEntries(waits),
  deleteDocs: delDocs.length,
  deleteMs,
  updateChunks: 200,
  updateMs,
  deltaRowsBeforeFold: d?.n,
  mismatchesBeforeFold: before,
  mismatchesAfterFold: after,
  foldMs,
  identicalResultsUnfoldedVsFolded: `${same}/${queries.length}`,
  p50Unfolded: percentile(unfolded.ms, 50),
  p50Folded: percentile(folded.ms, 50),
};
console.log(JSON.stringify(result, null, 2));
writeFileSync(new URL(`./results/churn-${db}.json`, import.meta.url), JSON.stringify(result, null, 2));
await sql.end();
