import type { IncomingMessage } from 'node:http';
import type { Tx } from '../db/client.js';
import { getDocumentById, getDocumentsByIds, type DocumentRow } from './queries.js';
import { commitOutcomeUnknown } from './access.js';
import { beginResolvingCommit, CommitOutcomeUnknownError } from '../db/resolve-commit.js';
import { AppError } from '../errors.js';
import { type UnsafeUrlError, validatePublicUrl } from '../net/ssrf.js';
import type { AppDeps, Caller } from '../types.js';
import { requireWritableCollection } from '../collections/service.js';
import { enqueueProcessing, enqueueProcessingMany } from './process-document.js';
import { FAIR_RANK_CAP, processingPriority } from './processing-queue.js';
import { createHash } from 'node:crypto';
import { classify, readMeta, rejectNul, validateMeta, type DocumentInput, type Meta, type SkippedFile } from './checks.js';
import { receiveMultipart, textTooLarge, type ReceivedFile } from './multipart.js';
import { baseFilename } from './filenames.js';
import type { Metadata } from '../metadata.js';

async function insertRow(
  tx: Tx,
  deps: AppDeps,
  caller: Caller,
  d: {
    id?: string;
    collectionId: string;
    title: string;
    sourceType: string;
    tags: string[];
    metadata?: Metadata;
    filename: string;
    size: number;
    mediaType: string;
    blobKey: string | null;
    sourceUrl: string | null;
    contentText: string;
    contentSha256: string | null;
  },
): Promise<string> {
  const now = deps.clock.now();
  const rows = await tx<{ id: string }[]>`
    insert into documents (id, collection_id, uploaded_by, title, source_type, tags, metadata, original_filename, file_size, media_type, blob_key, source_url, content_sha256, created_at, updated_at)
    values (coalesce(${d.id ?? null}::uuid, gen_random_uuid()), ${d.collectionId}, ${caller.userId}, ${d.title}, ${d.sourceType}, ${d.tags}, ${tx.json((d.metadata ?? {}) as never)}::jsonb, ${d.filename}, ${d.size},
            ${d.mediaType}, ${d.blobKey}, ${d.sourceUrl}, ${d.contentSha256}, ${now}, ${now})
    returning id`;
  const id = rows[0]!.id;
  // Not in the documents row: it waits in its own table until the chunks hold it (migration 110).
  if (d.contentText) await tx`insert into document_texts (document_id, content) values (${id}, ${d.contentText})`;
  return id;
}

/**
 * The rows of a batch's files (one collection, the same tags, a stored file each) in one statement:
 * the same rows insertRow writes one by one, in the same order, without a statement per document.
 */
async function insertFileRows(
  tx: Tx,
  deps: AppDeps,
  caller: Caller,
  shared: { collectionId: string; tags: string[]; metadata?: Metadata },
  rows: {
    id: string;
    title: string;
    sourceType: string;
    filename: string;
    size: number;
    mediaType: string;
    blobKey: string;
    contentSha256: string | null;
  }[],
): Promise<void> {
  if (!rows.length) return;
  // As text: postgres.js sends an array of Dates as one timestamp, not as timestamptz[].
  const now = rows.map(() => deps.clock.now().toISOString());
  await tx`
    insert into documents (id, collection_id, uploaded_by, title, source_type, tags, metadata, original_filename, file_size, media_type, blob_key, source_url, content_sha256, created_at, updated_at)
    select t.id, ${shared.collectionId}, ${caller.userId}, t.title, t.source_type, ${shared.tags}, ${tx.json((shared.metadata ?? {}) as never)}::jsonb, t.filename, t.size, t.media_type, t.blob_key, null, t.sha, t.at, t.at
      from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.title)}::text[], ${rows.map((r) => r.sourceType)}::text[],
                  ${rows.map((r) => r.filename)}::text[], ${rows.map((r) => r.size)}::int8[], ${rows.map((r) => r.mediaType)}::text[],
                  ${rows.map((r) => r.blobKey)}::text[], ${rows.map((r) => r.contentSha256)}::text[], ${now}::timestamptz[])
           with ordinality as t(id, title, source_type, filename, size, media_type, blob_key, sha, at, ord)
     order by t.ord`;
}

/** The columns of a URL document before its page is fetched (process-document.ts fills the text). */
export function urlDocumentFields(url: URL) {
  return {
    sourceType: 'url',
    size: 0,
    mediaType: 'text/html',
    blobKey: null,
    sourceUrl: url.toString(),
    contentText: '',
    contentSha256: null,
  } as const;
}

/** The columns of a text document (`source_type: text`): its content is its text. */
export function textDocumentFields(content: string) {
  return {
    size: Buffer.byteLength(content),
    mediaType: 'text/plain',
    blobKey: null,
    sourceUrl: null,
    contentText: content,
    contentSha256: createHash('sha256').update(content).digest('hex'),
  } as const;
}

/** A new document's row and its processing job, ranked in its organization's backlog. */
export async function insertDocument(tx: Tx, deps: AppDeps, caller: Caller, d: Parameters<typeof insertRow>[3]): Promise<string> {
  const id = await insertRow(tx, deps, caller, d);
  await enqueueProcessing(tx, deps, { documentId: id, generation: 1 });
  return id;
}

/** The rows of `ids`, in that order, read in one statement (a batch's hundred documents included). */
async function loadRows(deps: AppDeps, ids: string[]): Promise<DocumentRow[]> {
  const byId = new Map((await getDocumentsByIds(deps.sql, ids)).map((d) => [d.id, d]));
  return ids.map((id) => byId.get(id)!);
}

export type UploadOutcome = { kind: 'single'; document: DocumentRow } | { kind: 'batch'; uploaded: DocumentRow[]; skipped: SkippedFile[] };

/**
 * POST /collections/{uuid}/documents/: single file, batch, text or URL document. `opts.fields`
 * rewrites the text fields before they are checked (the web UI's forms write metadata as lines).
 */
export async function uploadDocuments(
  deps: AppDeps,
  caller: Caller,
  collectionId: string,
  req: { body: IncomingMessage | ReadableStream<Uint8Array>; headers: Record<string, string> },
  opts: { fields?: (fields: Record<string, string>) => Record<string, string> } = {},
): Promise<UploadOutcome> {
  // Access is decided before a single byte of the body is read.
  const collection = await requireWritableCollection(deps.sql, caller, collectionId);
  const received = await receiveMultipart(req.body, req.headers, deps.blobs, {
    collectionId: collection.id,
    maxTextBytes: deps.config.MAX_TEXT_DOCUMENT_BYTES,
  });
  const { fields } = received;
  const cleanup = (list: ReceivedFile[]) => Promise.all(list.map((f) => deps.blobs.delete(f.blobKey).catch(() => {})));
  const files = received.files.filter((f) => !f.empty);
  await cleanup(received.files.filter((f) => f.empty));
  let outcome: { kind: 'single'; id: string } | { kind: 'batch'; ids: string[]; skipped: SkippedFile[] };
  try {
    outcome = await storeUpload(deps, caller, collection.id, opts.fields?.(fields) ?? fields, files, received.files, cleanup);
  } catch (err) {
    // The rows may have committed even though the reply was lost: their files stay.
    if (err instanceof CommitOutcomeUnknownError) throw commitOutcomeUnknown();
    // Nothing half-written: no document row means no blob either.
    await cleanup(files);
    throw err;
  }
  // Committed: from here on, a failure (reading the rows back) must never remove a file.
  if (outcome.kind === 'single') return { kind: 'single', document: (await loadRows(deps, [outcome.id]))[0]! };
  return { kind: 'batch', uploaded: await loadRows(deps, outcome.ids), skipped: outcome.skipped };
}

/** Validates the received parts and writes the rows; the caller owns the blobs until this returns. */
async function storeUpload(
  deps: AppDeps,
  caller: Caller,
  collectionId: string,
  fields: Record<string, string>,
  files: ReceivedFile[],
  all: ReceivedFile[],
  cleanup: (list: ReceivedFile[]) => Promise<unknown>,
): Promise<{ kind: 'single'; id: string } | { kind: 'batch'; ids: string[]; skipped: SkippedFile[] }> {
  const meta = readMeta(fields);
  const wantsBatch = all.some((f) => f.field === 'files') || 'files' in fields || fields.batch === 'true';
  const single = files.filter((f) => f.field === 'file');
  const batch = files.filter((f) => f.field === 'files');
  const stray = files.filter((f) => f.field !== 'file' && f.field !== 'files');
  await cleanup(stray);

  if (!files.length && (meta.sourceTypeOverride === 'text' || meta.sourceTypeOverride === 'url')) {
    return { kind: 'single', id: await createNonFileDocument(deps, caller, collectionId, meta, fields) };
  }
  if (single.length && batch.length)
    throw new AppError('VALIDATION_FAILED', 'Send either `file` (one document) or `files` (a batch), not both.', {
      file: ['Use one of file or files.'],
    });
  if (single.length > 1)
    throw new AppError('VALIDATION_FAILED', 'Only one `file` part is allowed; use `files` for a batch.', { file: ['Only one file.'] });

  const row = (f: ReceivedFile, sourceType: string) => ({
    id: f.documentId,
    collectionId,
    title: meta.title ?? baseFilename(f.filename),
    sourceType,
    tags: meta.tags,
    metadata: meta.metadata,
    filename: f.filename,
    size: f.size,
    mediaType: f.mediaType,
    blobKey: f.blobKey,
    sourceUrl: null,
    contentText: '',
    contentSha256: f.sha256 ?? null,
  });
  if (single.length === 1 || !wantsBatch) {
    const f = single[0];
    if (!f) throw new AppError('NO_FILE_PROVIDED', 'No file provided: send the document in a `file` part (or several in `files`).');
    const c = classify(f, meta.sourceTypeOverride);
    if ('code' in c) throw new AppError(c.code, c.reason);
    const id = await beginResolvingCommit(deps.sql, (tx) => insertDocument(tx, deps, caller, row(f, c.sourceType)));
    return { kind: 'single', id };
  }

  if (!batch.length) throw new AppError('NO_FILES_PROVIDED', 'No files provided: send one or more `files` parts.');
  const accepted: { f: ReceivedFile; sourceType: string }[] = [];
  const skipped: SkippedFile[] = [];
  for (const f of batch) {
    const c = classify(f, meta.sourceTypeOverride);
    if ('code' in c) {
      // Storage being down is not a problem of one file: the whole request fails with 500.
      if (c.code === 'UPLOAD_FAILED') throw new AppError(c.code, c.reason);
      skipped.push({ filename: f.filename, reason: c.reason, code: c.code });
    } else accepted.push({ f, sourceType: c.sourceType });
  }
  await cleanup(batch.filter((f) => !accepted.some((a) => a.f === f)));
  const ids = await beginResolvingCommit(deps.sql, async (tx) => {
    // The batch's documents rank one after another in their organization's backlog (processing-queue.ts):
    // the first one's rank is counted, the others follow it, instead of a count per document (an upload
    // of the same organization committing meanwhile shares ranks with this one, as it could before).
    const [head, ...rest] = accepted;
    if (!head) return [];
    const headId = await insertRow(tx, deps, caller, row(head.f, head.sourceType));
    const first = await processingPriority(tx, headId);
    // The other rows in one statement, then every job in one (enqueueJobs): a statement per document
    // cost the API and its backend more than the rows themselves.
    await insertFileRows(
      tx,
      deps,
      caller,
      { collectionId, tags: meta.tags, metadata: meta.metadata },
      rest.map(({ f, sourceType }) => row(f, sourceType)),
    );
    const ids = [headId, ...rest.map(({ f }) => f.documentId)];
    await enqueueProcessingMany(
      tx,
      deps,
      ids.map((id, i) => ({ payload: { documentId: id, generation: 1 }, priority: Math.min(first + i, FAIR_RANK_CAP) })),
    );
    return ids;
  });
  return { kind: 'batch', ids, skipped };
}

async function createNonFileDocument(
  deps: AppDeps,
  caller: Caller,
  collectionId: string,
  meta: Meta,
  body: Pick<DocumentInput, 'content' | 'url'>,
): Promise<string> {
  if (meta.sourceTypeOverride === 'url') {
    const raw = body.url?.trim();
    if (!raw) throw new AppError('URL_REQUIRED', 'source_type=url needs a `url` field.', { url: ['Required.'] });
    let url: URL;
    try {
      url = validatePublicUrl(raw, { allowPrivate: deps.config.ALLOW_PRIVATE_URLS });
    } catch (err) {
      throw new AppError('VALIDATION_FAILED', (err as UnsafeUrlError).message, { url: [(err as Error).message] });
    }
    const filename = decodeURIComponent(url.pathname.split('/').pop() ?? '') || url.hostname;
    return deps.sql.begin((tx) =>
      insertDocument(tx, deps, caller, {
        collectionId,
        title: meta.title ?? url.toString(),
        tags: meta.tags,
        metadata: meta.metadata,
        filename,
        ...urlDocumentFields(url),
      }),
    );
  }
  const content = body.content ?? '';
  if (Buffer.byteLength(content) > deps.config.MAX_TEXT_DOCUMENT_BYTES) throw textTooLarge(deps.config.MAX_TEXT_DOCUMENT_BYTES);
  if (!content.trim())
    throw new AppError('VALIDATION_FAILED', 'source_type=text needs a non-empty `content` field.', { content: ['Required.'] });
  const firstLine = content.trim().split(/\r?\n/)[0]!.trim().slice(0, 100);
  return deps.sql.begin((tx) =>
    insertDocument(tx, deps, caller, {
      collectionId,
      title: meta.title ?? firstLine,
      sourceType: 'text',
      tags: meta.tags,
      metadata: meta.metadata,
      filename: '',
      ...textDocumentFields(content),
    }),
  );
}

/** A text or URL document from a JSON body (API) or a form (web UI): same checks as the multipart upload. */
export async function createDocument(deps: AppDeps, caller: Caller, collectionId: string, input: DocumentInput): Promise<DocumentRow> {
  const collection = await requireWritableCollection(deps.sql, caller, collectionId);
  rejectNul((['source_type', 'content', 'url', 'title', 'tags'] as const).map((name) => [name, input[name]]));
  // An object here (JSON body); its strings are checked for NUL by validateMetadata.
  const meta = validateMeta(input);
  if (meta.sourceTypeOverride !== 'text' && meta.sourceTypeOverride !== 'url') {
    throw new AppError('VALIDATION_FAILED', 'JSON uploads create text or url documents; send files as multipart/form-data.', {
      source_type: ['Must be text or url.'],
    });
  }
  const id = await createNonFileDocument(deps, caller, collection.id, meta, input);
  return (await getDocumentById(deps.sql, id))!;
}
