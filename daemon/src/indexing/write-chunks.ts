import type { Tx } from '../db/client.js';
import type { Chunk } from '../ingest/chunk.js';
import { segmentForIndex } from '../text/segment.js';
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
 * A segmented configuration (chinese, japanese, korean, thai) parses the text as segmentForIndex()
 * wrote it; `content` stays the text as it was.
 */
export async function replaceDocumentsChunks(
  tx: Tx,
  docs: DocumentChunks[],
  opts: { model: string; textConfig: string; now: Date },
): Promise<void> {
  if (!docs.length) return;
  const rows = docs.flatMap((d) => d.chunks.map((c, i) => ({ d, c, v: d.vectors[i]! })));
  const configs = new Map<string, { cfg: string; segmented: boolean }>();
  if (rows.length) {
    const colls = [...new Set(rows.map((r) => r.d.collectionId))].sort();
    for (const c of await tx<{ id: string; cfg: string; segmented: boolean }[]>`
      select id, coalesce(text_config, ${opts.textConfig}) as cfg, text_config_segmented(coalesce(text_config, ${opts.textConfig})) as segmented
        from collections where id = any(${colls}::uuid[]) order by id for key share`)
      configs.set(c.id, c);
  }
  const configOf = (collectionId: string) => configs.get(collectionId) ?? { cfg: opts.textConfig, segmented: false };
  await tx`delete from chunks where document_id = any(${docs.map((d) => d.documentId)}::uuid[])`;
  if (!rows.length) return;
  await tx`
    insert into chunks (document_id, collection_id, generation, chunk_index, page, content, token_count, embedding, embedding_model, tsv, created_at)
    select t.doc, t.coll, t.gen, t.idx, t.page, t.content, t.tokens, t.emb::halfvec, ${opts.model},
           docsift_tsvector(t.cfg, coalesce(t.seg, t.title || ' ' || t.content)), ${opts.now}
      from unnest(${rows.map((r) => r.d.documentId)}::uuid[], ${rows.map((r) => r.d.collectionId)}::uuid[], ${rows.map((r) => r.d.generation)}::int[],
                  ${rows.map((r) => r.d.title)}::text[], ${rows.map((r) => r.c.chunkIndex)}::int[], ${rows.map((r) => r.c.page)}::int[],
                  ${rows.map((r) => r.c.content)}::text[], ${rows.map((r) => r.c.tokenCount)}::int[], ${rows.map((r) => toSql(r.v) as string)}::text[],
                  ${rows.map((r) => configOf(r.d.collectionId).cfg)}::text[],
                  ${rows.map((r) => (configOf(r.d.collectionId).segmented ? segmentForIndex(`${r.d.title} ${r.c.content}`) : null))}::text[])
           as t(doc, coll, gen, title, idx, page, content, tokens, emb, cfg, seg)`;
}
