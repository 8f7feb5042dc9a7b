import type { IncomingMessage } from 'node:http';
import type { Tx } from '../db/client.js';
import { chunksOfDocument, contentText, getDocumentById, listVisibleDocuments, type DocumentRow, type DocumentStatus } from './queries.js';
import { AppError } from '../errors.js';
import { beginResolvingCommit, CommitOutcomeUnknownError } from '../db/resolve-commit.js';
import type { AppDeps, Caller } from '../types.js';
import { requireWritableCollection } from '../services/collections.js';
import { detailJson } from './json.js';
import { createDownloadToken, DOWNLOAD_LINK_TTL_SEC } from './download-links.js';
import { commitOutcomeUnknown, documentNotFound, enqueueProcessing, getVisibleDocument } from './upload.js';
import { parseTags } from './json.js';
import { checkMagic, detectSourceType } from '../ingest/file-types.js';
import { receiveMultipart } from './multipart.js';

/** Drops a document's search entries and queues it for processing from scratch under a new generation. */
async function restart(
  tx: Tx,
  deps: AppDeps,
  d: DocumentRow,
  changes: { blobKey?: string; filename?: string; size?: number; mediaType?: string; sourceType?: string; title?: string; tags?: string[] },
) {
  const now = deps.clock.now();
  if (changes.blobKey && d.blob_key)
    await tx`insert into orphan_blobs (blob_key, orphaned_at) values (${d.blob_key}, ${now}) on conflict do nothing`;
  await tx`delete from chunks where document_id = ${d.id}`;
  const rows = await tx<{ generation: number }[]>`
    update documents set
      generation = generation + 1, status = 'pending', chunks_count = 0, error_message = '', attempts = 0, indexed_at = null,
      content_text = case when source_type = 'text' then content_text else '' end,
      blob_key = ${changes.blobKey ?? d.blob_key}, original_filename = ${changes.filename ?? d.original_filename},
      file_size = ${changes.size ?? d.file_size}, media_type = ${changes.mediaType ?? d.media_type},
      source_type = ${changes.sourceType ?? d.source_type}, title = ${changes.title ?? d.title}, tags = ${changes.tags ?? d.tags},
      updated_at = ${now}
    where id = ${d.id}
    returning generation`;
  await enqueueProcessing(tx, deps, d.id, rows[0]!.generation);
}

/** POST /documents/{uuid}/replace/: same uuid, new file, processed from scratch; old chunks leave search at once. */
export async function replaceDocument(
  deps: AppDeps,
  caller: Caller,
  id: string,
  req: { body: IncomingMessage | ReadableStream<Uint8Array>; headers: Record<string, string> },
) {
  const d = await getVisibleDocument(deps.sql, caller, id);
  await requireWritableCollection(deps.sql, caller, d.collection_id);
  const { fields, files } = await receiveMultipart(req.body, req.headers, deps.blobs, {
    collectionId: d.collection_id,
    maxTextBytes: deps.config.MAX_TEXT_DOCUMENT_BYTES,
  });
  const f = files.find((x) => x.field === 'file' && !x.empty);
  const unused = files.filter((x) => x !== f);
  await Promise.all(unused.map((x) => deps.blobs.delete(x.blobKey).catch(() => {})));
  try {
    if (!f) throw new AppError('NO_FILE_PROVIDED', 'No file provided: send the new version in a `file` part.');
    if (f.tooLarge) throw new AppError('FILE_TOO_LARGE', `File "${f.filename}" exceeds the 50 MB limit.`);
    if (f.failed) throw new AppError('UPLOAD_FAILED', 'The file could not be written to storage.');
    const sourceType = detectSourceType(f.filename, f.mediaType, fields.source_type?.trim().toLowerCase() || undefined);
    if (!sourceType || sourceType === 'text' || sourceType === 'url')
      throw new AppError('UNSUPPORTED_FILE_TYPE', `Unsupported file type for "${f.filename}" (${f.mediaType}).`);
    if (!checkMagic(sourceType, f.head))
      throw new AppError('INVALID_FILE_CONTENT', `The content of "${f.filename}" does not match its type (${sourceType}).`);
    const title = fields.title?.trim() || undefined;
    const tags = fields.tags !== undefined ? parseTags(fields.tags) : undefined;
    await beginResolvingCommit(deps.sql, async (tx) => {
      const current = await getDocumentById(tx, d.id, { forUpdate: true });
      if (!current || current.deleted_at) throw documentNotFound();
      await restart(tx, deps, current, {
        blobKey: f.blobKey,
        filename: f.filename,
        size: f.size,
        mediaType: f.mediaType,
        sourceType,
        title,
        tags,
      });
    });
  } catch (err) {
    // The row may point at the new file although the reply was lost: the file stays.
    if (err instanceof CommitOutcomeUnknownError) throw commitOutcomeUnknown();
    if (f) await deps.blobs.delete(f.blobKey).catch(() => {});
    throw err;
  }
  return (await getDocumentById(deps.sql, d.id))!;
}

export async function reprocessDocument(deps: AppDeps, caller: Caller, id: string): Promise<DocumentRow> {
  const d = await getVisibleDocument(deps.sql, caller, id);
  await requireWritableCollection(deps.sql, caller, d.collection_id);
  await deps.sql.begin(async (tx) => {
    const current = await getDocumentById(tx, d.id, { forUpdate: true });
    if (!current || current.deleted_at) throw documentNotFound();
    await restart(tx, deps, current, {});
  });
  return (await getDocumentById(deps.sql, d.id))!;
}

export async function deleteDocument(deps: AppDeps, caller: Caller, id: string): Promise<void> {
  const d = await getVisibleDocument(deps.sql, caller, id);
  await requireWritableCollection(deps.sql, caller, d.collection_id);
  await deps.sql.begin(async (tx) => {
    const now = deps.clock.now();
    await tx`update documents set deleted_at = ${now}, updated_at = ${now} where id = ${d.id} and deleted_at is null`;
    await tx`delete from chunks where document_id = ${d.id}`;
  });
}

export async function documentDetail(deps: AppDeps, caller: Caller, id: string) {
  const d = await getVisibleDocument(deps.sql, caller, id);
  const [text, chunks] = await Promise.all([contentText(deps.sql, d.id), chunksOfDocument(deps.sql, d.id)]);
  return detailJson(d, text, chunks);
}

export interface Cursor {
  createdAt: Date;
  id: string;
}

export function encodeCursor(d: DocumentRow): string {
  return Buffer.from(`${d.created_at.toISOString()}|${d.id}`).toString('base64url');
}

export function decodeCursor(raw: string): Cursor {
  const [ts, id] = Buffer.from(raw, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(ts ?? '');
  if (!id || Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/i.test(id)) {
    throw new AppError('VALIDATION_FAILED', 'Invalid cursor.', { cursor: ['Use the cursor from the previous page’s Link header.'] });
  }
  return { createdAt, id };
}

export async function listDocuments(
  deps: AppDeps,
  caller: Caller,
  q: { tag?: string; collection?: string; status?: DocumentStatus; limit: number; cursor?: string },
) {
  const rows = await listVisibleDocuments(deps.sql, caller, {
    tag: q.tag,
    collection: q.collection,
    status: q.status,
    limit: q.limit + 1,
    cursor: q.cursor ? decodeCursor(q.cursor) : undefined,
  });
  const page = rows.slice(0, q.limit);
  return { page, next: rows.length > q.limit ? encodeCursor(page[page.length - 1]!) : null };
}

/**
 * Every visible document matching the filters, newest first, read from the database in batches
 * through a cursor so memory stays flat whatever the count (the specification's unpaginated list).
 */
export async function* allDocuments(
  deps: AppDeps,
  caller: Caller,
  q: { tag?: string; collection?: string; status?: DocumentStatus },
): AsyncGenerator<DocumentRow[]> {
  yield* listVisibleDocuments(deps.sql, caller, { tag: q.tag, collection: q.collection, status: q.status }).cursor(500);
}

/** Where GET /download/ redirects: a presigned store URL, or a daemon URL signed with HMAC, valid one hour. */
export async function downloadUrl(deps: AppDeps, caller: Caller, id: string, baseUrl: string): Promise<string> {
  const d = await getVisibleDocument(deps.sql, caller, id);
  if (!d.blob_key || !(await deps.blobs.exists(d.blob_key))) {
    throw new AppError(
      'DOCUMENT_FILE_NOT_FOUND',
      d.blob_key ? 'The original file is missing from storage.' : `Documents of type "${d.source_type}" have no stored file.`,
    );
  }
  const presigned = await deps.blobs.presignedUrl(d.blob_key, {
    filename: d.original_filename || `${d.id}`,
    contentType: d.media_type,
    expiresInSec: DOWNLOAD_LINK_TTL_SEC,
  });
  if (presigned) return presigned;
  const exp = Math.floor(deps.clock.now().getTime() / 1000) + DOWNLOAD_LINK_TTL_SEC;
  return `${baseUrl}/files/${createDownloadToken(deps.config.SIGNING_SECRET!, d.id, d.blob_key, exp)}`;
}
