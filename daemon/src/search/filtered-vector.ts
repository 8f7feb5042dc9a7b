import type { Tx } from '../db/client.js';
import { candidateList, type Candidate } from './fusion.js';
import { chunkPasses, passingDocuments, tagsCondition, type SearchFilter } from './filters.js';
import { queryVectorText } from './vector-channel.js';

/**
 * The vector channel under a `filter`: nearest chunks among the documents that pass it, never a
 * short list because the filter is selective.
 *
 * Whether few chunks pass is found first (filters.ts passingDocuments: the passing documents' chunks_count,
 * read only until it passes the bound). Then, as in vector-channel.ts, the cheaper of two walks
 * runs inside the one statement:
 * - exact, when n² ≤ 2·k·N (N chunks in the index): the n chunks of the matching documents are read
 *   through chunks (document_id) and sorted by distance. Exact whatever the selectivity.
 * - HNSW otherwise (a filter matching a large share): the graph walk with the filter checked per
 *   visited chunk through its document's primary key (filters.ts chunkPasses), continued by
 *   pgvector's iterative scan (hnsw.iterative_scan = relaxed_order, set
 *   for every search connection in db/client.ts) until k matching chunks are found, so the list
 *   stays full; at such shares a walk reads about k·N/n ≤ k·√(N/2k) tuples, far below
 *   hnsw.max_scan_tuples (20,000).
 * Measured figures: test/bench (npm run bench:search, filtered scopes) and README "Filtering".
 */
export async function filteredVectorCandidates(tx: Tx, vector: number[], f: SearchFilter, k: number): Promise<Candidate[]> {
  const dim = vector.length;
  if (!Number.isInteger(dim) || dim < 1 || dim > 4000) throw new Error(`invalid query vector dimension ${dim}`);
  if (!f.where) throw new Error('filteredVectorCandidates needs a filter');
  const typed = tx.unsafe(`::halfvec(${dim})`);
  const dims = tx.unsafe(String(dim));
  const [row] = await tx<{ ids: string | null; sims: string | null }[]>`
    with p as materialized (select ${queryVectorText(vector)}${typed} as v),
    ${passingDocuments(tx, f, k)}
    ann as materialized (
      select c.id, c.embedding${typed} <=> (select v from p) as dist
        from chunks c
       where c.collection_id = any((select a from ids)::uuid[])
         and vector_dims(c.embedding) = ${dims}
         and not (select yes from few)
         and ${chunkPasses(tx, f)}
         ${tagsCondition(tx, f)}
       order by c.embedding${typed} <=> (select v from p)
       limit ${k}
    ),
    exact as materialized (
      -- "+ 0": an expression the HNSW index does not match, so this branch never walks the graph.
      select c.id, c.embedding${typed} <=> (select v from p) as dist
        from md join chunks c on c.document_id = md.id
       where (select yes from few)
         and vector_dims(c.embedding) = ${dims}
         ${tagsCondition(tx, f)}
       order by (c.embedding${typed} <=> (select v from p)) + 0
       limit ${k}
    )
    select string_agg(id::text, ',' order by dist, id) as ids, string_agg((1 - dist)::text, ',' order by dist, id) as sims
      from (select * from ann union all select * from exact) nn`;
  return candidateList(row?.ids ?? null, row?.sims ?? null);
}
