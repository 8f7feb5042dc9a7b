import type { Sql } from '../db/client.js';
import { rebuildDrainedIndexes, type DrainedTable } from './drained-indexes.js';

/**
 * text_blocks past this size is never compacted: VACUUM FULL holds its exclusive lock, so searches
 * wait, for the whole rewrite, about 17 ms per MB here (SciFact's 10 MB with its indexes: 175 ms).
 */
const COMPACT_MAX_BYTES = 16 * 2 ** 20;
/**
 * Free or dead space that makes a small text_blocks worth rewriting: this share of its heap… (with
 * a quarter, SciFact's stayed at 1,679 B per chunk after the built-in model's slow upload, about
 * 1,260 of them live: just under the bar)
 */
const COMPACT_FREE_SHARE = 0.2;
/** …and at least this many bytes. */
const COMPACT_MIN_FREE_BYTES = 2 ** 20;

export interface FoldOptions {
  /** Index bytes a drained table may keep (drained-indexes.ts), per table. */
  slack?: Partial<Record<DrainedTable, number>>;
  compactMaxBytes?: number;
  compactMinFreeBytes?: number;
}

/**
 * One fold of the BM25 index (the worker runs it every minute; bulk loads call it too):
 * fold_text_stats() drains text_fresh into the lists' head and tail blocks and folds the collection
 * statistics. Then the tables a burst fills and the pipeline empties get their indexes rebuilt once
 * drained (text_fresh: `shrunk`), and a small text_blocks left with much free space is compacted.
 */
export async function foldTextIndex(sql: Sql, opts: FoldOptions = {}): Promise<{ shrunk: boolean; compacted: boolean }> {
  await sql`select fold_text_stats()`;
  const states = await rebuildDrainedIndexes(sql, opts);
  const fresh = states.find((s) => s.table === 'text_fresh');
  // Only once a burst is drained: mid-burst, the next fold's rewrites would need the space again.
  if (!fresh?.drained) return { shrunk: false, compacted: false };
  return { shrunk: fresh.rebuilt, compacted: await compactTextBlocks(sql, opts) };
}

/**
 * A fold rewrites each list it touches as new rows (whole, up to 1,024 postings, which is every
 * list of a small corpus), and the old rows' space is only reused by later folds: after a burst a
 * small text_blocks is a fifth to a third free and its btrees half full (SciFact: 2.9 of 10.4 MB
 * of heap free, leaf density 52 %; 940 B per chunk in all). Such a table is rewritten compactly,
 * indexes included. SKIP_LOCKED: the rewrite never queues behind a running search (new searches
 * would queue behind it); a busy table is tried again at the next fold.
 */
async function compactTextBlocks(sql: Sql, opts: FoldOptions): Promise<boolean> {
  const [t] = await sql<{ heap: number; indexes: number; file: number }[]>`
    select pg_relation_size('text_blocks')::float8 as heap, pg_indexes_size('text_blocks')::float8 as indexes,
           pg_relation_filenode('text_blocks')::int8::float8 as file`;
  if (!t || t.heap > (opts.compactMaxBytes ?? COMPACT_MAX_BYTES)) return false;
  const live = await textBlocksLive(sql);
  if (!worthCompacting({ heap: t.heap, indexes: t.indexes }, live, opts.compactMinFreeBytes ?? COMPACT_MIN_FREE_BYTES)) return false;
  await sql`vacuum (full, skip_locked) text_blocks`;
  const [after] = await sql<{ file: number }[]>`select pg_relation_filenode('text_blocks')::int8::float8 as file`;
  return after!.file !== t.file;
}

/** A rewrite fills btree leaves to their fillfactor, 90 %. */
const BTREE_FILL = 0.9;

/**
 * A row's entry in one of text_blocks' btrees as a rewrite packs it: a line pointer, the 8-byte
 * index tuple header and the keys (lexeme, max_impact and coll, plus df in the list index), aligned.
 */
const indexEntryBytes = (sql: Sql, fixedKeyBytes: number) =>
  sql`(4 + ceil((8 + ceil(pg_column_size(b.lexeme) / 4.0) * 4 + ${fixedKeyBytes}) / 8.0) * 8)`;

/**
 * What text_blocks' live rows need: in the heap, each row as stored (header included) and its line
 * pointer; in the two indexes, what a rewrite builds (their entries over the leaf fill).
 */
export async function textBlocksLive(sql: Sql): Promise<{ heap: number; indexes: number }> {
  const [live] = await sql<{ heap: number; indexes: number }[]>`
    select (coalesce(sum(pg_column_size(b.*)), 0) + 4 * count(*))::float8 as heap,
           (coalesce(sum(${indexEntryBytes(sql, 8)} + ${indexEntryBytes(sql, 12)}), 0) / ${BTREE_FILL})::float8 as indexes
      from text_blocks b`;
  return live!;
}

/**
 * Index space free past this share, against what a rewrite would build, is worth a rewrite: after
 * the last fold of a slow upload SciFact's btrees held 1,132 B per chunk where a rewrite builds 662
 * (42 % free; npm run bench:quality, 2026-11-27), and a burst of 24,000 new lexemes leaves them
 * 45 % free from page splits (test/search.bm25-fold.test.ts). The rewrite runs once the burst is
 * drained, so at most once per burst.
 */
const INDEX_FREE_SHARE = 0.35;

/**
 * Worth a rewrite when the heap is COMPACT_FREE_SHARE free, or its indexes INDEX_FREE_SHARE free,
 * by at least `minFree` bytes.
 */
export function worthCompacting(
  size: { heap: number; indexes: number },
  live: { heap: number; indexes: number },
  minFree: number,
): boolean {
  const heapFree = size.heap - live.heap;
  const indexFree = size.indexes - live.indexes;
  return (
    (heapFree >= size.heap * COMPACT_FREE_SHARE && heapFree >= minFree) ||
    (indexFree >= size.indexes * INDEX_FREE_SHARE && indexFree >= minFree)
  );
}
