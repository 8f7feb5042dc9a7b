// Shared helpers for the BM25 prototype: scratch-cluster connection, SciFact loading,
// IR metrics and the recommended text-channel query.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';

export type Sql = postgres.Sql<Record<string, never>>;

const dataDir = '/work/shared/datasets/beir-scifact';
export const schemaFile = fileURLToPath(new URL('./schema.sql', import.meta.url));
export const scifactCollection = '5c1fac70-0000-4000-8000-000000000000';

export function connect(database: string): Sql {
  // Notices ("query contains only stop words") are expected for some queries; keep output clean.
  // BM25_PLAN_CACHE / BM25_JIT let a run compare generic vs custom plans and JIT on/off.
  const planCache = process.env.BM25_PLAN_CACHE ?? 'auto';
  return postgres({
    host: '127.0.0.1',
    port: 55432,
    user: 'postgres',
    database,
    max: 1,
    onnotice: () => {},
    connection: { plan_cache_mode: planCache, jit: process.env.BM25_JIT ?? 'off' },
  });
}

export async function recreateDatabase(name: string): Promise<Sql> {
  const admin = connect('postgres');
  await admin.unsafe(`drop database if exists ${name}`);
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const sql = connect(name);
  await sql.file(schemaFile);
  return sql;
}

export interface ScifactDoc {
  id: string;
  title: string;
  text: string;
}

export function loadCorpus(): ScifactDoc[] {
  const raw = gunzipSync(readFileSync(`${dataDir}/corpus.jsonl.gz`)).toString('utf8');
  return raw
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => {
      const o = JSON.parse(l) as { _id: string; title: string; text: string };
      return { id: o._id, title: o.title, text: o.text };
    });
}

// The 300 test queries (those present in the test qrels) with their relevant doc ids.
export function loadTestQueries(): { id: string; text: string; relevant: Set<string> }[] {
  const qrels = new Map<string, Set<string>>();
  const lines = readFileSync(`${dataDir}/qrels-test.tsv`, 'utf8').split('\n').slice(1);
  for (const line of lines) {
    const [qid, did, score] = line.split('\t');
    if (!qid || !did || Number(score) <= 0) continue;
    const set = qrels.get(qid) ?? new Set<string>();
    set.add(did);
    qrels.set(qid, set);
  }
  const out: { id: string; text: string; relevant: Set<string> }[] = [];
  for (const line of readFileSync(`${dataDir}/queries.jsonl`, 'utf8').split('\n')) {
    if (!line) continue;
    const o = JSON.parse(line) as { _id: string; text: string };
    const relevant = qrels.get(o._id);
    if (relevant) out.push({ id: o._id, text: o.text, relevant });
  }
  return out;
}

// SciFact doc ids are decimal, so they fit the last uuid group; makes mapping back trivial.
export const docUuid = (id: string): string => `00000000-0000-4000-8000-${id.padStart(12, '0')}`;
export const uuidDoc = (u: string): string => u.slice(24).replace(/^0+(?=\d)/, '');

export function ndcgAt10(ranked: string[], relevant: Set<string>): number {
  let dcg = 0;
  ranked.slice(0, 10).forEach((d, i) => {
    if (relevant.has(d)) dcg += 1 / Math.log2(i + 2);
  });
  let idcg = 0;
  for (let i = 0; i < Math.min(10, relevant.size); i++) idcg += 1 / Math.log2(i + 2);
  return idcg === 0 ? 0 : dcg / idcg;
}

export function recallAt(ranked: string[], relevant: Set<string>, k: number): number {
  const hit = ranked.slice(0, k).filter((d) => relevant.has(d)).length;
  return hit / relevant.size;
}

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

export const mean = (v: number[]): number => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);

export interface SearchOptions {
  q: string;
  ids: string[]; // collections searched (visible to the caller)
  statsIds?: string[]; // collections whose statistics feed IDF/avgdl; defaults to ids
  k: number; // postings read per (collection, lexeme), by impact
  n: number; // results returned
  rescore?: number;
  explain?: boolean; // return EXPLAIN ANALYZE lines instead of results (benchmark aid)       // exact re-scoring of the best M candidates (0 = off)
  k1?: number;
  b?: number;
  cfg?: string;
}

// The recommended text-channel query (see README). Returns chunk ids with BM25 scores.
export async function bm25Search(sql: Sql, o: SearchOptions): Promise<{ chunk_id: string; score: number }[]> {
  const k1 = o.k1 ?? 0.9;
  const b = o.b ?? 0.4;
  const cfg = o.cfg ?? 'english';
  const statsIds = o.statsIds ?? o.ids;
  return sql<{ chunk_id: string; score: number }[]>`
    ${o.explain ? sql`explain (analyze, buffers, costs off)` : sql``}
    with q as (
      select distinct replace(m[1], '''''', '''') as lexeme
      from regexp_matches(querytree(websearch_to_tsquery(${cfg}::regconfig, ${o.q})),
                          '''((?:[^'']|'''')*)''', 'g') as m
    ),
    cs as (
      select sum(n)::float8 as n, sum(len)::float8 / nullif(sum(n), 0) as avgdl
      from (
        select n_chunks as n, total_len as len
        from collection_text_stats where collection_id = any(${statsIds}::uuid[])
        union all
        select n_chunks, total_len
        from collection_text_stats_delta where collection_id = any(${statsIds}::uuid[])
      ) s
    ),
    t as (
      select q.lexeme, ln(1 + (cs.n - d.df + 0.5) / (d.df + 0.5)) as idf
      from q cross join cs
      cross join lateral (
        select coalesce(sum(df), 0)::float8 as df
        from (
          select df from term_stats
          where collection_id = any(${statsIds}::uuid[]) and lexeme = q.lexeme
          union all
          select df from term_stats_delta
          where collection_id = any(${statsIds}::uuid[]) and lexeme = q.lexeme
        ) x
      ) d
      where d.df > 0
    ),
    hits as (
      select p.chunk_id, p.doc_len,
             t.idf * p.tf * (${k1}::float8 + 1)
               / (p.tf + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * p.doc_len / cs.avgdl)) as s
      from t cross join cs
      cross join unnest(${o.ids}::uuid[]) as c(id)
      cross join lateral (
        select chunk_id, tf, doc_len from chunk_postings
        where collection_id = c.id and lexeme = t.lexeme
        order by impact desc
        limit ${o.k}
      ) p
    )
    ${
      (o.rescore ?? 0) > 0
        ? sql`,
    top as (
      select chunk_id, max(doc_len) as doc_len from hits
      group by chunk_id order by sum(s) desc limit ${o.rescore ?? 0}
    )
    -- Candidates outside some lexeme's top-K only got partial sums; recompute them exactly
    -- from the chunk's own tsvector (cheap for a few hundred rows).
    select top.chunk_id,
           sum(t.idf * cardinality(u.positions) * (${k1}::float8 + 1)
             / (cardinality(u.positions)
                + ${k1}::float8 * (1 - ${b}::float8 + ${b}::float8 * top.doc_len / cs.avgdl)))::float8 as score
    from top join chunks c on c.id = top.chunk_id
    cross join lateral unnest(c.tsv) as u
    join t on t.lexeme = u.lexeme
    cross join cs
    group by top.chunk_id
    order by score desc
    limit ${o.n}`
        : sql`
    select chunk_id, sum(s)::float8 as score
    from hits group by chunk_id
    order by score desc
    limit ${o.n}`
    }`;
}
