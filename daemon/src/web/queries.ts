// Read-only figures the pages show beside what the use cases return. Every query is scoped with
// the same visibility condition the API uses (visibleToCaller), never a check of its own.
import { visibleToCaller } from '../auth/access.js';
import type { DocumentStatus } from '../documents/queries.js';
import type { AppDeps, Caller } from '../types.js';

export type StatusCounts = Record<DocumentStatus, number>;
export const NO_COUNTS: StatusCounts = { indexed: 0, pending: 0, failed: 0 };

/** Indexed / pending / failed documents per collection (ids the caller already sees). */
export async function statusCounts(deps: AppDeps, ids: string[]): Promise<Map<string, StatusCounts>> {
  const out = new Map<string, StatusCounts>();
  if (!ids.length) return out;
  const rows = await deps.sql<{ collection_id: string; status: DocumentStatus; n: number }[]>`
    select collection_id, status, count(*)::int as n
      from documents where collection_id in ${deps.sql(ids)} and deleted_at is null
     group by collection_id, status`;
  for (const r of rows) {
    const c = out.get(r.collection_id) ?? { ...NO_COUNTS };
    c[r.status] = r.n;
    out.set(r.collection_id, c);
  }
  return out;
}

/**
 * Tags for the filter's suggestions, most used first: those of the newest documents the caller can
 * read. Bounded by TAG_SAMPLE documents so the cost stays flat however large the collections grow
 * (all 5,000 documents of the UI benchmark took twice as long as the page's document list).
 */
const TAG_SAMPLE = 500;
export async function visibleTags(deps: AppDeps, caller: Caller, collectionSlug?: string): Promise<string[]> {
  const rows = await deps.sql<{ tag: string }[]>`
    select min(t) as tag
      from (
        select d.tags
          from documents d join collections c on c.id = d.collection_id
         where d.deleted_at is null and ${visibleToCaller(deps.sql, caller)}
           ${collectionSlug ? deps.sql`and c.slug = ${collectionSlug}` : deps.sql``}
         order by d.created_at desc, d.id desc
         limit ${TAG_SAMPLE}
      ) recent, unnest(recent.tags) t
     group by lower(t)
     order by count(*) desc, lower(t)
     limit 200`;
  return rows.map((r) => r.tag);
}
