import type { Task } from 'graphile-worker';
import { defineJob } from '../jobs/queue.js';
import type { AppDeps } from '../types.js';

/** The default of BLOB_RETENTION_DAYS (config.ts). */
export const BLOB_RETENTION_DAYS = 7;
const BATCH = 500;

/**
 * Permanently deletes stored files of documents (and collections) soft-deleted more than
 * BLOB_RETENTION_DAYS ago, and of files orphaned by replace. Idempotent: a blob already gone counts
 * as purged. The same days are the point-in-time recovery window (local-pg/pitr-settings.ts).
 */
export async function purgeBlobs(deps: AppDeps): Promise<{ documents: number; orphans: number }> {
  const cutoff = new Date(deps.clock.now().getTime() - deps.config.BLOB_RETENTION_DAYS * 86_400_000);
  let documents = 0;
  let orphans = 0;
  for (;;) {
    const rows = await deps.sql<{ id: string; blob_key: string | null }[]>`
      select id, blob_key from documents
       where deleted_at is not null and deleted_at < ${cutoff} and blob_purged_at is null
       order by deleted_at limit ${BATCH}`;
    if (!rows.length) break;
    for (const r of rows) {
      if (r.blob_key) await deps.blobs.delete(r.blob_key);
      await deps.sql`update documents set blob_purged_at = ${deps.clock.now()} where id = ${r.id}`;
      documents++;
    }
  }
  for (;;) {
    const rows = await deps.sql<{ blob_key: string }[]>`
      select blob_key from orphan_blobs where orphaned_at < ${cutoff} order by orphaned_at limit ${BATCH}`;
    if (!rows.length) break;
    for (const r of rows) {
      await deps.blobs.delete(r.blob_key);
      await deps.sql`delete from orphan_blobs where blob_key = ${r.blob_key}`;
      orphans++;
    }
  }
  await deps.sql`
    update collections set blobs_purged_at = ${deps.clock.now()}
     where deleted_at is not null and deleted_at < ${cutoff} and blobs_purged_at is null`;
  return { documents, orphans };
}

export function purgeBlobsTask(deps: AppDeps): Task {
  return async () => {
    const r = await purgeBlobs(deps);
    if (r.documents || r.orphans) deps.logger.info(r, 'purged blobs');
  };
}

export const purgeBlobsJob = defineJob<object>({ identifier: 'purge_blobs', task: purgeBlobsTask });
