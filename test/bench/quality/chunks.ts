// Reads the indexed chunks back out of PostgreSQL, with the vectors the worker stored, so the
// peers index exactly the texts and embeddings docsift searches.
import { fromSql } from 'pgvector';
import type postgres from 'postgres';
import { beirIdFromTags } from './dataset.js';

export interface ExportedChunk {
  chunkId: string;
  /** BEIR corpus id of the chunk's document. */
  doc: string;
  title: string;
  content: string;
  vector: number[];
}

export async function exportChunks(sql: postgres.Sql, collectionId: string): Promise<ExportedChunk[]> {
  const rows = await sql<{ id: string; tags: string[]; title: string; content: string; embedding: string }[]>`
    select c.id, d.tags, d.title, c.content, c.embedding::text as embedding
      from chunks c
      join documents d on d.id = c.document_id
     where c.collection_id = ${collectionId}
       and d.status = 'indexed' and d.deleted_at is null and c.generation = d.generation
     order by d.created_at, d.id, c.chunk_index`;
  return rows.map((r) => {
    const doc = beirIdFromTags(r.tags);
    if (!doc) throw new Error(`chunk ${r.id} belongs to a document without a beir: tag`);
    return { chunkId: r.id, doc, title: r.title, content: r.content, vector: fromSql(r.embedding) as number[] };
  });
}
