import type { Tx } from '../db/client.js';
import { compileFilter } from '../filters/compile.js';
import type { FilterNode } from '../filters/parse.js';

export interface SearchFilter {
  collectionIds: string[];
  /** Any-of, case-insensitive exact tag match. */
  tags?: string[];
  /** The request's `filter`, checked (filters/parse.ts). */
  where?: FilterNode;
}

/** Extra conditions on a chunk alias `c`: the tag filter and the request's filter (empty when neither was asked for). */
export function tagCondition(tx: Tx, f: SearchFilter) {
  return tx`${tagsCondition(tx, f)} ${whereCondition(tx, f)}`;
}

/** The tag filter alone on a chunk alias `c` (empty when no tags were asked for). */
export function tagsCondition(tx: Tx, f: SearchFilter) {
  if (!f.tags?.length) return tx``;
  const lower = f.tags.map((t) => t.toLowerCase());
  return tx`and exists (select 1 from documents d, unnest(d.tags) t where d.id = c.document_id and lower(t) = any(${lower}::text[]))`;
}

function whereCondition(tx: Tx, f: SearchFilter) {
  if (!f.where) return tx``;
  return tx`and exists (select 1 from documents d where d.id = c.document_id and ${compileFilter(tx, f.where)})`;
}

/**
 * Three CTEs, ahead of the statement's own. `ids` (`a`): the searched collections, the CTE the text
 * channel's statements read them from too. `few` (one boolean, `yes`): whether the chunks of the
 * documents that pass `f.where` number n with n² ≤ 2·k·N (N chunks in the index) and n ≤ `cap`, the
 * rule by which both channels switch to an exhaustive scan of the passing chunks. The passing
 * documents are read only until their chunks pass that bound (a running sum that EXISTS stops at),
 * so a broad filter costs a small part of a full pass over the documents: at 1M chunks and a 30 %
 * filter, the whole pass made the vector channel 116 ms against 13 ms for the walk itself (npm run
 * bench:search -- --million).
 * `md`: the ids of the passing documents when `few`, else none.
 * The collection ids are parsed once (`ids`, an InitPlan): written inline, a generic plan
 * parsed the whole list again for every passing document, 24-37 µs each over 50 collections (a
 * 1 % filter at 1M chunks: 923 documents, 34 ms in the probe and 22 ms in `md`).
 */
export function passingDocuments(tx: Tx, f: SearchFilter, k: number, cap = Number.POSITIVE_INFINITY) {
  const passing = () => tx`d.collection_id = any((select a from ids)::uuid[]) and d.deleted_at is null and ${compileFilter(tx, f.where!)}`;
  return tx`ids as materialized (select string_to_array(${f.collectionIds.join(',')}, ',')::uuid[] as a),
    few as materialized (
      select not exists (
        select 1 from (
          select sum(d.chunks_count) over (rows unbounded preceding)::float8 as cum from documents d where ${passing()}
        ) s
        where s.cum * s.cum > 2 * ${k}::float8 * greatest(s.cum, (select reltuples from pg_class where oid = 'chunks'::regclass))
          ${Number.isFinite(cap) ? tx`or s.cum > ${cap}::float8` : tx``}
      ) as yes
    ),
    md as materialized (select d.id from documents d where (select yes from few) and ${passing()}),`;
}

/**
 * The request's filter on one chunk `c`, checked per row through the document's primary key: a
 * scalar subquery, which the planner neither pulls up into a join nor runs over every passing
 * document, so an HNSW walk pays only for the chunks it visits.
 */
export function chunkPasses(tx: Tx, f: SearchFilter) {
  return tx`coalesce((select true from documents d where d.id = c.document_id and d.deleted_at is null and ${compileFilter(tx, f.where!)}), false)`;
}
