import type { Tx } from '../db/client.js';

/**
 * Per-organization fairness of the document-processing queue.
 *
 * graphile-worker runs the available job with the lowest `priority`, then the earliest `run_at`.
 * Every `process_document` job is given, as its priority, its RANK in its organization's backlog:
 * the number of that organization's documents already pending when it is queued. An
 * organization's first pending document ranks 0, its 10,000th ranks 9,999 (capped, below). So the
 * worker serves organizations round-robin: the next job is always one of the least-advanced
 * backlogs' heads, and one tenant's 10,000 uploads delay another tenant's single upload by at most
 * the jobs already running (plus one job per other organization with a document ranked 0).
 * Within an organization, order stays first come, first served.
 *
 * Why not named queues: a graphile-worker queue runs one job at a time, so a queue per
 * organization would cap each organization at one concurrent job, and a self-hosted instance
 * with one organization would lose its WORKER_CONCURRENCY. Priorities keep full concurrency.
 *
 * Other jobs (webhook deliveries, recurring maintenance) keep priority 0, so a deep document
 * backlog never delays them either. Retries keep their job's rank.
 */

/**
 * Ranks are counted up to this; deeper backlogs share the last rank and are served first come,
 * first served among themselves. Bounds the count to a short index walk per upload.
 */
export const FAIR_RANK_CAP = 1000;

/** Priority for a processing job of `documentId` (its row already written in this transaction). */
export async function processingPriority(tx: Tx, documentId: string): Promise<number> {
  const rows = await tx<{ rank: number }[]>`
    select count(*)::int as rank
      from (select 1
              from documents d
              join collections c on c.id = d.collection_id
             where c.organization_id = (select c2.organization_id from documents d2 join collections c2 on c2.id = d2.collection_id
                                         where d2.id = ${documentId})
               and d.status = 'pending' and d.deleted_at is null and d.id <> ${documentId}
             limit ${FAIR_RANK_CAP}) ahead`;
  return rows[0]?.rank ?? 0;
}

/** Ranks for many documents queued at once (reembed): the n-th document of each organization ranks n. */
export function ranksByOrganization(docs: { organization_id: string }[]): number[] {
  const seen = new Map<string, number>();
  return docs.map((d) => {
    const rank = seen.get(d.organization_id) ?? 0;
    seen.set(d.organization_id, rank + 1);
    return Math.min(rank, FAIR_RANK_CAP);
  });
}
