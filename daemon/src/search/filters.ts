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
  return tx`${tagsOnly(tx, f)} ${whereCondition(tx, f)}`;
}

function tagsOnly(tx: Tx, f: SearchFilter) {
  if (!f.tags?.length) return tx``;
  const lower = f.tags.map((t) => t.toLowerCase());
  return tx`and exists (select 1 from documents d, unnest(d.tags) t where d.id = c.document_id and lower(t) = any(${lower}::text[]))`;
}

export function whereCondition(tx: Tx, f: SearchFilter) {
  if (!f.where) return tx``;
  return tx`and exists (select 1 from documents d where d.id = c.document_id and ${compileFilter(tx, f.where)})`;
}
