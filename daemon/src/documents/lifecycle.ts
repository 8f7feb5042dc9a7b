import type { IncomingMessage } from 'node:http';
import { getDocumentById, type DocumentRow } from './queries.js';
import { AppError } from '../errors.js';
import { beginResolvingCommit, CommitOutcomeUnknownError } from '../db/resolve-commit.js';
import type { AppDeps, Caller } from '../types.js';
import { requireWritableCollection } from '../collections/service.js';
import { classify, readMeta } from './checks.js';
import { commitOutcomeUnknown, documentNotFound, getVisibleDocument } from './access.js';
import { restartDocuments } from './restart.js';
import { receiveMultipart } from './multipart.js';

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
    // Upload's checks: at most 500 title characters, 50 tags of 100, no NUL in any field.
    const meta = readMeta(fields);
    // An oversized `file` part never gets here: receiveMultipart refuses the whole request.
    const checked = classify(f, meta.sourceTypeOverride);
    if ('code' in checked) throw new AppError(checked.code, checked.reason);
    const { sourceType } = checked;
    const title = meta.title;
    // An absent `tags` field keeps the document's tags; an empty one clears them.
    const tags = fields.tags !== undefined ? meta.tags : undefined;
    const metadata = meta.metadata;
    await beginResolvingCommit(deps.sql, async (tx) => {
      const current = await getDocumentById(tx, d.id, { forUpdate: true });
      if (!current || current.deleted_at) throw documentNotFound();
      await restartDocuments(tx, deps, {
        document: current,
        changes: {
          blobKey: f.blobKey,
          filename: f.filename,
          size: f.size,
          mediaType: f.mediaType,
          sourceType,
          title,
          tags,
          metadata,
          contentSha256: f.sha256 ?? null,
        },
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
    await restartDocuments(tx, deps, { document: current });
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
