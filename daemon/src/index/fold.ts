import type { Sql } from '../db/client.js';

/**
 * Index bytes text_fresh may keep while (nearly) empty before they are rebuilt. Small, because
 * what is left after a burst is not reused until the next one, and on a small corpus it was the
 * single largest waste (SciFact: 0.7 KB of 14 KB per chunk at 32 MB of slack). The rebuild of a
 * nearly empty table costs a few milliseconds, at most once per fold.
 */
const FRESH_INDEX_SLACK = 2 ** 20;

/**
 * One fold of the BM25 index (the worker runs it every minute; bulk loads call it too):
 * fold_text_stats() drains text_fresh into the lists' head and tail blocks and folds the collection
 * statistics. Deleted rows' pages are reused, but a burst of ingestion leaves text_fresh's indexes
 * large and nearly empty, so they are then rebuilt (concurrently: ingestion never waits) to give
 * the space back.
 */
export async function foldTextIndex(sql: Sql, opts: { freshIndexSlack?: number } = {}): Promise<{ shrunk: boolean }> {
  await sql`select fold_text_stats()`;
  const [r] = await sql<{ rows: number; bytes: number }[]>`
    select (select count(*) from (select 1 from text_fresh limit 1000) x)::int as rows,
           (pg_relation_size('text_fresh_list_idx') + pg_relation_size('text_fresh_lexeme_idx'))::float8 as bytes`;
  if (!r || r.bytes <= (opts.freshIndexSlack ?? FRESH_INDEX_SLACK) || r.rows >= 1000) return { shrunk: false };
  await sql`reindex table concurrently text_fresh`;
  return { shrunk: true };
}
