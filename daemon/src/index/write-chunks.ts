import { toSql } from 'pgvector';
import type { Tx } from '../db/client.js';
import type { Chunk } from '../ingest/chunk.js';

export interface DocumentChunks {
  documentId: string;
  collectionId: string;
  generation: number;
  /** prefixed to every chunk's text for full-text indexing */
  title: string;
  model: string;
  textConfig: string;
  now: Date;
  chunks: Chunk[];
  vectors: number[][];
}

/**
 * Replaces a document's chunks in one statement each: the old ones are deleted, the new ones
 * inserted with their halfvec embeddings and tsvectors. The statement triggers on chunks write the
 * BM25 postings (text_blocks) and statistics in the same transaction. Vectors go as one text[]
 * parameter of pgvector's text form (`toSql`) and are cast per row, so the statement stays prepared.
 */
export async function replaceDocumentChunks(tx: Tx, d: DocumentChunks): Promise<void> {
  await tx`delete from chunks where document_id = ${d.documentId}`;
  await tx`
    insert into chunks (document_id, collection_id, generation, chunk_index, page, content, token_count, embedding, embedding_model, tsv, created_at)
    select ${d.documentId}, ${d.collectionId}, ${d.generation}, t.idx, t.page, t.content, t.tokens, t.emb::halfvec, ${d.model},
           to_tsvector(${d.textConfig}::regconfig, ${d.title} || ' ' || t.content), ${d.now}
      from unnest(${d.chunks.map((c) => c.chunkIndex)}::int[], ${d.chunks.map((c) => c.page)}::int[], ${d.chunks.map((c) => c.content)}::text[],
                  ${d.chunks.map((c) => c.tokenCount)}::int[], ${d.vectors.map((v) => toSql(v))}::text[]) as t(idx, page, content, tokens, emb)`;
}
