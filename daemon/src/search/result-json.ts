import type { Hit } from './hydrate.js';
import type { Span } from './highlights.js';
import { roundScore } from './score-scale.js';

/** A result as the API answers it: the hit's fields, its highlights, and with `explain` each channel's rank and score. */
export function resultJson(r: Hit, explain: boolean | undefined, highlights: Span[]) {
  return {
    content: r.content,
    highlights,
    title: r.title,
    document_id: r.documentId,
    collection_name: r.collectionName,
    collection_slug: r.collectionSlug,
    tags: r.tags,
    metadata: r.metadata,
    score: roundScore(r.score),
    chunk_id: r.chunkId,
    chunk_index: r.chunkIndex,
    page: r.page,
    ...(explain
      ? {
          explain: {
            text: r.text ? { rank: r.text.rank, score: r.text.score, coverage: r.text.coverage ?? null } : null,
            vector: r.vector ? { rank: r.vector.rank, score: r.vector.score } : null,
          },
        }
      : {}),
  };
}
