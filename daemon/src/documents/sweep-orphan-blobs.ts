import type { Task } from 'graphile-worker';
import { defineJob } from '../jobs/queue.js';
import type { AppDeps } from '../types.js';

const HOUR = 3_600_000;
const PAGE = 500;

/**
 * Deletes stored files that no document references, once older than ORPHAN_BLOB_GRACE_HOURS: the
 * complete blobs and temp files an API process leaves behind when it dies mid-upload (`kill -9`,
 * power loss), and blobs kept because a COMMIT's outcome could not be learned but which never
 * committed. Referenced means: the current file of a document whose file has not been purged yet
 * (deleted documents keep theirs for the 7-day purge), or a replaced file waiting in orphan_blobs
 * for that same purge. The grace period covers uploads in flight: a file is written before its row
 * commits, and no upload takes hours between the two. Idempotent; a second run finds nothing.
 */
export async function sweepOrphanBlobs(deps: AppDeps): Promise<{ removed: number }> {
  const cutoff = deps.clock.now().getTime() - deps.config.ORPHAN_BLOB_GRACE_HOURS * HOUR;
  let removed = 0;
  let page: string[] = [];
  const sweepPage = async () => {
    const keys = page;
    page = [];
    const referenced = new Set(
      (
        await deps.sql<{ blob_key: string }[]>`
          select blob_key from documents where blob_key = any(${keys}::text[]) and blob_purged_at is null
          union
          select blob_key from orphan_blobs where blob_key = any(${keys}::text[])`
      ).map((r) => r.blob_key),
    );
    for (const key of keys) {
      if (referenced.has(key)) continue;
      await deps.blobs.delete(key);
      removed++;
    }
  };
  // Only the documents namespace: every key the daemon writes lives under docs/.
  for await (const blob of deps.blobs.list('docs/')) {
    if (blob.modifiedAt.getTime() >= cutoff) continue;
    page.push(blob.key);
    if (page.length >= PAGE) await sweepPage();
  }
  if (page.length) await sweepPage();
  return { removed };
}

export function sweepOrphanBlobsTask(deps: AppDeps): Task {
  return async () => {
    const r = await sweepOrphanBlobs(deps);
    if (r.removed) deps.logger.info(r, 'removed stored files that no document references');
  };
}

export const sweepOrphanBlobsJob = defineJob<object>({ identifier: 'sweep_orphan_blobs', task: sweepOrphanBlobsTask });
