import type { Tx } from '../db/client.js';
import type { Candidate } from './fusion.js';
import { tagCondition, type SearchFilter } from './filters.js';

/**
 * Nearest chunks by cosine distance through the per-dimension HNSW expression index. The dimension
 * is part of the SQL text (a type modifier cannot be a parameter); it is an integer we produced.
 */
export async function vectorCandidates(tx: Tx, vector: number[], f: SearchFilter, k: number): Promise<Candidate[]> {
  const dim = vector.length;
  if (!Number.isInteger(dim) || dim < 1 || dim > 16000) throw new Error(`invalid query vector dimension ${dim}`);
  const vec = JSON.stringify(vector);
  const typed = tx.unsafe(`::vector(${dim})`);
  const rows = await tx<{ id: string; sim: number }[]>`
    with nn as materialized (
      select c.id, c.embedding${typed} <=> ${vec}${typed} as dist
        from chunks c
       where c.collection_id = any(${f.collectionIds}::uuid[])
         and vector_dims(c.embedding) = ${tx.unsafe(String(dim))}
         ${tagCondition(tx, f)}
       order by c.embedding${typed} <=> ${vec}${typed}
       limit ${k}
    )
    select id, 1 - dist as sim from nn order by dist, id`;
  return rows.map((r, i) => ({ chunkId: r.id, score: Number(r.sim), rank: i + 1 }));
}
