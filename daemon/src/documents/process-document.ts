import type { JobHelpers } from 'graphile-worker';
import type { Config } from '../config.js';
import type { Tx } from '../db/client.js';
import { isPermanent, isStopping, PermanentError } from '../errors.js';
import { defineJob } from '../jobs/queue.js';
import { getDocumentById, getDocumentsByIds } from './queries.js';
import { chunkText, type Chunk } from '../ingest/chunk.js';
import { emitEvent, emitEvents, type DocumentEventData } from '../webhooks/events.js';
import { claimEmbeddingModel, ensureVectorIndex } from '../indexing/embedding-model.js';
import { replaceDocumentsChunks } from '../indexing/write-chunks.js';
import type { Logger } from '../logger.js';
import { batchable, BATCH_DOCUMENTS, claimBatchJobs, completeBatchJobs, releaseBatchJobs } from './batch-claim.js';
import type { AppDeps } from '../types.js';
import { loadText, type LoadedText } from './load-text.js';
import { processingPriority } from './processing-queue.js';
import { textJoins } from './text-joins.js';

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

async function markFailed(deps: AppDeps, id: string, generation: number, attempts: number, message: string): Promise<void> {
  await deps.sql.begin(async (tx) => {
    const d = await lockCurrent(tx, id, generation);
    if (!d) return;
    const now = deps.clock.now();
    await tx`delete from chunks where document_id = ${id}`;
    await tx`
      update documents set status = 'failed', error_message = ${message}, chunks_count = 0, attempts = ${attempts}, updated_at = ${now}
       where id = ${id}`;
    await emitEvent(tx, d.organization_id, 'document.failed', eventData(d, 0, message, 'failed'), now);
  });
}

type Outcome =
  | { kind: 'indexed'; loaded: LoadedText; chunks: Chunk[]; vectors: number[][] }
  | { kind: 'failed'; message: string }
  /** a claimed document that met a transient error: its job is given back and runs alone */
  | { kind: 'release'; err: unknown };

interface Item {
  doc: Doc;
  generation: number;
  attempts: number;
  /** a job claimed by the batch (absent: the job running) */
  jobId?: string;
}

/** extract → chunk; a permanent error is the document's outcome, a transient one its job's error. */
async function prepare(deps: AppDeps, d: Doc): Promise<Outcome> {
  try {
    const loaded = await loadText(deps, d);
    if (!loaded.text.trim()) throw new PermanentError('No text could be extracted from the document.');
    const chunks = chunkText(loaded.text, {
      targetTokens: deps.config.CHUNK_TOKENS,
      overlapRatio: deps.config.CHUNK_OVERLAP,
      pages: loaded.pages,
    });
    return { kind: 'indexed', loaded, chunks, vectors: [] };
  } catch (err) {
    if (isPermanent(err)) return { kind: 'failed', message: (err as Error).message };
    return { kind: 'release', err };
  }
}

/** Embeds every chunk of the batch, EMBED_SLICE texts per call. */
async function embedAll(deps: AppDeps, outcomes: Outcome[]): Promise<void> {
  const targets = outcomes.flatMap((o) => (o.kind === 'indexed' ? o.chunks.map((c) => ({ vectors: o.vectors, c })) : []));
  for (let i = 0; i < targets.length; i += EMBED_SLICE) {
    const slice = targets.slice(i, i + EMBED_SLICE);
    const vectors = await deps.embedder.embed(slice.map((t) => t.c.content));
    for (const [k, t] of slice.entries()) t.vectors.push(vectors[k]!);
  }
}

/**
 * Indexes the batch's documents in one transaction that first re-checks each document's
 * generation, so a retried job never duplicates chunks and an older job can never overwrite a newer
 * file's results. Returns the claimed jobs it could not finish (given back by the caller).
 */
async function processBatch(deps: AppDeps, items: Item[], workerId: string, log: Logger): Promise<string[]> {
  const live = items.filter((i) => isCurrent(i.doc, i.generation));
  // The attempt count is written with the outcome, in the same update: a separate update first
  // wrote every document row a third time (its heap and all four indexes: about 250 B per SciFact
  // document after a bulk upload). An attempt that dies midway is counted by its graphile-worker job.
  const outcomes = await Promise.all(live.map((i) => prepare(deps, i.doc)));
  const own = outcomes[live.findIndex((i) => !i.jobId)];
  if (own?.kind === 'release') throw own.err;
  await embedAll(deps, outcomes);
  const release = live.flatMap((i, k) => (outcomes[k]!.kind === 'release' && i.jobId ? [i.jobId] : []));
  const done: { item: Item; outcome: Exclude<Outcome, { kind: 'release' }>; d: Doc }[] = [];
  await deps.sql.begin(async (tx) => {
    const now = deps.clock.now();
    const locked = new Map(
      (
        await getDocumentsByIds(
          tx,
          live.map((i) => i.doc.id),
          { forUpdate: true },
        )
      ).map((d) => [d.id, d]),
    );
    live.forEach((item, k) => {
      const d = locked.get(item.doc.id);
      const outcome = outcomes[k]!;
      if (outcome.kind !== 'release' && isCurrent(d, item.generation)) done.push({ item, outcome, d });
    });
    const indexed = done.flatMap((x) => (x.outcome.kind === 'indexed' ? [{ ...x, outcome: x.outcome }] : []));
    const failed = done.flatMap((x) => (x.outcome.kind === 'failed' ? [{ ...x, outcome: x.outcome }] : []));
    if (indexed.length) {
      const dimension = indexed[0]!.outcome.vectors[0]?.length ?? (await deps.embedder.dimension());
      if (!(await claimEmbeddingModel(tx, deps.embedder.model, dimension))) {
        // Transient by design: an operator fixes the configuration (or runs reembed) and the retry succeeds.
        throw new Error(
          `embedding model ${deps.embedder.model}/${dimension} does not match the model this database uses; run \`docsift-daemon reembed\``,
        );
      }
      await ensureVectorIndex(tx, dimension);
    }
    // Failed documents are written with no chunks: their old ones go.
    await replaceDocumentsChunks(
      tx,
      done.map(({ d, item, outcome }) => ({
        documentId: d.id,
        collectionId: d.collection_id,
        generation: item.generation,
        title: d.title,
        chunks: outcome.kind === 'indexed' ? outcome.chunks : [],
        vectors: outcome.kind === 'indexed' ? outcome.vectors : [],
      })),
      { model: deps.embedder.model, textConfig: deps.config.TEXT_SEARCH_CONFIG, now },
    );
    // The text is kept once: in the chunks when they rebuild it exactly (migration 080), otherwise in
    // document_texts, where a text document's upload waited (migrations 110, 118).
    const written = indexed.length
      ? await tx<{ id: string; rebuilt: boolean }[]>`
        update documents d
           set status = 'indexed', chunks_count = t.n, error_message = '', attempts = t.attempts,
               text_joins = case when r.rebuilt then t.joins::int[] end,
               file_size = case when d.source_type = 'url' then t.fetched else d.file_size end,
               indexed_at = ${now}, updated_at = ${now}
          from unnest(${indexed.map((x) => x.d.id)}::uuid[], ${indexed.map((x) => x.outcome.chunks.length)}::int[],
                      ${indexed.map((x) => x.outcome.loaded.text)}::text[], ${indexed.map((x) => x.outcome.loaded.fetchedBytes ?? 0)}::int8[],
                      ${indexed.map((x) => textJoins(x.outcome.loaded.text, x.outcome.chunks))}::text[],
                      ${indexed.map((x) => x.item.attempts)}::int[])
               as t(id, n, text, fetched, joins, attempts)
               cross join lateral (select coalesce(chunks_text(t.id, t.joins::int[]) = t.text, false) as rebuilt) r
         where d.id = t.id
         returning d.id, r.rebuilt`
      : [];
    if (indexed.length) await tx`delete from document_texts where document_id = any(${indexed.map((x) => x.d.id)}::uuid[])`;
    const kept = new Set(written.flatMap((w) => (w.rebuilt ? [] : [w.id])));
    if (kept.size) {
      const rows = indexed.filter((x) => kept.has(x.d.id));
      await tx`
        insert into document_texts (document_id, content)
        select * from unnest(${rows.map((x) => x.d.id)}::uuid[], ${rows.map((x) => x.outcome.loaded.text)}::text[])`;
    }
    if (failed.length)
      await tx`
        update documents d set status = 'failed', error_message = t.message, chunks_count = 0, attempts = t.attempts, updated_at = ${now}
          from unnest(${failed.map((x) => x.d.id)}::uuid[], ${failed.map((x) => x.outcome.message)}::text[],
                      ${failed.map((x) => x.item.attempts)}::int[]) as t(id, message, attempts)
         where d.id = t.id`;
    // In batch order; the organizations' webhooks are looked up once for the whole batch.
    await emitEvents(
      tx,
      done.map(({ d, outcome }) => ({
        organizationId: d.organization_id,
        ...(outcome.kind === 'indexed'
          ? {
              type: 'document.indexed' as const,
              data: eventData(
                { ...d, file_size: d.source_type === 'url' ? (outcome.loaded.fetchedBytes ?? 0) : d.file_size },
                outcome.chunks.length,
                null,
                'indexed',
              ),
            }
          : { type: 'document.failed' as const, data: eventData(d, 0, outcome.message, 'failed') }),
      })),
      now,
    );
    // Claimed jobs finished here: written, or stale (deleted or superseded meanwhile), as a stale job ends.
    const finished = items.flatMap((i) => (i.jobId && !release.includes(i.jobId) ? [i.jobId] : []));
    await completeBatchJobs(tx, workerId, finished);
  });
  for (const { d, outcome } of done) {
    if (outcome.kind === 'indexed') log.info({ documentId: d.id, chunks: outcome.chunks.length }, 'document indexed');
    else log.warn({ documentId: d.id, reason: outcome.message }, 'document failed');
  }
  return release;
}

/**
 * extract → chunk → embed → index, for the job's document and, when it is small, for the next
 * small documents in the queue (batch-claim.ts), in one transaction. Idempotent (processBatch).
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
    const workerId = helpers.job.locked_by ?? '';
    const claimed =
      workerId && batchable(doc)
        ? await claimBatchJobs(deps.sql, processDocumentJob.identifier, workerId, helpers.job.id, BATCH_DOCUMENTS - 1)
        : [];
    const others = new Map(
      (claimed.length
        ? await getDocumentsByIds(
            deps.sql,
            claimed.map((c) => c.documentId),
          )
        : []
      ).map((d) => [d.id, d]),
    );
    const items: Item[] = [{ doc, generation, attempts: helpers.job.attempts }];
    // Claimed jobs whose document is gone altogether end with the batch (as a stale job does).
    const gone: string[] = [];
    for (const c of claimed) {
      const d = others.get(c.documentId);
      if (d) items.push({ doc: d, generation: c.generation, attempts: c.attempts, jobId: c.jobId });
      else gone.push(c.jobId);
    }
    let release: string[] = [];
    try {
      release = await processBatch(deps, items, workerId, log);
      if (gone.length) await deps.sql.begin((tx) => completeBatchJobs(tx, workerId, gone));
    } catch (err) {
      release = claimed.map((c) => c.jobId);
      // The process is stopping: not an attempt of this document's (its job is given back).
      if (isStopping(err)) throw err;
      const final = helpers.job.attempts >= helpers.job.max_attempts;
      if (isPermanent(err) || final) {
        const message = isPermanent(err)
          ? (err as Error).message
          : `Processing failed after ${helpers.job.attempts} attempts: ${(err as Error).message}`;
        log.warn({ err }, 'document failed');
        await markFailed(deps, documentId, generation, helpers.job.attempts, message);
        return;
      }
      log.warn({ err }, 'transient failure: will retry');
      throw err;
    } finally {
      await releaseBatchJobs(deps.sql, workerId, release).catch((err: unknown) => log.warn({ err }, 'could not give back claimed jobs'));
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

/** Queues processing of many documents' generations at known priorities in one statement (enqueueJobs). */
export async function enqueueProcessingMany(
  tx: Tx,
  deps: { config: Pick<Config, 'PROCESS_MAX_ATTEMPTS'> },
  jobs: { payload: ProcessDocumentPayload; priority: number }[],
): Promise<void> {
  await processDocumentJob.enqueueMany(
    tx,
    jobs.map(({ payload, priority }) => ({ payload, opts: { maxAttempts: deps.config.PROCESS_MAX_ATTEMPTS, priority } })),
  );
}
