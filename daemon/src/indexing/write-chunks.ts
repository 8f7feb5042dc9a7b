import type { Tx } from '../db/client.js';
import type { Chunk } from '../ingest/chunk.js';
import { toSql } from 'pgvector';

export interface DocumentChunks {
  documentId: string;
  collectionId: string;
  generation: number;
  /** prefixed to every chunk's text for full-text indexing */
  title: string;
  chunks: Chunk[];
  vectors: number[][];
}

/**
 * Replaces the chunks of many documents in two statements, whatever their number: the old ones are
 * deleted, the new ones inserted with their halfvec embeddings and tsvectors. The statement
 * triggers on chunks write the BM25 postings (text_fresh, one row per collection and lexeme for the
 * whole statement) and statistics in the same transaction. Vectors go as one text[] parameter of
 * pgvector's text form, and are cast per row, so the statement stays prepared.
 * Each chunk's tsvector uses its collection's text_config (null: `opts.textConfig`, TEXT_SEARCH_CONFIG),
 * read under FOR KEY SHARE before any chunk is touched: a language reindex holds the row FOR UPDATE
 * (collections/language.ts), so a batch waits for it and then writes with the new configuration.
 */
export async function replaceDocumentsChunks(
  tx: Tx,
  docs: DocumentChunks[],
  opts: { model: string; textConfig: string; now: Date },
): Promise<void> {
  if (!docs.length) return;
  const rows = docs.flatMap((d) => d.chunks.map((c, i) => ({ d, c, v: d.vectors[i]! })));
  const configs = new Map<string, string>();
  if (rows.length) {
    const colls = [...new Set(rows.map((r) => r.d.collectionId))].sort();
    for (const c of await tx<{ id: string; cfg: string }[]>`
      select id, coalesce(text_config, ${opts.textConfig}) as cfg from collections where id = any(${colls}::uuid[]) order by id for key share`)
      configs.set(c.id, c.cfg);
  }
  await tx`delete from chunks where document_id = any(${docs.map((d) => d.documentId)}::uuid[])`;
  if (!rows.length) return;
  await tx`
    insert into chunks (document_id, collection_id, generation, chunk_index, page, content, token_count, embedding, embedding_model, tsv, created_at)
    select t.doc, t.coll, t.gen, t.idx, t.page, t.content, t.tokens, t.emb::halfvec, ${opts.model},
           docsift_tsvector(t.cfg, t.title || ' ' || t.content), ${opts.now}
      from unnest(${rows.map((r) => r.d.documentId)}::uuid[], ${rows.map((r) => r.d.collectionId)}::uuid[], ${rows.map((r) => r.d.generation)}::int[],
                  ${rows.map((r) => r.d.title)}::text[], ${rows.map((r) => r.c.chunkIndex)}::int[], ${rows.map((r) => r.c.page)}::int[],
                  ${rows.map((r) => r.c.content)}::text[], ${rows.map((r) => r.c.tokenCount)}::int[], ${rows.map((r) => toSql(r.v) as string)}::text[],
                  ${rows.map((r) => configs.get(r.d.collectionId) ?? opts.textConfig)}::text[])
           as t(doc, coll, gen, title, idx, page, content, tokens, emb, cfg)`;
}
