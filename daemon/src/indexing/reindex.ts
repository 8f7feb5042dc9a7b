import type { Sql } from '../db/client.js';
import { corpusAvgdl, setImpactParams, type Bm25Params } from './bm25-params.js';

export interface ReindexResult {
  chunks: number;
  lists: number;
  postings: number;
  ms: number;
}

/**
 * Rebuilds the BM25 index (text_blocks, collection statistics) from chunks.tsv, collection by
 * collection, in one transaction, with the lists ordered by the impacts of `params` (the
 * configured BM25_K1 and BM25_B) at the corpus's mean chunk length: after a change of k1 or b, after
 * the corpus changed shape, or to compact an index by hand.
 * Searches wait for it (minutes at a million chunks).
 */
export async function reindexText(sql: Sql, params: Bm25Params): Promise<ReindexResult> {
  const started = performance.now();
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('fold_text_stats'))`; // no fold moves the statistics meanwhile
    await setImpactParams(tx, { ...params, avgdl: await corpusAvgdl(tx) });
    await tx`select rebuild_text_index()`;
  });
  await sql`vacuum analyze text_blocks`;
  const [r] = await sql<{ chunks: number; lists: number; postings: number }[]>`
    select (select count(*) from chunks)::int as chunks,
           (select count(*) from text_blocks where kind = 1)::int as lists,
           (select coalesce(sum(df), 0) from text_blocks where df > 0)::int as postings`;
  return { chunks: r!.chunks, lists: r!.lists, postings: r!.postings, ms: Math.round(performance.now() - started) };
}
