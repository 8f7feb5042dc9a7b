import type { JobHelpers } from 'graphile-worker';
import type { Config } from '../config.js';
import type { Tx } from '../db/client.js';
import { isPermanent, PermanentError } from '../errors.js';
import { defineJob } from '../jobs/queue.js';
import { getDocumentById } from './queries.js';
import { chunkText } from '../ingest/chunk.js';
import { emitEvent, type DocumentEventData } from '../webhooks/events.js';
import { claimEmbeddingModel, ensureVectorIndex } from '../search/embedding-model.js';
import { replaceDocumentChunks } from '../index/write-chunks.js';
import type { AppDeps } from '../types.js';
import { loadText } from './load-text.js';
import { processingPriority } from './processing-queue.js';

type Doc = NonNullable<Awaited<ReturnType<typeof getDocumentById>>>;

/** Chunks per embedding call: bounds memory on huge documents. */
const EMBED_SLICE = 64;

function eventData(d: Doc, chunksCount: number, errorMessage: string | null, status: string): DocumentEventData {
  return {
    uuid: d.id,
    status,
    title: d.title,
    source_type: d.source_type,
    collection_uuid: d.collection_id,
    collection_name: d.collection_name,
    chunks_count: chunksCount,
    tags: d.tags.join(','),
    error_message: errorMessage,
    original_filename: d.original_filename,
    file_size: d.file_size,
  };
}

export interface ProcessDocumentPayload {
  documentId: string;
  generation: number;
}

/** Whether a job for `generation` still owns the document: same generation, not deleted, still pending. */
function isCurrent(d: Doc | undefined, generation: number): d is Doc {
  return !!d && !d.deleted_at && d.generation === generation && d.status === 'pending';
}

/** Locks the document and confirms this job still owns it. */
async function lockCurrent(tx: Tx, id: string, generation: number): Promise<Doc | undefined> {
  const d = await getDocumentById(tx, id, { forUpdate: true });
  return isCurrent(d, generation) ? d : undefined;
}

async function markFailed(deps: AppDeps, id: string, generation: number, message: string): Promise<void> {
  await deps.sql.begin(async (tx) => {
    const d = await lockCurrent(tx, id, generation);
    if (!d) return;
    const now = deps.clock.now();
    await tx`delete from chunks where document_id = ${id}`;
    await tx`update documents set status = 'failed', error_message = ${message}, chunks_count = 0, updated_at = ${now} where id = ${id}`;
    await emitEvent(tx, d.organization_id, 'document.failed', eventData(d, 0, message, 'failed'), now);
  });
}

/**
 * extract → chunk → embed → index. Idempotent: chunks are replaced wholesale inside one transaction
 * that first re-checks the document's generation, so a retried job never duplicates chunks and an
 * older job can never overwrite a newer file's results.
 */
export function processDocumentTask(deps: AppDeps) {
  return async (payload: ProcessDocumentPayload, helpers: JobHelpers): Promise<void> => {
    const { documentId, generation } = payload;
    const log = deps.logger.child({ job: processDocumentJob.identifier, documentId, generation, attempt: helpers.job.attempts });
    const doc = await getDocumentById(deps.sql, documentId);
    if (!isCurrent(doc, generation)) {
      log.debug('stale job: skipped');
      return;
    }
    await deps.sql`update documents set attempts = ${helpers.job.attempts} where id = ${documentId} and generation = ${generation}`;
    try {
      const loaded = await loadText(deps, doc);
      if (!loaded.text.trim()) throw new PermanentError('No text could be extracted from the document.');
      const chunks = chunkText(loaded.text, {
        targetTokens: deps.config.CHUNK_TOKENS,
        overlapRatio: deps.config.CHUNK_OVERLAP,
        pages: loaded.pages,
      });
      const vectors: number[][] = [];
      for (let i = 0; i < chunks.length; i += EMBED_SLICE) {
        vectors.push(...(await deps.embedder.embed(chunks.slice(i, i + EMBED_SLICE).map((c) => c.content))));
      }
      await deps.sql.begin(async (tx) => {
        const d = await lockCurrent(tx, documentId, generation);
        if (!d) return;
        const now = deps.clock.now();
        const dimension = vectors[0]?.length ?? (await deps.embedder.dimension());
        if (!(await claimEmbeddingModel(tx, deps.embedder.model, dimension))) {
          // Transient by design: an operator fixes the configuration (or runs reembed) and the retry succeeds.
          throw new Error(
            `embedding model ${deps.embedder.model}/${dimension} does not match the model this database uses; run \`docsift-daemon reembed\``,
          );
        }
        await ensureVectorIndex(tx, dimension);
        await replaceDocumentChunks(tx, {
          documentId,
          collectionId: d.collection_id,
          generation,
          title: d.title,
          model: deps.embedder.model,
          textConfig: deps.config.TEXT_SEARCH_CONFIG,
          now,
          chunks,
          vectors,
        });
        await tx`
          update documents set status = 'indexed', chunks_count = ${chunks.length}, content_text = ${loaded.text}, error_message = '',
                 file_size = case when source_type = 'url' then ${loaded.fetchedBytes ?? 0} else file_size end,
                 indexed_at = ${now}, updated_at = ${now}
           where id = ${documentId}`;
        await emitEvent(
          tx,
          d.organization_id,
          'document.indexed',
          eventData(
            { ...d, file_size: d.source_type === 'url' ? (loaded.fetchedBytes ?? 0) : d.file_size },
            chunks.length,
            null,
            'indexed',
          ),
          now,
        );
      });
      log.info({ chunks: chunks.length }, 'document indexed');
    } catch (err) {
      const final = helpers.job.attempts >= helpers.job.max_attempts;
      if (isPermanent(err) || final) {
        const message = isPermanent(err)
          ? (err as Error).message
          : `Processing failed after ${helpers.job.attempts} attempts: ${(err as Error).message}`;
        log.warn({ err }, 'document failed');
        await markFailed(deps, documentId, generation, message);
        return;
      }
      log.warn({ err }, 'transient failure: will retry');
      throw err;
    }
  };
}

export const processDocumentJob = defineJob<ProcessDocumentPayload>({
  identifier: 'process_document',
  task: processDocumentTask,
  // One queued job per document: a restart replaces the job of the generation it supersedes.
  jobKey: (p) => `process:${p.documentId}`,
});

/**
 * Queues processing of the document's `generation` (its row written in this transaction).
 * `priority` when already known (reembed ranks a whole batch), else its rank in its organization's
 * backlog: fair between organizations (processing-queue.ts).
 */
export async function enqueueProcessing(
  tx: Tx,
  deps: { config: Pick<Config, 'PROCESS_MAX_ATTEMPTS'> },
  payload: ProcessDocumentPayload,
  priority?: number,
): Promise<void> {
  await processDocumentJob.enqueue(tx, payload, {
    maxAttempts: deps.config.PROCESS_MAX_ATTEMPTS,
    priority: priority ?? (await processingPriority(tx, payload.documentId)),
  });
}
