import type { Tx } from '../db/client.js';
import type { Candidate } from './fusion.js';
import { tagCondition, type SearchFilter } from './filters.js';

/** Full-text candidates (placeholder ranking until BM25 postings land). */
export async function textCandidates(tx: Tx, textConfig: string, query: string, f: SearchFilter, k: number): Promise<Candidate[]> {
  const rows = await tx<{ id: string; score: number }[]>`
    with q as (select websearch_to_tsquery(${textConfig}::regconfig, ${query}) as tsq)
    select c.id, ts_rank(to_tsvector(${textConfig}::regconfig, c.content), q.tsq) as score
      from chunks c, q
     where c.collection_id = any(${f.collectionIds}::uuid[])
       and to_tsvector(${textConfig}::regconfig, c.content) @@ q.tsq
       ${tagCondition(tx, f)}
     order by score desc, c.id
     limit ${k}`;
  return rows.map((r, i) => ({ chunkId: r.id, score: Number(r.score), rank: i + 1 }));
}
