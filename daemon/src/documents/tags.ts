import { documentsByTag } from './queries.js';
import { AppError } from '../errors.js';
import type { AppDeps, Caller } from '../types.js';
import { getVisibleCollectionId } from '../collections/service.js';
import { listItemJson } from './json.js';

export const TAG_RESULTS_MAX = 500;

/** Documents carrying exactly `tag` (case-insensitive) across the caller's visible collections. Shared by REST and MCP. */
export async function searchByTag(deps: AppDeps, caller: Caller, tag: string, opts: { collection?: string; limit?: number } = {}) {
  const t = tag.trim();
  if (!t) throw new AppError('VALIDATION_FAILED', 'Tag must not be empty.', { tag: ['Required.'] });
  if (opts.collection) await getVisibleCollectionId(deps.sql, caller, { slug: opts.collection });
  const rows = await documentsByTag(deps.sql, caller, t, {
    collection: opts.collection,
    limit: Math.min(opts.limit ?? TAG_RESULTS_MAX, TAG_RESULTS_MAX),
  });
  return { tag: t, count: rows.length, documents: rows.map(listItemJson) };
}
