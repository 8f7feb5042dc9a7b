import type { Sql } from '../db/client.js';
import { JOB_TABLE } from '../worker/graphile-internals.js';

/**
 * Tables a burst of ingestion fills and the pipeline then empties: fresh postings (folded every
 * minute), uploaded text waiting for processing (the text of the few indexed documents whose
 * chunks do not rebuild it stays), and graphile-worker's job queue. A btree never
 * gives pages back, so after a bulk upload their indexes keep the size of the peak backlog while
 * the tables are (nearly) empty: SciFact left 0.7 KB per chunk in text_fresh's indexes at 32 MB of
 * slack, and 0.2 KB per chunk in document_texts' and the job queue's.
 * Once drained, their indexes are rebuilt (REINDEX CONCURRENTLY: writers never wait), which on a
 * nearly empty table takes milliseconds.
 */
export const DRAINED_TABLES = [
  { table: 'text_fresh', drainedBelow: 1000, slack: 2 ** 20 },
  { table: 'document_texts', drainedBelow: 100, slack: 2 ** 18 },
  // graphile-worker's own table; skipped if a later version names it otherwise.
  { table: JOB_TABLE, drainedBelow: 100, slack: 2 ** 18 },
] as const;

export type DrainedTable = (typeof DRAINED_TABLES)[number]['table'];

export interface DrainedState {
  table: DrainedTable;
  drained: boolean;
  rebuilt: boolean;
}

/** Rebuilds the indexes of each drained table whose indexes passed their slack (`slack` overrides it for every table). */
export async function rebuildDrainedIndexes(
  sql: Sql,
  opts: { slack?: Partial<Record<DrainedTable, number>> } = {},
): Promise<DrainedState[]> {
  const out: DrainedState[] = [];
  for (const t of DRAINED_TABLES) {
    const [r] = await sql<{ exists: boolean; bytes: number }[]>`
      select to_regclass(${t.table}) is not null as exists,
             coalesce((select sum(pg_relation_size(i.indexrelid)) from pg_index i where i.indrelid = to_regclass(${t.table})), 0)::float8 as bytes`;
    if (!r?.exists) continue;
    const [n] = await sql.unsafe<{ rows: number }[]>(
      `select count(*)::int as rows from (select 1 from ${t.table} limit ${t.drainedBelow}) x`,
    );
    const drained = n!.rows < t.drainedBelow;
    const rebuilt = drained && r.bytes > (opts.slack?.[t.table] ?? t.slack);
    if (rebuilt) await reindexOnline(sql, t.table);
    out.push({ table: t.table, drained, rebuilt });
  }
  return out;
}

/**
 * REINDEX TABLE CONCURRENTLY, and if it fails (a deadlock with a vacuum, a cancel), drops the
 * unfinished copies it leaves behind: invalid indexes named *_ccnew*, which every write would
 * otherwise keep maintaining. The error is passed on; the next fold tries again.
 */
async function reindexOnline(sql: Sql, table: string): Promise<void> {
  try {
    await sql.unsafe(`reindex table concurrently ${table}`);
  } catch (err) {
    const left = await sql<{ name: string }[]>`
      select i.indexrelid::regclass::text as name from pg_index i
       where i.indrelid = to_regclass(${table}) and not i.indisvalid and i.indexrelid::regclass::text like '%\\_ccnew%'`;
    for (const l of left) await sql.unsafe(`drop index concurrently if exists ${l.name}`);
    throw err;
  }
}
