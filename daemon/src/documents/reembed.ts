import type { Sql } from '../db/client.js';
import type { EmbeddingProvider } from '../embeddings/types.js';
import { enqueueJob } from '../db/jobs.js';
import { PROCESS_JOB } from './upload.js';
import { ranksByOrganization } from './processing-queue.js';

/**
 * Switches the database to the configured embedding model: every live document goes back to
 * `pending` under a new generation, its chunks are dropped, and processing is queued. Search
 * answers from the documents already re-indexed while the worker catches up.
 */
export async function reembedAll(
  sql: Sql,
  embedder: EmbeddingProvider,
  maxAttempts: number,
): Promise<{ documents: number; model: string; dimension: number }> {
  const dimension = await embedder.dimension();
  return sql.begin(async (tx) => {
    await tx`
      insert into instance_settings (key, value) values ('embedding_model', ${tx.json({ model: embedder.model, dimension })})
      on conflict (key) do update set value = excluded.value, updated_at = now()`;
    await tx`delete from chunks`;
    const docs = await tx<{ id: string; generation: number; organization_id: string; created_at: Date }[]>`
      update documents d set generation = d.generation + 1, status = 'pending', chunks_count = 0, error_message = '', attempts = 0, updated_at = now()
        from collections c
       where c.id = d.collection_id and d.deleted_at is null
      returning d.id, d.generation, c.organization_id, d.created_at`;
    // Oldest first within each organization, organizations interleaved (processing-queue.ts).
    docs.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
    const ranks = ranksByOrganization(docs);
    for (const [i, d] of docs.entries()) {
      await enqueueJob(
        tx,
        PROCESS_JOB,
        { documentId: d.id, generation: d.generation },
        { jobKey: `process:${d.id}`, maxAttempts, priority: ranks[i] },
      );
    }
    return { documents: docs.length, model: embedder.model, dimension };
  }) as Promise<{ documents: number; model: string; dimension: number }>;
}
