import type { ChunkRow, DocumentRow } from './queries.js';

export function uploadJson(d: DocumentRow) {
  return {
    uuid: d.id,
    title: d.title,
    source_type: d.source_type,
    status: d.status,
    original_filename: d.original_filename,
    file_size: d.file_size,
    tags: d.tags,
    metadata: d.metadata,
    collection_name: d.collection_name,
    created_at: d.created_at.toISOString(),
  };
}

export function listItemJson(d: DocumentRow) {
  return {
    uuid: d.id,
    title: d.title,
    source_type: d.source_type,
    status: d.status,
    tags: d.tags,
    metadata: d.metadata,
    chunks_count: d.chunks_count,
    original_filename: d.original_filename,
    content_sha256: d.content_sha256,
    file_size: d.file_size,
    collection_name: d.collection_name,
    collection_slug: d.collection_slug,
    created_at: d.created_at.toISOString(),
  };
}

export function detailJson(d: DocumentRow, contentText: string, chunks: ChunkRow[]) {
  return {
    ...listItemJson(d),
    content_text: contentText,
    error_message: d.error_message,
    chunks: chunks.map((c) => ({
      id: c.id,
      content: c.content,
      chunk_index: c.chunk_index,
      embedding_model: c.embedding_model,
      page: c.page,
    })),
  };
}
