import type { Tx } from '../db/client.js';
import type { Config } from '../config.js';
import type { Clock } from '../types.js';
import { ranksByOrganization } from './processing-queue.js';
import type { DocumentRow } from './queries.js';
import type { Metadata } from '../metadata.js';
import { enqueueProcessing } from './process-document.js';

/** What a replace changes besides the processing state; reprocess and reembed change nothing else. */
export interface RestartChanges {
  blobKey?: string;
  filename?: string;
  size?: number;
  mediaType?: string;
  sourceType?: string;
  title?: string;
  tags?: string[];
  /** Replaces the whole metadata object; kept when undefined. */
  metadata?: Metadata;
  /** The new file's SHA-256 (replace); kept when undefined. */
  contentSha256?: string | null;
}

export type RestartDeps = { clock: Clock; config: Pick<Config, 'PROCESS_MAX_ATTEMPTS'> };

export type RestartTarget = { document: DocumentRow; changes?: RestartChanges } | { everyLiveDocument: true };

/**
 * "Back to pending", written once for replace, reprocess and reembed: the document's chunks leave
 * search at once, it gets a new generation (so a job still running for the old one can never write
 * its results), its processing state is reset (indexed_at included), its inline text kept only for
 * text documents (the others' text is extracted again), every timestamp comes from the service
 * clock, and processing is queued in this same transaction. Returns how many documents restarted.
 *
 * One document (replace, reprocess; the caller holds its row lock) or every live document (reembed,
 * queued oldest first within each organization, organizations interleaved: processing-queue.ts).
 */
export async function restartDocuments(tx: Tx, deps: RestartDeps, target: RestartTarget): Promise<number> {
  const now = deps.clock.now();
  const one = 'document' in target ? target.document : undefined;
  const ch: RestartChanges = ('document' in target && target.changes) || {};
  if (one && ch.blobKey && one.blob_key)
    await tx`insert into orphan_blobs (blob_key, orphaned_at) values (${one.blob_key}, ${now}) on conflict do nothing`;
  const which = one ? tx`d.id = ${one.id}` : tx`d.deleted_at is null`;
  // A text document's text waits in document_texts again (migration 110): rebuilt from the chunks,
  // which go below, when they hold it (migration 080); already there otherwise. Any other
  // document's text is extracted again, so a copy its chunks did not rebuild goes (migration 118).
  await tx`
    insert into document_texts (document_id, content)
    select d.id, document_text(d.id, d.text_joins) from documents d where ${which} and d.source_type = 'text' and d.text_joins is not null
    on conflict (document_id) do nothing`;
  await tx`
    delete from document_texts t using documents d
     where d.id = t.document_id and ${which} and d.source_type <> 'text'`;
  const rows = await tx<{ id: string; generation: number; organization_id: string; created_at: Date }[]>`
    update documents d set
      generation = d.generation + 1, status = 'pending', chunks_count = 0, error_message = '', attempts = 0, indexed_at = null,
      text_joins = null,
      ${
        one
          ? tx`blob_key = ${ch.blobKey ?? one.blob_key}, original_filename = ${ch.filename ?? one.original_filename},
               file_size = ${ch.size ?? one.file_size}, media_type = ${ch.mediaType ?? one.media_type},
               source_type = ${ch.sourceType ?? one.source_type}, title = ${ch.title ?? one.title}, tags = ${ch.tags ?? one.tags},
               metadata = coalesce(${ch.metadata ? tx.json(ch.metadata as never) : null}::jsonb, d.metadata),
               content_sha256 = ${ch.contentSha256 === undefined ? one.content_sha256 : ch.contentSha256},`
          : tx``
      }
      updated_at = ${now}
      from collections c
     where c.id = d.collection_id and ${which}
    returning d.id, d.generation, c.organization_id, d.created_at`;
  if (one) await tx`delete from chunks where document_id = ${one.id}`;
  else await tx`delete from chunks`;
  if (one) {
    for (const r of rows) await enqueueProcessing(tx, deps, { documentId: r.id, generation: r.generation });
    return rows.length;
  }
  rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  const ranks = ranksByOrganization(rows);
  for (const [i, r] of rows.entries()) await enqueueProcessing(tx, deps, { documentId: r.id, generation: r.generation }, ranks[i]);
  return rows.length;
}
