import type { Sql, Tx } from '../db/client.js';
import { completeLockedJobs, lockJobs, releaseLockedJobs } from '../worker/graphile-internals.js';

/**
 * The bulk path for small documents. A `process_document` job whose document is small also claims
 * the next small documents' jobs, in the order graphile-worker would run them (priority = rank in
 * the organization's backlog, then run_at: processing-queue.ts), and indexes them all in one
 * transaction: per-document costs (a job fetch and completion, a dozen statements, a transaction,
 * a text_fresh row per lexeme) are shared by the batch. Per document, status, events and webhooks
 * are exactly those of a document processed alone.
 *
 * A claimed job is locked as graphile-worker locks the jobs it runs (attempts + 1, locked_by = the
 * claiming worker), so:
 * - no other worker takes it meanwhile;
 * - if the worker dies, crash recovery releases it with the worker's own job (worker/recovery.ts);
 * - it is deleted in the transaction that writes its document's outcome (a completed job), or
 *   released (attempts given back) when the batch could not finish it, and runs again on its own.
 * A document whose job was replaced meanwhile (a restart: new generation) is skipped by the
 * generation check, as a stale job is. The job-table SQL itself is worker/graphile-internals.ts's,
 * the one module that touches graphile-worker's private tables.
 */

/** Documents per batch (the claiming one included). */
export const BATCH_DOCUMENTS = 32;
/** Largest stored file that joins a batch; larger documents (many chunks anyway) run alone. */
export const BATCH_MAX_FILE_BYTES = 256 * 1024;

export interface ClaimedJob {
  jobId: string;
  documentId: string;
  generation: number;
  attempts: number;
}

/** Whether a document may be processed in a batch: a small stored file or inline text (never a URL fetch). */
export function batchable(d: { source_type: string; file_size: number }): boolean {
  return d.source_type !== 'url' && d.file_size <= BATCH_MAX_FILE_BYTES;
}

/** Locks up to `limit` available jobs (of task `identifier`: process_document) of small pending documents for `workerId`. */
export async function claimBatchJobs(
  sql: Sql,
  identifier: string,
  workerId: string,
  ownJobId: string,
  limit: number,
): Promise<ClaimedJob[]> {
  // Each candidate's document is one primary-key probe.
  const jobs = await lockJobs(sql, {
    identifier,
    workerId,
    exceptJobId: ownJobId,
    limit,
    where: sql`exists (select 1 from documents d
                        where d.id = (jobs.payload ->> 'documentId')::uuid and d.status = 'pending' and d.deleted_at is null
                          and d.source_type <> 'url' and d.file_size <= ${BATCH_MAX_FILE_BYTES})`,
  });
  return jobs.map((j) => ({
    jobId: j.jobId,
    documentId: String(j.payload.documentId),
    generation: Number(j.payload.generation),
    attempts: j.attempts,
  }));
}

/** Completes claimed jobs in the transaction that wrote their documents' outcome. */
export const completeBatchJobs: (tx: Tx, workerId: string, jobIds: string[]) => Promise<void> = completeLockedJobs;

/** Gives claimed jobs back, their attempt undone: each runs again on its own. */
export const releaseBatchJobs: (sql: Sql, workerId: string, jobIds: string[]) => Promise<void> = releaseLockedJobs;
