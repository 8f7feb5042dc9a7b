import type { EmbeddingProvider } from '../embeddings/types.js';
import type { Sql } from '../db/client.js';
import { restartDocuments, type RestartDeps } from './restart.js';

/**
 * Switches the database to the configured embedding model: every live document goes back to
 * `pending` under a new generation (restart.ts), its chunks are dropped, and processing is queued.
 * Search answers from the documents already re-indexed while the worker catches up.
 */
export async function reembedAll(
  deps: RestartDeps & { sql: Sql },
  embedder: EmbeddingProvider,
): Promise<{ documents: number; model: string; dimension: number }> {
  const dimension = await embedder.dimension();
  const documents = await deps.sql.begin(async (tx) => {
    await tx`
      insert into instance_settings (key, value) values ('embedding_model', ${tx.json({ model: embedder.model, dimension })})
      on conflict (key) do update set value = excluded.value, updated_at = ${deps.clock.now()}`;
    return restartDocuments(tx, deps, { everyLiveDocument: true });
  });
  return { documents, model: embedder.model, dimension };
}
