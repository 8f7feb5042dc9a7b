// What restricts a search's chunks (its collections, tags and filter), compiled into SQL once per
// request and embedded by every statement that needs it, and the rule by which a channel reads
// the passing chunks exhaustively instead of walking an index.
import type postgres from 'postgres';
import type { Tx } from '../db/client.js';
import { compileFilter } from '../filters/compile.js';
import type { FilterNode } from '../filters/parse.js';

export type Fragment = postgres.PendingQuery<postgres.Row[]>;

/** A search's restrictions as the request names them. */
export interface SearchScope {
  collectionIds: string[];
  /** Any-of, case-insensitive exact tag match. */
  tags?: string[];
  /** The request's `filter`, checked (filters/parse.ts). */
  where?: FilterNode;
}

/**
 * One search's restrictions, compiled once per request (compileConditions) and read by every
 * statement of it: both channels' and hydrate's. Each fragment carries its bind parameters (a
 * filter's value list is one array parameter); a statement holds the filter once (the `passing`
 * CTE, or hydrate's join), and fragments are never changed by a statement, so both channels embed
 * them at the same time.
 */
export interface Conditions {
  collectionIds: string[];
  /** The collection ids as one comma-separated text: bound once per statement, parsed by the `ids` CTE. */
  idsText: string;
  /** The tag filter on a chunk `c` (`and exists …`); empty without tags. */
  tagged: Fragment;
  /** The request's filter as a condition on a document `d`; undefined without a filter. */
  passes: Fragment | undefined;
  /** How long each statement may run (STATEMENT_TIMEOUT_MS, db/statement-timeout.ts). */
  timeoutMs: number;
}

/** The one place a search compiles its filter. `tx` only builds fragments: any pool or transaction may run them. */
export function compileConditions(tx: Tx, s: SearchScope, timeoutMs: number): Conditions {
  const lower = s.tags?.map((t) => t.toLowerCase());
  return {
    collectionIds: s.collectionIds,
    idsText: s.collectionIds.join(','),
    tagged: lower?.length
      ? tx`and exists (select 1 from documents d, unnest(d.tags) t where d.id = c.document_id and lower(t) = any(${lower}::text[]))`
      : tx``,
    passes: s.where ? compileFilter(tx, s.where) : undefined,
    timeoutMs,
  };
}

/**
 * `ids` (`a`, a uuid[]), followed by a comma: the searched collections, sent as one text and parsed
 * once (an InitPlan; as many parameters each was parsed again, and written inline a generic plan
 * parsed the whole list again for every passing document: 24-37 µs each over 50 collections).
 */
export function idsCte(tx: Tx, c: Conditions): Fragment {
  return tx`ids as materialized (select string_to_array(${c.idsText}, ',')::uuid[] as a),`;
}

/**
 * The CTEs a statement reading chunks starts with, each followed by a comma: `ids`, and under a
 * filter `passing` (not materialized: each reference is planned in place, so the filter's text and
 * parameters appear once per statement), the live documents that pass it.
 */
export function scopeCtes(tx: Tx, c: Conditions): Fragment {
  if (!c.passes) return idsCte(tx, c);
  return tx`${idsCte(tx, c)}
    passing as not materialized (select d.id, d.collection_id, d.chunks_count from documents d where d.deleted_at is null and ${c.passes}),`;
}

/**
 * The tags and the filter on one chunk `c` (needs scopeCtes). The filter is checked per row through
 * the document's primary key: a scalar subquery, which the planner neither pulls up into a join
 * nor runs over every passing document, so an HNSW walk pays only for the chunks it visits.
 */
export function chunkConditions(tx: Tx, c: Conditions): Fragment {
  if (!c.passes) return c.tagged;
  return tx`${c.tagged} and coalesce((select true from passing p where p.id = c.document_id), false)`;
}

/** N: the chunks in the index, from PostgreSQL's statistics (reltuples of `chunks`). */
export function indexChunks(tx: Tx): Fragment {
  return tx`(select reltuples from pg_class where oid = 'chunks'::regclass)`;
}

/**
 * Whether reading `n` chunks exhaustively beats an index walk for the best `k` of them: n² ≤ 2·k·N.
 * A filtered HNSW walk visits about k·N/n nodes to find k of n matching chunks among N (and stops
 * at hnsw.max_scan_tuples with a short list), an exact scan reads n. Measured at 100k chunks (npm
 * run bench:search): a 358-chunk collection took 153 ms of CPU through HNSW with short lists, 3 ms
 * exactly; the costs cross near n² = 2·k·N. `n` is a float8 SQL expression.
 */
export function exactScanPays(tx: Tx, n: Fragment, k: number): Fragment {
  return tx`${n} * ${n} <= 2 * ${k}::float8 * greatest(${n}, ${indexChunks(tx)})`;
}

/**
 * Under a filter (after scopeCtes): `few` (one boolean, `yes`), whether the chunks of the passing
 * documents are few enough to read them all (exactScanPays for `k`, and at most `cap`), and `md`,
 * those documents' ids when `few`, else none. The passing documents are read only until their
 * chunks pass that bound (a running sum that EXISTS stops at), so a broad filter costs a small part
 * of a full pass: at 1M chunks and a 30 % filter, the whole pass made the vector channel 116 ms
 * against 13 ms for the walk itself (npm run bench:search -- --million).
 */
export function fewPassingCtes(tx: Tx, k: number, cap = Number.POSITIVE_INFINITY): Fragment {
  return tx`few as materialized (
      select not exists (
        select 1 from (
          select sum(p.chunks_count) over (rows unbounded preceding)::float8 as cum
            from passing p where p.collection_id = any((select a from ids)::uuid[])
        ) s
        where not (${exactScanPays(tx, tx`s.cum`, k)})
          ${Number.isFinite(cap) ? tx`or s.cum > ${cap}::float8` : tx``}
      ) as yes
    ),
    md as materialized (select p.id from passing p where (select yes from few) and p.collection_id = any((select a from ids)::uuid[])),`;
}

/**
 * A filter of at least this many values (a fifth of the budget, FILTER_LIMITS.values) is heavy: each
 * of a search's statements spends tens of ms of PostgreSQL CPU on it (the budget's largest, 36 ms per
 * search; `npm run bench:filters`), so its channels run one after the other and one organization's
 * search holds one core, not two.
 */
export const HEAVY_FILTER_VALUES = 100;

/** Whether the filter is heavy: its values (each of a list, each scalar) number HEAVY_FILTER_VALUES or more. */
export function heavyFilter(node: FilterNode | undefined): boolean {
  return node !== undefined && filterValues(node) >= HEAVY_FILTER_VALUES;
}

function filterValues(node: FilterNode): number {
  if ('and' in node) return node.and.reduce((n, x) => n + filterValues(x), 0);
  if ('or' in node) return node.or.reduce((n, x) => n + filterValues(x), 0);
  if ('not' in node) return filterValues(node.not);
  return Array.isArray(node.value) ? node.value.length : 1;
}
