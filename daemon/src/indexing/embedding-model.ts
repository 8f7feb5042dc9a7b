import type { Sql, Tx } from '../db/client.js';

export interface StoredModel {
  model: string;
  dimension: number;
}

export class EmbeddingModelMismatchError extends Error {}

export async function storedEmbeddingModel(tx: Tx): Promise<StoredModel | undefined> {
  const rows = await tx<{ value: StoredModel }[]>`select value from instance_settings where key = 'embedding_model'`;
  return rows[0]?.value;
}

/**
 * Startup guard: vectors of different models are never mixed in one index. The dimension is checked
 * too when it is known without asking the server (built-in model, or EMBEDDING_DIMENSIONS): the
 * same model shortened to another length is another vector space. Otherwise the first answer's
 * length is checked when a document is indexed (claimEmbeddingModel).
 */
export async function assertEmbeddingModel(sql: Sql, configuredModel: string, configuredDimension?: number): Promise<void> {
  const stored = await storedEmbeddingModel(sql);
  if (!stored) return;
  const sameDimension = configuredDimension === undefined || configuredDimension === stored.dimension;
  if (stored.model !== configuredModel || !sameDimension) {
    const configured = `"${configuredModel}"${configuredDimension === undefined ? '' : ` (${configuredDimension} dimensions)`}`;
    throw new EmbeddingModelMismatchError(
      `This database holds vectors from embedding model "${stored.model}" (${stored.dimension} dimensions), but ${configured} is configured. ` +
        `Mixing models would make vector search meaningless. Either configure "${stored.model}" with ${stored.dimension} dimensions again, or run \`docsift-daemon reembed\` to re-process every document with ${configured}.`,
    );
  }
}

/**
 * Records the model on first use, inside the indexing transaction; afterwards confirms the job's
 * model still matches (another process with a different configuration must not write vectors).
 */
export async function claimEmbeddingModel(tx: Tx, model: string, dimension: number): Promise<boolean> {
  await tx`
    insert into instance_settings (key, value) values ('embedding_model', ${tx.json({ model, dimension })})
    on conflict (key) do nothing`;
  const stored = await storedEmbeddingModel(tx);
  return stored?.model === model && stored.dimension === dimension;
}

/** Name of the HNSW index for one model and dimension (identifiers cannot be parameters, so they are derived, never user input). */
export function vectorIndexName(dimension: number): string {
  return `chunks_embedding_hnsw_${dimension}`;
}

/**
 * pgvector needs a fixed dimension to index, so each dimension gets an expression index over
 * `embedding::halfvec(N)` (vectors are stored as halfvec: half the bytes, recall measured in
 * text-index.md); queries use the same expression. Idempotent. halfvec HNSW indexes stop at 4,000
 * dimensions.
 *
 * ef_construction 128, not pgvector's 64: with 64, recall@10 at the daemon's ef_search (100) on
 * 100k bench chunks ranged 0.945-0.971 between builds of the same rows (parallel builds are not
 * deterministic) and fell to 0.755 at 300k; with 128 it measured 0.995 (1.000 at ef_search 40),
 * for about 1.6x the build time and the same index size (text-index.md, "Vectors").
 */
export async function ensureVectorIndex(sql: Sql | Tx, dimension: number): Promise<void> {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > 4000) throw new Error(`invalid dimension ${dimension}`);
  // Checked first: CREATE INDEX IF NOT EXISTS would take a table lock even when the index exists.
  const [row] = await sql<{ t: string | null }[]>`select to_regclass(${vectorIndexName(dimension)})::text as t`;
  if (!row?.t) {
    await sql.unsafe(
      `create index if not exists ${vectorIndexName(dimension)} on chunks using hnsw ((embedding::halfvec(${dimension})) halfvec_cosine_ops) with (m = 16, ef_construction = 128) where vector_dims(embedding) = ${dimension}`,
    );
  }
}
