import type { Sql, Tx } from '../db/client.js';
import type { Logger } from '../logger.js';

/**
 * BM25's k1 and b live in two places at run time, on purpose:
 * - scores: every query passes the configured k1 and b (BM25_K1, BM25_B) to bm25_term(), so the
 *   scores returned are exact BM25 with the settings in force, whatever the index holds;
 * - order: the lists' postings are sorted by an impact, bm25_term(1, tf, dl, avgdl, k1, b) at a
 *   fixed reference length, which is what the text channel's pruning reads blocks by. That order
 *   needs one fixed triple, written into bm25_impact() and recorded in instance_settings
 *   ('bm25_index'): a new database has the default order, 0.9, 0.4 and 100.
 * The default order serves any scoring pair: its weak length normalisation barely depends on the
 * reference length. With scores at 1.2/0.75 (the default settings) on chunks of about 30 lexemes it
 * finds 9-10 of the exhaustive top 10, where lists ordered for 1.2/0.75 at length 100 find 4-5
 * (test/search.bm25-params.test.ts). `docsift-daemon reindex` rewrites bm25_impact() with the
 * configured pair at the corpus's mean chunk length, where every top 10 is exact, and rebuilds the
 * lists; the daemon warns only while an order so fitted belongs to another pair.
 */
export interface Bm25Params {
  k1: number;
  b: number;
}

/** What the lists are ordered by: the pair, and the reference length of the impacts. */
export interface IndexOrder extends Bm25Params {
  avgdl: number;
}

export async function indexParams(sql: Sql | Tx): Promise<IndexOrder | undefined> {
  const [row] = await sql<{ value: IndexOrder }[]>`select value from instance_settings where key = 'bm25_index'`;
  return row?.value;
}

export function sameParams(a: Bm25Params, b: Bm25Params): boolean {
  return Math.abs(a.k1 - b.k1) < 1e-9 && Math.abs(a.b - b.b) < 1e-9;
}

/** The order a new database's lists follow (migration 022), fit for any scoring pair. */
export const DEFAULT_ORDER: Bm25Params = { k1: 0.9, b: 0.4 };

/**
 * Inside the rebuild's transaction: bm25_impact() with this pair, recorded as the index's. The
 * numbers are written into the function's body (an inlined constant), so they are
 * checked to be plain finite numbers first.
 */
export async function setImpactParams(tx: Tx, p: IndexOrder): Promise<void> {
  for (const v of [p.k1, p.b, p.avgdl]) if (!Number.isFinite(v) || v < 0) throw new Error(`invalid BM25 parameter ${v}`);
  await tx.unsafe(
    `create or replace function bm25_impact(tf int, dl int) returns real language sql immutable parallel safe
       as $$ select bm25_term(1, tf, dl, ${p.avgdl}, ${p.k1}, ${p.b})::real $$`,
  );
  await tx`
    insert into instance_settings (key, value) values ('bm25_index', ${tx.json({ k1: p.k1, b: p.b, avgdl: p.avgdl })})
    on conflict (key) do update set value = excluded.value`;
}

/** The mean chunk length (lexeme occurrences) over every collection, from the exact statistics; 100 when empty. */
export async function corpusAvgdl(tx: Tx): Promise<number> {
  const [r] = await tx<{ avgdl: number | null }[]>`
    select round(sum(total_len)::float8 / nullif(sum(n_chunks), 0))::float8 as avgdl from (
      select n_chunks, total_len from collection_text_stats
      union all
      select n_chunks, total_len from collection_text_stats_delta) s`;
  return Math.max(1, r?.avgdl ?? 100);
}

/** At start: says once when the lists were reindexed for another pair than the settings', and what to run. */
export async function warnIfIndexOrderDiffers(sql: Sql, configured: Bm25Params, logger: Logger): Promise<boolean> {
  const held = await indexParams(sql);
  if (!held || sameParams(held, configured) || sameParams(held, DEFAULT_ORDER)) return false;
  logger.warn(
    { configured, index_order: { k1: held.k1, b: held.b } },
    'BM25_K1/BM25_B differ from the parameters the full-text index is ordered by: scores use the settings, pruning follows the old order until `docsift-daemon reindex` rebuilds the lists',
  );
  return true;
}
