import { toSql } from 'pgvector';
import { withSearchSettings, type Tx } from '../db/client.js';
import { withinTimeout } from '../db/statement-timeout.js';
import { chunkConditions, type Conditions, exactScanPays, type Fragment, fewPassingCtes, scopeCtes } from './conditions.js';
import { candidateList, type Candidate } from './fusion.js';

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

/**
 * The vector channel: the `k` chunks nearest the query by cosine distance among those the
 * conditions let through. Its one choice of variant is here: the scope's chunks, or, under a
 * filter, the passing documents' chunks; both run the one statement of nearestChunks, with the
 * HNSW settings in force (withSearchSettings).
 */
export function vectorCandidates(tx: Tx, vector: number[], c: Conditions, k: number): Promise<Candidate[]> {
  return withSearchSettings(tx, (t) => nearestChunks(t, vector, k, c, c.passes ? filteredParts(t, c, k) : scopeParts(t, c, k)));
}

/** The four parts in which the nearest-chunks statement differs between the scope and a filter. */
interface NearestParts {
  /** CTEs ahead of the two branches: the scope's (scopeCtes), and the one the exact flag reads. */
  ctes: Fragment;
  /** True when the exhaustive branch runs instead of the HNSW walk. */
  exact: Fragment;
  /** What the walk checks on each chunk `c` it visits. */
  rowFilter: Fragment;
  /** The exhaustive branch's chunks `c`: a FROM clause with its WHERE. */
  exactSource: Fragment;
}

/**
 * Every chunk of the searched collections: exhaustive when they hold few of the index's chunks
 * (exactScanPays, from the collections' chunk counts), else the HNSW walk with the tags checked per row.
 */
function scopeParts(tx: Tx, c: Conditions, k: number): NearestParts {
  return {
    ctes: tx`${scopeCtes(tx, c)}
      g as materialized (
        select ${exactScanPays(tx, tx`s.n`, k)} as exact
          from (
            select coalesce(sum(n_chunks), 0)::float8 as n from (
              select n_chunks from collection_text_stats where collection_id = any((select a from ids)::uuid[])
              union all
              select n_chunks from collection_text_stats_delta where collection_id = any((select a from ids)::uuid[])
            ) x
          ) s
      ),`,
    exact: tx`(select exact from g)`,
    rowFilter: c.tagged,
    exactSource: tx`from chunks c where c.collection_id = any((select a from ids)::uuid[])`,
  };
}

/**
 * Under a filter, nearest chunks among the documents that pass it, never a short list because the
 * filter is selective. Whether few chunks pass is found first (fewPassingCtes); then
 * - exact, when n² ≤ 2·k·N: the n chunks of the passing documents, read through chunks
 *   (document_id) and sorted by distance. Exact whatever the selectivity.
 * - HNSW otherwise (a filter passing a large share): the walk with the filter checked per visited
 *   chunk (chunkConditions), continued by pgvector's iterative scan (hnsw.iterative_scan =
 *   relaxed_order, db/client.ts) until k passing chunks are found, so the list stays full; at such
 *   shares a walk reads about k·N/n ≤ k·√(N/2k) tuples, far below hnsw.max_scan_tuples (20,000).
 * Measured figures: npm run bench:search (filtered scopes) and README "Filtering".
 */
function filteredParts(tx: Tx, c: Conditions, k: number): NearestParts {
  return {
    ctes: tx`${scopeCtes(tx, c)} ${fewPassingCtes(tx, k)}`,
    exact: tx`(select yes from few)`,
    rowFilter: chunkConditions(tx, c),
    exactSource: tx`from md join chunks c on c.document_id = md.id where true`,
  };
}

/**
 * The nearest-chunks statement, through the per-dimension HNSW expression index. Both branches are
 * in the one statement and the flag picks one at run time (one-time filters), so prepared generic
 * plans stay valid for every scope. The dimension is part of the SQL text (a type modifier cannot
 * be a parameter); it is an integer we produced. The query vector (~10 KB of text at 512-d) is
 * bound once in pgvector's text form (halfvec shares vector's) and read through a one-row CTE:
 * HNSW still orders by the InitPlan's value, and every query of a dimension shares one statement.
 */
async function nearestChunks(tx: Tx, vector: number[], k: number, c: Conditions, parts: NearestParts): Promise<Candidate[]> {
  const dim = vector.length;
  if (!Number.isInteger(dim) || dim < 1 || dim > 4000) throw new Error(`invalid query vector dimension ${dim}`);
  const typed = tx.unsafe(`::halfvec(${dim})`);
  const dims = tx.unsafe(String(dim));
  const [row] = await withinTimeout(
    tx<{ ids: string | null; sims: string | null }[]>`
    with ${parts.ctes}
    q as materialized (select ${queryVectorText(vector)}${typed} as v),
    ann as materialized (
      select c.id, c.embedding${typed} <=> (select v from q) as dist
        from chunks c
       where c.collection_id = any((select a from ids)::uuid[])
         and vector_dims(c.embedding) = ${dims}
         and not ${parts.exact}
         ${parts.rowFilter}
       order by c.embedding${typed} <=> (select v from q)
       limit ${k}
    ),
    exact as materialized (
      -- "+ 0": an expression the HNSW index does not match, so this branch never walks the graph.
      select c.id, c.embedding${typed} <=> (select v from q) as dist
        ${parts.exactSource}
         and ${parts.exact}
         and vector_dims(c.embedding) = ${dims}
         ${c.tagged}
       order by (c.embedding${typed} <=> (select v from q)) + 0
       limit ${k}
    )
    select string_agg(id::text, ',' order by dist, id) as ids, string_agg((1 - dist)::text, ',' order by dist, id) as sims
      from (select * from ann union all select * from exact) nn`,
    c.timeoutMs,
  );
  return candidateList(row?.ids ?? null, row?.sims ?? null);
}
