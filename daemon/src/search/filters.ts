import type { Tx } from '../db/client.js';

export interface SearchFilter {
  collectionIds: string[];
  /** Any-of, case-insensitive exact tag match. */
  tags?: string[];
}

/** Extra condition on a chunk alias `c` for the tag filter (empty when no tags were asked for). */
export function tagCondition(tx: Tx, f: SearchFilter) {
  if (!f.tags?.length) return tx``;
  const lower = f.tags.map((t) => t.toLowerCase());
  return tx`and exists (select 1 from documents d, unnest(d.tags) t where d.id = c.document_id and lower(t) = any(${lower}::text[]))`;
}
