import { toSql } from 'pgvector';
import type { Tx } from '../db/client.js';
import { candidateList, type Candidate } from './fusion.js';
import { tagCondition, type SearchFilter } from './filters.js';

/**
 * Nearest chunks by cosine distance through the per-dimension HNSW expression index. The dimension
 * is part of the SQL text (a type modifier cannot be a parameter); it is an integer we produced.
 *
 * When the searched collections hold few of the index's chunks, an exact scan replaces the HNSW
 * walk: a filtered walk visits about k·N/n nodes to find k of the n matching chunks among N (and
 * stops at hnsw.max_scan_tuples with a short list), while an exact scan reads n chunks. Measured
 * at 100k chunks (npm run bench:search): a 358-chunk collection took 153 ms CPU through HNSW with
 * short lists, 3 ms exactly; the costs cross near n² = 2·k·N. The choice is made inside the one
 * statement (one-time filters), so prepared generic plans stay valid for every scope.
 *
 * The query vector travels as one parameter in pgvector's text form (its `toSql`; halfvec shares
 * vector's text form) and is cast in the SQL, so every query of a dimension shares one prepared statement.
 */
/**
 * pgvector's text form of a query vector, kept per vector object: a repeated query's vector comes
 * from the query-embedding cache as the same array, and printing 512 floats cost about 0.1-0.2 ms
 * of the daemon's CPU per search. Collected with the vector when the cache drops it.
 */
const texts = new WeakMap<number[], string>();
export function queryVectorText(vector: number[]): string {
  let text = texts.get(vector);
  if (text === undefined) texts.set(vector, (text = toSql(vector) as string));
  return text;
}

export async function vectorCandidates(tx: Tx, vector: number[], f: SearchFilter, k: number): Promise<Candidate[]> {
  const dim = vector.length;
  if (!Number.isInteger(dim) || dim < 1 || dim > 4000) throw new Error(`invalid query vector dimension ${dim}`);
  const vec = queryVectorText(vector);
  const typed = tx.unsafe(`::halfvec(${dim})`);
  // The vector (~10 KB of text at 512-d) and the collection ids are bound once and read through
  // one-row CTEs: HNSW still orders by the InitPlan's value, and each search sends a quarter of the bytes.
  // The ids travel as one comma-separated text: postgres.js escapes an array parameter element by element.
  const [row] = await tx<{ ids: string | null; sims: string | null }[]>`
    with p as materialized (select ${vec}${typed} as v, string_to_array(${f.collectionIds.join(',')}, ',')::uuid[] as ids),
    g as materialized (
      select s.n * s.n <= 2 * ${k}::float8 * greatest(s.n, (select reltuples from pg_class where oid = 'chunks'::regclass)) as exact
        from (
          select coalesce(sum(n_chunks), 0)::float8 as n from (
            select n_chunks from collection_text_stats where collection_id = any((select ids from p)::uuid[])
            union all
            select n_chunks from collection_text_stats_delta where collection_id = any((select ids from p)::uuid[])
          ) x
        ) s
    ),
    ann as materialized (
      select c.id, c.embedding${typed} <=> (select v from p) as dist
        from chunks c
       where c.collection_id = any((select ids from p)::uuid[])
         and vector_dims(c.embedding) = ${tx.unsafe(String(dim))}
         and not (select exact from g)
         ${tagCondition(tx, f)}
       order by c.embedding${typed} <=> (select v from p)
       limit ${k}
    ),
    exact as materialized (
      -- "+ 0": an expression the HNSW index does not match, so this branch never walks the graph.
      select c.id, c.embedding${typed} <=> (select v from p) as dist
        from chunks c
       where c.collection_id = any((select ids from p)::uuid[])
         and vector_dims(c.embedding) = ${tx.unsafe(String(dim))}
         and (select exact from g)
         ${tagCondition(tx, f)}
       order by (c.embedding${typed} <=> (select v from p)) + 0
       limit ${k}
    )
    select string_agg(id::text, ',' order by dist, id) as ids, string_agg((1 - dist)::text, ',' order by dist, id) as sims
      from (select * from ann union all select * from exact) nn`;
  return candidateList(row?.ids ?? null, row?.sims ?? null);
}
