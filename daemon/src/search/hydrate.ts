import type { Tx } from '../db/client.js';
import { withinTimeout } from '../db/statement-timeout.js';
import type { Metadata } from '../metadata.js';
import type { Conditions } from './conditions.js';
import type { Fused } from './fusion.js';

export interface Hit extends Fused {
  documentId: string;
  content: string;
  title: string;
  tags: string[];
  metadata: Metadata;
  collectionName: string;
  collectionSlug: string;
  /** The collection's text search configuration (null: TEXT_SEARCH_CONFIG), which highlights parse with. */
  textConfig: string | null;
  /** The collection's number (collections.no): which typo corrections apply to it (typo-tolerance.ts Correction.nos). */
  collectionNo: number;
  chunkIndex: number;
  page: number | null;
}

/**
 * Loads display fields for fused hits, keeping order; re-checks that each document is live and indexed.
 * The ids are joined from unnest() rather than matched with `c.id = any(...)`: PostgreSQL then keeps
 * the prepared statement's generic plan, where `= any` made it plan every call again (0.6 ms of
 * planning per search at 100k chunks, more than the statement itself; pg_stat_statements).
 * The filter (compiled once, conditions.ts) is checked again here against the documents as they
 * are now: a concurrent PATCH of metadata can never let a result through that fails it.
 */
export async function hydrate(tx: Tx, fused: Fused[], c: Pick<Conditions, 'passes' | 'timeoutMs'>): Promise<Hit[]> {
  if (!fused.length) return [];
  const rows = await withinTimeout(
    tx<
      {
        id: string;
        document_id: string;
        content: string;
        chunk_index: number;
        page: number | null;
        title: string;
        tags: string[];
        metadata: Metadata;
        collection_name: string;
        collection_slug: string;
        text_config: string | null;
        collection_no: number;
      }[]
    >`
    select c.id, c.document_id, c.content, c.chunk_index, c.page, d.title, d.tags, d.metadata, col.name as collection_name, col.slug as collection_slug, col.text_config, col.no as collection_no
      from unnest(${fused.map((f) => f.chunkId)}::uuid[]) as f(id)
      join chunks c on c.id = f.id
      join documents d on d.id = c.document_id and d.deleted_at is null and d.status = 'indexed' and d.generation = c.generation
        ${c.passes ? tx`and ${c.passes}` : tx``}
      join collections col on col.id = c.collection_id and col.deleted_at is null`,
    c.timeoutMs,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: Hit[] = [];
  for (const f of fused) {
    const r = byId.get(f.chunkId);
    if (!r) continue;
    out.push({
      ...f,
      documentId: r.document_id,
      content: r.content,
      title: r.title,
      tags: r.tags,
      metadata: r.metadata,
      collectionName: r.collection_name,
      collectionSlug: r.collection_slug,
      textConfig: r.text_config,
      collectionNo: r.collection_no,
      chunkIndex: r.chunk_index,
      page: r.page,
    });
  }
  return out;
}
