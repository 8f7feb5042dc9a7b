import { visibleCollectionIds } from '../auth/access.js';
import { getVisibleCollectionId } from '../collections/service.js';
import type { Tx } from '../db/client.js';
import { isUuid } from '../ids.js';
import type { Caller } from '../types.js';

/**
 * The collections a search covers: the named ones (`collection` and `collections`, slugs; the
 * legacy alias may carry a uuid), each answering 404 COLLECTION_NOT_FOUND when not visible, or
 * every visible collection when none is named.
 */
export async function searchScope(sql: Tx, caller: Caller, refs: string[]): Promise<string[]> {
  if (!refs.length) return visibleCollectionIds(sql, caller);
  const ids: string[] = [];
  for (const ref of new Set(refs)) ids.push(await getVisibleCollectionId(sql, caller, isUuid(ref) ? { id: ref } : { slug: ref }));
  return [...new Set(ids)];
}
