import type { Caller } from '../types.js';
import { visibleToCaller } from '../auth/access.js';
import type { Tx } from '../db/client.js';
import type { Metadata } from '../metadata.js';
import { compileFilter } from '../filters/compile.js';
import type { FilterNode } from '../filters/parse.js';

export type DocumentStatus = 'pending' | 'indexed' | 'failed';

export interface DocumentRow {
  id: string;
  collection_id: string;
  collection_name: string;
  collection_slug: string;
  organization_id: string;
  owner_id: string;
  title: string;
  source_type: string;
  status: DocumentStatus;
  tags: string[];
  metadata: Metadata;
  original_filename: string;
  /** Hex SHA-256 of the file (or a text document's content); null for URL documents and older files. */
  content_sha256: string | null;
  file_size: number;
  media_type: string;
  blob_key: string | null;
  source_url: string | null;
  chunks_count: number;
  generation: number;
  error_message: string;
  created_at: Date;
}

const columns = (tx: Tx) => tx`
  d.id, d.collection_id, c.name as collection_name, c.slug as collection_slug, c.organization_id, c.owner_id,
  d.title, d.source_type, d.status, d.tags, d.metadata, d.original_filename, d.content_sha256, d.file_size::int as file_size, d.media_type,
  d.blob_key, d.source_url, d.chunks_count, d.generation, d.error_message, d.created_at`;

/** A non-deleted document in a collection the caller can read. */
export async function findVisibleDocument(
  tx: Tx,
  caller: Caller,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<DocumentRow | undefined> {
  const rows = await tx<DocumentRow[]>`
    select ${columns(tx)}
      from documents d join collections c on c.id = d.collection_id
     where d.id = ${id} and d.deleted_at is null and ${visibleToCaller(tx, caller)}
     ${opts.forUpdate ? tx`for update of d` : tx``}`;
  return rows[0];
}

/** A document row with what only processing reads: its deletion time and extracted text. */
type StoredDocument = DocumentRow & { deleted_at: Date | null; content_text: string };

export async function getDocumentById(tx: Tx, id: string, opts: { forUpdate?: boolean } = {}): Promise<StoredDocument | undefined> {
  return (await getDocumentsByIds(tx, [id], opts))[0];
}

/** Several documents by id (any state), locked in id order when `forUpdate` (no deadlock between two such locks). */
export async function getDocumentsByIds(tx: Tx, ids: string[], opts: { forUpdate?: boolean } = {}): Promise<StoredDocument[]> {
  return tx<StoredDocument[]>`
    select ${columns(tx)}, d.deleted_at, document_text(d.id, d.text_joins) as content_text
      from documents d join collections c on c.id = d.collection_id
     where d.id = any(${ids}::uuid[])
     order by d.id
     ${opts.forUpdate ? tx`for update of d` : tx``}`;
}

export interface ListFilter {
  tag?: string;
  collection?: string;
  status?: DocumentStatus;
  /** A checked filter (filters/parse.ts). */
  where?: FilterNode;
  /** Absent: every matching row (read it with `.cursor()` to keep memory flat). */
  limit?: number;
  cursor?: { createdAt: Date; id: string };
}

/** The list's conditions on a document `d` of collection `c` (alias names as listVisibleDocuments joins them). */
export function listConditions(tx: Tx, caller: Caller, f: Omit<ListFilter, 'limit' | 'cursor'>) {
  const tagPattern = f.tag ? '%' + f.tag.toLowerCase().replace(/[\\%_]/g, (m) => '\\' + m) + '%' : null;
  return tx`d.deleted_at is null and ${visibleToCaller(tx, caller)}
       ${f.collection ? tx`and c.slug = ${f.collection}` : tx``}
       ${f.status ? tx`and d.status = ${f.status}` : tx``}
       ${f.where ? tx`and ${compileFilter(tx, f.where)}` : tx``}
       ${tagPattern ? tx`and exists (select 1 from unnest(d.tags) t where lower(t) like ${tagPattern})` : tx``}`;
}

/** Newest first, keyset-paginated on (created_at, id) so deep pages stay fast. */
export function listVisibleDocuments(tx: Tx, caller: Caller, f: ListFilter) {
  return tx<DocumentRow[]>`
    select ${columns(tx)}
      from documents d join collections c on c.id = d.collection_id
     where ${listConditions(tx, caller, f)}
       ${f.cursor ? tx`and (d.created_at, d.id) < (${f.cursor.createdAt}, ${f.cursor.id})` : tx``}
     order by d.created_at desc, d.id desc
     ${f.limit === undefined ? tx`` : tx`limit ${f.limit}`}`;
}

/** Documents carrying exactly `tag` (case-insensitive) in the caller's visible collections. */
export async function documentsByTag(
  tx: Tx,
  caller: Caller,
  tag: string,
  opts: { collection?: string; limit: number },
): Promise<DocumentRow[]> {
  return tx<DocumentRow[]>`
    select ${columns(tx)}
      from documents d join collections c on c.id = d.collection_id
     where d.deleted_at is null and ${visibleToCaller(tx, caller)}
       ${opts.collection ? tx`and c.slug = ${opts.collection}` : tx``}
       and exists (select 1 from unnest(d.tags) t where lower(t) = lower(${tag}))
     order by d.created_at desc, d.id desc
     limit ${opts.limit}`;
}

export interface ChunkRow {
  id: string;
  content: string;
  chunk_index: number;
  page: number | null;
  embedding_model: string;
}

export async function chunksOfDocument(tx: Tx, documentId: string): Promise<ChunkRow[]> {
  return tx<ChunkRow[]>`
    select id, content, chunk_index, page, embedding_model from chunks where document_id = ${documentId} order by chunk_index`;
}

export async function contentText(tx: Tx, documentId: string): Promise<string> {
  const rows = await tx<{ content_text: string }[]>`
    select document_text(id, text_joins) as content_text from documents where id = ${documentId}`;
  return rows[0]?.content_text ?? '';
}
