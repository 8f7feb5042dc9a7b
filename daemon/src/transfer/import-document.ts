// One document of an import, rebuilt as an upload would make it: the same checks (title, tags,
// metadata, file type and content, text size, URL safety), the original streamed to the store, and
// the row with its processing job in one transaction. Its uuid is derived from the target
// collection and the exported uuid, so a document already imported is recognised and skipped.
import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import { classify, validateMeta } from '../documents/checks.js';
import { MAX_FILE_BYTES, type ReceivedFile } from '../documents/multipart.js';
import { insertDocument, textDocumentFields, urlDocumentFields } from '../documents/upload.js';
import type { AppError } from '../errors.js';
import { validatePublicUrl } from '../net/ssrf.js';
import { BlobTooLargeError } from '../storage/types.js';
import type { AppDeps, Caller } from '../types.js';
import { type DocumentLine, importedDocumentId } from './format.js';

export type Outcome = { kind: 'imported' } | { kind: 'present' } | { kind: 'failed'; reason: string };

const failed = (reason: string): Outcome => ({ kind: 'failed', reason });

async function exists(deps: AppDeps, id: string): Promise<boolean> {
  return (await deps.sql`select 1 from documents where id = ${id}`).length > 0;
}

/** Streams `body` into the store under `key`: its size, first bytes and SHA-256, or why it was refused. */
async function storeFile(deps: AppDeps, key: string, body: Readable, mediaType: string) {
  const hash = createHash('sha256');
  const hashing = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      cb(null, chunk);
    },
  });
  // piped, not pipelined: a refused file leaves the archive's entry to be skipped, not destroyed.
  body.pipe(hashing);
  try {
    const put = await deps.blobs.put(key, hashing, { maxBytes: MAX_FILE_BYTES, contentType: mediaType });
    return { ...put, sha256: hash.digest('hex') };
  } catch (err) {
    body.unpipe(hashing);
    if (err instanceof BlobTooLargeError) return undefined;
    throw err;
  }
}

async function insert(deps: AppDeps, caller: Caller, row: Parameters<typeof insertDocument>[3]): Promise<Outcome> {
  try {
    await deps.sql.begin((tx) => insertDocument(tx, deps, caller, row));
    return { kind: 'imported' };
  } catch (err) {
    // The same archive imported at the same moment by another request.
    if ((err as { code?: string }).code === '23505') return { kind: 'present' };
    throw err;
  }
}

export async function importDocument(
  deps: AppDeps,
  caller: Caller,
  collectionId: string,
  line: DocumentLine,
  body: Readable | undefined,
): Promise<Outcome> {
  const id = importedDocumentId(collectionId, line.uuid);
  if (await exists(deps, id)) return { kind: 'present' };
  let meta: ReturnType<typeof validateMeta>;
  try {
    meta = validateMeta({ title: line.title, tags: line.tags, metadata: line.metadata });
  } catch (err) {
    return failed((err as AppError).message);
  }
  const base = {
    id,
    collectionId,
    title: meta.title ?? line.title,
    tags: meta.tags,
    ...(meta.metadata ? { metadata: meta.metadata } : {}),
    filename: line.original_filename ?? '',
  };
  if (line.source_type === 'text') {
    const content = line.content ?? '';
    if (!content.trim()) return failed('a text document without text');
    if (Buffer.byteLength(content) > deps.config.MAX_TEXT_DOCUMENT_BYTES)
      return failed(`the text is larger than MAX_TEXT_DOCUMENT_BYTES (${deps.config.MAX_TEXT_DOCUMENT_BYTES} bytes) on this server`);
    return insert(deps, caller, {
      ...base,
      sourceType: 'text',
      ...textDocumentFields(content),
    });
  }
  if (line.source_type === 'url') {
    let url: URL;
    try {
      url = validatePublicUrl(line.source_url ?? '', { allowPrivate: deps.config.ALLOW_PRIVATE_URLS });
    } catch (err) {
      return failed((err as Error).message);
    }
    return insert(deps, caller, { ...base, ...urlDocumentFields(url) });
  }
  if (!body) return failed(`its original (${line.file ?? 'no file entry'}) is missing from the archive`);
  const key = `docs/${collectionId}/${id}`;
  const stored = await storeFile(deps, key, body, line.media_type);
  if (!stored) return failed('File exceeds the 50 MiB limit.');
  const refuse = async (reason: string) => {
    await deps.blobs.delete(key).catch(() => {});
    return failed(reason);
  };
  if (line.content_sha256 && stored.sha256 !== line.content_sha256)
    return refuse(`its original is damaged: SHA-256 ${stored.sha256}, the manifest says ${line.content_sha256}`);
  const received = {
    filename: line.original_filename,
    mediaType: line.media_type,
    head: stored.head,
    size: stored.size,
    tooLarge: false,
  } as ReceivedFile;
  const c = classify(received, line.source_type);
  if ('code' in c) return refuse(c.reason);
  return insert(deps, caller, {
    ...base,
    sourceType: c.sourceType,
    size: stored.size,
    mediaType: line.media_type,
    blobKey: key,
    sourceUrl: null,
    contentText: '',
    contentSha256: stored.sha256,
  });
}
