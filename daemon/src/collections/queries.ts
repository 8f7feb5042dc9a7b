import type { Caller } from '../types.js';
import { visibleToCaller } from '../auth/access.js';
import type { Tx } from '../db/client.js';

export interface CollectionRow {
  id: string;
  owner_id: string;
  organization_id: string;
  name: string;
  slug: string;
  description: string;
  is_public: boolean;
  is_subscribed: boolean;
  /** Text search configuration; null: TEXT_SEARCH_CONFIG (collections created before migration 117). */
  language: string | null;
  document_count: number;
  total_chunks: number;
  created_at: Date;
}

/** Visible collections with the caller-specific and aggregate fields of the Collection resource. */
export async function queryVisibleCollections(tx: Tx, caller: Caller, filter: { id?: string } = {}): Promise<CollectionRow[]> {
  return tx<CollectionRow[]>`
    select c.id, c.owner_id, c.organization_id, c.name, c.slug, c.description, c.is_public, c.created_at, c.language,
           exists (select 1 from subscriptions s where s.collection_id = c.id and s.user_id = ${caller.userId}) as is_subscribed,
           coalesce(st.document_count, 0)::int as document_count,
           coalesce(st.total_chunks, 0)::int as total_chunks
      from collections c
      left join lateral (
        select count(*) as document_count, sum(d.chunks_count) as total_chunks
          from documents d where d.collection_id = c.id and d.deleted_at is null
      ) st on true
     where ${visibleToCaller(tx, caller)}
       ${filter.id ? tx`and c.id = ${filter.id}` : tx``}
     order by c.created_at, c.id`;
}

/** Slugs already taken by `base` or `base-N`, to pick the next free suffix. */
export async function takenSlugs(tx: Tx, base: string): Promise<Set<string>> {
  const rows = await tx<{ slug: string }[]>`
    select slug from collections where slug = ${base} or (slug like ${base + '-%'} and slug ~ ${'^' + base + '-[0-9]+$'})`;
  return new Set(rows.map((r) => r.slug));
}

export async function insertCollection(
  tx: Tx,
  c: {
    ownerId: string;
    organizationId: string;
    name: string;
    slug: string;
    description: string;
    isPublic: boolean;
    language: string;
    now: Date;
  },
): Promise<{ id: string }> {
  const rows = await tx<{ id: string }[]>`
    insert into collections (owner_id, organization_id, name, slug, description, is_public, language, text_config, created_at, updated_at)
    values (${c.ownerId}, ${c.organizationId}, ${c.name}, ${c.slug}, ${c.description}, ${c.isPublic}, ${c.language}, text_index_config(${c.language}), ${c.now}, ${c.now})
    returning id`;
  return rows[0]!;
}
