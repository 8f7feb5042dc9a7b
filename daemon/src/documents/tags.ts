import { documentsByTag } from './queries.js';
import { AppError } from '../errors.js';
import type { Tx } from '../db/client.js';
import type { AppDeps, Caller } from '../types.js';
import { getVisibleCollectionId } from '../collections/service.js';
import { listItemJson } from './json.js';

export const TAG_RESULTS_MAX = 500;

/** `tags` arrives as one comma-separated string: trimmed, empties dropped, duplicates (case-insensitive) removed. */
export function parseTags(raw: string | undefined): string[] {
  if (!raw) return [];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (seen.has(t.toLowerCase())) continue;
    seen.add(t.toLowerCase());
    out.push(t);
  }
  return out;
}

/** Documents carrying exactly `tag` (case-insensitive) across the caller's visible collections. Shared by REST and MCP. */
export async function searchByTag(deps: AppDeps, caller: Caller, tag: string, opts: { collection?: string; limit?: number } = {}) {
  const t = tag.trim();
  if (!t) throw new AppError('VALIDATION_FAILED', 'Tag must not be empty.', { tag: ['Required.'] });
  const lookup = async (sql: Tx) => {
    if (opts.collection) await getVisibleCollectionId(sql, caller, { slug: opts.collection });
    return documentsByTag(sql, caller, t, { collection: opts.collection, limit: Math.min(opts.limit ?? TAG_RESULTS_MAX, TAG_RESULTS_MAX) });
  };
  // A list like any other (replica when there is one); a collection it does not know yet is confirmed on the primary.
  const rows = await deps.reads.run(lookup).catch((err: unknown) => {
    if (opts.collection && deps.reads.usingReplica && err instanceof AppError && err.code === 'COLLECTION_NOT_FOUND')
      return lookup(deps.sql);
    throw err;
  });
  return { tag: t, count: rows.length, documents: rows.map(listItemJson) };
}
